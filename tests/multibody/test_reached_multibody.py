"""Corners of the engine a user meets through its public calls: a planar two-link arm whose mass matrix,
tip and centre of mass have closed forms, and a massless link with no dynamics to speak of."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mime_gui.multibody as mb
from mime_gui.multibody import inverse_kinematics as ik
from mime_gui.multibody.joint_space import external_joint_forces
from mime_gui.multibody.moving_base import with_payload

_LINK = ('<link name="{}"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>'
         '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')

# two unit links turning about z, each of 1 kg with its centre of mass half-way along it
PLANAR = f"""<robot name="planar">
  <link name="base"/>{_LINK.format("upper")}{_LINK.format("fore")}<link name="tip"/>
  <joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/>
  </joint>
  <joint name="elbow" type="continuous"><parent link="upper"/><child link="fore"/><axis xyz="0 0 1"/>
    <origin xyz="1 0 0"/></joint>
  <joint name="tip_joint" type="fixed"><parent link="fore"/><child link="tip"/><origin xyz="1 0 0"/></joint>
</robot>"""

# one moving link with no <inertial>: no mass, no inertia
MASSLESS = """<robot name="feather">
  <link name="base"/><link name="wand"/>
  <joint name="swing" type="continuous"><parent link="base"/><child link="wand"/><axis xyz="0 0 1"/></joint>
</robot>"""


@pytest.fixture(scope="module")
def arm():
    return mb.read_urdf(PLANAR).compile()


@pytest.fixture(scope="module")
def feather():
    return mb.read_urdf(MASSLESS).compile()


def _planar_mass_matrix(q2: float) -> np.ndarray:
    # the textbook two-link arm: l1 = 1, both centres at 0.5, m = 1, I = 0.01 about each centre
    m11 = 0.01 + 0.25 + 0.01 + (1.0 + 0.25 + 2 * 0.5 * math.cos(q2))
    m12 = 0.01 + 0.25 + 0.5 * math.cos(q2)
    return np.array([[m11, m12], [m12, 0.01 + 0.25]])


def test_armature_given_by_joint_name_changes_only_that_joint(arm):
    both = arm.with_armature([0.1, 0.2])
    one = both.with_armature({"elbow": 0.7})
    np.testing.assert_array_equal(one.armature, [0.1, 0.7])
    q = np.array([0.3, 0.9])
    np.testing.assert_allclose(mb.mass_matrix(one, q), _planar_mass_matrix(0.9) + np.diag([0.1, 0.7]),
                               rtol=1e-12)
    with pytest.raises(KeyError, match="unknown joint 'wrist'"):
        arm.with_armature({"wrist": 1.0})


def test_a_wrench_with_a_scalar_torque_is_refused_naming_the_link_and_the_shapes(arm):
    q = np.zeros(2)
    with pytest.raises(ValueError) as info:
        mb.inverse_dynamics(arm, q, q, q, external_wrenches={"fore": (1.0, (0.0, 0.0, 1.0))})
    message = str(info.value)
    assert "external_wrenches['fore']" in message and "3-vectors" in message
    assert "got shapes () and (3,)" in message


@pytest.mark.parametrize("gravity", [("down", 0.0, 0.0), object()], ids=["word", "object"])
def test_gravity_that_is_not_numbers_is_refused(arm, gravity):
    q = np.zeros(2)
    with pytest.raises(ValueError, match=r"^gravity must be a 3-vector of numbers \(world axes, m/s\^2\)$"):
        mb.dynamics_bias(arm, q, q, gravity=gravity)


def test_no_external_wrenches_push_with_zero_joint_forces_over_the_batch(arm):
    q = np.random.default_rng(5).uniform(-1, 1, (4, 2))
    forces = external_joint_forces(arm, q, None)
    assert forces.shape == (4, 2)
    assert not forces.any()


def test_forward_dynamics_of_a_massless_link_is_refused_naming_the_robot(feather):
    with pytest.raises(ValueError) as info:
        mb.dynamics(feather, [0.0], [0.0], [1.0])
    message = str(info.value)
    assert "'feather'" in message and "not positive definite" in message
    assert "without mass or inertia" in message
    # armature makes the mass matrix invertible: vdot = tau / armature
    np.testing.assert_allclose(mb.dynamics(feather.with_armature([0.5]), [0.0], [0.0], [1.0]), [2.0])


def test_the_centre_of_mass_of_a_massless_robot_is_refused(feather):
    with pytest.raises(ValueError, match="'feather' has no moving mass: its centre of mass is undefined"):
        mb.center_of_mass(feather, [0.0])


def test_angular_velocities_refuse_q_and_v_batches_that_do_not_broadcast(arm):
    with pytest.raises(ValueError) as info:
        mb.frame_angular_velocities(arm, np.zeros((2, 2)), np.zeros((3, 2)))
    message = str(info.value)
    assert "q (2, 2)" in message and "v (3, 2)" in message and "do not broadcast" in message


@pytest.mark.parametrize("body", [3, -1], ids=["past-the-end", "negative"])
def test_subtree_mass_refuses_a_body_index_out_of_range(arm, body):
    assert arm.nbodies == 3  # the root and the two links
    with pytest.raises(KeyError, match=f"body index {body} out of range for 'planar' \\(3 bodies\\)"):
        mb.subtree_mass(arm, body)


@pytest.mark.parametrize("body, kind", [(1.0, "float"), (True, "bool"), (None, "NoneType")],
                         ids=["float", "bool", "none"])
def test_subtree_mass_refuses_a_body_that_is_neither_index_nor_name(arm, body, kind):
    with pytest.raises(KeyError) as info:
        mb.subtree_mass(arm, body)
    message = info.value.args[0]
    assert "body index or a link/frame name" in message and message.endswith(f"got {kind}")
    assert mb.subtree_mass(arm, 1) == 2.0 and mb.subtree_mass(arm, "tip") == 1.0


def test_a_start_pointing_away_from_the_target_is_left_and_the_target_reached_without_a_callback(arm):
    # stretched out along +x the Jacobian has no x row, so no step towards (-1.5, 0, 0) can start there
    r = ik.solve(arm, [0.0, 0.0], "tip", [-1.5, 0.0, 0.0], orientation=False)
    assert r.converged
    q1, q2 = r.q
    # two unit links: |tip|² = 2 + 2 cos(q2) = 1.5²
    assert math.cos(q2) == pytest.approx(0.125, abs=1e-9)
    tip = (math.cos(q1) + math.cos(q1 + q2), math.sin(q1) + math.sin(q1 + q2))
    np.testing.assert_allclose(tip, (-1.5, 0.0), atol=1e-9)


def test_a_payload_of_no_mass_on_a_massless_body_leaves_it_as_it_was(feather):
    light = with_payload(feather, 1, 0.0, (0.3, 0.0, 0.0), np.zeros((3, 3)))
    assert light.mass_of_body[1] == 0.0
    np.testing.assert_array_equal(light.com[1], feather.com[1])
    np.testing.assert_array_equal(light.inertia_com[1], feather.inertia_com[1])
    np.testing.assert_array_equal(light.spatial_inertia[1], np.zeros((6, 6)))


def test_welding_a_link_to_an_unknown_parent_is_refused_and_adds_nothing():
    tree = mb.read_urdf(PLANAR).copy()
    with pytest.raises(KeyError, match="unknown link 'nowhere'"):
        tree.add_fixed_link("camera", "nowhere", np.eye(4))
    assert "camera" not in tree.links and "camera" not in tree.joints
