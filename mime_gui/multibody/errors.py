"""Coded errors and warnings: a stable code, the place and what to do, printed on one line."""

from __future__ import annotations

from mime_gui.errors import CodedError, Diagnostic, printable

# the base lives below every layer (mime_gui.errors); re-exported here, where callers have long taken it
__all__ = ["CodedError", "Diagnostic", "DynamicsError", "UrdfError", "printable"]


class UrdfError(CodedError):
    """A refused description (``urdf.*``); ``report`` holds what the reader had sorted before the refusal."""

    def __init__(self, code: str, message: str, file: str = "", line: int = 0, report=None):
        super().__init__(code, message, file, line)
        self.report = report


class DynamicsError(CodedError):
    """A refusal of the ``dynamics.*`` family: dynamics asked of an articulation whose mass properties are not
    physical (a link of its description has a non-physical inertia or mass; its kinematics stay available),
    or a lab's segment kind refused (:mod:`mime_gui.rig.dynamics`)."""
