"""Contracts of the rig pinned at their edges: an actuator record's ``example`` flag is kept from a file, an
entry point and a record; a description's links that touch at rest but not in every sampled pose are left out
as "touch at rest"; a torque channel of a kinematic segment is refused with the words that say how to make it
take torques; an entry point without a distribution names its package by its module's top-level name; an
export of a rig without optional sections writes none of them; a frame mounted on a declared frame that is
refused says to fix that one first; an ideal rotor on a lab's joint whose axis is not of unit length is
written to MJCF as the disc about that axis."""

from __future__ import annotations

import importlib.metadata
import json
import math
import re
import sys
import types

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui.multibody import MultibodyTree
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.tree import Inertial, Joint, Link
from mime_gui.rig import Apparatus, Arm, DeclaredFrame, register_dynamics, unregister_dynamics
from mime_gui.rig import dynamics as rig_dynamics
from mime_gui.rig.actuator_sources import GROUP, from_entry_points, from_file, record
from mime_gui.rig.actuators import ActuatorRecord
from mime_gui.rig.collision import clearance_model
from mime_gui.rig.driven import torque_arrays
from mime_gui.rig.export import to_python
from mime_gui.rig.mjcf_export import to_mjcf
from mime_gui.rig.provenance import record as provenance_record

LAB_MOTOR = {"name": "lab-ec45-27a", "rotor_inertia": 2.09e-5, "unit": "kg m2",
             "source": "EC 45 flat datasheet, rotor inertia 209 g cm2"}


# -- an actuator record's example flag -----------------------------------------------------------------------
def test_the_example_flag_of_an_actuator_record_is_kept_from_a_file_an_entry_point_and_a_record(
        tmp_path, monkeypatch):
    # the bundled examples are marked so; a lab's file or package marks its own the same way
    path = tmp_path / "actuators.json"
    path.write_text(json.dumps({"actuators": [{**LAB_MOTOR, "example": True}]}))
    (found,) = from_file(path).values()
    assert found.example is True
    module = types.ModuleType("lab_motors_27a")
    module.motors = [{**LAB_MOTOR, "example": True}, ActuatorRecord("lab-ec32-27a", 1e-6, "datasheet", True)]
    monkeypatch.setitem(sys.modules, "lab_motors_27a", module)
    ep = importlib.metadata.EntryPoint("lab", "lab_motors_27a:motors", GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **select: importlib.metadata.EntryPoints([ep]))
    assert [r.example for r in from_entry_points().values()] == [True, True]
    # not given: not an example
    assert record(dict(LAB_MOTOR), "here", "there").example is False


# -- links that touch at rest, or in every pose --------------------------------------------------------------
def _pendulum_urdf(swing: float) -> str:
    """A 0.1 m cube (top at z = 0.05), a hub 0.5 m above it turning about z, and a 0.46 m bar hanging from
    the hub on a joint about y within ±``swing``: at rest the bar's foot (z = 0.04) sits in the cube."""
    return f"""<robot name="swing">
  <link name="base"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <link name="hub"><collision><geometry><sphere radius="0.01"/></geometry></collision></link>
  <link name="bar"><collision><origin xyz="0 0 -0.23"/>
    <geometry><box size="0.02 0.02 0.46"/></geometry></collision></link>
  <joint name="turn" type="revolute"><parent link="base"/><child link="hub"/><origin xyz="0 0 0.5"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="swing" type="revolute"><parent link="hub"/><child link="bar"/>
    <axis xyz="0 1 0"/><limit lower="{-swing}" upper="{swing}" effort="1" velocity="1"/></joint>
</robot>"""


@pytest.mark.parametrize(("swing", "why"), [(1.5, "touch at rest"), (0.01, "touch in every pose")],
                         ids=["swings clear", "stays in the cube"])
def test_the_links_that_touch_are_left_out_saying_whether_at_rest_or_in_every_pose(tmp_path, swing, why):
    # swung by more than ~0.02 rad the bar's foot leaves the cube; within ±0.01 rad it never does
    path = tmp_path / f"swing_{swing}.urdf"
    path.write_text(_pendulum_urdf(swing))
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(path))})
    assert rig.validate() == []
    left = {(a, b): w for a, b, w in clearance_model(rig.build()).left_out}
    assert left == {("arm.base", "arm.hub"): "joined by a joint", ("arm.hub", "arm.bar"): "joined by a joint",
                    ("arm.base", "arm.bar"): why}


# -- a torque channel of a kinematic segment -----------------------------------------------------------------
def test_the_torque_channel_of_a_kinematic_segment_is_refused_saying_how_to_make_it_dynamic():
    rig = snippet_rig()
    rig.chain["arm"] = Arm.Kinematic(description=rig.chain["arm"].description)
    with pytest.raises(CodedError) as info:
        torque_arrays(rig.build(), {"arm.joint_torques.joint_1": np.ones(3)}, 3)
    assert (info.value.code, info.value.message) == (
        "commands.torque", "'arm.joint_torques.joint_1': segment 'arm' is kinematic; only a dynamic segment "
        "takes torques (make it Arm.Dynamic or Motor.Dynamic)")


# -- an entry point without a distribution -------------------------------------------------------------------
class _EntryPoint:
    """An entry point of the dynamics group that no distribution holds (``dist`` None), in a submodule."""

    name, value, module, dist = "turntable-27a", "lab_tables_27a.kinds:table", "lab_tables_27a.kinds", None

    def __init__(self, target):
        self.target = target

    def load(self):
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def _table():
    return rig_dynamics.frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0.01),
                                                      (0, 0, 1), None)])


@pytest.fixture
def installed(monkeypatch):
    """Installed kinds are those a test gives; read afresh before and after."""
    yield lambda target: (monkeypatch.setattr(rig_dynamics, "_entry_points", lambda: [_EntryPoint(target)]),
                          rig_dynamics.refresh())
    monkeypatch.undo()
    rig_dynamics.refresh()


def test_an_entry_point_without_a_distribution_names_the_top_level_package_of_its_module(installed, tmp_path):
    # the package is what a machine without the kind is told to install: lab_tables_27a, not its submodule
    installed(_table)
    segment = rig_dynamics.LabSegment(kind="turntable-27a")
    assert segment.registrant() == ("lab_tables_27a", "")
    block = provenance_record(Apparatus("t", chain={"table": segment}), tmp_path)
    assert block["segments"]["table"]["package"] == "lab_tables_27a"
    installed(ImportError("no module named lab_tables_27a"))
    with pytest.raises(CodedError) as info:
        rig_dynamics.kinds()
    assert info.value.message == ("the mime_gui.dynamics entry point turntable-27a = "
                                  "lab_tables_27a.kinds:table of lab_tables_27a cannot be loaded: "
                                  "ImportError: no module named lab_tables_27a")


# -- the exported Python of a rig without optional sections --------------------------------------------------
def test_the_export_of_a_rig_without_optional_sections_passes_only_chain_parts_magnets_and_base(tmp_path):
    # frames, probes, samples, zones, clearance, poses, trajectories, targets and package_dirs are written
    # only by a rig that has them, so other exports read as before
    source = to_python(snippet_rig(), tmp_path)
    start = source.index("rig = Apparatus(")
    call = source[start:source.index("\n)\n", start)]
    assert re.findall(r"^    (\w+)=", call, flags=re.MULTILINE) == ["chain", "parts", "magnets", "base"]
    scope: dict = {"__file__": str(tmp_path / "rig.py")}
    exec(compile(source, str(tmp_path / "rig.py"), "exec"), scope)  # noqa: S102 - our own export
    assert scope["rig"].trajectories == {}


# -- a frame on a declared frame that is refused -------------------------------------------------------------
def test_a_frame_mounted_on_a_refused_declared_frame_says_to_fix_that_one_first():
    rig = snippet_rig(frames={"a": DeclaredFrame("arm.b"), "b": DeclaredFrame("arm.nowhere")})
    messages = {f.where: (f.code, f.message) for f in rig.validate()}
    assert messages["frames.a.mount"] == (
        "frame.mount", "'arm.b' is a declared frame that is not placed (see frames.b); fix that one first")
    assert messages["frames.b.mount"][1].startswith("'nowhere' is not a frame of 'arm'")


# -- an ideal rotor on a lab's joint whose axis is not of unit length ----------------------------------------
def _rotor(scale: float = 2.0) -> MultibodyTree:
    """A rotor of 1e-5 kg m2 about its shaft and none across it, on a joint whose axis is (0, 0, scale)."""
    rotor = Inertial(mass=0.1, link_X_com=np.eye(4), inertia=np.diag([0.0, 0.0, 1e-5]))
    spin = Joint("spin", "continuous", "base", "rotor", np.eye(4), axis=np.array([0.0, 0.0, scale]))
    return MultibodyTree(name="rotor", links={"base": Link("base"), "rotor": Link("rotor", inertial=rotor)},
                         joints={"spin": spin}, root="base", source="<rotor>")


def test_an_ideal_rotor_on_a_lab_axis_of_any_length_is_written_as_the_disc_about_that_axis(tmp_path):
    # a disc: the inertia about the shaft, and half of it about every axis across (MuJoCo's thinnest rotor);
    # the axis is a direction, whatever its length
    register_dynamics("rotor-27a", _rotor)
    try:
        rig = Apparatus("r", chain={"t": rig_dynamics.LabSegment(kind="rotor-27a")})
        assert rig.validate() == []
        text = to_mjcf(rig, tmp_path / "r.xml")
    finally:
        unregister_dynamics("rotor-27a")
    (diagonal,) = re.findall(r'<inertial pos="0 0 0" mass="0.1" diaginertia="([^"]+)"/>', text)
    np.testing.assert_allclose([float(v) for v in diagonal.split()], [5e-6, 5e-6, 1e-5], rtol=1e-8)
    assert math.isclose(float(re.search(r"half of that across it \(([^ ]+) kg m2\)", text)[1]), 5e-6,
                        rel_tol=1e-8)
