"""A rig of no segment yet (items fixed in the world; what a user has before adding a robot): played, it keeps
its steps with no joint and no frame at each, by positions and by torques; its clearance along a play has no
pair that moves; and ``plan`` says there is no joint to move (``plan.joints``) instead of failing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mime_gui.cli import main
from mime_gui.rig.clearance_check import clearance_along
from mime_gui.rig.driven import play_driven
from mime_gui.rig.rigfile import parse

WORLD = {
    "format": "mime-rig", "version": 1, "name": "world", "chain": [],
    "parts": {"holder": {"geometry": {"type": "box", "unit": "m", "size": [0.02, 0.02, 0.02]},
                         "material": "aluminium", "at": {"value": [0, 0, 0.01], "unit": "m"}, "mount": None}},
    "magnets": {"m1": {"geometry": {"type": "sphere", "unit": "m", "radius": 0.005},
                       "material": "NdFeB-N42", "at": {"value": [0, 0, 0.035], "unit": "m"}, "mount": None,
                       "magnetisation": [0, 0, 1]}},
    "probes": {"p": {"at": {"value": [0, 0, 0.06], "unit": "m"}, "mount": None}},
}
STEPS, DT = 5, 0.1


@pytest.fixture(scope="module")
def built():
    return parse(json.dumps(WORLD), "world.rig.json", base=".").build()


def _assert_empty_steps(played) -> None:
    assert len(played) == STEPS
    assert played.joint_positions.shape == (STEPS, 0)
    assert played.frame_poses.shape == (STEPS, 0, 4, 4)
    assert played.frame_angular_velocities.shape == (STEPS, 0, 3)
    assert played.clamped.shape == (0,)
    np.testing.assert_allclose(played.times(1.0), 1.0 + DT * np.arange(1, STEPS + 1), rtol=0, atol=1e-15)
    whole = played.as_trajectory()
    assert whole.joint_positions.shape == (STEPS, 0) and whole.frame_poses.shape == (STEPS, 0, 4, 4)


def test_played_by_positions_it_keeps_its_steps_with_no_joint_and_no_frame(built):
    assert built.command_names == () and built.frame_names == ()
    _assert_empty_steps(built.play(np.zeros((STEPS, 0)), DT))


def test_played_by_torques_it_keeps_its_steps_too(built):
    _assert_empty_steps(play_driven(built, np.zeros((STEPS, 0)), {}, DT))


def test_its_clearance_along_a_play_finds_no_pair_that_moves(built):
    found = clearance_along(built, built.play(np.zeros((STEPS, 0)), DT))
    # the holder and the magnet are both fixed in the world: a pair that never moves is not a clearance
    assert found.pairs == () and found.findings == []
    np.testing.assert_array_equal(found.minimum, np.full(STEPS, np.inf))
    np.testing.assert_array_equal(found.closest, np.full(STEPS, -1))
    np.testing.assert_allclose(found.time, DT * np.arange(1, STEPS + 1), rtol=0, atol=1e-15)


def test_plan_on_it_says_there_is_no_joint_to_move(tmp_path, capsys):
    rig = tmp_path / "world.rig.json"
    rig.write_text(json.dumps(WORLD))
    out = tmp_path / "plan.csv"
    code = main(["plan", str(rig), "--at", "probes.p", "--direction", "0,0,1", "--starts", "2",
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 2 and not out.exists() and captured.out == ""
    assert captured.err.splitlines() == [
        "error[plan.joints] chain: the rig has no joint to command, so no motion changes the field; add a "
        "segment with a movable joint (a robot or a motor)"]
