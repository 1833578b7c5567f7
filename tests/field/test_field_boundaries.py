"""The field at its edges: a probe on a magnet's surface, zero and one step, a probe a moving magnet passes
through, a mesh magnet against the box it closes, and what the field refuses (a probe it cannot place)."""

from __future__ import annotations

import numpy as np
import pytest
from field_helpers import magnet, motor_rig, probe

from mime_gui.field import FieldError, field_along, field_plane, rest_poses, rotating_summary
from mime_gui.rig import Box, Cylinder, Mesh, Sphere


@pytest.mark.parametrize("geometry, at", [(Box((0.01, 0.02, 0.03)), (0.005, 0.0, 0.0)),
                                          (Cylinder(0.005, 0.01), (0.0, 0.0, 0.005)),
                                          (Cylinder(0.005, 0.01), (0.005, 0.0, 0.0)),
                                          (Sphere(0.005), (0.0, 0.005, 0.0))],
                         ids=["box-face", "cylinder-top", "cylinder-side", "sphere"])
def test_a_probe_on_a_magnet_surface_has_a_finite_field_and_is_not_inside(geometry, at):
    built = motor_rig({"m": magnet(geometry)}, {"p": probe(at)}).build()
    field = field_along(built, built.play(np.zeros((3, 1)), 0.01))
    assert np.all(np.isfinite(field.B)) and np.linalg.norm(field.B[0, 0]) > 0.1
    assert not field.inside.any() and field.findings == []


def test_zero_steps_give_empty_arrays_of_the_right_shape():
    built = motor_rig({"m": magnet(Sphere(0.005))}, {"p": probe((0.0, 0.0, 0.05)),
                                                     "q": probe((0.01, 0.0, 0.0), "motor.rotor")}).build()
    field = field_along(built, built.play(np.zeros((0, 1)), 0.01), contributions=True)
    assert field.B.shape == (0, 2, 3) and field.contributions.shape == (0, 1, 2, 3)
    assert field.time.shape == (0,) and field.inside.shape == (0, 2)
    assert all(np.isnan(s.frequency) for s in rotating_summary(field.time, field.B))


def test_one_step_gives_the_field_at_that_pose():
    built = motor_rig({"m": magnet(Sphere(0.005), (1.0, 0.0, 0.0), mount="motor.rotor")},
                      {"p": probe((0.0, 0.0, 0.05))}).build()
    one = field_along(built, built.play({"motor.shaft": [0.7]}, 0.01))
    many = field_along(built, built.play({"motor.shaft": [0.1, 0.7]}, 0.01))
    assert one.B.shape == (1, 1, 3) and np.allclose(one.B[0], many.B[1])
    assert one.time == pytest.approx([0.01])


def test_a_probe_a_moving_magnet_passes_through_is_reported_at_those_steps():
    built = motor_rig({"m": magnet(Box((0.01, 0.01, 0.01)), at=(0.03, 0.0, 0.0), mount="motor.rotor")},
                      {"p": probe((0.0, 0.03, 0.0))}).build()
    angles = np.linspace(0.0, np.pi, 9)  # the box's centre passes the probe at a quarter turn
    field = field_along(built, built.play({"motor.shaft": angles}, 0.1))
    assert field.inside[:, 0].tolist() == [bool(abs(a - np.pi / 2) < 0.1) for a in angles]
    (finding,) = field.findings
    assert finding.code == "field.probe-inside-magnet" and finding.where == "probes.p"
    assert "'m'" in finding.message and "1 of 9 steps" in finding.message


def test_a_mesh_magnet_makes_the_field_of_the_solid_it_closes_about_its_centroid(tmp_path):
    import trimesh

    # a 10 x 20 x 30 mm block whose file puts its corner, not its centre, at the origin, scaled from mm
    block = trimesh.creation.box((10.0, 20.0, 30.0))
    block.apply_translation((5.0, 10.0, 15.0))
    block.export(tmp_path / "block.stl")
    probes = {"p": probe((0.02, 0.01, 0.03)), "q": probe((0.0, 0.0, 0.04), mount="motor.rotor")}
    direction = (0.3, 0.5, 1.2)
    mesh = Mesh(str(tmp_path / "block.stl"), scale=0.001)
    meshed = motor_rig({"m": magnet(mesh, direction, at=(0.01, 0, 0), mount="motor.rotor")}, probes).build()
    boxed = motor_rig({"m": magnet(Box((0.01, 0.02, 0.03)), direction, at=(0.01, 0, 0), mount="motor.rotor")},
                      probes).build()
    angles = {"motor.shaft": [0.0, 0.4, 1.3]}
    B_mesh = field_along(meshed, meshed.play(angles, 0.01)).B
    assert np.allclose(B_mesh, field_along(boxed, boxed.play(angles, 0.01)).B, rtol=1e-9, atol=1e-15)
    assert np.linalg.norm(B_mesh[0, 0]) > 1e-3


@pytest.mark.parametrize("given, where", [({"p": probe((0.0, 0.0, 0.1), "motor.shaft")}, "probes.p.mount"),
                                          ({"p": (0.0, 0.0)}, "probes.p"),
                                          ({"p": (0.0, np.nan, 0.0)}, "probes.p.at")],
                         ids=["missing-frame", "two-numbers", "nan"])
def test_a_probe_the_field_cannot_place_is_refused(given, where):
    built = motor_rig({"m": magnet(Sphere(0.005))}, {}).build()
    with pytest.raises(FieldError) as err:
        field_along(built, built.play(np.zeros((1, 1)), 0.01), given)
    assert err.value.code == "field.probe" and err.value.where() == where


def test_the_plane_is_the_field_at_its_points():
    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01), (1.0, 0.0, 0.0), mount="motor.rotor")}, {}).build()
    plane = field_plane(built, rest_poses(built), (0.0, 0.0, 0.03), normal=(0.0, 1.0, 0.0), size=0.04, n=5)
    assert plane.points.shape == (5, 5, 3) and np.allclose(plane.points[..., 1], 0.0)
    point = tuple(plane.points[1, 3])
    at_point = field_along(built, built.play(np.zeros((1, 1)), 0.01), {"x": point}).B[0, 0]
    assert np.allclose(plane.B[1, 3], at_point) and plane.magnitude[1, 3] == pytest.approx(
        np.linalg.norm(at_point))


def test_the_field_now_is_the_field_of_a_one_step_trajectory_at_that_pose():
    from mime_gui.field import field_now

    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01), (1.0, 0.0, 0.0), at=(0.0, 0.0, 0.02),
                                   mount="motor.rotor")}, {"p": probe((0.0, 0.0, 0.05))}).build()
    played = built.play({"motor.shaft": [0.2, 0.9]}, 0.01)
    index = {n: i for i, n in enumerate(built.frame_names)}
    now = field_now(built, lambda seg, frame: played.frame_poses[1, index[f"{seg}.{frame}"]])
    assert np.allclose(now.B[0], field_along(built, played).B[1]) and now.B.shape == (1, 1, 3)


def test_the_field_now_is_one_step_at_time_zero_and_a_probe_inside_says_so():
    from mime_gui.field import field_now

    built = motor_rig({"m": magnet(Sphere(0.005))}, {}).build()
    index = {n: i for i, n in enumerate(built.frame_names)}
    poses = rest_poses(built)
    inside_the_ball = {"in": probe((0.001, 0.0, 0.0))}
    now = field_now(built, lambda seg, frame: poses[index[f"{seg}.{frame}"]], inside_the_ball)
    assert now.time.shape == (1,) and now.time[0] == 0.0  # the time of a pose, not of a played step
    assert now.inside.tolist() == [[True]]
    (finding,) = now.findings
    assert "at 1 of 1 steps (first at t = 0 s)" in finding.message


def test_the_field_now_asks_a_frame_whose_link_name_holds_a_dot_by_its_whole_name(tmp_path):
    """An arm's link named ``link.1`` (a URDF name may hold a dot; a segment's may not), turned 0.7 rad about
    z, carrying a cylinder magnet 2 cm out along its x: ``world_X_frame`` is asked for ``("arm", "link.1")``
    and B at a probe 5 cm up is Magpylib's, the magnet placed by the test."""
    import magpylib as magpy
    from field_helpers import BR

    from mime_gui.field import field_now
    from mime_gui.rig import Apparatus, Arm

    (tmp_path / "arm.urdf").write_text(
        '<robot name="arm"><link name="base"/><link name="link.1"/><joint name="j" type="revolute">'
        '<parent link="base"/><child link="link.1"/><axis xyz="0 0 1"/>'
        '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint></robot>')
    ball = magnet(Cylinder(0.005, 0.01), (1.0, 0.0, 0.0), at=(0.02, 0.0, 0.0), mount="arm.link.1")
    rig = Apparatus("arm", chain={"arm": Arm.Kinematic(description=str(tmp_path / "arm.urdf"))},
                    magnets={"m": ball}, probes={"p": probe((0.0, 0.0, 0.05))})
    assert rig.validate() == []
    built = rig.build()
    played = built.play({"arm.j": [0.7]}, 0.01)
    index = {n: i for i, n in enumerate(built.frame_names)}
    asked = []

    def world_X_frame(segment, frame):
        asked.append((segment, frame))
        return played.frame_poses[0, index[f"{segment}.{frame}"]]

    now = field_now(built, world_X_frame)
    assert ("arm", "link.1") in asked
    c, s = np.cos(0.7), np.sin(0.7)
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    source = magpy.magnet.Cylinder(dimension=(0.01, 0.01), polarization=tuple(turn @ [BR, 0.0, 0.0]),
                                   position=turn @ [0.02, 0.0, 0.0])
    np.testing.assert_allclose(now.B[0, 0], source.getB((0.0, 0.0, 0.05)), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("size, distance", [(0.005, 0.02), (0.05, 0.3), (0.002, 0.0)])
def test_the_plane_is_sized_to_the_nearest_magnet_and_the_space_to_it(size, distance):
    from mime_gui.field.plane import plane_side

    near = magnet(Cylinder(radius=size / 2, length=size), at=(distance, 0.0, 0.0))  # its largest extent: size
    far = magnet(Cylinder(radius=0.05, length=0.1), at=(1.5, 0.0, 0.0))
    built = motor_rig({"near": near, "far": far}, {}).build()
    side = plane_side(built, rest_poses(built), (0.0, 0.0, 0.0))
    # by hand: the reach to the near magnet's far side, on both sides of the probe; four sizes at least
    assert side == pytest.approx(max(2 * (distance + size / 2), 4 * size), rel=1e-12)
    plane = field_plane(built, rest_poses(built), (0.0, 0.0, 0.0), size=side, n=3)
    assert np.ptp(plane.points.reshape(-1, 3), axis=0).max() == pytest.approx(side)


def test_a_plane_far_from_every_magnet_is_bounded():
    from mime_gui.field.plane import MAX_SIDE, plane_side

    built = motor_rig({"m": magnet(Sphere(radius=0.001), at=(50.0, 0.0, 0.0))}, {}).build()
    assert plane_side(built, rest_poses(built), (0.0, 0.0, 0.0)) == MAX_SIDE


def test_a_mesh_magnet_without_half_extents_sizes_the_plane_as_one_centimetre_across(tmp_path):
    import trimesh

    from mime_gui.field.plane import plane_side

    trimesh.creation.box((10.0, 20.0, 30.0)).export(tmp_path / "block.stl")  # centred on its origin, mm
    mesh = Mesh(str(tmp_path / "block.stl"), scale=0.001)
    assert not hasattr(mesh, "half_extents")
    built = motor_rig({"m": magnet(mesh, at=(0.05, 0.0, 0.0))}, {}).build()
    # by hand: reach = 5 cm to the centroid + half of the 1 cm a mesh counts as = 5.5 cm, on both sides
    assert plane_side(built, rest_poses(built), (0.0, 0.0, 0.0)) == pytest.approx(0.11, rel=1e-12)


def test_a_rig_without_magnets_shows_a_plane_of_ten_centimetres():
    from mime_gui.field.plane import plane_side

    built = motor_rig({}, {}).build()
    assert plane_side(built, rest_poses(built), (0.3, -0.2, 0.1)) == 0.1
