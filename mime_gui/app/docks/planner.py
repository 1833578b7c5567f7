"""Find poses: ask for the field a probe or a sample needs, get the arm's poses, preview one, use it.

The target is one of the rig's (its file's ``targets``, chosen at the top: it fills the form) or typed in
the dock (where, a fixed direction or a rotating axis and frequency, the tolerance,
the |B| window, the least ellipticity, and optionally the largest gradient and, at a sample, the largest
force on it: :class:`~mime_gui.rig.targets.FieldTarget`); *Find poses* runs
:func:`~mime_gui.field.planner.plan` from the current pose on a worker thread (the window stays live; a
newer search or an edit of the rig makes an older one's answer stale, and it is dropped). The candidates are
listed best margin first; choosing one previews it (the arm placed there at once, as the sliders' Teleport
does); *Use* turns the chosen one into a trajectory from the rig's initial positions, where the
player starts it (:func:`~mime_gui.field.planner.trajectory_to`), checks it as played
(:func:`~mime_gui.field.planner.check_candidate`) and, when it passes, adds it to the rig (one edit, one
undo step) and plays it. *Keep as target* adds the typed field to the rig's targets (one edit). A target the
rig cannot meet says which constraint binds.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mime_gui.app.docks.look import hint, message
from mime_gui.app.docks.poses import current_positions
from mime_gui.app.docks.registry import declare
from mime_gui.errors import CodedError
from mime_gui.session import AddItem, Session, SessionError

#: the step of the trajectory a candidate becomes (s): the Trajectory dock's
DT = 0.01
HEADERS = ["#", "Margin", "Off (°)", "|B| (mT)", "Joints"]
FIXED, ROTATING = "fixed direction", "rotating"
TYPED = "(as typed below)"
#: the dock's least size (px), no larger than the other tabs' beside the plots
MINIMUM = (240, 120)


def _spin(parent, low: float, high: float, value: float, decimals: int, suffix: str,
          tip: str) -> QDoubleSpinBox:
    box = QDoubleSpinBox(parent)
    box.setRange(low, high)
    box.setDecimals(decimals)
    box.setValue(value)
    box.setSuffix(suffix)
    box.setKeyboardTracking(False)
    box.setToolTip(tip)
    return box


class PlannerDock(QDockWidget):
    go_to_requested = Signal(object)  # {segment: {joint: radians or metres}}: the joint sliders take it
    found = Signal(object)  # the Plan arrived (tests wait on it)
    _arrived = Signal(int, object)  # (search token, Plan or CodedError) from the worker

    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "PlannerDock")  # its title and object name: the dock registry
        self.session = session
        self.transport = services.transport
        self.plan = None  # the last Plan shown
        self.plan_built = None  # the build it was found on (a new trajectory or pose keeps it valid)
        self.searches = 0  # searches started (tests)
        self._token = 0
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="find-poses")
        self._arrived.connect(self._show_plan)

        body = QWidget(self)
        col = QVBoxLayout(body)
        col.setContentsMargins(4, 4, 4, 4)
        col.setSpacing(3)
        grid = QGridLayout()  # two fields a row: the candidates' table keeps the dock's height
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(3)
        self.targets = QComboBox(body)
        self.targets.setObjectName("targets")
        self.targets.setToolTip("The rig's field targets (its file's targets): choosing one fills the form")
        self.targets.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.targets.setMinimumContentsLength(6)
        self.targets.currentTextChanged.connect(self._target_chosen)
        self.at = QComboBox(body)
        self.at.setToolTip("The probe or sample where the field is asked for")
        self.at.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
        self.at.setMinimumContentsLength(6)
        self.kind = QComboBox(body)
        self.kind.addItems([FIXED, ROTATING])
        self.kind.setToolTip("A field along a fixed direction, or one rotating about an axis at a frequency "
                             "(the motor that turns a magnet spins it)")
        self.kind.currentTextChanged.connect(lambda _t: self._enable())
        self.at.currentTextChanged.connect(lambda _t: self._enable())
        self.vector = QLineEdit("0, 0, 1", body)
        self.vector.setToolTip("The direction (fixed) or the axis (rotating, right-handed for a positive "
                               "frequency), world axes: three numbers")
        self.frequency = _spin(body, -1e4, 1e4, 5.0, 2, " Hz", "The rotating field's frequency (negative: "
                               "the other way about the axis)")
        self.tolerance = _spin(body, 0.0, 180.0, 10.0, 1, "°", "How far the direction or the axis may be off")
        self.low = _spin(body, 0.0, 1e5, 1.0, 3, " mT", "The least |B|")
        self.high = _spin(body, 0.0, 1e5, 50.0, 3, " mT", "The largest |B|")
        self.ellipticity = _spin(body, 0.0, 1.0, 0.0, 2, "", "A rotating field's least ellipticity (minor "
                                 "over major axis; 1 a circle)")
        # blank: no bound (a spin box has no "none", and forces span µN to N)
        self.gradient = QLineEdit(body)
        self.gradient.setPlaceholderText("none")
        self.gradient.setToolTip("The largest gradient at the point, T/m: the Frobenius norm of ∂B_i/∂x_j, "
                                 "which bounds |∇|B|| and every entry (blank: no bound)")
        self.force = QLineEdit(body)
        self.force.setPlaceholderText("none")
        self.force.setToolTip("The largest force on the sample, N (a target at a sample; blank: no bound)")
        # the rotating field's own row last, hidden for a fixed field: the form and its buttons take five
        # rows, and the candidates' table the rest of the dock
        rows = [(("Target", self.targets), ("At", self.at)),
                (("Field", self.kind), ("Axis", self.vector)),
                (("|B| from", self.low), ("to", self.high)),
                (("within", self.tolerance), ("∇B ≤ T/m", self.gradient)),
                (("Force ≤ N", self.force), None),
                (("Frequency", self.frequency), ("Ellipticity ≥", self.ellipticity))]
        self._rotating_row = []  # the labels and fields shown for a rotating field only
        for r, pair in enumerate(rows):
            for c, cell in enumerate(pair):
                if cell is None:
                    continue
                label, widget = cell
                shown = QLabel(label, body)
                grid.addWidget(shown, r, 2 * c)
                grid.addWidget(widget, r, 2 * c + 1)
                if widget is self.vector:
                    self.vector_label = shown  # "Direction" or "Axis", as the field asked
                if r == len(rows) - 1:
                    self._rotating_row += [shown, widget]
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        col.addLayout(grid)

        buttons = QHBoxLayout()
        self.find_button = QToolButton(body)
        self.find_button.setText("Find poses")
        self.find_button.setToolTip("Search the arm's poses for this field from the current pose and 8 "
                                    "starts within the limits")
        self.find_button.clicked.connect(self.find)
        self.use_button = QToolButton(body)
        self.use_button.setText("Use")
        self.use_button.setToolTip("The chosen pose as a trajectory from the rig's initial positions (then "
                                   "the spin), checked as played, added to the rig (an edit: Edit → Undo) "
                                   "and played")
        self.use_button.clicked.connect(self.use)
        self.keep_button = QToolButton(body)
        self.keep_button.setText("Keep as target")
        self.keep_button.setToolTip("Keep the field typed here as a target of the rig (its file's targets; "
                                    "an edit: Edit → Undo)")
        self.keep_button.clicked.connect(self.keep)
        buttons.addWidget(self.find_button)
        buttons.addWidget(self.use_button)
        buttons.addWidget(self.keep_button)
        buttons.addStretch(1)
        force_row = next(r for r, pair in enumerate(rows) if pair[0][1] is self.force)
        grid.addLayout(buttons, force_row, 2, 1, 2)  # beside the lone force field: a row less above the table

        self.table = QTableWidget(0, len(HEADERS), body)
        self.table.setObjectName("candidates")
        self.table.setHorizontalHeaderLabels(HEADERS)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        header = self.table.horizontalHeader()
        for c in range(len(HEADERS) - 1):
            header.setSectionResizeMode(c, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.setMinimumHeight(60)
        self.table.currentCellChanged.connect(lambda row, *_: self.preview(row))
        col.addWidget(self.table, 1)
        self.status = QLabel(body)
        self.status.setObjectName("planner-status")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.status.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)  # never widens the window
        col.addWidget(self.status)
        scroll = QScrollArea(self)  # the form scrolls in a short dock rather than making the window taller
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        scroll.setMinimumSize(*MINIMUM)
        self.setWidget(scroll)

        bridge.document_changed.connect(lambda _d: self.refresh())
        bridge.rig_changed.connect(lambda _c: self.refresh())
        bridge.findings_changed.connect(lambda _f: self._enable())
        self.refresh()

    # -- the rig -----------------------------------------------------------------------------------------
    def _built(self):
        doc = self.session.document
        return getattr(doc, "built", None) if doc is not None else None

    def refresh(self) -> None:
        """The probes and samples offered; an answer computed for the rig before the edit is dropped."""
        rig = self.session.rig
        places = [] if rig is None else [f"probes.{n}" for n in rig.probes] + \
            [f"samples.{n}" for n in getattr(rig, "samples", {})]
        if places != [self.at.itemText(i) for i in range(self.at.count())]:
            keep = self.at.currentText()
            with QSignalBlocker(self.at):
                self.at.clear()
                self.at.addItems(places)
                if keep in places:
                    self.at.setCurrentIndex(places.index(keep))
        names = [TYPED] + (list(rig.targets) if rig is not None else [])
        if names != [self.targets.itemText(i) for i in range(self.targets.count())]:
            keep = self.targets.currentText()
            with QSignalBlocker(self.targets):
                self.targets.clear()
                self.targets.addItems(names)
                self.targets.setCurrentIndex(names.index(keep) if keep in names else 0)
        if self.plan is not None and _key(self.plan_built) != _key(self._built()):
            self._token += 1  # a search under way is for the rig as it was
            self._set_plan(None)
            self._say("The rig changed: find poses again")
        self._enable()

    def _enable(self) -> None:
        ready = self._built() is not None and self.at.count() > 0
        self.find_button.setEnabled(ready)
        self.keep_button.setEnabled(ready)
        self.use_button.setEnabled(ready and self.chosen() is not None)
        rotating = self.kind.currentText() == ROTATING
        self.vector_label.setText("Axis" if rotating else "Direction")
        self.frequency.setEnabled(rotating)
        self.ellipticity.setEnabled(rotating)
        for w in self._rotating_row:
            w.setVisible(rotating)
        self.force.setEnabled(self.at.currentText().startswith("samples."))

    # -- the target --------------------------------------------------------------------------------------
    def target(self):
        """The :class:`FieldTarget` typed in the dock (raises a coded error for what is not one)."""
        from mime_gui.magnitudes import parse_float  # the one number parser
        from mime_gui.rig.targets import FieldTarget, TargetError

        try:
            vector = tuple(parse_float(p.strip()) for p in self.vector.text().split(","))
        except ValueError:
            vector = ()
        if len(vector) != 3:
            raise TargetError("target.direction", f"{self.vector.text()!r} is not three numbers; type X, Y, "
                              "Z (0, 0, 1)", "direction")
        rotating = self.kind.currentText() == ROTATING
        bounds = {}
        for key, box, code in (("max_gradient", self.gradient, "target.gradient"),
                               ("max_force", self.force, "target.force")):
            text = box.text().strip()
            if not text or not box.isEnabled():
                continue
            try:
                bounds[key] = parse_float(text)
            except ValueError:
                raise TargetError(code, f"{text!r} is not a number; type the bound, or leave it blank for "
                                  "none", key) from None
        return FieldTarget(self.at.currentText(), direction=None if rotating else vector,
                           axis=vector if rotating else None,
                           frequency=self.frequency.value() if rotating else None,
                           tolerance=math.radians(self.tolerance.value()), low=self.low.value() * 1e-3,
                           high=self.high.value() * 1e-3,
                           ellipticity=self.ellipticity.value() if rotating else 0.0, **bounds)

    def _target_chosen(self, name: str) -> None:
        """A target of the rig fills the form (the form's fields stay editable: a search uses them)."""
        rig = self.session.rig
        t = rig.targets.get(name) if rig is not None else None
        if t is None:
            return
        self.at.setCurrentText(t.at)
        self.kind.setCurrentText(ROTATING if t.rotating else FIXED)
        self.vector.setText(", ".join(f"{v:g}" for v in (t.axis if t.rotating else t.direction)))
        if t.rotating:
            self.frequency.setValue(t.frequency)
            self.ellipticity.setValue(t.ellipticity)
        self.tolerance.setValue(math.degrees(t.tolerance))
        self.low.setValue(t.low * 1e3)
        self.high.setValue(t.high * 1e3)
        self.gradient.setText("" if t.max_gradient is None else repr(t.max_gradient))  # exact: Find reads it
        self.force.setText("" if t.max_force is None else repr(t.max_force))
        self._enable()

    def keep(self) -> bool:
        """The typed field as a new target of the rig: one edit."""
        try:
            target = self.target()
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        taken = {n.casefold() for n in self.session.rig.targets}
        i = 1
        while f"target {i}" in taken:
            i += 1
        name = f"target {i}"
        try:
            self.session.apply(AddItem("targets", name, target))
        except SessionError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        self.targets.setCurrentText(name)
        self._say(f"Kept as {name!r} in the rig's targets (mime-gui plan --target {name!r})")
        return True

    def _current(self, built) -> np.ndarray:
        """The current commands in ``built.command_names`` order."""
        positions = current_positions(self.session)
        return np.array([positions.get(n.partition(".")[0], {}).get(n.partition(".")[2], 0.0)
                         for n in built.command_names], dtype=float)

    # -- searching ---------------------------------------------------------------------------------------
    def find(self) -> None:
        """Search on the worker from the current pose; the answer is shown when it arrives."""
        from mime_gui.field.planner import plan

        built = self._built()
        if built is None:
            return
        try:
            target = self.target()
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return
        current = self._current(built)
        self._token += 1
        self.searches += 1
        token = self._token
        self._say(f"Searching for {target.at}'s field …")
        self.find_button.setEnabled(False)

        def work():
            try:
                return plan(built, target, current=current)
            except CodedError as err:
                return err

        future = self._pool.submit(work)
        future.add_done_callback(lambda f, t=token, b=built: self._arrived.emit(t, (b, f.result())))

    def _show_plan(self, token: int, answer) -> None:
        self._enable()
        if token != self._token:
            return  # a newer search, or an edit of the rig, made it stale
        built, found = answer
        if isinstance(found, CodedError):
            self._set_plan(None)
            self._say(f"[{found.code}] {found.message}", bad=True)
            self.found.emit(found)
            return
        self.plan_built = built
        self._set_plan(found)
        if found.candidates:
            self._say(f"{len(found.candidates)} pose(s) meet the target ({found.evaluations} poses "
                      "evaluated); choose one to preview it, Use to make it a trajectory")
        else:
            from mime_gui.field.planner import describe_binding

            self._say(f"No pose meets the target: {found.binding} binds: {describe_binding(found)}", bad=True)
        self.found.emit(found)

    def _set_plan(self, found) -> None:
        self.plan = found
        rows = found.candidates if found is not None else []
        with QSignalBlocker(self.table):
            self.table.setRowCount(0)
            self.table.setRowCount(len(rows))
            for r, c in enumerate(rows):
                joints = ", ".join(f"{n.partition('.')[2]} {math.degrees(v):.1f}°"
                                   for n, v in zip(found.names, c.positions, strict=True))
                size = f"{c.B_min * 1e3:.3g}" if c.B_min == c.B_max else \
                    f"{c.B_min * 1e3:.3g}–{c.B_max * 1e3:.3g}"
                cells = [str(r + 1), f"{c.margin:.2f}", f"{math.degrees(c.angle):.2f}", size, joints]
                bounded = "".join([f"; gradient {c.gradient:.3g} T/m" if math.isfinite(c.gradient) else "",
                                   f"; force {c.force:.3g} N" if math.isfinite(c.force) else ""])
                for k, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setToolTip(text if k == len(cells) - 1 else HEADERS[k] + (bounded if k == 3 else ""))
                    self.table.setItem(r, k, item)
        self._enable()

    def chosen(self):
        row = self.table.currentRow()
        if self.plan is None or not 0 <= row < len(self.plan.candidates):
            return None
        return self.plan.candidates[row]

    def preview(self, row: int) -> None:
        """The candidate of ``row`` to the joint sliders (the arm goes there as the sliders move it)."""
        self._enable()
        if self.plan is None or not 0 <= row < len(self.plan.candidates):
            return
        c = self.plan.candidates[row]
        positions: dict[str, dict[str, float]] = {}
        for name, value in zip(self.plan.names, c.positions, strict=True):
            seg, _, joint = name.partition(".")
            if self.plan.spinner is not None and (seg, joint) == tuple(self.plan.spinner):
                continue  # the shaft turns through the spin: its angle is where the turn starts
            positions.setdefault(seg, {})[joint] = float(value)
        self.go_to_requested.emit(positions)

    def next_name(self) -> str:
        taken = {n.casefold() for n in (self.session.rig.trajectories if self.session.rig else {})}
        i = 1
        while f"plan {i}" in taken:
            i += 1
        return f"plan {i}"

    def use(self) -> bool:
        """The chosen candidate as a checked trajectory from the rig's initial positions, added (one edit) and
        played."""
        from mime_gui.field.planner import check_candidate, trajectory_to

        built, c, plan = self._built(), self.chosen(), self.plan
        if built is None or c is None or plan is None:
            return False
        try:
            # from the rig's initial positions, where the player starts it (not from the pose previewed)
            trajectory = trajectory_to(built, plan, c)
            checked = check_candidate(built, plan, trajectory, DT)
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        if not checked.confirms:
            reasons = [f"[{f.code}] {f.message}" for f in checked.findings] or \
                ["the field as played does not meet the target"]
            self._say("This pose fails its checks: " + "; ".join(reasons[:3]), bad=True)
            return False
        name = self.next_name()
        try:
            self.session.apply(AddItem("trajectories", name, trajectory))
        except SessionError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        try:
            self.transport.open_trajectory(name, DT)
        except CodedError as err:
            self._say(f"[{err.code}] {err.message}", bad=True)
            return False
        what = (f"{checked.frequency:.3g} Hz, axis {math.degrees(checked.angle):.1f}° off, |B| "
                f"{checked.B_min * 1e3:.3g}–{checked.B_max * 1e3:.3g} mT" if plan.target.rotating
                else f"{math.degrees(checked.angle):.1f}° off, |B| {checked.B_min * 1e3:.3g} mT")
        self._say(f"Added and playing {name!r}: checked as played, {what}")
        return True

    def _say(self, text: str, bad: bool = False) -> None:
        self.status.setText(text)
        (message if bad else hint)(self.status)

    def closeEvent(self, event) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        super().closeEvent(event)


def _key(built) -> tuple | None:
    """What a plan depends on: the rig but its trajectories and poses (adding the trajectory a plan made
    leaves its candidates as they were)."""
    if built is None:
        return None
    rig = built.apparatus
    return (rig.name, rig.base, rig.chain, rig.parts, rig.magnets, rig.probes, rig.frames,
            getattr(rig, "samples", {}), getattr(rig, "zones", {}))


__all__ = ["DT", "PlannerDock"]
