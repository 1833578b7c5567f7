"""Contracts of the engine pinned against mutation survivors:

* ``point_jacobian`` is batched over leading dimensions of q like every kinematics call: ``(..., 3, nv)``,
  each configuration's Jacobian the closed form of a planar two-link arm;
* ``frame_poses`` refuses an ``out`` that is not an array with a ValueError naming what it got;
* ``quaternion_of`` returns a *unit* quaternion even for a matrix that is a rotation only to the digits it
  was written with;
* the mesh resolver works out the package roots of a name once per description (its docstring: "caching the
  package roots"), in the documented order;
* an ``ArticulationFrame`` without ``world_X_base`` leaves its base unset (None: the articulation's own base,
  as ``Mounted`` expects of its rider) and one with a base keeps it as a float copy;
* ``Mounted`` holds its mount as its own float pose: a mount written with integers, moved 5 cm in place,
  moves the rider by 5 cm (not by a truncated 0), and the caller's array is not shared;
* ``kinetic_energy`` refuses velocities of the wrong size or non-finite naming them ``v`` (its positions
  ``q``).
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from robot_data import PLANAR_URDF as PLANAR

import mime_gui.multibody as mb
from mime_gui.multibody import inverse_kinematics as ik
from mime_gui.multibody import resolve
from mime_gui.multibody.resolve import Resolver
from mime_gui.multibody.spatial import quaternion_of


def _planar_tip_jacobian(q1, q2):
    """d(tip)/d(q1, q2) of the tip at (cos q1 + cos(q1 + q2), sin q1 + sin(q1 + q2), 0)."""
    s1, c1, s12, c12 = math.sin(q1), math.cos(q1), math.sin(q1 + q2), math.cos(q1 + q2)
    return np.array([[-s1 - s12, -s12], [c1 + c12, c12], [0.0, 0.0]])


def test_the_point_jacobian_of_a_batch_is_one_3_by_nv_jacobian_per_configuration():
    art = mb.read_urdf(PLANAR).compile()
    Q = np.array([[0.0, 0.0], [0.3, -1.1], [math.pi / 2, math.pi / 4]])
    J = mb.point_jacobian(art, Q, "link2", point=(1.0, 0.0, 0.0))
    assert J.shape == (3, 3, 2)  # (batch, xyz, nv), as for one configuration with a batch axis in front
    for Jq, (q1, q2) in zip(J, Q, strict=True):
        np.testing.assert_allclose(Jq, _planar_tip_jacobian(q1, q2), rtol=0, atol=1e-15)
    # a batch of batches keeps both leading axes in front
    assert mb.point_jacobian(art, Q.reshape(3, 1, 2), "link2").shape == (3, 1, 3, 2)


def test_frame_poses_refuses_an_out_that_is_not_an_array_naming_its_type():
    art = mb.read_urdf(PLANAR).compile()
    q = np.zeros(2)
    as_list = np.zeros((art.nframes, 4, 4)).tolist()  # the right shape, but a list
    with pytest.raises(ValueError) as err:
        mb.frame_poses(art, q, out=as_list)
    assert str(err.value) == f"out must be a float64 array of shape ({art.nframes}, 4, 4), got list"
    with pytest.raises(ValueError, match=r"got \(2, 4, 4\)$"):  # an array says its shape
        mb.frame_poses(art, q, out=np.zeros((2, 4, 4)))


def test_a_rotation_written_to_four_digits_still_has_a_unit_quaternion():
    """30° about z as a file writes it (cos 30° = 0.866): Shepperd's raw components have a norm off 1 by
    about 1e-5, and the answer is them divided by that norm."""
    R = np.array([[0.866, -0.5, 0.0], [0.5, 0.866, 0.0], [0.0, 0.0, 1.0]])
    w = 0.5 * math.sqrt(1.0 + 2 * 0.866 + 1.0)
    raw = np.array([w, 0.0, 0.0, (0.5 + 0.5) * 0.25 / w])
    assert abs(np.linalg.norm(raw) - 1.0) > 1e-6  # the input really is off a rotation
    q = quaternion_of(R)
    assert abs(np.linalg.norm(q) - 1.0) < 1e-15
    np.testing.assert_allclose(q, raw / np.linalg.norm(raw), rtol=0, atol=1e-15)
    # and it is the 30° turn to the digits given
    np.testing.assert_allclose(q, [math.cos(math.pi / 12), 0.0, 0.0, math.sin(math.pi / 12)], atol=1e-4)


def test_the_package_roots_of_a_name_are_worked_out_once_per_description(tmp_path, monkeypatch):
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    monkeypatch.setattr(resolve, "_process_dirs", [])
    pkgs = tmp_path / "pkgs"
    here = tmp_path / "robot" / "urdf"  # the description's folder, inside a folder named as the package
    r = Resolver(here, [pkgs])
    roots = r.package_roots("robot")
    j = os.path.join
    # the given folder (as a folder of packages, then as the package), then the description's parents
    assert roots[:5] == [j(pkgs, "robot"), str(pkgs), j(here, "robot"), str(tmp_path / "robot"),
                         j(tmp_path / "robot", "robot")]
    assert len(roots) == len(set(roots))
    # every later mesh of the package reuses that list rather than asking the folders again
    assert r.package_roots("robot") is roots
    assert r.package_roots("other") is r.package_roots("other") != roots


def _lifted(z: float) -> np.ndarray:
    pose = np.eye(4)
    pose[2, 3] = z
    return pose


def test_a_frame_function_without_a_base_leaves_it_unset_and_one_with_a_base_keeps_a_float_copy():
    art = mb.read_urdf(PLANAR).compile()
    x = np.array([0.3, -0.7])
    own = ik.ArticulationFrame(art, "link2")
    assert own.world_X_base is None  # unset: the articulation's own base (what Mounted asks of a rider)
    local, _ = own.evaluate(x)
    np.testing.assert_allclose(local, mb.frame_poses(art, x)[art.frame_index("link2")], rtol=0, atol=1e-15)
    base = [[0, -1, 0, 1], [1, 0, 0, 2], [0, 0, 1, 3], [0, 0, 0, 1]]  # a quarter turn about z, in ints
    placed = ik.ArticulationFrame(art, "link2", world_X_base=base)
    assert placed.world_X_base.dtype == np.float64
    np.testing.assert_array_equal(placed.world_X_base, base)
    pose, _ = placed.evaluate(x)
    np.testing.assert_allclose(pose, np.array(base, dtype=float) @ local, rtol=0, atol=1e-15)


def test_a_mounted_rider_keeps_its_own_float_mount_moved_in_place_by_exactly_what_is_written():
    art = mb.read_urdf(PLANAR).compile()
    carrier = ik.ArticulationFrame(art, "link2")
    rider = ik.ArticulationFrame(art, "link2")
    given = np.eye(4, dtype=int)  # a mount written with integers: the identity
    function = ik.Mounted(carrier, given, rider)
    x = np.array([0.3, -0.7, 1.1, 0.4])
    flat, _ = function.evaluate(x)
    given[0, 3] = 7  # the caller's array is not the function's mount
    np.testing.assert_array_equal(function.evaluate(x)[0], flat)
    function.mount_X_base[:3, 3] = (0.0, 0.0, 0.05)  # the rider's base 5 cm above the carrier's frame
    lifted, _ = function.evaluate(x)
    np.testing.assert_allclose(lifted, _lifted(0.05) @ flat, rtol=0, atol=1e-15)
    # the carrier's frame at (cos 0.3, sin 0.3) turned by -0.4; the rider's own elbow 1 m along that
    np.testing.assert_allclose(lifted[:3, 3], [math.cos(0.3) + math.cos(-0.4 + 1.1),
                                               math.sin(0.3) + math.sin(-0.4 + 1.1), 0.05], atol=1e-15)


def test_kinetic_energy_refuses_velocities_naming_them_v():
    art = mb.read_urdf(PLANAR).compile()
    with pytest.raises(ValueError) as err:
        mb.kinetic_energy(art, np.zeros(2), np.zeros(3))
    assert str(err.value) == "v must have shape (..., 2) for 'planar', got (3,)"
    with pytest.raises(ValueError) as err:
        mb.kinetic_energy(art, np.zeros(2), [0.0, math.nan])
    assert str(err.value) == "v holds non-finite values; expected finite numbers"
    with pytest.raises(ValueError) as err:  # the positions named q: which of the two is wrong
        mb.kinetic_energy(art, np.zeros(3), np.zeros(2))
    assert str(err.value) == "q must have shape (..., 2) for 'planar', got (3,)"
