"""Quantities with a unit and the reason for their value.

A declaration in a rig (an armature, a rotor inertia, a part's mass or density, a magnet's remanence) is a
:class:`Quantity`: a number, its unit, and *why* it has that value (a datasheet, a catalogue, a measurement).
The constructors name the unit, so ``kg_m2(2e-4, reason="datasheet")`` reads like the quantity it is.

Lengths (``at``, geometry sizes) and times are plain floats in metres and seconds in the Python API; the rig
file writes their unit explicitly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KG = "kg"
KG_M2 = "kg m2"
KG_PER_M3 = "kg/m3"
M = "m"
S = "s"
RAD = "rad"
TESLA = "T"
A_M2 = "A m2"
N_M_S = "N m s"

#: Every unit a rig quantity may carry, with how it is written in prose.
UNITS = {KG: "kg", KG_M2: "kg·m²", KG_PER_M3: "kg/m³", M: "m", S: "s", RAD: "rad", TESLA: "T", A_M2: "A·m²",
         N_M_S: "N·m·s"}


@dataclass(frozen=True)
class Quantity:
    """A number with its unit and the reason for it (``None`` when no reason was given)."""

    value: float
    unit: str
    reason: str | None = None

    def __post_init__(self):
        if isinstance(self.value, bool) or not isinstance(self.value, int | float):
            raise TypeError(f"a quantity's value is a number, got {self.value!r}")
        if self.unit not in UNITS:
            raise ValueError(f"unknown unit {self.unit!r}; units: {', '.join(UNITS)}")
        if self.reason is not None and not isinstance(self.reason, str):
            raise TypeError(f"a reason is text, got {self.reason!r}")
        object.__setattr__(self, "value", float(self.value))

    @property
    def finite(self) -> bool:
        return math.isfinite(self.value)

    def __str__(self) -> str:
        return f"{self.value:g} {UNITS[self.unit]}"


def kg(value: float, reason: str | None = None) -> Quantity:
    """A mass (a part's declared mass, the armature of a sliding joint)."""
    return Quantity(value, KG, reason)


def kg_m2(value: float, reason: str | None = None) -> Quantity:
    """A moment of inertia (a rotor, the armature of a revolute joint)."""
    return Quantity(value, KG_M2, reason)


def kg_per_m3(value: float, reason: str | None = None) -> Quantity:
    """A density."""
    return Quantity(value, KG_PER_M3, reason)


def m(value: float, reason: str | None = None) -> Quantity:
    """A length."""
    return Quantity(value, M, reason)


def s(value: float, reason: str | None = None) -> Quantity:
    """A time."""
    return Quantity(value, S, reason)


def tesla(value: float, reason: str | None = None) -> Quantity:
    """A magnetic flux density (a magnet's remanence)."""
    return Quantity(value, TESLA, reason)


def a_m2(value: float, reason: str | None = None) -> Quantity:
    """A magnetic moment (a sample's declared moment)."""
    return Quantity(value, A_M2, reason)


def n_m_s(value: float, reason: str | None = None) -> Quantity:
    """A rotational drag: the torque per angular speed that turns a sample in its fluid."""
    return Quantity(value, N_M_S, reason)


def check_declaration(q, unit: str, what: str, bare_hint: str, range_code: str) -> list[tuple[str, str]]:
    """Problems ``(code, message)`` of a declared quantity: ``unit`` (a bare number or the wrong unit),
    ``declaration.reason`` (no reason given), and ``range_code`` when its value is not finite or negative."""
    if not isinstance(q, Quantity):
        return [("unit", f"{what} is a bare {type(q).__name__} {q!r}; a unit is required: write {bare_hint}")]
    out = []
    if q.unit != unit:
        out.append(("unit", f"{what} is in {UNITS[q.unit]}, expected {UNITS[unit]}"))
    if q.reason is None or not q.reason.strip():
        out.append(("declaration.reason", f"{what} is declared without a reason; say where the number comes "
                                          "from (datasheet, catalogue, measurement)"))
    if not q.finite or q.value < 0:
        out.append((range_code, f"{what} must be finite and not negative, got {q.value}"))
    return out
