"""Findings: what validation refuses, each with a stable code, the rig path where it is, and what to do."""

from __future__ import annotations

from dataclasses import dataclass

from mime_gui.multibody.errors import printable


@dataclass(frozen=True)
class Finding:
    """One refusal: ``code`` (see :data:`mime_gui.rig.rules.RULES`), ``where`` (a rig path such as
    ``parts.holder.mount``) and a message naming what exists or what to do."""

    code: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"error[{self.code}] {printable(self.where)}: {printable(self.message)}"

    def to_dict(self) -> dict:
        return {"code": self.code, "where": self.where, "message": self.message}


class RigError(ValueError):
    """A rig that cannot be built; ``findings`` holds every reason."""

    def __init__(self, findings: list[Finding]):
        self.findings = list(findings)
        lines = "\n".join(str(f) for f in self.findings)
        super().__init__(f"the rig is not valid ({len(self.findings)} finding"
                         f"{'' if len(self.findings) == 1 else 's'}):\n{lines}")
