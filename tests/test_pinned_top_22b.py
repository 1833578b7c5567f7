"""Pinned contracts of the multibody layer and the nodes.

- A torque-driven segment on a turning mount publishes frame angular velocities that include the mount's
  turning: a frictionless spinner on a joint along the mount's spin axis keeps the spin its torque gives it
  (``I ω̇ = τ``), whatever the mount does.
- Mass properties and a base's turning given as exact decimal numbers are taken at their values
  (``compile_tree``'s centre-of-mass placement, ``BaseTrack.step``'s angular velocity).
- A mesh at an absolute path in the file system's root folder that is not there is unresolved (the path
  tried kept), not a crash; ``package:///`` with no package name is advised by where its path is.
- A mount rate of the wrong shape is refused naming the one shape a single state takes.
- A play refused for too many sub-steps names a count of 10^18 or more by its power of ten.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal

import numpy as np
import pytest

from mime_gui.multibody import read_urdf
from mime_gui.multibody.articulation import compile_tree
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.moving_base import BaseTrack
from mime_gui.multibody.resolve import Resolver
from mime_gui.nodes import KinematicArmNode
from mime_gui.nodes.dynamic import DynamicArmNode

#: a body on a continuous joint about z, its centre of mass on the axis and z a principal axis (I_zz = 0.02)
SPINNER = """<robot name="spinner"><link name="base"/>
  <link name="rotor"><inertial><origin xyz="0 0 0"/><mass value="2"/>
    <inertia ixx="0.03" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.02"/></inertial></link>
  <joint name="spin" type="continuous"><parent link="base"/><child link="rotor"/><axis xyz="0 0 1"/></joint>
</robot>"""

#: a body whose inertia about its centre of mass differs on each axis
BOB = """<robot name="p"><link name="base"/>
  <link name="bob"><inertial><origin xyz="0.2 0 0"/><mass value="0.5"/>
    <inertia ixx="1e-3" ixy="0" ixz="0" iyy="2e-3" iyz="0" izz="3e-3"/></inertial></link>
  <joint name="swing" type="continuous"><parent link="base"/><child link="bob"/><axis xyz="0 1 0"/></joint>
</robot>"""


def _turn_z(angle: float) -> np.ndarray:
    pose = np.eye(4)
    c, s = math.cos(angle), math.sin(angle)
    pose[:2, :2] = [[c, -s], [s, c]]
    return pose


def test_the_frames_of_a_torque_driven_spinner_on_a_turning_mount_turn_with_the_mount_too():
    """The mount turns at a steady Ω = 3 rad/s about z from rest before step 0; the rotor, on a frictionless
    joint along z with its centre of mass on the axis, is driven by τ = 0.004 N·m. The mount cannot twist it
    about z, so its spin in the world is τ t / I_zz (0.2 rad/s² × t) and its joint turns at that less Ω;
    the base frame turns with the mount at Ω. Semi-implicit Euler is exact for a constant acceleration."""
    art = compile_tree(read_urdf(SPINNER))
    node = DynamicArmNode(art)
    omega, tau, dt, T = 3.0, 0.004, 0.01, 6
    t = dt * np.arange(1, T + 1)
    mounts = np.array([_turn_z(omega * s) for s in t])
    rates = np.tile([0.0, 0.0, omega], (T, 1))
    out = node.play(np.full((T, 1), tau), dt, mount_poses=mounts, mount_rates=rates, mount_pose0=np.eye(4))
    spin = tau / 0.02 * t
    np.testing.assert_allclose(out.joint_velocities[:, 0], spin - omega, rtol=0, atol=1e-12)
    rotor, base = art.frame_index("rotor"), art.frame_index("base")
    np.testing.assert_allclose(out.frame_angular_velocities[:, rotor], np.stack([0 * t, 0 * t, spin], axis=1),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(out.frame_angular_velocities[:, base], rates, rtol=0, atol=1e-12)
    # the same states published from elsewhere (a rig's segments stepped side by side) say the same
    again = node.published(out.joint_positions, out.joint_velocities, dt, mounts, rates)
    np.testing.assert_array_equal(again.frame_angular_velocities, out.frame_angular_velocities)


def test_a_centre_of_mass_placement_given_in_decimals_is_taken_at_its_value():
    """``link_X_com`` written as Decimals: the centre of mass 0.25 m along x and 0.5 m down z, the inertia
    axes turned a quarter turn about z, so the body's inertia about its centre of mass swaps I_xx and I_yy."""
    tree = read_urdf(BOB)
    bob = tree.links["bob"]
    d0, d1 = Decimal(0), Decimal(1)
    placed = [[d0, -d1, d0, Decimal("0.25")], [d1, d0, d0, d0], [d0, d0, d1, Decimal("-0.5")],
              [d0, d0, d0, d1]]
    inertial = dataclasses.replace(bob.inertial, link_X_com=placed)
    tree.links["bob"] = dataclasses.replace(bob, inertial=inertial)
    art = compile_tree(tree)
    body = art.body_names.index("bob")
    assert art.mass_of_body[body] == 0.5
    np.testing.assert_array_equal(art.com[body], [0.25, 0.0, -0.5])
    np.testing.assert_allclose(art.inertia_com[body], np.diag([2e-3, 1e-3, 3e-3]), rtol=0, atol=1e-15)


def test_a_base_turning_at_a_rate_given_in_decimals_is_taken_at_its_value():
    """A base at the world origin, at rest before, turning at 0.5 rad/s about z from a step of 0.1 s on: its
    twist is [0, 0, 0.5; 0, 0, 0] and its spatial acceleration the spin-up 0.5 / 0.1 = 5 rad/s² about z; the
    next step at the same rate has no acceleration. Gravity along the turning axis is unchanged."""
    track = BaseTrack(np.eye(4))
    rate = [Decimal(0), Decimal(0), Decimal("0.5")]
    twist, acceleration, gravity = track.step(_turn_z(0.05), rate, 0.1)
    np.testing.assert_allclose(twist, [0, 0, 0.5, 0, 0, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(acceleration, [0, 0, 5.0, 0, 0, 0], rtol=0, atol=1e-13)
    np.testing.assert_allclose(gravity, [0, 0, -9.81], rtol=0, atol=1e-15)
    twist, acceleration, _ = track.step(_turn_z(0.1), rate, 0.1)
    np.testing.assert_allclose(twist, [0, 0, 0.5, 0, 0, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(acceleration, np.zeros(6), rtol=0, atol=1e-13)


@pytest.mark.parametrize("uri", ["/no-such-mesh-22b.stl", "file:///no-such-mesh-22b.stl"],
                         ids=["absolute", "file-uri"])
def test_a_missing_mesh_in_the_root_folder_is_unresolved_with_its_path_tried(uri):
    # the root folder is its own parent: asking whether it is a folder must end there
    tree = read_urdf(f'<robot name="r"><link name="a"><visual><geometry><mesh filename="{uri}"/></geometry>'
                     "</visual></link></robot>")
    [warning] = tree.report.warnings
    assert warning.code == "urdf.mesh-unresolved"
    assert warning.message == (
        f"mesh {uri!r} of link 'a' was not found; tried: /no-such-mesh-22b.stl. The path is absolute and no "
        "file is there; fix the path, or keep the mesh beside the URDF and refer to it by a relative path; "
        "the robot loads without it")
    assert Resolver(None)(uri) == (None, ("/no-such-mesh-22b.stl",))


def test_a_package_uri_with_no_package_name_is_advised_by_the_folder_its_path_is_under():
    advice = Resolver(None).advice("package:///meshes/gone.stl", ["/meshes/gone.stl"])
    assert advice == ("tried: /meshes/gone.stl. Pass the folder the path is under with --package-dir, a rig "
                      "file's package_dirs, or ROS_PACKAGE_PATH")
    # with a name, the package's folder (and its manifest) is what to pass
    named = Resolver(None).advice("package://arm/meshes/gone.stl", [])
    assert named.startswith("Pass the folder that holds package 'arm' (or that folder's parent) with")


@pytest.mark.parametrize("call", ["initial_state", "advance"])
def test_a_mount_rate_of_the_wrong_shape_for_one_state_is_refused_naming_the_shape_it_takes(call):
    node = KinematicArmNode(compile_tree(read_urdf(SPINNER)))
    with pytest.raises(ValueError) as caught:
        if call == "initial_state":
            node.initial_state(mount_rate=np.zeros((2, 3)))
        else:
            node.advance(node.initial_state(), [0.0], 0.01, mount_rate=[1.0, 2.0])
    shape = "(2, 3)" if call == "initial_state" else "(2,)"
    assert str(caught.value) == f"mount_rate must have shape (3,), got {shape}"


def test_a_play_of_ten_to_the_eighteen_sub_steps_a_step_names_the_count_by_its_power_of_ten():
    node = DynamicArmNode(compile_tree(read_urdf(SPINNER)), substeps=10**18)
    with pytest.raises(CodedError) as caught:
        node.play(np.zeros((2, 1)), 0.01)
    assert caught.value.code == "dynamics.substeps"
    assert caught.value.message == (
        "2 steps of about 10^18 sub-steps each make more than the 5,000,000 sub-steps one play may "
        "integrate; use at most 2,500,000 sub-step(s) per step, or fewer steps (a larger step than 0.01 s, "
        "or a shorter command file)")
