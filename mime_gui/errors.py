"""The coded error every refusal in the package derives from, and its one-line diagnostic: the lowest
layer, so any layer can raise one (the reading and writing doors, the engine, the rig, the session)."""

from __future__ import annotations

from dataclasses import dataclass


def printable(text: str) -> str:
    """``text`` with every character a terminal would not show as itself (newlines, control characters,
    Unicode separators, lone surrogates) written as its escape, so a name or path from a file can never break
    a one-line message or fail to print."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


@dataclass(frozen=True)
class Diagnostic:
    """One coded message with its place. ``line`` is 1-based, 0 when unknown."""

    code: str
    message: str
    file: str = ""
    line: int = 0

    def where(self) -> str:
        file = printable(self.file)
        if file and self.line:
            return f"{file}:{self.line}"
        return file or (f"line {self.line}" if self.line else "")

    def __str__(self) -> str:
        where = self.where()
        return f"{self.code} {where}: {self.message}" if where else f"{self.code}: {self.message}"


class CodedError(ValueError):
    """A refusal with a stable ``code``, the ``file`` and 1-based ``line`` (0: none) and a message that says
    how to fix it. Subclasses name the family (``urdf.*``, ``commands.*``, ``play.*``, ``rigfile.*``)."""

    def __init__(self, code: str, message: str, file: str = "", line: int = 0):
        self.diagnostic = Diagnostic(code, message, file, line)
        self.code = code
        self.message = message
        self.file = file
        self.line = line
        super().__init__(str(self.diagnostic))

    def where(self) -> str:
        return self.diagnostic.where()

    def one_line(self) -> str:
        """``error[CODE] FILE:LINE: message`` as the command line prints it."""
        where, message = self.where(), printable(self.message)
        head = f"error[{self.code}]"
        return f"{head} {where}: {message}" if where else f"{head} {message}"
