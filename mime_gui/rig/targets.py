"""Field targets: the field a probe or a sample needs, stated so that poses of the arm can be searched for it
(:mod:`mime_gui.field.planner`).

``FieldTarget("probes.dish", direction=(0, 0, 1), tolerance=0.17, low=5e-3, high=10e-3)`` asks for a fixed
field along ``direction`` (world axes) within ``tolerance`` (rad) whose magnitude lies in ``[low, high]``
(T). ``FieldTarget("probes.dish", axis=(0, 0, 1), frequency=5.0, ...)`` asks for a field rotating about
``axis`` (world axes, right-handed for a positive frequency) at ``frequency`` Hz, the axis within
``tolerance``, every |B| of the turn in ``[low, high]`` and the turn's ellipse no flatter than
``ellipticity`` (its minor over its major axis, 1 a circle).

Either may bound what else the point feels. ``max_gradient`` (T/m) bounds the Frobenius norm of the field's
gradient tensor ``G[i, j] = ∂B_i/∂x_j`` at the point (over the whole turn for a rotating target): it bounds
every entry of the tensor, every directional derivative ``|G u|``, and so ``|∇|B||``, and with it the force
on any moment ``|m|`` at the point (at most ``|m| ‖G‖``). ``max_force`` (N) bounds the force on the sample a
target at ``samples.<name>`` aims at (a probe has no moment to feel one).
"""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.rig.segments import direction

#: the largest flux density a target may ask for, T (as a magnet's remanence)
MAX_FIELD = 100.0
#: the largest frequency a rotating target may ask for, Hz
MAX_FREQUENCY = 1e4
#: the largest gradient bound a target may give, T/m (100 T over 0.1 mm)
MAX_GRADIENT = 1e6
#: the largest force bound a target may give, N (as a sample's largest moment, 1e6 A·m², in 1 T/m)
MAX_FORCE = 1e6


class TargetError(CodedError):
    pass


def _unit(v, what: str) -> tuple[float, float, float]:
    try:
        a = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise TargetError("target.direction", f"{what} is three numbers, got {v!r}", what) from None
    unit = direction(a) if a.shape == (3,) else None  # scaled first: huge or tiny, a direction
    if unit is None:
        raise TargetError("target.direction", f"{what} is a finite non-zero vector of three numbers, got "
                          f"{v!r}", what)
    return tuple(float(x) for x in unit)


def _number(v, what: str, low: float, high: float, code: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or not low <= v <= high:
        raise TargetError(code, f"{what} is a number from {low:g} to {high:g}, got {v!r}", what)
    return float(v)


def _bound(v, what: str, high: float, unit: str, code: str) -> float | None:
    """None (no bound) or a number above 0 and at most ``high``."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or not 0 < v <= high:
        raise TargetError(code, f"{what} is a number above 0 and at most {high:g} {unit}, or none, got {v!r}",
                          what)
    return float(v)


@dataclass(frozen=True)
class FieldTarget:
    """The field asked for at ``at`` (``probes.<name>`` or ``samples.<name>``): fixed along ``direction``,
    or rotating about ``axis`` at ``frequency`` Hz (one of them); see the module's text."""

    at: str
    _: KW_ONLY
    direction: tuple[float, float, float] | None = None
    axis: tuple[float, float, float] | None = None
    frequency: float | None = None
    tolerance: float = math.radians(10.0)
    low: float = 0.0
    high: float = MAX_FIELD
    ellipticity: float = 0.0
    max_gradient: float | None = None
    max_force: float | None = None

    def __post_init__(self):
        if not isinstance(self.at, str) or self.at.partition(".")[0] not in ("probes", "samples") \
                or not self.at.partition(".")[2]:
            raise TargetError("target.at", f"a target is at probes.<name> or samples.<name>, got {self.at!r}",
                              "at")
        if (self.direction is None) == (self.axis is None):
            raise TargetError("target.kind", "a target gives a direction (a fixed field) or an axis and a "
                              "frequency (a rotating field), one of them", "direction")
        if self.direction is not None:
            object.__setattr__(self, "direction", _unit(self.direction, "direction"))
            if self.frequency is not None:
                raise TargetError("target.kind", "a fixed field has no frequency; give an axis for a "
                                  "rotating one", "frequency")
        else:
            object.__setattr__(self, "axis", _unit(self.axis, "axis"))
            if self.frequency is None:
                raise TargetError("target.frequency", "a rotating field needs its frequency in Hz",
                                  "frequency")
            f = _number(self.frequency, "frequency", -MAX_FREQUENCY, MAX_FREQUENCY, "target.frequency")
            if f == 0.0:
                raise TargetError("target.frequency", "a rotating field's frequency is not 0 Hz; a field "
                                  "that stands still is a direction", "frequency")
            object.__setattr__(self, "frequency", f)
        object.__setattr__(self, "tolerance", _number(self.tolerance, "tolerance", 0.0, math.pi,
                                                      "target.tolerance"))
        low = _number(self.low, "low", 0.0, MAX_FIELD, "target.window")
        high = _number(self.high, "high", 0.0, MAX_FIELD, "target.window")
        if not low <= high:
            raise TargetError("target.window", f"the |B| window's low {low:g} T is above its high {high:g} T",
                              "low")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        object.__setattr__(self, "ellipticity", _number(self.ellipticity, "ellipticity", 0.0, 1.0,
                                                        "target.ellipticity"))
        object.__setattr__(self, "max_gradient", _bound(self.max_gradient, "max_gradient", MAX_GRADIENT,
                                                        "T/m", "target.gradient"))
        object.__setattr__(self, "max_force", _bound(self.max_force, "max_force", MAX_FORCE, "N",
                                                     "target.force"))
        if self.max_force is not None and self.collection != "samples":
            raise TargetError("target.force", "a force bound needs a sample to feel the force "
                              "(samples.<name>, with its moment); a probe has none: bound the gradient "
                              "instead", "max_force")

    @property
    def rotating(self) -> bool:
        return self.axis is not None

    @property
    def collection(self) -> str:
        return self.at.partition(".")[0]

    @property
    def item(self) -> str:
        return self.at.partition(".")[2]


__all__ = ["MAX_FIELD", "MAX_FORCE", "MAX_FREQUENCY", "MAX_GRADIENT", "FieldTarget", "TargetError"]
