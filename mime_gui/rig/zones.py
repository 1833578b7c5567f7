"""Keep-out zones: places where the magnets' field must stay weak (where people stand, a sensor, a pacemaker
wearer's chair), each with a |B| limit and the reason for it.

``Zone(at=(x, y, z), mount=None, box=(sx, sy, sz), limit=5e-4, reason="the 0.5 mT line for pacemaker
wearers")`` is a box of full sizes ``box`` (m), centred at ``at`` in the mount frame's axes (or the world's);
``Zone(at, sphere=0.2, ...)`` a ball of radius ``sphere`` (m). ``limit`` is the largest |B| allowed inside
(T, by default 0.5 mT); the field check (:func:`mime_gui.field.zones.zone_findings`) samples the zone's
volume at every step of a trajectory and names the steps where the field enters it.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from mime_gui.rig.segments import _vector

#: the |B| limit of a zone that declares none, T: the static-field line labs sign off for pacemaker wearers
DEFAULT_LIMIT = 5e-4


@dataclass(eq=True)
class Zone:
    """A box (full sizes ``box``, m) or a ball (radius ``sphere``, m) at ``at`` (m) in ``mount`` (or the
    world), inside which |B| stays below ``limit`` (T), for ``reason``."""

    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    _: KW_ONLY
    mount: str | None = None
    box: tuple[float, float, float] | None = None
    sphere: float | None = None
    limit: float = DEFAULT_LIMIT
    reason: str | None = None

    role = "zone"

    def __post_init__(self):
        self.at = _vector(self.at, 3, "at")
        if self.box is not None:
            self.box = _vector(self.box, 3, "box")
        if self.sphere is not None:
            if isinstance(self.sphere, bool) or not isinstance(self.sphere, int | float):
                raise TypeError(f"sphere is a radius in metres, got {self.sphere!r}")
            self.sphere = float(self.sphere)
        if isinstance(self.limit, bool) or not isinstance(self.limit, int | float):
            raise TypeError(f"limit is a flux density in tesla, got {self.limit!r}")
        self.limit = float(self.limit)
        if self.mount is not None and not isinstance(self.mount, str):
            raise TypeError(f"mount is '<segment>.<frame>', got {self.mount!r}")
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"a reason is text, got {self.reason!r}")


__all__ = ["DEFAULT_LIMIT", "Zone"]
