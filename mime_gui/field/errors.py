"""Refusals of the field computation: ``field.*`` codes, the place (a rig path or an option) and the fix."""

from __future__ import annotations

from mime_gui.multibody.errors import CodedError


class FieldError(CodedError):
    """A field that cannot be computed as asked (``field.*``): ``file`` holds the place (a rig path such as
    ``magnets.m1.geometry``, a probe, or a command-line option)."""


__all__ = ["FieldError"]
