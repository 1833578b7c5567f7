"""The rig's clearance declaration: the margin kept between things that move relative to each other, and the
pairs allowed to touch, each with the reason.

``Clearance(margin=0.005, reason="the servo's tracking error", allow=(Allowed("parts.holder", "arm.link_6",
reason="seated on the flange face"),))``. ``margin`` (m) is the distance below which two items moving
relative to each other are reported (``clearance.margin``); one that declares none (``None``) keeps
:data:`DEFAULT_MARGIN`, and a declared one says why. An allowed pair names two items by ``parts.<name>``,
``magnets.<name>``, ``samples.<name>`` or a link as ``<segment>.<link>``; it is left out of the check and
listed. The check is :func:`mime_gui.rig.clearance_check.clearance_along` (docs/clearance.md).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

#: the margin of a rig that declares none, m: a servo's tracking error and a mesh's looseness, with room
DEFAULT_MARGIN = 0.005


@dataclass(frozen=True)
class Allowed:
    """Two items allowed to touch (``first``, ``second``: ``parts.holder``, ``arm.link_6`` …), for
    ``reason``."""

    first: str
    second: str
    _: KW_ONLY
    reason: str | None = None

    def __post_init__(self):
        for key in ("first", "second"):
            if not isinstance(getattr(self, key), str):
                raise TypeError(f"an allowed pair names items as text ('parts.holder', 'arm.link_6'); its "
                                f"{key} is {getattr(self, key)!r}")
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"a reason is text, got {self.reason!r}")


@dataclass(frozen=True)
class Clearance:
    """The margin (m) kept between items that move relative to each other, why, and the pairs allowed to
    touch."""

    margin: float | None = None
    _: KW_ONLY
    reason: str | None = None
    allow: tuple[Allowed, ...] = ()

    def __post_init__(self):
        if self.margin is not None:
            if isinstance(self.margin, bool) or not isinstance(self.margin, int | float):
                raise TypeError(f"margin is a distance in metres, got {self.margin!r}")
            object.__setattr__(self, "margin", float(self.margin))
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"a reason is text, got {self.reason!r}")
        try:
            allow = tuple(self.allow)
        except TypeError:  # not a collection at all
            allow = (self.allow,)
        if not all(isinstance(a, Allowed) for a in allow):
            raise TypeError(f"allow holds Allowed(first, second, reason=...) pairs, got {self.allow!r}")
        object.__setattr__(self, "allow", allow)

    @property
    def distance(self) -> float:
        """The margin in force (m): the declared one, else :data:`DEFAULT_MARGIN`."""
        return DEFAULT_MARGIN if self.margin is None else self.margin


__all__ = ["DEFAULT_MARGIN", "Allowed", "Clearance"]
