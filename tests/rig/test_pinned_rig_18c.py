"""Contracts of the rig pinned at their edges: a bad actuator record from an entry point names no file; an
apparatus without a chain plays to a trajectory of no steps; the plain clearance loop marks "no pair" as
``check`` does (-1); a mesh's hull is computed once per file and scale; unregistering a kind that is not
registered does nothing; a declared frame's huge quaternion is a finding, not a numpy warning; an unknown
mount lists sixteen frames and counts the rest; a point on an arc's outer face is not inside it; a sphere's
radius that is no number is refused naming the radius; the RMS of steps of no length is the plain RMS; the
magnets' excess has the margin ``limit − |τ|``."""

from __future__ import annotations

import importlib.metadata
import math
import sys
import types
import warnings

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui.multibody import tree as description
from mime_gui.rig import Apparatus, Arm, Box, DeclaredFrame, Part, Sphere, unregister_dynamics
from mime_gui.rig import dynamics as rig_dynamics
from mime_gui.rig.actuator_sources import GROUP, ActuatorError, from_entry_points
from mime_gui.rig.clearance_check import check, initial_frame_poses, per_step_minimum
from mime_gui.rig.collision import clearance_model, shape_pieces
from mime_gui.rig.geometries.arc import Arc
from mime_gui.rig.limits import MAGNETS, demands, magnet_excesses
from mime_gui.rig.probes import inside


# -- an entry point's record names its entry point, and no file ----------------------------------------------
def test_a_bad_record_from_an_entry_point_names_its_entry_point_and_no_file(monkeypatch):
    module = types.ModuleType("lab_motors_18c")
    module.motors = [{"name": "lab-ec45", "rotor_inertia": 2.09e-5, "unit": "kg m2", "source": " "}]
    monkeypatch.setitem(sys.modules, "lab_motors_18c", module)
    ep = importlib.metadata.EntryPoint("lab", "lab_motors_18c:motors", GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda **select: importlib.metadata.EntryPoints([ep]))
    with pytest.raises(ActuatorError) as info:
        from_entry_points()
    # an entry point is no file: the line the command line prints starts with the entry point, not a path
    assert info.value.file == "" and info.value.line == 0
    assert info.value.one_line() == ("error[actuator.record] entry point lab, record 0: actuator 'lab-ec45' "
                                     "needs a source: the datasheet its rotor inertia comes from")


# -- an apparatus without a chain ---------------------------------------------------------------------------
def test_an_apparatus_without_a_chain_plays_its_steps_with_nothing_at_each():
    built = Apparatus("empty").build()
    trajectory = built.play(np.zeros((3, 0)), 0.01)
    assert trajectory.segments == {}
    assert len(trajectory) == 3  # the steps asked for, though no segment takes them
    np.testing.assert_allclose(trajectory.times(), [0.01, 0.02, 0.03], rtol=0, atol=1e-15)
    assert trajectory.frame_poses.shape == (3, 0, 4, 4)


# -- the plain clearance loop -------------------------------------------------------------------------------
def test_the_plain_loop_marks_no_closest_pair_with_minus_one_as_the_check_does():
    cube = Box(size=(0.01, 0.01, 0.01))
    rig = Apparatus("two", parts={"a": Part(cube, material="aluminium", at=(0, 0, 0)),
                                  "b": Part(cube, material="aluminium", at=(0.1, 0, 0))})
    built = rig.build()
    model = clearance_model(built)
    assert len(model.moving) == 0  # two world parts are fixed to one another: no pair moves
    poses = np.repeat(initial_frame_poses(built), 3, axis=0)
    minimum, closest = per_step_minimum(model, poses)
    assert minimum.tolist() == [math.inf] * 3
    assert closest.tolist() == [-1] * 3  # ClearanceCheck: "-1 and +inf when there is none"
    found = check(model, poses, np.arange(3.0))
    assert closest.tolist() == found.closest.tolist()


# -- a mesh's hull, computed once ---------------------------------------------------------------------------
def test_a_mesh_s_hull_is_computed_once_per_file_and_scale(tmp_path):
    path = tmp_path / "tetra.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0.1 0.1 0.1\nf 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n")

    def piece(scale):
        mesh = description.Mesh("tetra.obj", scale, str(path))
        pieces, why = shape_pieces(description.Shape(mesh, np.eye(4)), np.eye(4), "tetra")
        assert why is None and len(pieces) == 1
        return pieces[0]

    first, again = piece((0.01, 0.01, 0.01)), piece((0.01, 0.01, 0.01))
    # the same file at the same size and time gives the one hull the library already holds
    assert again.geometry is first.geometry
    larger = piece((0.02, 0.02, 0.02))
    assert larger.geometry is not first.geometry
    # the cached hull is the tetrahedron's: its bounding ball about the box's centre (0.005, 0.005, 0.005)
    # reaches every corner at √3 · 0.005 m (the inner vertex is no corner of the hull)
    assert again.radius == pytest.approx(math.sqrt(3.0) * 0.005, rel=1e-12)
    assert larger.radius == pytest.approx(2 * first.radius, rel=1e-12)


# -- registered kinds ---------------------------------------------------------------------------------------
def test_unregistering_a_kind_that_is_not_registered_does_nothing():
    before = dict(rig_dynamics.kinds())
    assert "never-registered-18c" not in before
    unregister_dynamics("never-registered-18c")  # a teardown may run it twice, or before registering
    unregister_dynamics("never-registered-18c")
    assert rig_dynamics.kinds() == before


# -- declared frames ----------------------------------------------------------------------------------------
def test_a_frame_s_huge_quaternion_is_a_finding_and_no_numpy_warning():
    rig = snippet_rig(frames={"f": DeclaredFrame("arm.tool0", orientation=(1e300, 1e300, 0.0, 0.0))})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # its norm overflows; the drawing stands it at the identity quietly
        findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("frame.orientation", "frames.f.orientation")]


LINKS = 18


def _long_chain() -> str:
    links = "".join(f'<link name="l{i:02d}"/>' for i in range(LINKS))
    joints = "".join(f'<joint name="j{i:02d}" type="fixed"><parent link="l{i - 1:02d}"/>'
                     f'<child link="l{i:02d}"/></joint>' for i in range(1, LINKS))
    return f'<robot name="long">{links}{joints}</robot>'


def test_a_frame_on_an_unknown_frame_lists_sixteen_frames_and_counts_the_rest(tmp_path):
    urdf = tmp_path / "long.urdf"
    urdf.write_text(_long_chain())
    rig = Apparatus("long", chain={"arm": Arm.Kinematic(description=str(urdf))},
                    frames={"f": DeclaredFrame("arm.nowhere")})
    findings = rig.validate()
    assert [(f.code, f.where) for f in findings] == [("frame.mount", "frames.f.mount")]
    listed = ", ".join(f"l{i:02d}" for i in range(16))
    assert findings[0].message == (f"'nowhere' is not a frame of 'arm'; frames of 'arm': {listed} … "
                                   f"({LINKS - 16} more)")


# -- an arc's inside ----------------------------------------------------------------------------------------
def test_a_point_on_an_arc_s_outer_face_is_not_inside_it_and_one_just_within_is():
    arc = Arc(inner_radius=0.01, outer_radius=0.02, length=0.01, start_angle=0.0, end_angle=90.0)
    centroid = arc.mass_properties().centroid
    # (0.012, 0.016) is 0.02 from the axis (3-4-5), at 53° within the arc's quarter turn
    on_face = np.array([0.012, 0.016, 0.0]) - centroid
    within = np.array([0.012, 0.016, 0.0]) * (1 - 1e-6) - centroid
    assert inside(arc, np.array([on_face, within])).tolist() == [False, True]


# -- a sphere's radius --------------------------------------------------------------------------------------
def test_a_sphere_s_radius_that_is_text_is_refused_naming_the_radius():
    with pytest.raises(TypeError) as info:
        Sphere("0.01")
    assert str(info.value) == "radius is a number of metres, got '0.01'"


# -- demands and excesses -----------------------------------------------------------------------------------
def test_the_rms_over_steps_of_no_length_weighs_every_step_alike():
    # three samples at one time: no step has a length, so each weighs a third
    found = demands(["arm.j"], [2.0, 2.0, 2.0], np.array([[1.0], [-2.0], [3.0]]), np.zeros((3, 1)),
                    [10.0], [1.0])
    assert len(found) == 1
    assert found[0].rms == pytest.approx(math.sqrt(14.0 / 3.0), rel=1e-15)
    assert found[0].rms <= found[0].peak == 3.0  # an RMS never exceeds the peak


def test_the_magnets_excess_has_the_margin_limit_minus_the_peak_torque():
    time = [0.0, 0.1, 0.2, 0.3]
    torques = np.array([[1.0], [3.0], [2.5], [1.0]])
    magnet = np.array([[0.5], [2.5], [2.0], [0.5]])  # without the pull: 0.5 N·m, within the limit 2
    (excess,) = magnet_excesses(["arm.j"], time, torques, magnet, [2.0])
    assert (excess.code, excess.step, excess.steps, excess.peak_step) == (MAGNETS, 1, 2, 1)
    assert (excess.value, excess.limit, excess.margin) == (3.0, 2.0, -1.0)  # limit − |τ|, negative
    assert str(excess).endswith("worst at t=0.1 s: |τ| = 3 N·m, margin -1 N·m")
