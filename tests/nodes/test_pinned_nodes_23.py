"""Contracts of the node engine pinned against mutation survivors: a transform given to a node (its placement,
a mount pose) is read as float numbers, so a missing entry is refused as non-finite (a ValueError naming the
argument), and the placement an integer matrix gave is a float transform; the mount rate a node turns its base
with is a float vector; a command file's unreadable cell names its column (time, or the joint of the header);
and a joint that moves nothing is refused by name under external forces with RK4 also when numba's JIT is
disabled (the documented plain-Python mode), where the kernel's inputs are indexed by Python."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from robot_data import BARE_FIRST_URDF

import mime_gui
from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode, MountedNode
from mime_gui.nodes.commands import CommandFileError, read_commands

ONE_JOINT_URDF = """<robot name="r"><link name="base"/>
<link name="arm"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""

# a quarter turn about z and a 1 m shift along x: every entry is a whole number
QUARTER_TURN = [[0, -1, 0, 1], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


def _with_missing_entry() -> list:
    rows = [list(r) for r in QUARTER_TURN]
    rows[0][3] = None  # e.g. a coordinate left empty in a form or a null in a file
    return rows


def test_a_placement_given_in_whole_numbers_is_a_float_transform():
    node = MountedNode(np.array(QUARTER_TURN, dtype=int))
    assert node.placement.dtype == np.float64
    assert node.placement.tolist() == [[float(x) for x in r] for r in QUARTER_TURN]


def test_a_placement_with_a_missing_entry_is_refused_as_non_finite():
    with pytest.raises(ValueError, match="^placement holds non-finite values$"):
        MountedNode(_with_missing_entry())


def test_a_mount_pose_with_a_missing_entry_is_refused_as_non_finite():
    node = KinematicArmNode(read_urdf(ONE_JOINT_URDF).compile())
    with pytest.raises(ValueError, match="^mount_pose holds non-finite values$"):
        node.initial_state(mount_pose=_with_missing_entry())
    with pytest.raises(ValueError, match="^mount_pose holds non-finite values$"):
        node.advance(node.initial_state(), [0.1], 0.01, mount_pose=_with_missing_entry())


def test_the_base_turns_with_its_mount_rate_as_float_radians_per_second():
    """ω_j is the mount's rate itself, as a float vector whatever number type it was given in."""
    omega = MountedNode().base_rate([0, 0, 2])
    assert omega.dtype == np.float64
    assert omega.tolist() == [0.0, 0.0, 2.0]


@pytest.mark.parametrize(("row", "message"), [
    ("x,1,2", "column 1 (time): 'x' is not a number"),
    ("0.1,y,2", "column 2 (joint 'a'): 'y' is not a number"),
    ("0.1,1,z", "column 3 (joint 'b'): 'z' is not a number"),
], ids=["time", "first-joint", "second-joint"])
def test_a_cell_that_is_no_number_is_refused_naming_its_column(tmp_path, row, message):
    path = tmp_path / "commands.csv"
    path.write_text(f"time,a,b\n0,1,2\n{row}\n")
    with pytest.raises(CommandFileError) as err:
        read_commands(path)
    assert (err.value.code, err.value.message, err.value.line) == ("commands.format", message, 3)


# BARE_FIRST_URDF: the first joint turns a link without mass or inertia, so no torque on it gives a defined
# acceleration
_PLAIN_PYTHON_PLAY = textwrap.dedent("""
    import numpy as np
    from mime_gui.multibody import read_urdf
    from mime_gui.multibody.errors import CodedError
    from mime_gui.nodes.dynamic import DynamicArmNode

    node = DynamicArmNode(read_urdf({urdf!r}).compile(), integrator="rk4")
    try:
        node.play(np.ones((3, 2)), 1e-3, external=lambda n, q: np.zeros(2))
    except CodedError as exc:
        print(exc.code)
        print(exc.message)
""")


def test_a_joint_moving_nothing_under_external_forces_is_refused_by_name_with_the_jit_disabled():
    """NUMBA_DISABLE_JIT=1 runs the kernels as plain Python (docs of the kernels): the RK4 path with external
    forces hands the failed sub-step to the kernel to name the joint, and it must still be named there."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    root = str(Path(mime_gui.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    run = subprocess.run([sys.executable, "-c", _PLAIN_PYTHON_PLAY.format(urdf=BARE_FIRST_URDF)], env=env,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    code, message = run.stdout.splitlines()[:2]
    assert code == "dynamics.singular"
    assert message.startswith("joint 'bare' of 'r' moves no mass")
