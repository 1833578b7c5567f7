"""Contracts of the engine pinned against mutation survivors:

* an ``ArticulationFrame`` without ``world_X_base`` leaves its base unset (None: the articulation's own base,
  as ``Mounted`` expects of its rider) and one with a base keeps it as a float copy;
* ``Mounted`` holds its mount as its own float pose: a mount written with integers, moved 5 cm in place,
  moves the rider by 5 cm (not by a truncated 0), and the caller's array is not shared;
* ``kinetic_energy`` refuses velocities of the wrong size or non-finite naming them ``v`` (its positions
  ``q``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mime_gui.multibody as mb
from mime_gui.multibody import inverse_kinematics as ik

# Two unit links turning about world z; link2's frame sits at the elbow.
PLANAR = """<robot name="planar">
  <link name="base"/>
  <link name="link1"/>
  <link name="link2"/>
  <joint name="shoulder" type="continuous"><parent link="base"/><child link="link1"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="elbow" type="continuous"><parent link="link1"/><child link="link2"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
</robot>"""


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
