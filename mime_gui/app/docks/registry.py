"""Every dock of the window, declared once: its object name (Qt's saved layout and the tests find it by
it), its title, where the default arrangement puts it, and its factory. The window makes every dock from this
table, in its order, each with ``factory(session, bridge, services)`` (the services: app/services.py); the
layout (app/layout.py), View → Panels and the tests read it too; a dock made by the window that is not in it,
or one in it the window did not make, is a test failure (tests/app/test_layout.py).

A factory is named as ``module:callable`` and imported when the window is made: the docks' modules import
:func:`declare` from here, so this table cannot import them.

Places: ``left`` and ``right`` are columns, their docks one above the other in table order; ``below`` is the
findings' tab group under the 3D view, ``beside`` the driving docks' tab group to its right (the first of a
group in front); ``foot`` runs across the whole foot of the window.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

PLACES = ("left", "right", "below", "beside", "foot")


@dataclass(frozen=True)
class DockSpec:
    name: str  # objectName
    title: str
    place: str  # one of PLACES
    factory: str  # "module:callable", called (session, bridge, services) and returning the dock


_DOCKS = "mime_gui.app.docks."

DOCKS: tuple[DockSpec, ...] = (
    DockSpec("ChainTreeDock", "Chain", "left", _DOCKS + "tree:TreeDock"),
    DockSpec("PaletteDock", "Palette", "left", _DOCKS + "palette:PaletteDock"),
    DockSpec("PropertiesDock", "Properties", "right", _DOCKS + "properties:PropertiesDock"),
    DockSpec("JointSlidersDock", "Joint sliders", "right", _DOCKS + "sliders:JointSlidersDock"),
    DockSpec("ValidationDock", "Validation", "below", _DOCKS + "validation:ValidationDock"),
    DockSpec("ArmatureDock", "Armature", "below", _DOCKS + "armature:ArmatureDock"),
    DockSpec("BuildReportDock", "Build report", "below", _DOCKS + "build_report:BuildReportDock"),
    DockSpec("MassPropertiesDock", "Mass properties", "below", _DOCKS + "mass:MassPropertiesDock"),
    DockSpec("ReadReportDock", "Read report", "below", _DOCKS + "report:ReportDock"),
    DockSpec("SweepDock", "Sweep", "below", _DOCKS + "sweep:SweepDock"),
    DockSpec("PlotsDock", "Plots", "beside", _DOCKS + "plots:PlotsDock"),
    DockSpec("TorquesDock", "Torques", "beside", _DOCKS + "torques:TorquesDock"),
    DockSpec("MotorDemandDock", "Demand", "beside", _DOCKS + "demand:DemandDock"),
    DockSpec("PosesDock", "Poses", "beside", _DOCKS + "poses:PosesDock"),
    DockSpec("MeasuresDock", "Measures", "beside", _DOCKS + "measures:MeasuresDock"),
    DockSpec("TrajectoryDock", "Trajectory", "beside", _DOCKS + "trajectory:TrajectoryDock"),
    DockSpec("PlannerDock", "Find poses", "beside", _DOCKS + "planner:PlannerDock"),
    DockSpec("PlayerDock", "Player", "foot", _DOCKS + "player:PlayerDock"),
)


def names(place: str) -> tuple[str, ...]:
    """The object names of the docks at ``place``, in table order."""
    if place not in PLACES:
        raise ValueError(f"unknown place {place!r}; places: {', '.join(PLACES)}")
    return tuple(d.name for d in DOCKS if d.place == place)


def spec(name: str) -> DockSpec:
    return next(d for d in DOCKS if d.name == name)


def factory(entry: DockSpec):
    """The callable ``entry`` names."""
    module, _, name = entry.factory.partition(":")
    return getattr(importlib.import_module(module), name)


def make_docks(session, bridge, services) -> dict:
    """Every dock of the table, in its order, by object name."""
    return {entry.name: factory(entry)(session, bridge, services) for entry in DOCKS}


def declare(dock, name: str) -> None:
    """Give ``dock`` the object name and title the registry declares for ``name``."""
    entry = spec(name)
    dock.setObjectName(entry.name)
    dock.setWindowTitle(entry.title)


__all__ = ["DOCKS", "PLACES", "DockSpec", "declare", "factory", "make_docks", "names", "spec"]
