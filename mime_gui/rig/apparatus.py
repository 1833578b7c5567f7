"""The apparatus: a chain of segments, the parts and the magnets mounted on it.

This is the document the GUI edits, the CLI validates and the rig file stores. ``base`` is the folder that
relative paths (URDF descriptions, meshes) are read against: the rig file's folder when loaded from a file,
the working folder otherwise. It is where the rig lives, not part of what the rig is, so equality ignores it.
"""

from __future__ import annotations

from pathlib import Path

from mime_gui.rig.findings import Finding, RigError
from mime_gui.rig.parts import Part, PermanentMagnet
from mime_gui.rig.segments import Segment


class Apparatus:
    """``Apparatus(name, chain={...}, parts={...}, magnets={...})``: chain in order, first segment first."""

    def __init__(self, name: str, chain: dict[str, Segment] | None = None,
                 parts: dict[str, Part] | None = None, magnets: dict[str, PermanentMagnet] | None = None,
                 base: str | Path | None = None):
        for what, value in (("chain", chain), ("parts", parts), ("magnets", magnets)):
            if value is not None and not isinstance(value, dict):
                raise TypeError(f"{what} maps names to {what}, got {type(value).__name__}")
        self.name = name
        self.chain: dict[str, Segment] = dict(chain or {})
        self.parts: dict[str, Part] = dict(parts or {})
        self.magnets: dict[str, PermanentMagnet] = dict(magnets or {})
        self.base: Path | None = Path(base) if base is not None else None

    # -- rules and build ---------------------------------------------------------------------------
    def validate(self) -> list[Finding]:
        """Every rule broken, as findings (``[]`` when the rig is valid)."""
        from mime_gui.rig.rules import analyse

        return analyse(self).findings

    def build(self):
        """The :class:`~mime_gui.rig.build.BuiltRig`; raises :class:`RigError` carrying the findings."""
        from mime_gui.rig.build import build

        return build(self)

    # -- helpers -----------------------------------------------------------------------------------
    def solids(self):
        """``(collection, name, part)`` for every part, then every magnet."""
        for name, part in self.parts.items():
            yield "parts", name, part
        for name, magnet in self.magnets.items():
            yield "magnets", name, magnet

    def __eq__(self, other) -> bool:
        if not isinstance(other, Apparatus):
            return NotImplemented
        return (self.name == other.name and list(self.chain.items()) == list(other.chain.items())
                and self.parts == other.parts and self.magnets == other.magnets)

    __hash__ = None

    def __repr__(self) -> str:
        return (f"Apparatus({self.name!r}, chain={self.chain!r}, parts={self.parts!r}, "
                f"magnets={self.magnets!r})")


__all__ = ["Apparatus", "Finding", "RigError"]
