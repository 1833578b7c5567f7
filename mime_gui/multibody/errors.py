"""Coded errors and warnings of the description reader."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One coded message with its place. ``line`` is 1-based, 0 when unknown."""

    code: str
    message: str
    file: str = ""
    line: int = 0

    def where(self) -> str:
        if self.file and self.line:
            return f"{self.file}:{self.line}"
        return self.file or (f"line {self.line}" if self.line else "")

    def __str__(self) -> str:
        where = self.where()
        return f"{self.code} {where}: {self.message}" if where else f"{self.code}: {self.message}"


class UrdfError(ValueError):
    """A refused description: a stable ``code`` (``urdf.*``), the place and how to fix it."""

    def __init__(self, code: str, message: str, file: str = "", line: int = 0, report=None):
        self.diagnostic = Diagnostic(code, message, file, line)
        self.code = code
        self.file = file
        self.line = line
        self.report = report
        super().__init__(str(self.diagnostic))

    def one_line(self) -> str:
        """``error[urdf.CODE] FILE:LINE: message`` as the CLI prints it."""
        where = self.diagnostic.where()
        head = f"error[{self.code}]"
        return f"{head} {where}: {self.diagnostic.message}" if where else f"{head} {self.diagnostic.message}"
