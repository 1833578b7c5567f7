"""The session's refusals: a coded error naming the file and line, and the conversion of a refused rig."""

from __future__ import annotations

from mime_gui.errors import CodedError
from mime_gui.multibody import UrdfError


class SessionError(CodedError):
    """A refused file or command, with a stable ``code`` and its place (``file``, ``line``); its text is
    :meth:`~mime_gui.errors.CodedError.one_line`, as the window and its log show it."""

    def __init__(self, code: str, message: str, file: str = "", line: int = 0):
        super().__init__(code, message, file, line)
        self.args = (self.one_line(),)  # the command line's shape, not the bare diagnostic

    @classmethod
    def from_urdf(cls, err: UrdfError) -> SessionError:
        return cls(err.code, err.diagnostic.message, err.file, err.line)




def rig_error(err: Exception, path: str, default_code: str = "rig.invalid") -> SessionError:
    """A coded SessionError from a refused rig: its first finding (and a few more), or its own code."""
    findings = getattr(err, "findings", None)
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more: " + "; ".join(str(f) for f in findings[1:4]) + ")" \
            if len(findings) > 1 else ""
        return SessionError(first.code, f"{first.where}: {first.message}{more}", path)
    code = getattr(err, "code", None) or default_code
    message = str(getattr(err, "message", None) or err)
    pointer = getattr(err, "pointer", "")
    if pointer:
        message = f"at {pointer}: {message}"
    diagnostic = getattr(err, "diagnostic", None)
    return SessionError(code, message, getattr(err, "file", "") or path, getattr(diagnostic, "line", 0))



def refuse(error, code: str, message: str, file: str = "") -> SessionError:
    """A SessionError, announced on the session's ``error`` event first (the window shows it); the caller
    raises it."""
    err = SessionError(code, message, file)
    error.emit(err)
    return err
