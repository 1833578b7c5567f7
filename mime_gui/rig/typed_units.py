"""A number typed by a person, with the unit it may carry: ``5``, ``5 in``, ``3 cm``, ``90 deg``, ``2 mT``.

The whole text must be one number (written plainly, through
:func:`~mime_gui.multibody.magnitudes.parse_float`: ASCII digits only, no ``1_000``, no ``7,5``) optionally
followed by a unit of the field's own dimension;
anything else is not a value, never a prefix of one. A typed unit is converted to the field's unit by the
small table below (the few units the forms take), so ``5 in`` in a millimetre field is 127 mm.

Factors are kept as ``(numerator, denominator)`` of the SI value, so a number typed in the field's own unit
comes back unchanged, and ``10 mm`` is 10 / 1000 m, the nearest double to what was meant.
"""

from __future__ import annotations

import math
import re

from mime_gui.multibody.magnitudes import parse_float

_PI = math.pi

#: unit spelling → (dimension, numerator, denominator): the SI value is ``number * num / den``
UNITS: dict[str, tuple[str, float, float]] = {
    # lengths
    "m": ("length", 1.0, 1.0), "mm": ("length", 1.0, 1000.0), "cm": ("length", 1.0, 100.0),
    "µm": ("length", 1.0, 1e6), "μm": ("length", 1.0, 1e6), "um": ("length", 1.0, 1e6),
    "in": ("length", 0.0254, 1.0), "inch": ("length", 0.0254, 1.0), "ft": ("length", 0.3048, 1.0),
    # angles
    "rad": ("angle", 1.0, 1.0), "deg": ("angle", _PI, 180.0), "°": ("angle", _PI, 180.0),
    "degree": ("angle", _PI, 180.0), "degrees": ("angle", _PI, 180.0),
    # times
    "s": ("time", 1.0, 1.0), "ms": ("time", 1.0, 1000.0), "min": ("time", 60.0, 1.0),
    # masses
    "kg": ("mass", 1.0, 1.0), "g": ("mass", 1.0, 1000.0),
    # moments of inertia
    "kg m2": ("inertia", 1.0, 1.0), "kg·m²": ("inertia", 1.0, 1.0), "kg m²": ("inertia", 1.0, 1.0),
    "kg*m^2": ("inertia", 1.0, 1.0), "kg m^2": ("inertia", 1.0, 1.0), "g cm2": ("inertia", 1.0, 1e7),
    "g·cm²": ("inertia", 1.0, 1e7),
    # densities
    "kg/m3": ("density", 1.0, 1.0), "kg/m³": ("density", 1.0, 1.0), "g/cm3": ("density", 1000.0, 1.0),
    "g/cm³": ("density", 1000.0, 1.0),
    # flux densities
    "T": ("flux", 1.0, 1.0), "mT": ("flux", 1.0, 1000.0),
    # torques and forces (the drive's rows)
    "N m": ("torque", 1.0, 1.0), "N·m": ("torque", 1.0, 1.0), "Nm": ("torque", 1.0, 1.0),
    "N": ("force", 1.0, 1.0),
}

# A plain decimal number (ASCII digits only: re's \d would take any script's digits), then a unit.
_TEXT = re.compile(r"^\s*([-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(.*?)\s*$", re.ASCII)


def parse_typed(text: str, unit: str = "") -> float | None:
    """``text`` as a finite number in ``unit`` (the field's own unit; ``""`` for a plain number), or None
    when the whole text is not one: a bare number is in ``unit``; a number followed by another unit of the
    same dimension is converted; anything else (``7,5``, ``5 apples``, ``1e400``) is None."""
    m = _TEXT.match(text or "")
    if not m:
        return None
    try:
        value = parse_float(m.group(1))
    except ValueError:
        return None
    typed = " ".join(m.group(2).split())  # "kg  m2" as "kg m2"
    if typed and typed != unit:
        own, given = UNITS.get(unit), UNITS.get(typed)
        if own is None or given is None or own[0] != given[0]:
            return None
        value = value * given[1] * own[2] / (given[2] * own[1])
    return value if math.isfinite(value) else None


__all__ = ["UNITS", "parse_typed"]
