"""Contracts pinned here:

- the drawn segments of a rig (:func:`~mime_gui.rig.build.display_segments`) carry no armature: armature is
  the dynamics', which the build gives; what is drawn is the same tree compiled without it;
- the plain clearance loop (:func:`~mime_gui.rig.clearance_check.per_step_minimum`) hands the collision
  library each moving piece pair's own shapes, once per pair and step, and its minimum is the closed form's;
- a torque-driven play (:func:`~mime_gui.rig.driven.play_driven`) integrates under the gravity it is given;
- a declared frame mounted on no segment lists the chain's segments word for word, nothing after them;
- a mesh scaled by exactly the largest factor (``MAX_FACTOR``) is within bounds ("at most").
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui.magnitudes import MAX_FACTOR
from mime_gui.rig import Apparatus, Arm, DeclaredFrame, Part, Sphere
from mime_gui.rig.build import display_segments
from mime_gui.rig.clearance_check import per_step_minimum
from mime_gui.rig.collision import clearance_model
from mime_gui.rig.driven import play_driven
from mime_gui.rig.geometries.mesh import Mesh

#: a carriage sliding along x within ±1 m; ``inertial`` is put inside its link
SLIDER = """<robot name="slider"><link name="base"/><link name="carriage">{inertial}</link>
<joint name="slide" type="prismatic"><parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
<limit lower="-1" upper="1" effort="10" velocity="10"/></joint></robot>"""
MASS = ('<inertial><mass value="0.5"/>'
        '<inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial>')


# -- the drawn segments carry no armature ----------------------------------------------------------------
def test_the_drawn_segments_of_a_rig_carry_no_armature_while_its_build_does():
    rig = snippet_rig()  # joint_6 declares 2e-4 kg m2 of armature
    built = rig.build().articulation("arm")
    drawn = display_segments(rig)["arm"].articulation
    assert drawn.joint_names == built.joint_names
    six = built.joint_names.index("joint_6")
    assert built.armature[six] == 2e-4  # the build compiles the declared armature in
    # drawing needs no dynamics: the lenient build leaves the armature out (_build_segment: "unless lenient")
    assert drawn.armature.tolist() == [0.0] * drawn.nq


# -- the plain clearance loop ----------------------------------------------------------------------------
def test_the_plain_loop_measures_each_moving_pair_s_own_shapes_at_every_step(tmp_path, monkeypatch):
    import coal

    (tmp_path / "slider.urdf").write_text(SLIDER.format(inertial=""))
    rig = Apparatus("s", chain={"arm": Arm.Kinematic(description=str(tmp_path / "slider.urdf"))},
                    parts={"ball": Part(Sphere(radius=0.01), material="aluminium", mount="arm.carriage"),
                           "post": Part(Sphere(radius=0.02), material="aluminium", at=(0.5, 0, 0))})
    built = rig.build()
    model = clearance_model(built)
    assert [(model.bodies[i].label, model.bodies[j].label) for i, j in model.moving] == \
        [("parts.ball", "parts.post")]
    x = np.array([0.0, 0.1, 0.2, 0.3])
    poses = built.play(x[:, None], 0.01, servo_time_constant=0.0).frame_poses
    shapes = {id(g) for g in model.pieces["geometry"]}
    seen = []
    library = coal.distance

    def distance(g1, X1, g2, X2, request, result):
        # what the library is asked: the pieces' own shapes (anything else would crash it, not refuse)
        seen.append((id(g1), id(g2)))
        if id(g1) not in shapes or id(g2) not in shapes:
            raise TypeError(f"coal.distance given {g1!r} and {g2!r}, not the model's shapes")
        return library(g1, X1, g2, X2, request, result)

    monkeypatch.setattr(coal, "distance", distance)
    minimum, closest = per_step_minimum(model, poses)
    ball, post = model.pieces["geometry"]
    assert seen == [(id(ball), id(post))] * len(x)  # one call per moving piece pair and step
    # two spheres: their centres' distance less both radii
    np.testing.assert_allclose(minimum, 0.5 - x - 0.03, rtol=0, atol=1e-9)
    assert closest.tolist() == [0] * len(x)


# -- a torque-driven play under the gravity given ------------------------------------------------------
@pytest.mark.parametrize("gravity", [(-2.0, 0.0, 0.0), (3.0, 0.0, -9.81), (0.0, 0.0, 0.0)],
                         ids=["along-minus-x", "along-x-and-down", "none"])
def test_a_torque_driven_carriage_falls_along_its_axis_with_the_gravity_it_is_given(tmp_path, gravity):
    (tmp_path / "slider.urdf").write_text(SLIDER.format(inertial=MASS))
    built = Apparatus("s", chain={"arm": Arm.Dynamic(description=str(tmp_path / "slider.urdf"))}).build()
    T, dt = 5, 0.01
    played = play_driven(built, np.zeros((T, 1)), {"arm.joint_torques": np.zeros((T, 1))}, dt,
                         integrator="rk4", gravity=gravity)
    # no torque, no armature, no damping: the carriage accelerates at gravity's x, q = ½ g_x t² (RK4 is exact
    # for a constant acceleration); the default gravity (down z) would leave it at rest
    t = dt * np.arange(1, T + 1)
    np.testing.assert_allclose(played.segments["arm"].joint_positions[:, 0], 0.5 * gravity[0] * t ** 2,
                               rtol=1e-12, atol=1e-15)


# -- a declared frame on no segment ----------------------------------------------------------------------
def test_a_frame_mounted_on_no_segment_lists_the_segments_and_nothing_after_them():
    base = snippet_rig()
    rig = Apparatus("rig", chain=base.chain, parts=base.parts, magnets=base.magnets,
                    frames={"f": DeclaredFrame("stage.tool0")})
    [finding] = [f for f in rig.validate() if f.code == "frame.mount"]
    # two segments are within the listing's sixteen: no count of more follows them
    assert finding.message == "'stage.tool0': 'stage' is no segment of the chain; segments: arm, motor"


# -- a mesh at the largest scale -----------------------------------------------------------------------
def test_a_mesh_scaled_by_exactly_the_largest_factor_is_within_bounds(tmp_path):
    (tmp_path / "tetra.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                        "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    assert MAX_FACTOR == 1e6
    # "finite, positive and at most 1e+06": the bound itself is taken, on any axis
    assert Mesh("tetra.obj", (MAX_FACTOR, 1.0, 1.0)).problems(tmp_path) == []
    assert Mesh("tetra.obj", MAX_FACTOR).problems(tmp_path) == []
    above = math.nextafter(MAX_FACTOR, math.inf)
    assert Mesh("tetra.obj", (1.0, above, 1.0)).problems(tmp_path) == [
        f"a mesh scale must be finite, positive and at most 1e+06, got (1.0, {above!r}, 1.0)"]
