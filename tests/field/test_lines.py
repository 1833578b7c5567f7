"""Field lines from a magnet: along B at every step, from its north pole back to the magnet, refused with a
code for a name that is not a magnet."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.field import FieldError, field_now, rest_poses
from mime_gui.field.lines import field_lines
from mime_gui.rig import Probe, load


@pytest.fixture(scope="module")
def demo():
    built = load(RESOURCES / "demo" / "demo.rig.json").build()
    return built, rest_poses(built)


def test_lines_leave_the_north_pole_follow_B_and_come_back_to_the_magnet(demo):
    built, poses = demo
    lines = field_lines(built, poses, "m1", seeds=6)
    assert len(lines) == 6
    X = poses[built.frame_names.index("motor.part:m1")]
    centre, north = X[:3, 3], X[:3, 0]  # m1 is magnetised along its frame's +x (diametric)
    index = {n: i for i, n in enumerate(built.frame_names)}
    for line in lines:
        assert (line[0] - centre) @ north > 0  # starts on the north side
        assert np.linalg.norm(line[-1] - centre) < 0.55 * 0.01 + 1e-9  # ends back at the magnet
        # every step is along a unit direction, 12 % of the magnet's 10 mm: none held past the line's end
        np.testing.assert_allclose(np.linalg.norm(np.diff(line, axis=0), axis=1), 0.0012, rtol=1e-9)
        # each chord is along B at its midpoint (the midpoint rule's own direction), to a small angle
        for a, b in zip(line[5:-5:10], line[6:-4:10], strict=True):
            mid = (a + b) / 2
            B = field_now(built, lambda s, f: poses[index[f"{s}.{f}"]], {"m": Probe(tuple(mid))}).B[0, 0]
            chord = (b - a) / np.linalg.norm(b - a)
            assert chord @ (B / np.linalg.norm(B)) > 0.99


def test_a_name_that_is_not_a_magnet_is_refused_with_its_code(demo):
    built, poses = demo
    with pytest.raises(FieldError) as err:
        field_lines(built, poses, "holder")
    assert err.value.code == "field.magnet" and "m1" in str(err.value)


def test_lines_ending_on_different_steps_hold_no_point_past_their_end():
    """A second magnet beside the first breaks the symmetry about its axis, so its lines end on different
    steps: each keeps stepping 12 % of the magnet's size up to its own end and not one point beyond (a held
    point would be a step of length 0)."""
    from field_helpers import magnet, motor_rig

    from mime_gui.rig import Cylinder

    beside = magnet(Cylinder(0.005, 0.01), direction=(1.0, 0.0, 0.0), at=(0.02, 0.0, 0.0))
    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01)), "beside": beside}, {}).build()
    lines = field_lines(built, rest_poses(built), "m", seeds=12, steps=300, reach=4.0)
    lengths = {len(line) for line in lines}
    assert len(lengths) > 1  # they do end on different steps
    for line in lines:
        steps = np.linalg.norm(np.diff(line, axis=0), axis=1)
        np.testing.assert_allclose(steps, 0.0012, rtol=1e-9)


def test_a_magnet_with_no_remanence_has_no_north_pole_to_start_from():
    from field_helpers import motor_rig

    from mime_gui.rig import Cylinder, PermanentMagnet, tesla

    dead = PermanentMagnet(Cylinder(0.005, 0.01), remanence=tesla(0.0, reason="not magnetised yet"))
    built = motor_rig({"blank": dead}, {}).build()
    with pytest.raises(FieldError) as err:
        field_lines(built, rest_poses(built), "blank")
    assert (err.value.code, err.value.file) == ("field.magnet", "magnets.blank")
    assert "no polarisation (remanence 0)" in err.value.message


def test_lines_cut_short_by_the_step_count_hold_every_step_taken():
    """Three steps, too few to reach the magnet or the edge of the sphere: each line is its seed and three
    steps of 12 % of the 10 mm magnet, the first seed 6 mm up the axis and 3 mm out from it."""
    from field_helpers import magnet, motor_rig

    from mime_gui.rig import Cylinder

    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01))}, {}).build()
    lines = field_lines(built, rest_poses(built), "m", seeds=4, steps=3)
    assert [len(line) for line in lines] == [4, 4, 4, 4]
    for line in lines:
        np.testing.assert_allclose(np.linalg.norm(np.diff(line, axis=0), axis=1), 0.0012, rtol=1e-9)
        assert np.linalg.norm(line[0][:2]) == pytest.approx(0.003, rel=1e-12)
        assert line[0][2] == pytest.approx(0.006, rel=1e-12)


def test_a_line_that_just_touches_the_reach_sphere_goes_on_and_one_past_it_ends_there():
    """The edge of the sphere a line may leave: a magnet 2⁻⁶ m across (a power of two, so a reach in sizes
    times the size is exact), the reach set to the farthest point of a line traced without a limit. A line
    exactly on the sphere is still inside it and comes back to the magnet; with the reach one float smaller
    it ends at that farthest point."""
    from field_helpers import magnet, motor_rig

    from mime_gui.rig import Cylinder

    size = 2.0**-6  # the cylinder's largest extent: its length, twice its radius
    built = motor_rig({"m": magnet(Cylinder(size / 2, size))}, {}).build()
    poses = rest_poses(built)
    [free, *_] = field_lines(built, poses, "m", seeds=4, reach=1e6)
    r = np.linalg.norm(free, axis=1)  # the magnet's centre is the world's origin at rest
    assert r[-1] < 0.55 * size  # it comes back to the magnet
    far = int(np.argmax(r))
    reach = r[far] / size
    assert reach * size == r[far]
    [touching, *_] = field_lines(built, poses, "m", seeds=4, reach=reach)
    np.testing.assert_array_equal(touching, free)
    [leaving, *_] = field_lines(built, poses, "m", seeds=4, reach=math.nextafter(reach, 0.0))
    np.testing.assert_array_equal(leaving, free[:far + 1])


def test_the_seeds_go_round_the_north_pole_a_quarter_turn_apart_right_handed():
    """Four seeds of a 10 mm cylinder magnetised along +z, 6 mm up its axis on a 3 mm ring: each is the one
    before it turned a quarter turn about +z, (x, y) → (−y, x), anticlockwise seen from the north."""
    from field_helpers import magnet, motor_rig

    from mime_gui.rig import Cylinder

    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01))}, {}).build()
    seeds = np.array([line[0] for line in field_lines(built, rest_poses(built), "m", seeds=4, steps=1)])
    np.testing.assert_allclose(seeds[:, 2], 0.006, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(seeds[:, :2], axis=1), 0.003, rtol=1e-12)
    for before, after in zip(seeds[:, :2], np.roll(seeds[:, :2], -1, axis=0), strict=True):
        np.testing.assert_allclose(after, [-before[1], before[0]], rtol=0, atol=1e-15)


def test_a_line_is_not_taken_as_back_at_the_magnet_in_its_first_five_steps():
    """A weak magnet under a large block magnetised towards it: the block's field runs straight down through
    it, so every line dips within 0.55 sizes of its centre at its second step. The first five steps do not
    count as a return (a seed starts 0.67 sizes out and may pass that close on its way out); the sixth, still
    within, ends the line: seven points, each a step of 12 % of the 10 mm size straight down."""
    from field_helpers import magnet, motor_rig

    from mime_gui.rig import Box, Cylinder, PermanentMagnet, tesla

    weak = PermanentMagnet(Cylinder(0.005, 0.01), magnetisation=(0.0, 0.0, 1.0),
                           remanence=tesla(0.001, reason="weak beside the block"))
    block = magnet(Box((0.2, 0.2, 0.2)), direction=(0.0, 0.0, -1.0), at=(0.0, 0.0, 0.13))
    built = motor_rig({"m": weak, "block": block}, {}).build()
    lines = field_lines(built, rest_poses(built), "m", seeds=12)
    assert [len(line) for line in lines] == [7] * 12
    for line in lines:
        np.testing.assert_allclose(np.diff(line[:, 2]), -0.0012, rtol=1e-3)
        assert np.linalg.norm(line[2]) < 0.55 * 0.01 < np.linalg.norm(line[0])


def test_a_mesh_magnet_has_lines_stepped_as_a_10_mm_magnet_like_the_box_it_closes(tmp_path):
    """A mesh has no extents of its own to size the steps: it counts as 10 mm. A 10 mm cube as an STL file
    (scaled from mm) then traces the lines of the 10 mm Box it closes: seeds 6 mm up on a 3 mm ring, steps
    of 1.2 mm."""
    import trimesh
    from field_helpers import magnet, motor_rig

    from mime_gui.rig import Box, Mesh

    trimesh.creation.box((10.0, 10.0, 10.0)).export(tmp_path / "cube.stl")
    meshed = motor_rig({"m": magnet(Mesh(str(tmp_path / "cube.stl"), scale=0.001))}, {}).build()
    boxed = motor_rig({"m": magnet(Box((0.01, 0.01, 0.01)))}, {}).build()
    lines = field_lines(meshed, rest_poses(meshed), "m", seeds=4, steps=20)
    box_lines = field_lines(boxed, rest_poses(boxed), "m", seeds=4, steps=20)
    assert len(lines) == 4
    for line, box_line in zip(lines, box_lines, strict=True):
        assert line[0][2] == pytest.approx(0.006, rel=1e-12)
        assert np.linalg.norm(line[0][:2]) == pytest.approx(0.003, rel=1e-12)
        np.testing.assert_allclose(np.linalg.norm(np.diff(line, axis=0), axis=1), 0.0012, rtol=1e-9)
        np.testing.assert_allclose(line, box_line, rtol=0, atol=1e-12)
