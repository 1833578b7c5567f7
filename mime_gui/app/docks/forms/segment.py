"""The form of a segment of the chain: name, kind (kinematic or dynamic), description, the frame it mounts
on, its placement (``at``, and the orientation shown as roll-pitch-yaw in degrees, stored as the unit
quaternion), servo time constant, initial positions; a motor's axis and rotor inertia; a lab kind's parameters
(numbers editable, other values shown); its place in the chain (move up, move down)."""

from __future__ import annotations

import json
import math

import numpy as np
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QPushButton, QWidget

from mime_gui.app.docks.fields import ChoiceField, NumberField, QuantityField, TextField, VectorField
from mime_gui.app.docks.forms.base import Form
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.spatial import quaternion_of, quaternion_to_matrix, rpy_of
from mime_gui.rig.dynamics import LabSegment
from mime_gui.rig.dynamics import kind as lab_kind
from mime_gui.rig.paths import DELETE
from mime_gui.rig.segments import _ArmSegment, _MotorSegment
from mime_gui.rig.templates import default_params
from mime_gui.rig.units import KG_M2
from mime_gui.session import MoveItem, RenameItem, SetKind, SetValue
from mime_gui.session.edits import _SWITCH


def rpy_to_quaternion(rpy) -> tuple[float, float, float, float]:
    """(w, x, y, z) of R = Rz(yaw) Ry(pitch) Rx(roll) (URDF's convention), radians in."""
    r, p, y = (float(a) for a in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return tuple(float(v) for v in quaternion_of(Rz @ Ry @ Rx))


def _like(value: float, default):
    """A whole number stays an integer where the factory's default is one (a count, an index)."""
    if isinstance(default, int) and not isinstance(default, bool) and float(value).is_integer():
        return int(value)
    return value


def quaternion_to_rpy_degrees(wxyz) -> tuple[float, float, float]:
    try:
        R = quaternion_to_matrix(wxyz)
    except ValueError:
        return (math.nan, math.nan, math.nan)
    return tuple(float(v) for v in np.degrees(rpy_of(R)))


class SegmentForm(Form):
    def __init__(self, panel, name: str, parent=None):
        super().__init__(panel, parent)
        self.name = name
        self.build()

    @property
    def base(self) -> str:
        return f"chain.{self.name}"

    def seg(self, rig):
        return rig.chain[self.name]

    def exists(self, rig) -> bool:
        return self.name in rig.chain

    def shape(self, rig) -> tuple:
        seg = self.seg(rig)
        tree = self.session.segments.get(self.name)
        joints = tuple(tree.tree.movable_joint_names()) if tree is not None else ()
        return (self.name, seg.kind, list(rig.chain).index(self.name) == 0, joints,
                tuple(rig.chain)[:list(rig.chain).index(self.name)])

    def own_paths(self):
        return (self.base,)

    # -- building ------------------------------------------------------------------------------------
    def build(self) -> None:
        rig = self.session.rig
        seg = self.seg(rig)
        base = self.base
        first = list(rig.chain).index(self.name) == 0
        self.section(f"Segment {self.name}")
        self.add("Name", TextField(base, self), lambda r: self.name, self._rename,
                 "Rename (Enter): every mount naming this segment follows", exact=True)
        kind = ChoiceField(f"{base}.kind", self)
        other = _SWITCH.get(seg.kind)  # a lab's registered kind has no Kinematic/Dynamic twin
        kind.set_choices([(seg.kind, seg.kind)] + ([(other, other)] if other else []))
        self.add("Kind", kind, lambda r: self.seg(r).kind, lambda k: self.apply(SetKind(self.name, k)),
                 "Kinematic: prescribed motion, carries no mass. Dynamic: parts are grafted with their mass "
                 "and each joint takes an armature")
        if isinstance(seg, _ArmSegment):
            desc = self.add("Description", TextField(f"{base}.description", self, "a URDF file"),
                            lambda r: self.seg(r).description,
                            lambda v: self.apply(SetValue(f"{base}.description", v)),
                            "The URDF file, relative to the rig file")
            browse = QPushButton("Browse…", desc)
            browse.clicked.connect(self._browse)
            desc.row.addWidget(browse)
        order = QWidget(self)
        row = QHBoxLayout(order)
        row.setContentsMargins(0, 0, 0, 0)
        index = list(rig.chain).index(self.name)
        for text, to, enabled in (("Move up", index - 1, index > 0),
                                  ("Move down", index + 1, index < len(rig.chain) - 1)):
            button = QPushButton(text, order)
            button.setEnabled(enabled)
            button.clicked.connect(lambda _=False, _to=to: self.apply(MoveItem("chain", self.name, _to)))
            row.addWidget(button)
        row.addStretch(1)
        self.add_widget("Chain order", order)

        self.section("Placement")
        mount = ChoiceField(f"{base}.mount", self)
        mount.options = (lambda _rig: [("(the world)", None)]) if first else self._mounts
        self.add("Mounted on", mount, lambda r: self.seg(r).mount,
                 lambda v: self.apply(SetValue(f"{base}.mount", v)),
                 "A frame of the segment before it, or <segment>.<frame> of an earlier one; the first "
                 "segment stands in the world, placed by At and Orientation")
        self.add("At", VectorField(f"{base}.at", lengths=self.lengths, parent=self),
                 lambda r: self.seg(r).at, lambda v: self.apply(SetValue(f"{base}.at", v)),
                 "The segment's base in the mount frame (the world for the first segment)")
        self.add("Orientation", VectorField(f"{base}.orientation", unit="°", parent=self,
                                            labels=("roll", "pitch", "yaw")),
                 lambda r: quaternion_to_rpy_degrees(self.seg(r).orientation), self._orient,
                 "Roll, pitch, yaw in degrees (R = Rz·Ry·Rx), stored as a unit quaternion (w, x, y, z)")
        self.add("Servo lag", NumberField(f"{base}.servo_time_constant", "s", self),
                 lambda r: self.seg(r).servo_time_constant,
                 lambda v: self.apply(SetValue(f"{base}.servo_time_constant", v)),
                 "Time constant of the first-order lag between command and position (0: none)")

        if isinstance(seg, _MotorSegment):
            self.section("Motor")
            self.add("Axis", VectorField(f"{base}.axis", parent=self), lambda r: self.seg(r).axis,
                     lambda v: self.apply(SetValue(f"{base}.axis", v)),
                     "The rotor's axis in the stator frame")
            self.add("Initial angle", NumberField(f"{base}.initial_position", "rad", self),
                     lambda r: self.seg(r).initial_position,
                     lambda v: self.apply(SetValue(f"{base}.initial_position", v)))
            if seg.dynamic:
                inertia = QuantityField(f"{base}.inertia", KG_M2, self, "datasheet, catalogue")
                self.add("Rotor inertia", inertia,
                         lambda r: self.seg(r).inertia, lambda v: self.apply(SetValue(f"{base}.inertia", v)),
                         "The rotor's moment of inertia about the axis, with its reason")
        else:
            self._initial_positions()
            if seg.dynamic:
                self.hint("Armature per joint: the Armature panel.")
        if isinstance(seg, LabSegment):
            self._params(seg)
        self.finish()

    def _params(self, seg: LabSegment) -> None:
        """The kind's parameters: the ones set, then the factory's other defaults. A number is edited here
        (emptied: the factory's default); text, booleans and lists are shown, edited in the rig file."""
        try:
            registered = lab_kind(seg.kind)
        except CodedError:  # a broken entry point: the findings say so
            registered = None
        defaults = default_params(registered.factory) if registered is not None else {}
        names = [*seg.params, *(k for k in defaults if k not in seg.params)]
        if not names:
            return
        self.section("Parameters")
        for key in names:
            path = f"{self.base}.params.{key}"
            value = seg.params.get(key, defaults.get(key))
            if isinstance(value, int | float) and not isinstance(value, bool):
                field = NumberField(path, "", self)
                field.edit.setPlaceholderText(f"{defaults[key]} (default)" if key in defaults else "")
                self.add(key, field, lambda r, k=key: self.seg(r).params.get(k, defaults.get(k)),
                         lambda v, p=path, k=key: self.apply(
                             SetValue(p, DELETE if v is None else _like(v, defaults.get(k)))),
                         f"The parameter {key} of the kind {seg.kind!r}")
                field.optional = True
            else:
                self.add_value(key, lambda r, k=key: json.dumps(self.seg(r).params.get(k, defaults.get(k))),
                               f"The parameter {key} of the kind {seg.kind!r} (edit it in the rig file)")

    def _initial_positions(self) -> None:
        drawn = self.session.segments.get(self.name)
        if drawn is None:
            return
        tree = drawn.tree
        joints = tree.movable_joint_names()
        if not joints:
            return
        self.section("Initial positions")
        for joint in joints:
            unit = "m" if tree.joints[joint].type == "prismatic" else "rad"
            path = f"{self.base}.initial_positions.{joint}"
            field = NumberField(path, unit, self)
            field.edit.setPlaceholderText("0 (not set)")
            self.add(joint, field, lambda r, j=joint: self.seg(r).initial_positions.get(j),
                     lambda v, p=path: self.apply(SetValue(p, DELETE if v is None else v)))
            field.optional = True

    def _mounts(self, rig):
        names = list(rig.chain)
        earlier = names[:names.index(self.name)]
        out = []
        for i, seg_name in enumerate(earlier):
            drawn = self.session.segments.get(seg_name)
            if drawn is None:
                continue
            frames = [f for f in drawn.tree.link_order() if f not in drawn.tree.part_links]
            last = i == len(earlier) - 1
            out += [(f if last else f"{seg_name}.{f}", f if last else f"{seg_name}.{f}") for f in frames]
        return out

    # -- edits ---------------------------------------------------------------------------------------
    def _orient(self, rpy_degrees) -> None:
        q = rpy_to_quaternion(np.radians(rpy_degrees))
        self.apply(SetValue(f"{self.base}.orientation", q))

    def _rename(self, new: str) -> None:
        new = new.strip() if isinstance(new, str) else new
        if not new or new == self.name:
            self.refresh(self.session.rig, force=True)
            return
        if self.apply(RenameItem("chain", self.name, new)):
            self.panel.select_item("chain", new)
        else:
            self.refresh(self.session.rig, force=True)

    def _browse(self) -> None:
        start = str(self.session.rig.base or "")
        path, _ = QFileDialog.getOpenFileName(self, "A URDF description", start, "URDF (*.urdf *.xml)")
        if path:
            self.apply(SetValue(f"{self.base}.description", path))
