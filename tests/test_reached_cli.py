"""The headless commands on inputs the other command-line tests do not give: a command file refused for its
columns before its step, a field written where a folder stands, ``inspect`` piped into a reader that stops,
``play --torques`` of a description with a negative mass or of more joints than are listed, ``play
--clearance`` of a rig with nothing that can touch, and ``plan`` at a step too fine for its candidates."""

from __future__ import annotations

import contextlib
import io
import json
import shutil

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.cli.play import DEMANDS_SHOWN
from mime_gui.rig import Apparatus, Motor, save

DEMO = RESOURCES / "demo"
DEMO_RIG = DEMO / "demo.rig.json"
DEMO_URDF = DEMO / "arm.urdf"


def cli(*argv) -> tuple[int, str, str]:
    """``main(argv)`` in-process: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def test_field_names_an_unknown_joint_before_a_step_that_would_make_too_many_steps(tmp_path):
    """A step of 1e-8 s over the file's 1 s is 1e8 steps, more than any run takes: the column is still the
    first thing wrong with the file, so it is what is said."""
    cmd = tmp_path / "cmd.csv"
    cmd.write_text("time,arm.joint_1,arm.elbow\n0,0,0\n1,0.1,0\n")
    out = tmp_path / "field.npz"
    status, stdout, stderr = cli("field", DEMO_RIG, "--commands", cmd, "--probe", "0.3,0,0.25",
                                 "--dt", "1e-8", "--out", out)
    assert status == 2 and stdout == "" and not out.exists()
    assert stderr.startswith(f"error[commands.unknown-joint] {cmd}:1: column 3: unknown joint 'arm.elbow'")
    assert stderr.count("\n") == 1


def test_field_written_where_a_folder_stands_is_refused_as_no_regular_file(tmp_path):
    folder = tmp_path / "taken.npz"
    folder.mkdir()
    status, stdout, stderr = cli("field", DEMO_RIG, "--commands", DEMO / "chain.csv", "--probe", "0.3,0,0.25",
                                 "--out", folder, "--quiet")
    assert status == 2 and stdout == ""
    assert stderr.startswith(f"error[file.not-regular] {folder}: ")
    assert "not a regular file" in stderr and list(folder.iterdir()) == []


class _ClosedPipe(io.StringIO):
    """A reader that stopped reading (``mime-gui inspect arm.urdf | head -0``)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")


def test_inspect_into_a_pipe_its_reader_closed_ends_quietly_with_success():
    err = io.StringIO()
    with contextlib.redirect_stdout(_ClosedPipe()), contextlib.redirect_stderr(err):
        status = main(["inspect", str(DEMO_URDF)])
    assert status == 0 and err.getvalue() == ""


NEGATIVE_MASS_URDF = """<robot name="bad"><link name="base"/>
<link name="arm"><inertial><mass value="-1"/>
<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def test_play_torques_of_a_description_with_a_negative_mass_is_refused_naming_the_link(tmp_path):
    """The description loads (its kinematics play), but no torque is computed from a negative mass."""
    urdf = tmp_path / "bad.urdf"
    urdf.write_text(NEGATIVE_MASS_URDF)
    cmd = tmp_path / "j1.csv"
    cmd.write_text("time,j1\n0,0\n0.01,0.1\n0.02,0.2\n")
    out = tmp_path / "o.npz"
    assert cli("play", urdf, "--commands", cmd, "--out", out, "--quiet")[0] == 0  # without --torques
    out.unlink()
    status, stdout, stderr = cli("play", urdf, "--commands", cmd, "--torques", "--out", out)
    assert status == 2 and stdout == "" and not out.exists()
    assert stderr.startswith(f"error[dynamics.nonphysical] {urdf}: the mass properties of 'bad' are not "
                             "physical")
    assert "link 'arm' has a negative mass -1.0" in stderr and "fix the description" in stderr


def _chain_urdf(joints: int) -> str:
    """``joints`` revolute joints in a row, each turning a 1 kg link 0.1 m long about z."""
    links = "".join(f'<link name="l{i}"><inertial><mass value="1"/><origin xyz="0.05 0 0"/>'
                    '<inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>'
                    for i in range(1, joints + 1))
    chain = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                    f'<origin xyz="{0.1 if i > 1 else 0} 0 0"/><axis xyz="0 0 1"/>'
                    '<limit lower="-1" upper="1" effort="1000" velocity="10"/></joint>'
                    for i in range(1, joints + 1))
    return f'<robot name="long"><link name="l0"/>{links}{chain}</robot>'


@pytest.mark.parametrize("joints, more", [(DEMANDS_SHOWN, []),
                                          (DEMANDS_SHOWN + 2, ["    … and 2 more joints (in the output)"])],
                         ids=["as-many-as-listed", "two-more"])
def test_play_torques_lists_the_first_joints_and_says_how_many_more_are_in_the_output(tmp_path, joints, more):
    urdf = tmp_path / "long.urdf"
    urdf.write_text(_chain_urdf(joints))
    cmd = tmp_path / "cmd.csv"
    cmd.write_text("time,j1\n0,0\n0.01,0.1\n")
    out = tmp_path / "o.npz"
    status, stdout, stderr = cli("play", urdf, "--commands", cmd, "--torques", "--out", out)
    assert status == 0, stderr
    lines = stdout.splitlines()
    head = lines.index("  demand per joint (peak, RMS, peak speed; torque_peak, torque_rms, velocity_peak):")
    listed = lines[head + 1:head + 1 + DEMANDS_SHOWN]
    assert [line.split(":")[0] for line in listed] == [f"    j{i}" for i in range(1, DEMANDS_SHOWN + 1)]
    assert lines[head + 1 + DEMANDS_SHOWN:] == [*more, f"  wrote {out}"]
    with np.load(out) as data:
        assert len(data["torque_peak"]) == joints


def test_play_clearance_of_a_rig_with_nothing_that_can_touch_names_no_closest_pair(tmp_path):
    """A lone motor: no part, no magnet, so no pair of items; every step has no closest pair (-1) and no
    smallest distance (infinite)."""
    rig = save(Apparatus("lone", chain={"motor": Motor.Kinematic(axis=(0.0, 0.0, 1.0))}),
               tmp_path / "lone.rig.json")
    cmd = tmp_path / "shaft.csv"
    cmd.write_text("time,motor.shaft\n0,0\n0.01,0.5\n0.02,1\n")
    out = tmp_path / "o.npz"
    status, stdout, stderr = cli("play", rig, "--commands", cmd, "--clearance", "--out", out)
    assert status == 0 and stderr == ""
    lines = stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("  clearance: "))
    assert lines[at].startswith("  clearance: 0 moving pair(s) and 0 fixed pair(s) of 0 items checked")
    assert lines[at + 1] == f"  wrote {out}"
    assert not any("smallest distance" in line for line in lines)
    with np.load(out) as data:
        assert data["clearance_closest"].tolist() == [-1, -1, -1]
        assert np.isposinf(data["clearance_minimum"]).all() and data["clearance_pairs"].shape == (0, 2)


def test_plan_at_a_step_too_fine_for_the_candidate_says_so_per_candidate_and_writes_nothing(tmp_path):
    """The arm's servo time constant set to 1 s: each candidate's trajectory is held ten time constants
    (10 s) after its approach, so at 1 µs it takes more than the five million samples a rendering may."""
    folder = tmp_path / "rig"
    shutil.copytree(DEMO, folder)
    data = json.loads(DEMO_RIG.read_text(encoding="utf-8"))
    assert data["chain"][0]["name"] == "arm"
    data["chain"][0]["servo_time_constant"]["value"] = 1.0
    rig = folder / "slow.rig.json"
    rig.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "plan.csv"
    status, stdout, stderr = cli("plan", rig, "--at", "probes.sample", "--direction", "0,0,1",
                                 "--starts", "1", "--dt", "1e-6", "--out", out)
    assert status == 1 and stderr == "" and not out.exists()
    lines = stdout.splitlines()
    assert lines[1].startswith("    1  margin")
    assert lines[2].startswith("  candidate 1: error[trajectory.too-large] ")
    assert lines[2].endswith(" s every 1e-06 s makes more than 5000000 samples; choose a larger step")
    assert lines[3:] == ["  no candidate passes its checks; nothing written"]
