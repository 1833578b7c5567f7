"""A small registry of actuators: the rotor inertia a transmission reflects onto its joint, with its source.

The bundled entries (``resources/actuators.json``) are examples of the format, marked ``example``.
A lab registers its own motors with :func:`register_actuator`, citing the datasheet.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache

from mime_gui import RESOURCES
from mime_gui.rig.registry_epoch import bump
from mime_gui.rig.units import KG_M2, Quantity

ACTUATORS_FILE = RESOURCES / "actuators.json"


@dataclass(frozen=True)
class ActuatorRecord:
    name: str
    rotor_inertia: float  # kg m2
    source: str
    example: bool = False
    origin: str = ""  # where the record comes from: an entry point, a file; empty when registered in Python

    def described(self) -> str:
        """``source`` with where the record was found, as the build report names it."""
        return f"{self.source} [{self.origin}]" if self.origin else self.source


_registered: dict[str, ActuatorRecord] = {}
#: records found by :func:`mime_gui.rig.actuator_sources.discover` (entry points, actuators.json files)
_discovered: dict[str, ActuatorRecord] = {}


def set_discovered(records: dict[str, ActuatorRecord]) -> None:
    """Replace the discovered records (see :mod:`mime_gui.rig.actuator_sources`)."""
    _discovered.clear()
    _discovered.update(records)


@cache
def _bundled() -> dict[str, ActuatorRecord]:
    data = json.loads(ACTUATORS_FILE.read_text(encoding="utf-8"))
    out = {}
    for a in data["actuators"]:
        if a.get("unit", KG_M2) != KG_M2:
            raise ValueError(f"{ACTUATORS_FILE}: actuator {a['name']!r} must give its rotor inertia in kg m2")
        out[a["name"]] = ActuatorRecord(a["name"], float(a["rotor_inertia"]), a["source"],
                                        bool(a.get("example")))
    return out


def register_actuator(name: str, rotor_inertia: Quantity | float, source: str,
                      replace: bool = False) -> ActuatorRecord:
    """Register a motor's rotor inertia (a ``kg_m2`` quantity, or a number in kg·m²) and its source.

    Registering a name twice is refused unless ``replace=True``.
    """
    if not isinstance(name, str) or not name.strip():
        raise ValueError("an actuator needs a non-empty name")
    if isinstance(rotor_inertia, Quantity):
        if rotor_inertia.unit != KG_M2:
            raise ValueError(f"rotor inertia of {name!r} must be in kg m2, got {rotor_inertia.unit}")
        value = rotor_inertia.value
    elif isinstance(rotor_inertia, int | float) and not isinstance(rotor_inertia, bool):
        value = float(rotor_inertia)
    else:
        raise TypeError(f"rotor inertia of {name!r} must be kg_m2(...) or a number in kg m2")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"rotor inertia of {name!r} must be finite and not negative, got {value}")
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f"actuator {name!r} needs a source (the datasheet its rotor inertia comes from)")
    if not replace and actuator(name) is not None:
        raise ValueError(f"actuator {name!r} is already registered; pass replace=True to replace it")
    record = ActuatorRecord(name, value, source)
    _registered[name] = record
    bump()
    return record


def unregister_actuator(name: str) -> None:
    _registered.pop(name, None)
    bump()


def actuator(name: str) -> ActuatorRecord | None:
    """The registered (or bundled example) actuator called ``name``, or None."""
    return _registered.get(name) or _discovered.get(name) or _bundled().get(name)


def actuator_names() -> list[str]:
    return sorted({*_bundled(), *_discovered, *_registered})
