"""The words of the nodes' and the command files' refusals: each names the argument, joint, column, line or
array it refuses and says what is expected instead."""

from __future__ import annotations

import numpy as np
import pytest
from node_helpers import DEMO_URDF

from mime_gui.multibody import read_urdf
from mime_gui.nodes import CommandFileError, KinematicArmNode, NodeState, RecordedCommands, read_commands
from mime_gui.nodes.dynamic import DynamicArmNode

JOINTS = "joint_1, joint_2, joint_3, joint_4, joint_5, joint_6"


@pytest.fixture(scope="module")
def art():
    return read_urdf(DEMO_URDF).compile()


# -- the kinematic node ------------------------------------------------------------------------------------
def _bad_pose():
    pose = np.eye(4)
    pose[0, 3] = np.nan
    return pose


@pytest.mark.parametrize("call, message", [
    (lambda node, s: node.initial_state(mount_pose=_bad_pose()), "mount_pose holds non-finite values"),
    (lambda node, s: node.initial_state(mount_rate=[np.nan, 0.0, 0.0]),
     "mount_rate holds non-finite values"),
    (lambda node, s: node.advance(s, [np.nan, 0, 0, 0, 0, 0], 0.1),
     "joint_positions holds non-finite values"),
    (lambda node, s: node.advance(s, np.zeros(4), 0.1),
     f"joint_positions must have 6 entries ({JOINTS}), got shape (4,)"),
    (lambda node, s: node.play(np.zeros((3, 6)), 0.1, initial_positions=NodeState(
        np.zeros(3), s.frame_poses, s.frame_angular_velocities)),
     "the initial state has (3,) positions, expected 6"),
], ids=["mount-pose-nan", "mount-rate-nan", "positions-nan", "positions-too-few", "initial-state-short"])
def test_the_kinematic_node_refuses_bad_input_naming_the_argument(art, call, message):
    node = KinematicArmNode(art)
    with pytest.raises(ValueError) as info:
        call(node, node.initial_state())
    assert str(info.value) == message


def test_a_lower_limit_above_the_upper_is_refused_naming_the_joint_and_both_limits(art):
    with pytest.raises(ValueError) as info:
        KinematicArmNode(art, lower={"joint_1": 1.0}, upper={"joint_1": 0.0})
    assert str(info.value) == "joint 'joint_1': lower limit 1.0 is above upper 0.0"


# -- the dynamic node --------------------------------------------------------------------------------------
def test_an_unknown_integrator_is_refused_listing_the_integrators(art):
    with pytest.raises(ValueError) as info:
        DynamicArmNode(art, integrator="rk45")
    assert str(info.value) == "integrator must be one of euler, rk4, got 'rk45'"


@pytest.mark.parametrize("kwargs, message", [
    ({"torques": np.full((3, 6), np.nan)}, "torques hold non-finite values"),
    ({"initial_positions": np.zeros(3)}, "initial positions and velocities must be 6 finite numbers"),
    ({"initial_velocities": [np.nan] * 6}, "initial positions and velocities must be 6 finite numbers"),
], ids=["torques-nan", "positions-short", "velocities-nan"])
def test_the_dynamic_node_refuses_bad_torques_and_initial_state_naming_them(art, kwargs, message):
    node = DynamicArmNode(art)
    kwargs = dict(kwargs)  # the parameters are shared by every run of the test in one process
    torques = kwargs.pop("torques", np.zeros((3, 6)))
    with pytest.raises(ValueError) as info:
        node.play(torques, 0.01, **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize("rates, message", [
    ([np.nan, 0.0, 0.0], "mount_rates holds non-finite values"),
    ([1.0, 2.0], "mount_rates must have shape (3,) or (3, 3), got (2,)"),
    (np.zeros((2, 3)), "mount_rates must have shape (3,) or (3, 3), got (2, 3)"),
], ids=["nan", "two-numbers", "rows-short"])
@pytest.mark.parametrize("how", ["published", "played-without-mount-poses", "played-on-mount-poses"])
def test_the_dynamic_node_refuses_bad_mount_rates_however_they_come(art, rates, message, how):
    # the rates turn every published frame: a NaN or a row of the wrong length is refused, not broadcast
    node = DynamicArmNode(art)
    with pytest.raises(ValueError) as info:
        if how == "published":
            node.published(np.zeros((3, 6)), np.zeros((3, 6)), 0.01, mount_rates=rates)
        else:
            poses = None if how == "played-without-mount-poses" else np.eye(4)
            node.play(np.zeros((3, 6)), 0.01, mount_poses=poses, mount_rates=rates)
    assert str(info.value) == message


# -- command files -----------------------------------------------------------------------------------------
CSV_CASES = [
    # (file name, content, code, line, words of the message)
    ("unit.csv", b"time,joint_1[furlong]\n0,0\n", "commands.units", 1,
     ["column 2: unknown unit [furlong] in 'joint_1[furlong]'", "use [rad], [deg] or [m]"]),
    ("nameless.csv", b"time,,joint_1\n0,0,0\n", "commands.columns", 1, ["column 2 has no joint name"]),
    ("no_time.csv", b"joint_1,time\n0,0\n", "commands.columns", 1,
     ["the first column must be 'time' (seconds), got 'joint_1'"]),
    ("only_time.csv", b"time\n0\n1\n", "commands.columns", 1, ["no joint columns after 'time'"]),
    ("empty.csv", b"", "commands.empty", 0,
     ["no header and no samples", "expected 'time,<joint names>' then one line per sample"]),
    ("header.csv", b"# c\ntime,joint_1\n", "commands.empty", 2, ["a header and no samples"]),
    ("short_row.csv", b"time,joint_1,joint_2\n0,0,0\n0.1,1\n", "commands.columns", 3,
     ["2 values for 3 columns (time and 2 joints)"]),
    ("bad_quote.csv", b'time,joint_1\n0,"0\n0.1,1\n', "commands.format", 2, ["not a CSV line ("]),
]


@pytest.mark.parametrize("name, data, code, line, words", CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_a_bad_csv_command_file_is_refused_naming_the_line_and_what_is_wrong(tmp_path, name, data, code,
                                                                             line, words):
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert (info.value.code, info.value.file, info.value.line) == (code, str(path), line)
    for w in words:
        assert w in info.value.message


def _npy(path):
    with open(path, "wb") as fh:
        np.save(fh, np.zeros(3))


J1 = np.array(["joint_1"])
NPZ_CASES = {
    "wrong-shape": (lambda p: np.savez(p, time=[0.0, 0.1], joint_positions=np.zeros((2, 3)), joint_names=J1),
                    "commands.columns",
                    ["joint_positions (2, 3) must be (len(time), len(joint_names)) = (2, 1)"]),
    "empty-time": (lambda p: np.savez(p, time=np.zeros(0), joint_positions=np.zeros((0, 1)), joint_names=J1),
                   "commands.empty", ["no samples (time is empty)"]),
    "missing-names": (lambda p: np.savez(p, time=[0.0], joint_positions=[[0.0]]), "commands.format",
                      ["missing array(s) joint_names",
                       "an NPZ command file holds time (T,), joint_positions (T, k), joint_names (k,)"]),
    "npy-renamed": (_npy, "commands.format",
                    ["a single NumPy array (.npy data), not an NPZ archive",
                     "save time, joint_positions and joint_names with numpy.savez"]),
}


@pytest.mark.parametrize("case", sorted(NPZ_CASES))
def test_a_bad_npz_command_file_is_refused_naming_the_arrays_and_how_to_write_them(tmp_path, case):
    make, code, words = NPZ_CASES[case]
    path = tmp_path / "c.npz"
    make(path)
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert (info.value.code, info.value.file) == (code, str(path))
    for w in words:
        assert w in info.value.message


def _by_hand(time) -> RecordedCommands:
    """Commands built in code, not read from a file (the file readers refuse times that do not increase)."""
    time = np.asarray(time, dtype=float)
    return RecordedCommands("by hand", time, ("joint_1",), np.zeros((len(time), 1)), ("",),
                            np.zeros(len(time), int))


def test_samples_at_one_time_have_no_spacing_and_the_refusal_asks_for_a_step():
    with pytest.raises(CommandFileError) as info:
        _by_hand([0.0, 0.0, 0.0]).sample_spacing()
    assert (info.value.code, info.value.file) == ("commands.dt", "by hand")
    assert "the samples' median spacing is 0 s (the times run from 0 to 0 s)" in info.value.message
    assert "give a step (--dt) or fix the times" in info.value.message


def test_times_whose_span_overflows_are_refused_asking_to_fix_them():
    with pytest.raises(CommandFileError) as info:
        _by_hand([-1e308, 1e308]).step_count(1.0)
    assert (info.value.code, info.value.file) == ("commands.dt", "by hand")
    assert "the times run from -1e+308 to 1e+308 s, a span too long to step through" in info.value.message
    assert "fix the times" in info.value.message


def test_initial_positions_of_the_wrong_length_are_refused_with_the_count(tmp_path, art):
    path = tmp_path / "c.csv"
    path.write_text("time,joint_1\n0,0\n0.1,1\n")
    with pytest.raises(ValueError) as info:
        read_commands(path).schedule(art.joint_names, initial_positions=[0.0, 0.0])
    assert str(info.value) == "initial_positions must have 6 entries, got (2,)"


def test_with_a_follower_joint_the_refusal_names_both_accepted_lengths(mimic_art):
    node = KinematicArmNode(mimic_art)
    with pytest.raises(ValueError) as info:
        node.advance(node.initial_state(), np.zeros(2), 0.1)
    assert str(info.value) == ("joint_positions must have 3 entries (j1, j2, j4) or 4 (every joint, "
                               "followers included), got shape (2,)")


def test_a_command_file_that_is_not_utf8_is_refused_naming_the_byte_and_what_a_command_file_is(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("time,joint_1\n0,0\n# réglage\n".encode("latin-1"))
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert (info.value.code, info.value.file) == ("commands.format", str(path))
    assert info.value.message == "not UTF-8 text (byte 20); a command file is CSV text"
