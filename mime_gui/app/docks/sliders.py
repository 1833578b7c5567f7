"""Joint sliders: one row per commanded joint of each segment, grouped by segment, setting the segment's
command (or, with Teleport, its state: no lag).

A row's range is the joint's limits (a continuous joint, or one without limits, spans ±180° on the slider
and is marked ⟳; its spin box takes any angle). A value typed beyond a limit commands the limit, and the row
says so under it. Mimic followers have no row: they move with their master, whose row shows where they are.
A dynamic segment has a Drive choice: Positions (these rows) or Torques, where its rows become torque sliders
(± the joint's effort limit, or ±:data:`DEFAULT_TORQUE` where the description gives none; every joint,
mimic ones included; a step of :func:`torque_step`) and the segment moves by forward dynamics on the clock
(:meth:`~mime_gui.session.Session.set_drive`); *Hold* sets the torques that keep it as it is.
*Reset* brings every joint back to the rig's initial positions; :meth:`~JointSlidersDock.centre_positions`
and :meth:`~JointSlidersDock.randomize_positions` (the Poses dock's Centre and Randomize) to the middle of its
range or a random position within its limits; none is an edit of the rig. Each segment's servo time
constant is an edit of the rig (undoable). The rows refresh from pose events with their signals blocked, and
only where the command or the state changed, so the played commands show here while the player runs without
feeding back into it.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProxyStyle,
    QPushButton,
    QScrollArea,
    QSlider,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.registry import declare
from mime_gui.multibody import PRISMATIC
from mime_gui.rig.poses import centre, randomize
from mime_gui.session import Session, SessionError, SetValue

RESOLUTION = 2000  # slider positions across a joint's range
DEFAULT_TORQUE = 10.0  # N·m (N): a torque slider's half-range where the description gives no effort limit
DRIVES = ("positions", "torques")
ACCELERATION_STEP = 0.1  # rad/s² (m/s²): what one step of a torque row gives the joint alone, at most


def torque_step(effort: float, inertia: float) -> tuple[float, int]:
    """A torque row's single step and decimals: a step of 1, 2 or 5 × 10^k no larger than a hundredth of the
    effort limit (of :data:`DEFAULT_TORQUE` without one) nor than what gives the joint's own inertia
    (``M_jj``, armature included) :data:`ACCELERATION_STEP`; one decimal finer than the step (at least 3), so
    a typed torque is off by a twentieth of a step at most."""
    limited = math.isfinite(effort) and effort > 0
    raw = (float(effort) if limited else DEFAULT_TORQUE) / 100.0
    if math.isfinite(inertia) and inertia > 0:
        raw = min(raw, float(inertia) * ACCELERATION_STEP)
    k = math.floor(math.log10(raw))
    step = max(m * 10.0 ** k for m in (1, 2, 5) if m * 10.0 ** k <= raw * (1 + 1e-12))
    return step, min(max(3, 1 - k), 12)


class JumpStyle(QProxyStyle):
    """A click on a slider's groove moves the handle there (rather than by a page)."""

    def styleHint(self, hint, option=None, widget=None, data=None):
        if hint == QStyle.SH_Slider_AbsoluteSetButtons:
            return int(Qt.LeftButton.value)
        return super().styleHint(hint, option, widget, data)


class ElidedLabel(QLabel):
    """A text that gives up width before the slider does: elided when the dock is narrow, whole in its
    tooltip."""

    def __init__(self, text: str, parent: QWidget, elide=Qt.ElideMiddle):
        super().__init__(text, parent)
        self.full = text
        self.elide = elide
        self.setToolTip(text)

    def set_text(self, text: str) -> None:
        self.full = text
        self.setText(text)
        self.setToolTip(text)
        self.update()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        # about 11 characters stay readable (``r_sh…_joint``); the slider gives up width below that
        return QSize(min(hint.width(), self.fontMetrics().horizontalAdvance("x" * 11)), hint.height())

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        shown = self.fontMetrics().elidedText(self.full, self.elide, self.width())
        painter.drawText(self.rect(), int(self.alignment() | Qt.AlignVCenter), shown)

    def shown_text(self) -> str:
        """What is drawn at the current width (tests)."""
        return self.fontMetrics().elidedText(self.full, self.elide, self.width())


class NameLabel(ElidedLabel):
    """A joint's name, elided in the middle when the dock is narrow (``r_gripper_…_tip_joint``)."""


class NoteLabel(ElidedLabel):
    """A line under a row (where its mimic followers are, a clamped value), cut at its end when narrow."""

    def __init__(self, parent: QWidget, colour: str):
        super().__init__("", parent, Qt.ElideRight)
        self.setStyleSheet(f"color: {colour}")


class JointRow:
    """The widgets of one commanded joint: name, slider, spin box (the command) and the state."""

    positions = RESOLUTION  # slider positions across the range

    def __init__(self, dock: JointSlidersDock, segment: str, joint: str, lower: float, upper: float,
                 linear: bool, grid: QGridLayout, row: int, parent: QWidget, followers=()):
        self.dock, self.segment, self.joint, self.linear = dock, segment, joint, linear
        self.followers = tuple(followers)  # (name, linear) of the mimic joints that follow this one
        self.clamped = math.nan  # the command a typed value beyond a limit was clamped to, while shown
        self.wraps = not (math.isfinite(lower) and math.isfinite(upper))
        self.lower, self.upper = (-math.pi, math.pi) if self.wraps else (float(lower), float(upper))
        self.command = math.nan
        self.state = math.nan
        self.label = NameLabel(joint + (" ⟳" if self.wraps else ""), parent)
        if self.wraps:
            self.label.setToolTip(f"{joint}: a continuous joint (or one without limits): the slider spans "
                                  "±180°, the box takes any angle")
        self.slider = QSlider(Qt.Horizontal, parent)
        self.slider.setStyle(dock.jump_style)
        self.slider.setRange(0, self.positions)
        self.slider.setSingleStep(max(1, self.positions // 200))
        self.slider.setPageStep(max(1, self.positions // 20))
        self.slider.setEnabled(self.upper > self.lower)
        self.slider.setMinimumWidth(40)  # a narrow dock shortens the slider before it clips the boxes
        self.slider.setObjectName(f"slider:{segment}.{joint}")
        self.spin = QDoubleSpinBox(parent)
        self.spin.setKeyboardTracking(False)
        self.spin.setButtonSymbols(QAbstractSpinBox.NoButtons)
        self.spin.setAlignment(Qt.AlignRight)
        self.spin.setFixedWidth(76)
        self.spin.setObjectName(f"spin:{segment}.{joint}")
        self.state_label = QLabel(parent)
        self.state_label.setToolTip("where the joint is now (it follows the command through the servo lag)")
        self.state_label.setStyleSheet("color: gray")
        self.state_label.setFixedWidth(44)
        self.state_label.setAlignment(Qt.AlignRight | Qt.AlignVCenter)
        for col, w in enumerate((self.label, self.slider, self.spin, self.state_label)):
            grid.addWidget(w, row, col)
        # under the row: where its mimic followers are, and a typed value that was clamped (hidden until then)
        self.follower_label = NoteLabel(parent, "gray")
        self.follower_label.setObjectName(f"followers:{segment}.{joint}")
        self.follower_label.setVisible(bool(self.followers))
        grid.addWidget(self.follower_label, row + 1, 0, 1, 4)
        self.note = NoteLabel(parent, "#b35900")
        self.note.setObjectName(f"note:{segment}.{joint}")
        self.note.hide()
        grid.addWidget(self.note, row + 2, 1, 1, 3)
        self.slider.valueChanged.connect(self._slid)
        self.spin.valueChanged.connect(self._typed)
        self.set_units()

    @property
    def widgets(self):
        return (self.label, self.slider, self.spin, self.state_label)

    def set_visible(self, on: bool) -> None:
        """Shown or hidden by the filter (the notes under it only while they have something to say)."""
        for w in self.widgets:
            w.setVisible(on)
        self.follower_label.setVisible(on and bool(self.followers))
        self.note.setVisible(on and not math.isnan(self.clamped))

    # -- units ---------------------------------------------------------------------------------------
    def _scale(self) -> float:
        return 1.0 if self.linear or not self.dock.degrees else 180.0 / math.pi

    def _unit(self) -> str:
        return " m" if self.linear else ("°" if self.dock.degrees else " rad")

    def set_units(self) -> None:
        k = self._scale()
        with QSignalBlocker(self.spin):
            digits = 2 if k != 1.0 else (4 if self.linear else 3)
            self.spin.setDecimals(digits)
            self.spin.setSuffix(self._unit())
            # any number can be typed: one beyond a limit commands the limit (the dock clamps it and says so)
            # rather than the box dropping the keystroke that crosses it (200 typed in a ±120° box was 20)
            big = 1e6 * k
            self.spin.setRange(-big, big)
            self.spin.setSingleStep(1.0 if k != 1.0 else (0.001 if self.linear else 0.01))
        self.clamped = math.nan
        self.note.hide()
        self.command = self.state = math.nan  # shown again in the new units
        self.refresh()

    def limited(self, value: float) -> float:
        """``value`` held within the joint's limits (a continuous joint takes any)."""
        return value if self.wraps else min(max(value, self.lower), self.upper)

    def text_of(self, value: float) -> str:
        """A position in the row's units, to the box's decimals (``120°``, ``2.897 rad``)."""
        return f"{round(value * self._scale(), self.spin.decimals()) + 0.0:g}{self._unit()}"

    def show_clamped(self, typed: float | None, value: float) -> None:
        """Say under the row that ``typed`` was beyond a limit and ``value`` was commanded (None: clear)."""
        self.clamped = math.nan if typed is None else value
        if typed is None:
            self.note.hide()
            self.spin.setToolTip("")
            return
        which = "upper" if value >= self.upper else "lower"
        text = f"clamped to {self.text_of(value)}: {self.text_of(typed)} is beyond the {which} limit"
        self.note.set_text(text)
        self.spin.setToolTip(text)
        self.note.setVisible(self.label.isVisibleTo(self.label.parentWidget()))
        self.command = math.nan  # the box shows the command again, even when it was already the limit

    def show_followers(self, q, art) -> None:
        """Where the mimic joints that follow this one are now."""
        if not self.followers:
            return
        parts = []
        for name, linear in self.followers:
            value = float(q[art.joint_index(name)])
            k = 1.0 if linear or not self.dock.degrees else 180.0 / math.pi
            unit = " m" if linear else ("°" if self.dock.degrees else " rad")
            parts.append(f"{name} {value * k:.{1 if k != 1.0 else 3}f}{unit}")
        text = "↳ " + " · ".join(parts)
        if text != self.follower_label.full:
            self.follower_label.set_text(text)
            self.follower_label.setToolTip(f"mimic joints following {self.joint}, where they are now:\n"
                                           + "\n".join(parts))

    # -- user input ------------------------------------------------------------------------------------
    def _slid(self, position: int) -> None:
        value = self.lower + (self.upper - self.lower) * position / self.positions
        self.dock.set_command(self, value)

    def _typed(self, shown: float) -> None:
        self.dock.set_command(self, shown / self._scale(), typed=True)

    # -- showing the session ---------------------------------------------------------------------------
    def position_of(self, value: float) -> int:
        span = self.upper - self.lower
        if span <= 0:
            return 0
        return int(round(min(max((value - self.lower) / span, 0.0), 1.0) * self.positions))

    def show(self, command: float, state: float) -> None:
        if command != self.command:
            self.command = command
            if command != self.clamped and not math.isnan(self.clamped):  # commanded since: no longer so
                self.show_clamped(None, command)
            with QSignalBlocker(self.slider), QSignalBlocker(self.spin):
                self.slider.setValue(self.position_of(command))
                self.spin.setValue(command * self._scale())
        if state != self.state:
            self.state = state
            digits = 1 if self._scale() != 1.0 else 3
            self.state_label.setText(f"{state * self._scale():.{digits}f}")

    def refresh(self) -> None:
        self.dock.refresh_row(self)


class TorqueRow(JointRow):
    """A joint of a torque-driven segment: its slider and box set the torque held on it (N·m, N on a sliding
    joint); the state is the joint's position."""

    def __init__(self, dock: JointSlidersDock, segment: str, joint: str, effort: float, linear: bool,
                 grid: QGridLayout, row: int, parent: QWidget, inertia: float = math.nan):
        self.limited = math.isfinite(effort) and effort > 0
        half = float(effort) if self.limited else DEFAULT_TORQUE
        self.step, self.digits = torque_step(effort, inertia)
        # one slider position a step (a click of the arrow keys), so the slider is as fine as the box
        self.positions = int(min(max(round(2 * half / self.step), 200), 2**31 - 1))
        super().__init__(dock, segment, joint, -half, half, linear, grid, row, parent)
        self.slider.setSingleStep(1)
        unit = "N" if linear else "N·m"
        accel, mass = ("m/s²", "kg") if linear else ("rad/s²", "kg·m²")
        tip = (f"torque on {joint}: the slider spans ± its effort limit {half:g} {unit}; the box takes up to "
               "ten times it" if self.limited else
               f"torque on {joint}: the description gives no effort limit, so the slider spans "
               f"±{half:g} {unit}; the box takes any value")
        inertia_text = (f" (at most {ACCELERATION_STEP:g} {accel} on its own inertia, {inertia:.3g} {mass} "
                        "where torque driving started)" if math.isfinite(inertia) and inertia > 0 else "")
        tip += f". A step (arrow keys) is {self.step:g} {unit}{inertia_text}"
        for w in (self.label, self.slider, self.spin):
            w.setToolTip(tip)
        self.slider.setObjectName(f"torque:{segment}.{joint}")
        self.spin.setObjectName(f"torque-spin:{segment}.{joint}")
        widest = f"{-10 * half:.{self.digits}f}{self._unit()}"  # the box's widest likely text, whole
        self.spin.setFixedWidth(max(96, self.spin.fontMetrics().horizontalAdvance(widest) + 14))
        self.state_label.setToolTip("where the joint is now (forward dynamics of the torques)")

    def _scale(self) -> float:
        return 1.0

    def _unit(self) -> str:
        return " N" if self.linear else " N·m"

    def _position_scale(self) -> float:
        return 1.0 if self.linear or not self.dock.degrees else 180.0 / math.pi

    def set_units(self) -> None:
        with QSignalBlocker(self.spin):
            self.spin.setDecimals(self.digits)
            self.spin.setSuffix(self._unit())
            big = 10.0 * self.upper if self.limited else 1e6
            self.spin.setRange(-big, big)
            self.spin.setSingleStep(self.step)
        self.command = self.state = math.nan
        self.refresh()

    def _slid(self, position: int) -> None:
        self.dock.set_torque(self, self.lower + (self.upper - self.lower) * position / self.positions)

    def _typed(self, shown: float) -> None:
        self.dock.set_torque(self, shown)

    def show(self, command: float, state: float) -> None:
        if command != self.command:
            self.command = command
            with QSignalBlocker(self.slider), QSignalBlocker(self.spin):
                self.slider.setValue(self.position_of(command))
                self.spin.setValue(command)
        if state != self.state:
            self.state = state
            k = self._position_scale()
            self.state_label.setText(f"{state * k:.{1 if k != 1.0 else 3}f}")


class JointSlidersDock(QDockWidget):
    commanded = Signal()  # the user set a command (the player gives way to live driving, the clock steps)
    units_changed = Signal(bool)  # angles now in degrees (True) or radians (the plots follow)

    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "JointSlidersDock")  # its title and object name: the dock registry
        self.session = session
        self.degrees = True
        self.jump_style = JumpStyle()
        self.rows: list[JointRow] = []
        self.groups: dict[str, QGroupBox] = {}
        self.servo: dict[str, QDoubleSpinBox] = {}
        self.drive: dict[str, QComboBox] = {}  # dynamic segments' Drive choice
        self.zero: dict[str, QPushButton] = {}  # torque-driven segments' Zero torques button
        self.hold: dict[str, QPushButton] = {}  # and their Hold button
        self.rebuilds = 0
        self._layout_key = None

        body = QWidget(self)
        outer = QVBoxLayout(body)
        outer.setContentsMargins(4, 4, 4, 4)
        bar = QHBoxLayout()
        self.filter = QLineEdit(body)
        self.filter.setPlaceholderText("Filter joints")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter)
        self.units = QPushButton("deg", body)
        self.units.setCheckable(True)
        self.units.setChecked(True)
        self.units.setToolTip("Angles in degrees (on) or radians (off)")
        self.units.toggled.connect(self.set_degrees)
        self.teleport = QCheckBox("Teleport", body)
        self.teleport.setToolTip("Pose the arm: the joints jump to the sliders, with no servo lag")
        self.reset = QPushButton("Reset", body)
        self.reset.setToolTip("Back to the rig's initial positions")
        self.reset.clicked.connect(self.reset_positions)
        self.rng = np.random.default_rng()  # Randomize's draws (the Poses dock's button)
        for w in (self.filter, self.units, self.teleport, self.reset):
            bar.addWidget(w)
        bar.setStretch(0, 1)
        outer.addLayout(bar)
        self.scroll = QScrollArea(body)
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QScrollArea.NoFrame)
        # rows fit the dock's width (long names are elided) rather than scroll sideways
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll)
        self.placeholder = QLabel("Open a robot or a rig to drive its joints", body)
        self.placeholder.setAlignment(Qt.AlignCenter)
        self.placeholder.setStyleSheet("color: gray")
        outer.addWidget(self.placeholder)
        self.setWidget(body)

        bridge.document_changed.connect(lambda _doc: self.rebuild())
        bridge.rig_changed.connect(self._rig_changed)
        bridge.poses_changed.connect(self._poses_changed)
        bridge.drive_changed.connect(self._drive_changed)
        self.rebuild()

    # -- building -------------------------------------------------------------------------------------
    def _key(self):
        s = self.session
        return tuple((n, s.command_names(n), s.drive(n), s.can_drive_torques(n)) for n in s.segments) \
            if s.document else None

    def rebuild(self) -> None:
        """One group per segment, one row per commanded joint."""
        self.rebuilds += 1
        self._layout_key = self._key()
        self.rows, self.groups, self.servo, self.drive, self.zero, self.hold = [], {}, {}, {}, {}, {}
        container = QWidget()
        column = QVBoxLayout(container)
        column.setContentsMargins(0, 0, 0, 0)
        session = self.session
        for name, seg in session.segments.items():
            column.addWidget(self._group(name, seg, container))
        column.addStretch(1)
        self.scroll.setWidget(container)
        has = session.document is not None
        self.scroll.setVisible(has)
        self.placeholder.setVisible(not has)
        for w in (self.filter, self.units, self.teleport, self.reset):
            w.setEnabled(has)
        self._filter(self.filter.text())

    def _group(self, name: str, seg, parent: QWidget) -> QGroupBox:
        art = seg.articulation
        box = QGroupBox(name, parent)
        box.setObjectName(f"segment:{name}")
        grid = QGridLayout(box)
        grid.setContentsMargins(6, 4, 6, 4)
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(2)
        grid.setColumnStretch(1, 1)
        servo = QDoubleSpinBox(box)
        servo.setRange(0.0, 10.0)
        servo.setDecimals(3)
        servo.setSingleStep(0.01)
        servo.setSuffix(" s")
        servo.setKeyboardTracking(False)
        servo.setObjectName(f"servo:{name}")
        servo.setFixedWidth(76)
        servo.setToolTip("Servo time constant τ: each joint follows its command with the lag "
                         "θ' = (u − θ)/τ (0: at once). An edit of the rig (Edit → Undo)")
        with QSignalBlocker(servo):
            servo.setValue(self._servo_of(name))
        servo.valueChanged.connect(lambda v, _n=name: self._set_servo(_n, v))
        grid.addWidget(QLabel("servo τ", box), 0, 0)
        grid.addWidget(servo, 0, 2)
        self.servo[name] = servo
        torques = self.session.drive(name) == "torques"
        row = 1
        if self.session.can_drive_torques(name):
            drive = QComboBox(box)
            drive.addItems(["Positions", "Torques"])
            drive.setCurrentIndex(1 if torques else 0)
            drive.setObjectName(f"drive:{name}")
            drive.setToolTip("Positions: the sliders command the joints' positions (through the servo "
                             "lag). Torques: they set the joints' torques and the segment moves by forward "
                             "dynamics (gravity, its mount's motion, damping and friction)")
            drive.currentIndexChanged.connect(lambda i, _n=name: self.set_drive(_n, DRIVES[i]))
            grid.addWidget(QLabel("drive", box), row, 0)
            # the choice and its button share one cell across the slider and box columns, so neither sets
            # the slider column's least width
            controls = QHBoxLayout()
            controls.setContentsMargins(0, 0, 0, 0)
            controls.addWidget(drive, 1)
            self.drive[name] = drive
            if torques:
                zero = QPushButton("Zero torques", box)
                zero.setObjectName(f"zero:{name}")
                zero.setToolTip("Every joint's torque back to zero (the arm then falls under gravity)")
                zero.clicked.connect(lambda _c=False, _n=name: self.zero_torques(_n))
                controls.addWidget(zero, 1)
                self.zero[name] = zero
                hold = QPushButton("Hold", box)
                hold.setObjectName(f"hold:{name}")
                hold.setToolTip("Each joint's torque set to what keeps the segment as it is now: gravity, "
                                "the bias torques of its motion and its mount's, damping and friction (at "
                                "rest, it stays where it is)")
                hold.clicked.connect(lambda _c=False, _n=name: self.hold_torques(_n))
                controls.addWidget(hold, 1)
                self.hold[name] = hold
            grid.addLayout(controls, row, 1, 1, 3)
            row += 1
        servo.setEnabled(not torques)
        names = self.session.torque_names(name) if torques else self.session.command_names(name)
        inertia = self.session.joint_inertias(name) if torques else None
        for joint in names:
            j = art.joint_index(joint)
            linear = art.joint_type[j] == PRISMATIC
            if torques:
                self.rows.append(TorqueRow(self, name, joint, float(art.effort_limit[j]), linear, grid, row,
                                           box, float(inertia[j])))
            else:
                followers = [(art.joint_names[f], art.joint_type[f] == PRISMATIC)
                             for f in np.flatnonzero(np.asarray(art.mimic_master) == j)]
                self.rows.append(JointRow(self, name, joint, art.lower[j], art.upper[j], linear, grid, row,
                                          box, followers))
            row += 3  # the row, where its mimic followers are, a note on a clamped value
        followers = art.nq - len(names)
        if followers:
            note = QLabel(f"{followers} mimic joint follows its master" if followers == 1 else
                          f"{followers} mimic joints follow their masters", box)
            note.setObjectName(f"mimic:{name}")
            note.setToolTip("A mimic joint has no row: it moves with its master, whose row shows where it is")
            note.setStyleSheet("color: gray")
            grid.addWidget(note, row, 0, 1, 4)
        if not names:
            grid.addWidget(QLabel("no movable joints", box), row, 0, 1, 4)
        self.groups[name] = box
        return box

    def _servo_of(self, name: str) -> float:
        rig = self.session.rig
        tau = getattr(rig.chain.get(name), "servo_time_constant", 0.0) if rig is not None else 0.0
        return float(tau) if math.isfinite(tau) else 0.0

    # -- user input ----------------------------------------------------------------------------------
    def set_command(self, row: JointRow, value: float, typed: bool = False) -> None:
        """A row's new command: set in the Session (the state follows on the clock's ticks). A value beyond
        the joint's limits commands the limit; typed, the row says so."""
        held = row.limited(value)
        if typed:
            row.show_clamped(value if held != value else None, held)
        value = held
        try:
            if self.teleport.isChecked():
                self.session.set_joint_positions(row.segment, {row.joint: value})
            else:
                self.session.set_command(row.segment, {row.joint: value})
        except SessionError:  # emitted by the Session (the window shows it); the row shows the command again
            row.command = math.nan
            self.refresh_segment(row.segment)
            return
        self.refresh_segment(row.segment)
        self.commanded.emit()

    def set_torque(self, row: TorqueRow, value: float) -> None:
        """A torque row's new torque: held on the segment from the next tick on."""
        try:
            self.session.set_torques(row.segment, {row.joint: value})
        except SessionError:
            row.command = math.nan
        self.refresh_segment(row.segment)
        self.commanded.emit()

    def set_drive(self, name: str, drive: str) -> None:
        """Drive a dynamic segment by positions or torques (the rows are rebuilt from ``drive_changed``)."""
        try:
            self.session.set_drive(name, drive)
        except SessionError:  # shown by the window; the choice shows the drive again
            combo = self.drive.get(name)
            if combo is not None:
                with QSignalBlocker(combo):
                    combo.setCurrentIndex(DRIVES.index(self.session.drive(name)))
            return
        self.commanded.emit()

    def hold_torques(self, name: str) -> None:
        """Every joint's torque set to what keeps the segment as it is now (its gravity and bias torques)."""
        try:
            self.session.set_torques(name, self.session.holding_torques(name))
        except SessionError:  # shown by the window
            return
        self.refresh_segment(name)
        self.commanded.emit()

    def zero_torques(self, name: str) -> None:
        self.session.set_torques(name, np.zeros(len(self.session.torque_names(name))))
        self.refresh_segment(name)
        self.commanded.emit()

    def _drive_changed(self, _segment: str, _drive: str) -> None:
        # rebuilt on the next turn of the event loop: the Drive choice that changed is one of the widgets
        QTimer.singleShot(0, self._rebuild_if_changed)

    def _rebuild_if_changed(self) -> None:
        if self._key() != self._layout_key:
            self.rebuild()

    def _set_servo(self, name: str, value: float) -> None:
        if abs(value - self._servo_of(name)) < 1e-12:
            return
        try:
            self.session.apply(SetValue(f"chain.{name}.servo_time_constant", float(value)))
        except SessionError:
            with QSignalBlocker(self.servo[name]):
                self.servo[name].setValue(self._servo_of(name))

    def set_degrees(self, on: bool) -> None:
        self.degrees = bool(on)
        self.units.setText("deg" if on else "rad")
        for row in self.rows:
            row.set_units()
        for name in self.session.segments:
            self.refresh_segment(name)
        self.units_changed.emit(self.degrees)

    def reset_positions(self) -> None:
        """Every segment back to the rig's initial positions (as a command, or placed with Teleport)."""
        for name, seg in self.session.segments.items():
            art = seg.articulation
            init = getattr(seg, "initial", {}) or {}
            q = np.clip([init.get(j, 0.0) for j in art.joint_names], art.lower, art.upper)
            if self.teleport.isChecked() or self.session.drive(name) == "torques":  # placed there, at rest
                self.session.set_joint_positions(name, q)
            else:
                commanded = [art.joint_index(j) for j in self.session.command_names(name)]
                self.session.set_command(name, q[commanded])
            self.refresh_segment(name)
        self.commanded.emit()

    def go_to(self, positions, place: bool = False) -> None:
        """Joints to ``positions`` (``{segment: {joint: radians or metres}}``, the joints it names; the others
        keep their commands): the commands, which the arm follows through the servo, or placed at once with
        Teleport or ``place`` (a preview; a torque-driven segment is placed, at rest, as Reset does)."""
        for name, joints in positions.items():
            if name not in self.session.segments or not joints:
                continue
            try:
                if place or self.teleport.isChecked() or self.session.drive(name) == "torques":
                    self.session.set_joint_positions(name, dict(joints))
                else:
                    self.session.set_command(name, dict(joints))
            except SessionError:  # emitted by the Session (the window shows it)
                pass
            self.refresh_segment(name)
        self.commanded.emit()

    def centre_positions(self) -> None:
        """Every joint to the middle of its range (joint_state_publisher_gui's Center)."""
        self.go_to({name: centre(seg.articulation) for name, seg in self.session.segments.items()})

    def randomize_positions(self) -> None:
        """Every joint to a uniform draw within its limits (joint_state_publisher_gui's Randomize)."""
        segments = self.session.segments.items()
        self.go_to({name: randomize(seg.articulation, self.rng) for name, seg in segments})

    def _filter(self, text: str) -> None:
        text = text.strip().lower()
        shown: dict[str, bool] = {}
        for row in self.rows:
            on = not text or text in f"{row.segment}.{row.joint}".lower()
            row.set_visible(on)
            shown[row.segment] = shown.get(row.segment, False) or on
        for name, box in self.groups.items():
            box.setVisible(shown.get(name, not text))

    # -- refreshing from the Session ---------------------------------------------------------------------
    def _commands(self, name: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """What the segment's rows show: its torques and joints when torque-driven, else its command."""
        if self.session.drive(name) == "torques":
            return self.session.applied_torques(name), self.session.torque_names(name)
        return self.session.segment(name).command, self.session.command_names(name)

    def refresh_row(self, row: JointRow) -> None:
        if self.session.document is None or row.segment not in self.session.segments:
            return
        if isinstance(row, TorqueRow) != (self.session.drive(row.segment) == "torques"):
            return  # a row of the other drive, about to be rebuilt
        commands, names = self._commands(row.segment)
        art = self.session.segment(row.segment).articulation
        q = self.session.joint_positions(row.segment)
        row.show(float(commands[names.index(row.joint)]), float(q[art.joint_index(row.joint)]))
        row.show_followers(q, art)

    def refresh_segment(self, name: str) -> None:
        if name not in self.session.segments:
            return
        seg = self.session.segment(name)
        commands, names = self._commands(name)
        torques = self.session.drive(name) == "torques"
        q = seg.q
        art = seg.articulation
        for row in self.rows:
            if row.segment == name and isinstance(row, TorqueRow) == torques:
                row.show(float(commands[names.index(row.joint)]), float(q[art.joint_index(row.joint)]))
                row.show_followers(q, art)

    def _poses_changed(self, segments) -> None:
        for name in segments:
            self.refresh_segment(name)

    def _rig_changed(self, _change) -> None:
        if self._key() != self._layout_key:
            self.rebuild()
            return
        for name, box in self.servo.items():
            with QSignalBlocker(box):
                box.setValue(self._servo_of(name))
        for name in self.session.segments:
            self.refresh_segment(name)

    # -- for tests and tools ------------------------------------------------------------------------------
    def row(self, segment: str, joint: str) -> JointRow:
        for r in self.rows:
            if (r.segment, r.joint) == (segment, joint):
                return r
        raise KeyError(f"no slider for {segment}.{joint}")
