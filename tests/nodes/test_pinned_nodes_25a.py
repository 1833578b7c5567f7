"""Contracts of the node engine pinned against mutation survivors: a joint angle is a real number, so joint
positions holding complex numbers are refused by a node's frames rather than cut to their real parts; a
command file with another ending is refused by the reader and by the writer with a message naming the ending
it got (or saying there is none); and a schedule made for a node keeps the initial positions it is given for
the joints the file does not drive."""

from __future__ import annotations

import numpy as np
import pytest
from node_helpers import MIMIC_URDF

from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode
from mime_gui.nodes.commands import CommandFileError, read_commands, write_commands

ONE_JOINT_URDF = """<robot name="r"><link name="base"/><link name="arm"/>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def test_the_frames_of_complex_joint_positions_are_refused_not_cut_to_their_real_parts():
    node = KinematicArmNode(read_urdf(ONE_JOINT_URDF).compile())
    # the real part alone is a valid angle: a node that dropped the imaginary part would answer for 0.5 rad
    arm = node.art.frame_names.index("arm")
    c, s = np.cos(0.5), np.sin(0.5)
    np.testing.assert_allclose(node.frames([0.5])[arm, :2, :2], [[c, -s], [s, c]], rtol=0, atol=1e-15)
    # refused with the kinematics' own words whatever the container: a list, a complex array (numpy would keep
    # the real parts with a warning only), text
    for q in ([0.5 + 0.25j], np.array([0.5 + 0.25j]), np.complex128(0.5)[None], ["a"], [{}]):
        with pytest.raises(ValueError) as info:
            node.frames(q)
        assert str(info.value) == "q must be an array of shape (..., 1) of numbers for 'r'", q


@pytest.mark.parametrize(("name", "shown"), [("cmd.txt", ".txt"), ("cmd.TSV", ".tsv"), ("cmd", "no")],
                         ids=["txt", "upper-case", "none"])
def test_the_reader_refuses_another_ending_naming_the_ending_it_got(tmp_path, name, shown):
    path = tmp_path / name
    path.write_text("time,shoulder\n0,0\n")  # a valid command file in all but its name
    with pytest.raises(CommandFileError) as err:
        read_commands(path)
    assert (err.value.code, err.value.message, err.value.file, err.value.line) == (
        "commands.format", f"expected a .csv or .npz command file, got {shown} extension", str(path), 0)


@pytest.mark.parametrize(("name", "shown"), [("out.txt", ".txt"), ("out", "no")], ids=["txt", "none"])
def test_the_writer_refuses_another_ending_naming_the_ending_it_got(tmp_path, name, shown):
    recorded = read_commands(_write(tmp_path / "in.csv", "time,shoulder\n0,0\n0.1,0.5\n"))
    path = tmp_path / name
    with pytest.raises(CommandFileError) as err:
        write_commands(path, recorded)
    assert (err.value.code, err.value.message, err.value.file) == (
        "commands.format", f"a command file is written as .csv or .npz, got {shown} extension", str(path))
    assert str(err.value) == f"commands.format {path}: a command file is written as .csv or .npz, got " \
                             f"{shown} extension"
    assert not path.exists()  # nothing written


def test_a_schedule_for_a_node_holds_the_given_initial_positions_of_the_joints_the_file_does_not_drive(
        tmp_path):
    node = KinematicArmNode(read_urdf(MIMIC_URDF).compile())
    assert node.command_names == ("j1", "j2", "j4")  # j3 follows j1
    recorded = read_commands(_write(tmp_path / "c.csv", "time,j4\n0,0.5\n0.2,-0.5\n"))
    schedule = recorded.for_node(node, dt=0.1, initial_positions=[0.3, 0.25, 9.0])
    # j1 and j2 are not in the file: held at 0.3 rad and 0.25 m through every step; j4 follows the file
    assert schedule.commands.tolist() == [[0.3, 0.25, 0.5], [0.3, 0.25, 0.5], [0.3, 0.25, -0.5]]
    # the play starts from the given positions, the file's first sample for the joint it drives
    assert schedule.initial_positions.tolist() == [0.3, 0.25, 0.5]
    assert schedule.recorded == ("j4",)


def _write(path, text: str):
    path.write_text(text)
    return path
