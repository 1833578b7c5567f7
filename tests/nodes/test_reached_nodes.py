"""The chain and dynamic arm nodes on inputs the other node tests do not give: limits of the wrong size or
holding NaN, commands that are one row instead of a table, a play of no steps through a servo lag, the
dynamic node's names, a joint moving nothing under external forces, and the progress of a long play."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from node_helpers import BRANCH_URDF, MIMIC_URDF
from robot_data import BARE_FIRST_URDF, MASSLESS_TIP_URDF

from mime_gui.multibody import read_urdf
from mime_gui.multibody.errors import CodedError
from mime_gui.nodes import KinematicArmNode
from mime_gui.nodes.dynamic import PROGRESS_STEPS, DynamicArmNode

# MIMIC_URDF: four joints j1..j4, j3 follows j1, so three of them take a command
MIMIC_JOINTS = 4


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_limits_of_the_wrong_length_are_refused_naming_the_length_wanted(mimic_art, side):
    with pytest.raises(ValueError) as err:
        KinematicArmNode(mimic_art, **{side: np.zeros(MIMIC_JOINTS - 1)})
    assert str(err.value) == (f"{side} must have shape ({MIMIC_JOINTS},) or be a mapping, got "
                              f"({MIMIC_JOINTS - 1},)")


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_limits_holding_nan_are_refused(mimic_art, side):
    given = np.array([0.5, 0.1, 0.2, 0.3]) * (-1 if side == "lower" else 1)
    given[1] = np.nan
    with pytest.raises(ValueError, match=f"^{side} holds NaN$"):
        KinematicArmNode(mimic_art, **{side: given})


def test_play_refuses_one_row_of_commands_and_asks_for_a_table(mimic_art):
    node = KinematicArmNode(mimic_art)
    with pytest.raises(ValueError) as err:
        node.play(np.zeros(3), 0.01)
    assert str(err.value) == "commands must be a (T, 3) array, got shape (3,)"


def test_a_play_of_no_steps_through_a_servo_lag_gives_empty_arrays(mimic_art):
    node = KinematicArmNode(mimic_art, servo_time_constant=0.05)
    traj = node.play(np.zeros((0, 3)), 0.01)
    assert traj.joint_positions.shape == (0, MIMIC_JOINTS)
    assert traj.frame_poses.shape == (0, mimic_art.nframes, 4, 4)
    assert traj.frame_angular_velocities.shape == (0, mimic_art.nframes, 3)
    assert traj.clamped.tolist() == [0, 0, 0]


def test_the_dynamic_node_names_every_link_as_a_frame_a_welded_one_too():
    node = DynamicArmNode(read_urdf(BRANCH_URDF).compile())
    links = [link.get("name") for link in ET.fromstring(BRANCH_URDF).iter("link")]
    assert sorted(node.frame_names) == sorted(links) and "tool" in links  # tool: welded by a fixed joint


def test_the_dynamic_node_takes_a_torque_on_every_movable_joint_a_follower_too():
    """A follower (mimic) joint is a degree of freedom of its own in forward dynamics: it takes a torque."""
    node = DynamicArmNode(read_urdf(MIMIC_URDF).compile())
    movable = [j.get("name") for j in ET.fromstring(MIMIC_URDF).iter("joint") if j.get("type") != "fixed"]
    assert node.command_names == tuple(movable) == ("j1", "j2", "j3", "j4")


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_a_joint_moving_nothing_under_external_forces_is_refused_by_name(integrator):
    art = read_urdf(BARE_FIRST_URDF).compile()
    assert art.joint_names == ("bare", "shoulder")
    node = DynamicArmNode(art, integrator=integrator)
    with pytest.raises(CodedError) as err:
        node.play(np.ones((3, 2)), 1e-3, external=lambda n, q: np.zeros(2))
    assert err.value.code == "dynamics.singular"
    assert "joint 'bare' of 'r' moves no mass" in err.value.message
    assert "declare armature on the joint" in err.value.message


@pytest.mark.parametrize("external", [None, lambda n, q: np.zeros(2)], ids=["compiled", "external"])
def test_a_long_play_reports_its_progress_between_blocks_and_once_at_the_end(external):
    """Two blocks of steps: one call between them, and the last only once (the end is not a block's)."""
    art = read_urdf(MASSLESS_TIP_URDF).compile().with_armature(np.full(2, 1e-3))
    node = DynamicArmNode(art)
    calls = []
    steps = 2 * PROGRESS_STEPS
    node.play(np.zeros((steps, 2)), 1e-3, external=external, progress=lambda done, total: calls.append(
        (done, total)))
    assert calls == [(2048, 4096), (4096, 4096)]
