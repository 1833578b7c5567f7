"""What the parts of the window share, made once by the window before any dock or part of it.

The window builds one :class:`Services` in its constructor and passes it to every dock factory of the
registry (``factory(session, bridge, services)``, app/docks/registry.py) and to the parts it installs
(driving, field views). A part finds what another one made here, never through an attribute set on the
window, so the parts can be made in any order and a new one needs no earlier one to exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction

from mime_gui.app.clock import Clock
from mime_gui.app.plot_repaint import PlotRepaint
from mime_gui.session import Session
from mime_gui.session.transport import Transport


class TorqueResults(QObject):
    """What the joint torques found, from the Torques dock to the docks that show it: the limits exceeded
    (the Validation dock lists them) and each joint's demand (the Demand dock); a joint chosen in the Demand
    dock is shown by the Torques dock."""

    excesses_changed = Signal(object, str)  # tuple of mime_gui.rig.limits.Excess, the group's title
    demands_changed = Signal(object, str, float)  # every joint's Demand, what they are of, the time origin
    joint_chosen = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.demands: tuple = ((), "", 0.0)  # the last said, for a dock made after it

    def set_excesses(self, excesses, title: str) -> None:
        self.excesses_changed.emit(tuple(excesses), title)

    def set_demands(self, found, what: str, time_origin: float = 0.0) -> None:
        self.demands = (tuple(found), what, float(time_origin))
        self.demands_changed.emit(*self.demands)

    def choose_joint(self, joint: str) -> None:
        self.joint_chosen.emit(joint)


@dataclass(frozen=True)
class Services:
    """Made once per window (:func:`make_services`); a new shared thing is a new field here."""

    transport: Transport  # the one playhead: live driving, a played file, the recorder
    clock: Clock  # ticks the transport on the real elapsed time (app/clock.py)
    torques: TorqueResults  # the torques' excesses and demands, for the docks that show them
    field_plane: QAction  # View → |B| plane at the selected probe: the field views draw it, the probe's
    #                      form shows and sets it
    keepout_surface: QAction  # View → Keep-out |B| surface: the field views draw it, a zone's form shows and
    #                           sets it
    plots: PlotRepaint  # the docks' plots, repainted with the 3D view's frames (app/plot_repaint.py)


def make_services(session: Session, parent: QObject) -> Services:
    """The window's services, owned by ``parent`` (the window)."""
    transport = Transport(session)
    plane = QAction("|B| plane at the selected probe", parent, checkable=True)
    return Services(transport=transport,
                    clock=Clock(transport, parent),  # the transport has a clock's document and tick
                    torques=TorqueResults(parent),
                    field_plane=plane,
                    keepout_surface=QAction("Keep-out |B| surface", parent, checkable=True),
                    plots=PlotRepaint())


__all__ = ["Services", "TorqueResults", "make_services"]
