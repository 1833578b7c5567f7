"""Field contracts, pinned: the joints' memory estimate counts one field call's scratch on top of what every
step keeps (as ``field_bytes`` counts it); the plane around a centre away from the origin is sized by the
distance from that centre to the nearest magnet; a target the rig lacks is refused naming what it could aim
at; and a step without any field is read without a numpy warning reaching the user's terminal."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from field_helpers import magnet, motor_rig, probe

from mime_gui.field import FieldError, rest_poses
from mime_gui.field.along import CALL_OVERHEAD, SCRATCH_PER_TRIPLE, _chunks
from mime_gui.field.joints import joint_bytes
from mime_gui.field.plane import plane_side
from mime_gui.field.planner import plan
from mime_gui.field.step_out import turning
from mime_gui.rig import Cylinder, Sphere
from mime_gui.rig.targets import FieldTarget


@pytest.mark.parametrize("steps, magnets, joints", [(1, 1, 1), (10, 2, 3), (500, 40, 7)])
def test_the_joints_memory_estimate_adds_one_field_calls_scratch(steps, magnets, joints):
    # by hand: per step, eight floats and a flag byte a joint, a 4 x 4 pose a magnet; then one Magpylib
    # call of `call` triples at SCRATCH_PER_TRIPLE each, and its fixed overhead
    n, k = _chunks(steps, magnets, joints)
    call = min(steps, n) * magnets * min(joints, k)
    kept = steps * (8 * (joints * 8 + 16 * magnets) + joints)
    assert joint_bytes(steps, magnets, joints) == kept + SCRATCH_PER_TRIPLE * call + CALL_OVERHEAD
    # the scratch is memory held, never memory given back: the estimate is above what the steps keep
    assert joint_bytes(steps, magnets, joints) > kept + CALL_OVERHEAD


def test_the_plane_around_a_centre_off_the_origin_is_sized_by_the_distance_from_that_centre():
    # a 4 mm cylinder at (0.3, 0.2, 0) and the plane's centre 3 cm beside it, both far from the world's origin
    built = motor_rig({"m": magnet(Cylinder(radius=0.002, length=0.004), at=(0.3, 0.2, 0.0))}, {}).build()
    side = plane_side(built, rest_poses(built), (0.3, 0.23, 0.0))
    # by hand: reach = 3 cm to the centre + 2 mm to the far side, on both sides of the centre
    assert side == pytest.approx(2 * (0.03 + 0.002), rel=1e-12)


@pytest.mark.parametrize("probes, aim", [({"p": probe((0.0, 0.0, 0.05)), "q": probe((0.0, 0.05, 0.0))},
                                          "probes.p, probes.q"),
                                         ({}, "none")], ids=["two-probes", "no-probe"])
def test_a_target_the_rig_lacks_is_refused_naming_what_can_be_aimed_at(probes, aim):
    built = motor_rig({"m": magnet(Sphere(0.005), at=(0.02, 0.0, 0.0))}, probes).build()
    with pytest.raises(FieldError) as err:
        plan(built, FieldTarget("probes.nowhere", direction=(0.0, 0.0, 1.0)))
    assert (err.value.code, err.value.file) == ("plan.target", "probes.nowhere")
    assert err.value.message == f"the rig has no probe 'nowhere'; aim at one of {aim}"


def test_a_step_without_field_is_read_without_a_numpy_warning():
    # the field off at the first step, then 1 mT along z: no direction there, nothing turns, and no
    # "invalid value" warning reaches the terminal of the user running the step-out check
    B = np.zeros((4, 2, 3))
    B[1:, :, 2] = 1e-3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        moving = turning(B)
    assert moving.shape == (4, 2) and not moving.any()
