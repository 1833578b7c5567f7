"""Contracts pinned here (the twenty-fourth sample's rig survivors):

- a keyframe's text takes a name's quotes off only when they are a matching pair: a lone quote is part of the
  name (the dock never guesses where a quote typed by mistake should have closed);
- an MJCF export marks a sample's ``<site>`` with a ``sample`` comment, as it marks a frame and a probe
  (docs/simulators.md: a sample is a massless link written as a site);
- a torque column refused by the rig names its column ``joint_names[i]`` in an NPZ file, which has no header
  line (docs/command-files.md: "no line for NPZ files: the message names the row");
- reaching a frame of the first segment accounts for where that segment stands in the world (its ``at`` and
  ``orientation``), not only its joints.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from rig_helpers import DEMO_URDF, snippet_rig

from mime_gui.errors import CodedError
from mime_gui.multibody.inverse_kinematics import _rotation_log
from mime_gui.nodes import read_commands
from mime_gui.rig import Apparatus, Arm, a_m2, playback
from mime_gui.rig.keyframe_text import parse_keyframe_text
from mime_gui.rig.mjcf_export import to_mjcf
from mime_gui.rig.samples import Sample
from mime_gui.rig.trajectories import Keyframe


# -- a keyframe's quoted names -----------------------------------------------------------------------------
def _typed(text: str) -> Keyframe:
    return parse_keyframe_text(text, Keyframe(1.0), lambda joint: "deg")


@pytest.mark.parametrize(("text", "pose", "frame"), [
    ("pose 'over the sample", "'over the sample", None),  # opened, never closed: the quote is the name's
    ('frame "tool0', None, '"tool0'),
    ("pose '", "'", None),  # one quote alone is no pair
    ("pose 'home'", "home", None),  # a matching pair is taken off
], ids=["pose opened", "frame opened", "lone quote", "pair"])
def test_the_quotes_around_a_name_are_taken_off_only_as_a_matching_pair(text, pose, frame):
    key = _typed(text)
    assert (key.pose, key.frame) == (pose, frame)


# -- a sample's site in MJCF -------------------------------------------------------------------------------
def test_a_samples_mjcf_site_is_marked_as_a_sample(tmp_path):
    rig = snippet_rig()
    rig.samples = {"dish": Sample((0.3, 0.1, 0.0), moment=a_m2(1e-4, reason="a bead's datasheet moment"))}
    sites = [line.strip() for line in to_mjcf(rig, tmp_path / "rig.xml").splitlines() if "<site " in line]
    assert '<site name="sample:dish" pos="0.3 0.1 0.0"/> <!-- sample -->' in sites


# -- a refused torque column in an NPZ file ----------------------------------------------------------------
def test_a_torque_column_an_npz_file_gives_the_rig_cannot_take_is_named_by_its_row(tmp_path):
    path = tmp_path / "commands.npz"
    np.savez(path, time=np.array([0.0, 0.01]), joint_positions=np.zeros((2, 2)),
             joint_names=np.array(["arm.joint_1", "arm.torque"]))
    with pytest.raises(CodedError) as info:
        playback.RigPlayable(snippet_rig().build()).schedule(read_commands(path), None)
    # an NPZ file has no header: the message names joint_names' row, and the refusal no line
    assert (info.value.code, info.value.line) == ("commands.torque", 0)
    assert info.value.message == ("joint_names[1]: 'arm.torque': 'arm' is not a motor; command an arm's "
                                  "joints with arm.joint_torques")


# -- reaching with a segment placed off the world's origin -------------------------------------------------
def test_reaching_a_frame_of_the_first_segment_accounts_for_where_it_stands():
    half = 0.35  # half the turn about z
    arm = Arm.Dynamic(description=str(DEMO_URDF), at=(0.2, -0.1, 0.05),
                      orientation=(math.cos(half), 0.0, 0.0, math.sin(half)))
    rig = Apparatus("placed", chain={"arm": arm})
    assert rig.validate() == []
    built = rig.build()
    chain = built.chain_node()
    art = built.segments["arm"].articulation
    tool0 = art.frame_index("tool0")
    goal = np.array([0.3, -0.4, 0.5, 0.2, 0.6, -0.3])
    target = chain.initial_state({"arm": goal})["arm"].frame_poses[tool0]
    start = chain.initial_state({"arm": np.clip(goal + 0.1, art.lower, art.upper)})
    found = chain.reach(start, "arm", "tool0", target)
    assert found.result.converged
    # the chain node placing the answer (its placement included) shows tool0 at the target
    placed = chain.initial_state(found.positions)["arm"].frame_poses[tool0]
    assert np.linalg.norm(placed[:3, 3] - target[:3, 3]) <= 1e-9
    assert np.linalg.norm(_rotation_log(placed[:3, :3] @ target[:3, :3].T)) <= 1e-9
