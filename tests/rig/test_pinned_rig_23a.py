"""Contracts pinned here:

- an apparatus's repr shows its poses when it has some;
- a build given the ``(tree, articulation)`` of an earlier build of a segment takes them as they are: its
  parts are not grafted again (nor its tree compiled again);
- a bundle's rig file is its root's ``.rig.json``, whatever other files stand at its root before it;
- the ``clearance.allow`` warning of a pair naming no item says, word for word, how to fix it;
- a segment mounted on a moving one and stepped under the magnets' pull has frames turning with its mount;
- :func:`mime_gui.rig.dynamics.frames` makes unit joint axes in double precision whatever the factory's number
  type, and a tree whose source is ``<name>`` (what the app's report reads as "built by the rig").
"""

from __future__ import annotations

import zipfile

import numpy as np
from magnet_rigs import compass_rig
from rig_helpers import DEMO_RIG, snippet_rig

import mime_gui.rig.build as build_module
from mime_gui.multibody.tree import MultibodyTree
from mime_gui.rig import Apparatus, Motor, load
from mime_gui.rig.bundle import open_bundle
from mime_gui.rig.clearance_check import initial_clearance
from mime_gui.rig.driven import play_driven
from mime_gui.rig.dynamics import frames, register_dynamics, unregister_dynamics
from mime_gui.rig.poses import Pose
from mime_gui.rig.pulled import segment_pulls


# -- the repr ----------------------------------------------------------------------------------------------
def test_the_repr_of_an_apparatus_with_poses_shows_them():
    rig = Apparatus("bench", poses={"rest": Pose({"arm": {"j": 1.0}})})
    assert repr(rig) == ("Apparatus('bench', chain={}, parts={}, magnets={}, "
                         "poses={'rest': Pose({'arm': {'j': 1.0}}, unit='rad|m')})")


# -- a reused segment --------------------------------------------------------------------------------------
def test_a_build_reusing_a_segment_s_tree_grafts_none_of_its_parts_again(monkeypatch):
    rig = snippet_rig()
    first = rig.build()
    reuse = {n: (s.tree, s.articulation) for n, s in first.segments.items()}
    grafted = []
    original = MultibodyTree.add_fixed_link

    def counting(self, name, *args, **kwargs):
        grafted.append(name)
        return original(self, name, *args, **kwargs)

    monkeypatch.setattr(MultibodyTree, "add_fixed_link", counting)
    again = build_module.build(rig, reuse=reuse)
    # the reused tree and articulation are taken as they are: nothing grafted onto a fresh copy
    assert grafted == []
    for name, (tree, art) in reuse.items():
        assert again.segments[name].tree is tree and again.segments[name].articulation is art
    assert again.segments["motor"].grafts == first.segments["motor"].grafts
    # the same for the drawing of a rig being fixed
    drawn = build_module.display_segments(rig, reuse=reuse)
    assert grafted == [] and drawn["motor"].tree is reuse["motor"][0]
    # without reuse, the parts are grafted (the count above watches the grafting)
    build_module.build(rig)
    assert {"part:holder", "part:m1"} <= set(grafted)


# -- the rig file of a bundle ------------------------------------------------------------------------------
def test_a_bundle_s_rig_file_is_its_root_rig_json_not_another_root_file_before_it(tmp_path):
    path = tmp_path / "b.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("README.txt", "read me first\n")  # a root file listed before the rig file
        z.writestr("bench.rig.json", "{}\n")
    rig = open_bundle(path, folder=tmp_path / "cache")
    assert rig.name == "bench.rig.json" and rig.read_text() == "{}\n"


# -- the clearance.allow warning ---------------------------------------------------------------------------
def test_the_warning_of_an_allowed_pair_naming_no_item_says_how_to_fix_it():
    rig = load(DEMO_RIG)
    del rig.parts["holder"]  # its allowed pair stays behind
    (found,) = initial_clearance(rig)
    assert (found.code, found.where) == ("clearance.allow", "clearance.allow.0")
    assert found.message == (
        "'parts.holder' is not an item of the rig (parts.<name>, magnets.<name>, "
        "samples.<name> or <segment>.<link>); the pair allows nothing: rename or remove it"
    )


# -- a pulled segment on a moving mount --------------------------------------------------------------------
def test_a_pulled_segment_on_a_turning_arm_has_its_stator_turning_with_the_arm_s_flange():
    built = compass_rig().build()  # the motor on the arm's tool0, its ball pulled by one in the world
    assert segment_pulls(built, ["motor"])  # the stepped path
    T, dt = 20, 0.01
    commands = np.tile(built.initial_commands(), (T, 1))
    commands[:, 0] += 0.5 * dt * np.arange(1, T + 1)  # joint_1 turns at 0.5 rad/s
    traj = play_driven(built, commands, {"motor.torque": np.zeros(T)}, dt)
    arm, motor = traj.segments["arm"], traj.segments["motor"]
    flange = arm.frame_angular_velocities[:, built.articulation("arm").frame_index("tool0")]
    stator = motor.frame_angular_velocities[:, built.articulation("motor").frame_index("stator")]
    # the stator is fixed to the flange: it turns as the flange turns
    assert np.abs(flange).max() > 0.1
    np.testing.assert_allclose(stator, flange, rtol=0, atol=1e-12)


# -- frames() ----------------------------------------------------------------------------------------------
def test_frames_gives_a_unit_axis_in_double_precision_whatever_the_number_type():
    axis = np.array([1, 2, 2], dtype=np.float32)
    tree = frames("tilt", "base", [("tip", "revolute", "base", "top", (0, 0, 0.01), axis, (-1, 1))])
    a = tree.joints["tip"].axis
    assert a.dtype == np.float64
    assert a.tolist() == [1 / 3, 2 / 3, 2 / 3]  # 1, 2, 2 over 3, as double divisions give them


def test_a_tree_made_by_frames_says_the_rig_built_it():
    def turntable():
        return frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0.01), (0, 0, 1),
                                             None)])

    Turntable = register_dynamics("turntable_23a", turntable)
    try:
        rig = Apparatus("t", chain={"table": Turntable(), "motor": Motor.Kinematic(mount="table")})
        built = rig.build()
        # "<name>": what the app's report shows as "built by the rig (turntable), no file read"
        assert built.segments["table"].tree.source == "<turntable>"
    finally:
        unregister_dynamics("turntable_23a")
