"""Every dock of the window, declared once: its object name (Qt's saved layout and the tests find it by
it), its title, and where the default arrangement puts it. The layout (app/layout.py), View → Panels and the
tests read this table; a dock made by the window that is not in it, or one in it the window did not make, is
a test failure (tests/app/test_layout.py).

Places: ``left`` and ``right`` are columns, their docks one above the other in table order; ``below`` is the
findings' tab group under the 3D view, ``beside`` the driving docks' tab group to its right (the first of a
group in front); ``foot`` runs across the whole foot of the window.
"""

from __future__ import annotations

from dataclasses import dataclass

PLACES = ("left", "right", "below", "beside", "foot")


@dataclass(frozen=True)
class DockSpec:
    name: str  # objectName
    title: str
    place: str  # one of PLACES


DOCKS: tuple[DockSpec, ...] = (
    DockSpec("ChainTreeDock", "Chain", "left"),
    DockSpec("PaletteDock", "Palette", "left"),
    DockSpec("PropertiesDock", "Properties", "right"),
    DockSpec("JointSlidersDock", "Joint sliders", "right"),
    DockSpec("ValidationDock", "Validation", "below"),
    DockSpec("ArmatureDock", "Armature", "below"),
    DockSpec("BuildReportDock", "Build report", "below"),
    DockSpec("MassPropertiesDock", "Mass properties", "below"),
    DockSpec("ReadReportDock", "Read report", "below"),
    DockSpec("PlotsDock", "Plots", "beside"),
    DockSpec("TorquesDock", "Torques", "beside"),
    DockSpec("MotorDemandDock", "Demand", "beside"),
    DockSpec("PlayerDock", "Player", "foot"),
)


def names(place: str) -> tuple[str, ...]:
    """The object names of the docks at ``place``, in table order."""
    if place not in PLACES:
        raise ValueError(f"unknown place {place!r}; places: {', '.join(PLACES)}")
    return tuple(d.name for d in DOCKS if d.place == place)


def spec(name: str) -> DockSpec:
    return next(d for d in DOCKS if d.name == name)


def declare(dock, name: str) -> None:
    """Give ``dock`` the object name and title the registry declares for ``name``."""
    entry = spec(name)
    dock.setObjectName(entry.name)
    dock.setWindowTitle(entry.title)


__all__ = ["DOCKS", "PLACES", "DockSpec", "declare", "names", "spec"]
