"""Commands finite in the file but extreme enough to overflow what is played: `play` and `field` refuse them
with one coded line naming where the overflow began (the earliest step; a joint's rate before the frames it
moves; a segment before what rides on it), never a traceback and never a field summary of NaNs."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest
from test_bad_input import cli, error_lines

from mime_gui import RESOURCES
from mime_gui.cli.play import PlayError, _check_finite

DEMO = RESOURCES / "demo"
RIG = DEMO / "demo.rig.json"


@pytest.mark.parametrize("column", ["arm.joint_6", "motor.shaft"], ids=["arm", "motor"])
@pytest.mark.parametrize("command", ["play", "field"])
def test_a_continuous_joint_commanded_past_the_largest_rate_is_refused_at_it(tmp_path, command, column):
    # arm.joint_6 carries the motor: before, its rates' overflow reached the motor as a traceback; the motor's
    # own shaft was written by `field` as a summary of NaNs
    cmd = tmp_path / "huge.csv"
    cmd.write_text(f"time,{column}\n0,1e308\n1,-1e308\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    status, stdout, stderr = cli(command, RIG, "--commands", cmd, "--out", out)
    assert (status, stdout) == (2, "")
    (line,) = error_lines(stderr)
    assert line["code"] == f"{command}.non-finite" and line["where"] == str(cmd)
    assert line["message"] == (f"the joint rates overflow at step 1 ({column}): the largest command is "
                               f"1e+308 for {column} at step 0, the step 1 s; check the file's units and "
                               "values, or choose a larger step (--dt)")
    assert not out.exists()


def _played(T=4, joints=2, frames=3):
    trajectory = types.SimpleNamespace(joint_positions=np.zeros((T, joints)),
                                       frame_poses=np.zeros((T, frames, 4, 4)),
                                       frame_angular_velocities=np.zeros((T, frames, 3)))
    playable = types.SimpleNamespace(joint_names=[f"j{k}" for k in range(joints)],
                                     frame_names=[f"f{k}" for k in range(frames)])
    schedule = types.SimpleNamespace(commands=np.zeros((T, joints)), command_names=playable.joint_names,
                                     dt=0.5, initial_positions=np.zeros(joints))
    return trajectory, playable, schedule


def _refusal(trajectory, playable, schedule) -> str:
    with pytest.raises(PlayError) as refused:
        _check_finite(trajectory, playable, schedule, "cmd.csv")
    assert refused.value.code == "play.non-finite" and refused.value.file == "cmd.csv"
    return refused.value.message.split(":")[0]


def test_a_finite_playback_passes():
    _check_finite(*_played(), "cmd.csv")


def _set(array: str, index, value=np.nan):
    return lambda trajectory: getattr(trajectory, array).__setitem__(index, value)


ORDER = {  # what overflowed, in the order it is set → the place named
    "earliest step": ([_set("joint_positions", (3, 0), np.inf), _set("frame_angular_velocities", (2, 2, 1))],
                      "the frame angular velocities overflow at step 2 (f2)"),
    "pose before rate": ([_set("frame_poses", (1, 0, 2, 3)),
                          _set("frame_angular_velocities", (1, 0), np.inf)],
                         "the frame poses overflow at step 1 (f0)"),
    "joint before frames": ([_set("frame_poses", (1, 0, 2, 3)), _set("joint_positions", (1, 1), -np.inf)],
                            "the joint positions overflow at step 1 (j1)"),
    "chain order": ([_set("frame_poses", (1, 2)), _set("frame_angular_velocities", (1, 1, 0), np.inf)],
                    "the frame angular velocities overflow at step 1 (f1)"),
}


@pytest.mark.parametrize("name", ORDER)
def test_the_place_named_is_where_the_overflow_began(name):
    """The earliest step, whatever overflowed there; in one step a joint before the frames, a frame's pose
    before its rate, and a frame earlier in the chain first, whatever overflowed at it."""
    trajectory, playable, schedule = _played()
    changes, expected = ORDER[name]
    for change in changes:
        change(trajectory)
    assert _refusal(trajectory, playable, schedule) == expected


def test_a_joint_s_rate_is_its_step_s_difference_over_the_step():
    trajectory, playable, schedule = _played()
    trajectory.joint_positions[:, 1] = [0.0, 5e307, -5e307, -5e307]  # -1e308 at step 2: -2e308 over 0.5 s
    trajectory.frame_angular_velocities[2:] = np.nan
    assert _refusal(trajectory, playable, schedule) == "the joint rates overflow at step 2 (j1)"
    schedule.dt = 1.0  # over 1 s the same difference is a finite rate: the frames' rates are named
    assert _refusal(trajectory, playable, schedule) == "the frame angular velocities overflow at step 2 (f0)"
    schedule.dt = 0.1  # and 5e307 over 0.1 s, at step 1, overflows first
    assert _refusal(trajectory, playable, schedule) == "the joint rates overflow at step 1 (j1)"


def test_step_0_s_rate_is_from_the_positions_the_play_starts_at():
    trajectory, playable, schedule = _played()
    trajectory.joint_positions[:, 1] = 1e308
    trajectory.frame_angular_velocities[0] = np.nan  # what the jump does to the frames j1 turns
    schedule.initial_positions = np.array([0.0, -1e308])  # 2e308 in the first 0.5 s
    assert _refusal(trajectory, playable, schedule) == "the joint rates overflow at step 0 (j1)"
    schedule.initial_positions = np.array([0.0, 1e308])  # no jump: the frames' own overflow is named
    assert _refusal(trajectory, playable, schedule) == "the frame angular velocities overflow at step 0 (f0)"
    # a joint no command names (a mimic follower) starts where step 0 left it: no rate of its own there
    schedule.command_names, schedule.initial_positions = ["j0"], np.array([0.0])
    assert _refusal(trajectory, playable, schedule) == "the frame angular velocities overflow at step 0 (f0)"


def test_torques_that_are_no_numbers_are_refused_at_their_joint_and_step(tmp_path):
    # finite poses and rates, but the arm's joint_6 turning 2e307 rad/s leaves the motor it carries with a
    # torque that is not a number: it was printed as "peak |τ| nan N·m" and written
    cmd = tmp_path / "fast.csv"
    cmd.write_text("time,arm.joint_6\n0,1e307\n1,-1e307\n2,1e307\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    status, stdout, stderr = cli("play", RIG, "--commands", cmd, "--out", out, "--torques")
    assert (status, stdout) == (2, "")
    (line,) = error_lines(stderr)
    assert (line["code"], line["where"]) == ("play.non-finite", str(cmd))
    assert line["message"].startswith("the joint torques overflow at step 0 (motor.shaft): the joints' rates "
                                      "and accelerations at the step 1 s are too large to compute with; ")
    assert not out.exists()
    # without --torques the same file plays: only the torques are out of reach
    assert cli("play", RIG, "--commands", cmd, "--out", out)[0] == 0


@pytest.mark.parametrize("target, column", [("urdf", "joint_6"), ("rig", "arm.joint_6")])
def test_accelerations_beyond_a_double_are_refused_not_a_traceback(tmp_path, target, column):
    # 8e307 one second, -8e307 the next: rates of 1.6e308 rad/s are still doubles, their change is not; the
    # compiled inverse dynamics take finite numbers only, so such a step is not a number, named by its step
    cmd = tmp_path / "faster.csv"
    cmd.write_text(f"time,{column}\n0,8e307\n1,-8e307\n2,8e307\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    played = DEMO / "arm.urdf" if target == "urdf" else RIG
    status, stdout, stderr = cli("play", played, "--commands", cmd, "--out", out, "--torques")
    assert (status, stdout) == (2, "")
    (line,) = error_lines(stderr)
    assert (line["code"], line["where"]) == ("play.non-finite", str(cmd))
    # the arm alone: its first row of accelerations out of reach is step 2, a whole row of the inverse
    # dynamics unknown, named by the joint whose rate changes most there (joint_6, not the row's first);
    # on the rig, the motor riding on joint_6 already turns too fast at step 0
    step = "2 (joint_6)" if target == "urdf" else "0 (motor.shaft)"
    assert line["message"].startswith(f"the joint torques overflow at step {step}: the joints' rates and "
                                      "accelerations at the step 1 s are too large to compute with; ")
    assert not out.exists()


def test_torques_far_beyond_the_limits_are_printed_as_numbers(tmp_path):
    cmd = tmp_path / "fast.csv"
    cmd.write_text("time,joint_6\n0,1e307\n1,-1e307\n2,1e307\n", encoding="utf-8")
    status, stdout, stderr = cli("play", DEMO / "arm.urdf", "--commands", cmd, "--out", tmp_path / "o.npz",
                                 "--torques")
    assert status == 0, stderr
    line = next(x for x in stdout.splitlines() if x.strip().startswith("joint_6: peak")).strip()
    # its speed by hand: 2e307 rad in 1 s against a limit of 4 rad/s; the torque's share and RMS in short form
    shape = (r"joint_6: peak \|τ\| \S+ N·m at t=\S+ s \(\d(\.\d+)?e\+\d{3} % of 12 N·m\), "
             r"RMS \d(\.\d+)?e\+\d{3} N·m; peak \|v\| 2e\+307 rad/s \(5e\+308 % of 4 rad/s\)")
    assert re.fullmatch(shape, line), line
