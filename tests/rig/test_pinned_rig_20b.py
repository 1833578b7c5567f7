"""Rig contracts pinned at their edges: a measure's end of no kind is refused naming which end; MJCF writes an
ideal rotor on a *revolute* joint as a disc, as it does on a continuous one; a rig-path refusal is a
KeyError whose argument is its whole message; ``mime-gui play --integrator`` reaches a rig's torque-driven
segments; a command file without a header (NPZ) names a doubled joint by its ``joint_names`` index; a pose's
repr keeps its own units and reads back; a target's ``target.kind`` refusal says what to give; and a lab
kind's positional-only parameters are no defaults a template writes (a rig's params are keywords)."""

from __future__ import annotations

import argparse

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.nodes import read_commands
from mime_gui.nodes.commands import CommandFileError, RecordedCommands, write_commands
from mime_gui.rig import (
    Apparatus,
    Arm,
    FieldTarget,
    Motor,
    Pose,
    TargetError,
    dynamics,
    kg_m2,
    load,
    register_dynamics,
    save,
    unregister_dynamics,
)
from mime_gui.rig.measures import FrameEnd, MeasureError, measure
from mime_gui.rig.mjcf_export import export_mjcf
from mime_gui.rig.paths import RigPathError, get
from mime_gui.rig.playback import load_rig_playable
from mime_gui.rig.templates import default_params, template


# -- a measure's end of no kind ------------------------------------------------------------------------------
@pytest.mark.parametrize("which", ["a", "b"])
def test_an_end_of_no_kind_is_refused_naming_which_end_it_is(which):
    good, bad = FrameEnd("arm", "tool0"), "arm.link_3"
    ends = (bad, good) if which == "a" else (good, bad)
    with pytest.raises(MeasureError) as info:
        measure(*ends)
    # the place is the end (measure.a or measure.b), as for every other refusal of one end
    assert (info.value.code, info.value.file) == ("measure.end-kind", f"measure.{which}")
    assert info.value.message == (f"end {which} is 'arm.link_3'; give a frame, a part's or magnet's centre, "
                                  "a probe or a point on a frame")


# -- MJCF: an ideal rotor on a revolute joint ----------------------------------------------------------------
WHEEL = """<robot name="wheel">
  <link name="base"/>
  <link name="wheel">
    <inertial><mass value="0.2"/>
      <inertia ixx="4e-4" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="turn" type="revolute"><parent link="base"/><child link="wheel"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_an_ideal_rotor_on_a_revolute_joint_is_written_as_a_disc(tmp_path):
    # docs: a rotor without transverse inertia on a hinge (revolute or continuous) is written as a disc: the
    # same 4e-4 kg m2 about its axis, half of it (and a hair, for rounding) across
    (tmp_path / "wheel.urdf").write_text(WHEEL)
    rig = Apparatus("w", chain={"arm": Arm.Dynamic(description=str(tmp_path / "wheel.urdf"))})
    assert rig.validate() == []
    text = export_mjcf(rig, tmp_path / "w.xml").read_text()
    half = 0.5 * 4e-4 * (1 + 1e-9)
    assert f'mass="0.2" diaginertia="{half!r} {half!r} 0.0004"' in text
    assert (f"<!-- arm/wheel is written as a disc: its inertia about arm/turn's axis, and half of that "
            f"across it ({half!r} kg m2), which nothing takes off: it turns in the world, which does not "
            "move -->") in text
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "w.xml"))
    assert model.nv == 1 and sorted(model.body_inertia[-1]) == pytest.approx([2e-4, 2e-4, 4e-4], rel=1e-8)


# -- a rig path's refusal as a KeyError ----------------------------------------------------------------------
def test_a_rig_path_refusal_is_a_key_error_whose_argument_is_its_whole_message():
    with pytest.raises(KeyError) as info:
        get(load(DEMO_RIG), "parts.nothing")
    err = info.value
    assert isinstance(err, RigPathError) and err.code == "rig.path"
    # code that reads a KeyError's argument (as mime_gui.session.motion does) gets the path and the message,
    # the same text str() gives, not None
    assert err.args == (str(err),)
    assert err.args[0] == f"parts.nothing: {err.message}" and err.message.startswith("no part 'nothing'")


# -- mime-gui play --integrator on a rig ---------------------------------------------------------------------
@pytest.mark.parametrize("integrator", [None, "euler", "rk4"])
def test_the_players_integrator_drives_a_rigs_torque_driven_motor(tmp_path, integrator):
    # a motor standing in the world, its rotor 2e-6 kg m2 under a constant 1e-6 N m: α = 0.5 rad/s²
    save(Apparatus("wm", chain={"motor": Motor.Dynamic(inertia=kg_m2(2e-6, reason="datasheet"))}),
         tmp_path / "wm.rig.json")
    dt, alpha = 0.01, 0.5
    (tmp_path / "cmd.csv").write_text("time,motor.torque\n" + "".join(f"{k * dt!r},1e-6\n" for k in range(6)))
    options = argparse.Namespace(integrator=integrator, servo_tau=None, substeps=None)
    playable = load_rig_playable(tmp_path / "wm.rig.json", options)
    assert playable.integrator == (integrator or "euler")  # the default is semi-implicit Euler
    played = playable.play(playable.schedule(read_commands(tmp_path / "cmd.csv"), None)).joint_positions[:, 0]
    n = np.arange(1, 7)  # the row k is the state after k + 1 steps
    if integrator == "rk4":  # exact for a constant acceleration: θ = α t² / 2
        want = 0.5 * alpha * (n * dt) ** 2
    else:  # ω_n = n·α·dt, θ_n = Σ ω_k·dt = α dt² n (n + 1) / 2
        want = alpha * dt**2 * n * (n + 1) / 2
    np.testing.assert_allclose(played, want, rtol=1e-9)


def test_mime_gui_play_integrator_rk4_reaches_the_rig(tmp_path):
    save(Apparatus("wm", chain={"motor": Motor.Dynamic(inertia=kg_m2(2e-6, reason="datasheet"))}),
         tmp_path / "wm.rig.json")
    rows = "".join(f"{k * 0.01!r},1e-6\n" for k in range(6))
    (tmp_path / "cmd.csv").write_text("time,motor.torque\n" + rows)
    out = tmp_path / "out.npz"
    assert main(["play", str(tmp_path / "wm.rig.json"), "--commands", str(tmp_path / "cmd.csv"), "--out",
                 str(out), "--quiet", "--integrator", "rk4"]) == 0
    played = np.load(out)["joint_positions"][:, 0]
    np.testing.assert_allclose(played, 0.5 * 0.5 * (np.arange(1, 7) * 0.01) ** 2, rtol=1e-9)


# -- a joint named twice in a command file -------------------------------------------------------------------
@pytest.mark.parametrize(("name", "where", "line"), [
    ("cmd.npz", "joint_names[1]", 0),  # an NPZ file has no header: the column is its index in joint_names
    ("cmd.csv", "column 3", 1),  # a CSV file's column, after the time, on the header's line
])
def test_a_joint_named_twice_is_refused_where_the_file_names_it(tmp_path, name, where, line):
    recorded = RecordedCommands("x", np.array([0.0, 0.1]), ("arm.joint_1", "arm.joint_positions.0"),
                                np.zeros((2, 2)), ("", ""), np.zeros(2, dtype=int))
    path = write_commands(tmp_path / name, recorded)
    playable = load_rig_playable(DEMO_RIG)
    with pytest.raises(CommandFileError) as info:
        playable.schedule(read_commands(path), None)
    assert (info.value.code, info.value.line) == ("commands.columns", line)
    assert info.value.message == (f"{where}: 'arm.joint_positions.0' is 'arm.joint_1', which another column "
                                  "names too; keep one")


# -- a pose's repr -------------------------------------------------------------------------------------------
def test_a_poses_repr_keeps_its_own_units_and_reads_back_equal():
    pose = Pose({"arm": {"joint_1": 30.0, "joint_2": 0.5}}, unit="deg|mm", units={"arm": {"joint_2": "rad"}})
    assert repr(pose) == ("Pose({'arm': {'joint_1': 30.0, 'joint_2': 0.5}}, unit='deg|mm', "
                          "units={'arm': {'joint_2': 'rad'}})")
    back = eval(repr(pose), {"Pose": Pose})  # noqa: S307 -- the repr is Python that makes the same pose
    assert back == pose and back.position("arm", "joint_2", False) == 0.5
    # a pose without units of its own says none
    assert repr(Pose({"arm": {"joint_1": 1.0}})) == "Pose({'arm': {'joint_1': 1.0}}, unit='rad|m')"


# -- a target's kind -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("given", [{}, {"direction": (0.0, 0.0, 1.0), "axis": (1.0, 0.0, 0.0),
                                        "frequency": 5.0}], ids=["neither", "both"])
def test_a_target_of_neither_or_both_kinds_is_refused_saying_what_to_give(given):
    with pytest.raises(TargetError) as info:
        FieldTarget("probes.sample", **given)
    assert (info.value.code, info.value.file) == ("target.kind", "direction")
    assert info.value.message == ("a target gives a direction (a fixed field) or an axis and a frequency "
                                  "(a rotating field), one of them")


# -- a lab kind's positional-only parameters -----------------------------------------------------------------
def spool(turns=2, /, radius=0.05):
    return dynamics.frames("spool", "base", [("tip", "revolute", "base", "top", (0, 0, radius), (1, 0, 0),
                                              (-turns, turns))])


def test_a_positional_only_parameter_is_no_default_a_template_writes():
    # a rig's params are passed by keyword (factory(**params)): a positional-only one cannot be given, so its
    # default is the factory's alone, and a segment that wrote it would not build
    assert default_params(spool) == {"radius": 0.05}
    register_dynamics("spool", spool)
    try:
        seg = template("segment.lab.spool").make(None)
        assert seg.params == {"radius": 0.05}
        assert Apparatus("t", chain={"s": seg}).validate() == []
    finally:
        unregister_dynamics("spool")
