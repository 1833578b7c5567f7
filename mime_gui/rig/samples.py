"""Samples: the small magnets the rig moves (a microrobot, a capsule, a bead), on which the field acts.

``Sample(at=(x, y, z), mount="<segment>.<frame>", geometry=Sphere(0.5e-3), material="NdFeB-N42",
magnetisation=(0, 0, 1))`` is a small magnet whose moment is ``Br·V/μ0`` along ``magnetisation`` (as a
rig magnet's, with the remanence of its material or a declared ``remanence``); or ``Sample(at,
moment=a_m2(2e-6, reason="VSM measurement"), magnetisation=(1, 0, 0))`` is a point dipole of a declared
moment (A·m²) with its reason. ``at`` (m) places its centre (a shape's centroid) in the mount frame, or in
the world with no mount; ``magnetisation`` is a direction in the mount frame's axes.

``orientation`` says how the moment turns: ``"fixed"`` (held in its mount frame, as by a holder) or
``"follows"`` (along the local field at every step, as a free magnet does at low frequency, where it feels
no torque: the force is then ``|m|·∇|B|``). A sample that follows may declare its rotational ``drag``
(N·m·s, with its reason: the torque per angular speed its fluid opposes), from which the field check tells
the frequency beyond which it can no longer keep up with a turning field. A sample is not a rig magnet: its
own field is not added to the rig's, and it has no mass in the chain (it changes nothing the chain does).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from mime_gui.rig.parts import check_solid
from mime_gui.rig.segments import _vector
from mime_gui.rig.units import Quantity

#: how a sample's moment turns
ORIENTATIONS = ("fixed", "follows")


@dataclass(eq=True)
class Sample:
    """A small magnet at ``at`` (m) in ``mount`` (or the world): a ``geometry`` with a ``material`` or a
    declared ``remanence`` (T), or a declared ``moment`` (A·m²); its moment along ``magnetisation`` (mount
    frame), held ``"fixed"`` or ``"follows"`` the field; ``drag`` (N·m·s) is what turns against it."""

    at: tuple[float, float, float] = (0.0, 0.0, 0.0)
    _: KW_ONLY
    mount: str | None = None
    geometry: object | None = None
    material: str | None = None
    remanence: Quantity | None = None
    moment: Quantity | None = None
    magnetisation: tuple[float, float, float] = (0.0, 0.0, 1.0)
    orientation: str = "fixed"
    drag: Quantity | None = None

    role = "sample"

    def __post_init__(self):
        check_solid(self.geometry, self.material, optional=True)  # as a part's: when made, not at validation
        self.at = _vector(self.at, 3, "at")
        self.magnetisation = _vector(self.magnetisation, 3, "magnetisation")
        if self.mount is not None and not isinstance(self.mount, str):
            raise TypeError(f"mount is '<segment>.<frame>', got {self.mount!r}")
        if not isinstance(self.orientation, str):
            raise TypeError(f"orientation is one of {', '.join(ORIENTATIONS)}, got {self.orientation!r}")
        q = self.drag
        if q is not None and (isinstance(q, bool) or not isinstance(q, Quantity | int | float)):
            raise TypeError(f"drag is a rotational drag, Quantity(value, 'N m s', reason=...), got {q!r}")


__all__ = ["ORIENTATIONS", "Sample"]
