"""The arc magnet (a segment of a ring, Magpylib's ``CylinderSegment``) in the rig: its mass and inertia
are trimesh's of its triangles, and a ring's for a whole turn; the rig file, the schema, the export, the
report and the rules carry it; a point is inside it only in its material between its angles. (Its field:
tests/field/test_arc_field.py.)"""

from __future__ import annotations

import json
import math
import runpy

import jsonschema
import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui import RESOURCES
from mime_gui.rig import Arc, Part, PermanentMagnet, Probe, RigFileError, Ring, load, save
from mime_gui.rig.export import to_python
from mime_gui.rig.geometries import KINDS
from mime_gui.rig.geometries.registry import SURFACE_TOLERANCE
from mime_gui.rig.probes import inside
from mime_gui.rig.rigfile import to_data

trimesh = pytest.importorskip("trimesh")

ARC = Arc(0.004, 0.009, 0.006, 30.0, 100.0)
SHAPES = [ARC, Arc(0.001, 0.02, 0.03, -170.0, 95.0), Arc(0.019, 0.02, 0.001, 0.0, 360.0),
          Arc(0.005, 0.006, 0.01, 44.0, 46.0)]


@pytest.mark.parametrize("arc", SHAPES, ids=["70", "265", "turn", "thin"])
def test_its_mass_and_inertia_are_trimesh_s_of_its_triangles(arc):
    vertices, faces = KINDS["arc"].mesh(arc, None, resolution=20000)
    mesh = trimesh.Trimesh(vertices, faces)
    props = arc.mass_properties()
    assert mesh.volume == pytest.approx(props.volume, rel=1e-6)
    np.testing.assert_allclose(mesh.center_mass, props.centroid, rtol=0, atol=1e-7 * arc.outer_radius)
    scale = np.abs(props.inertia).max()
    np.testing.assert_allclose(mesh.moment_inertia, props.inertia, rtol=0, atol=1e-6 * scale)


def test_a_whole_turn_has_the_ring_s_mass_properties():
    arc, ring = Arc(0.003, 0.008, 0.004, -90.0, 270.0), Ring(0.003, 0.008, 0.004)
    a, b = arc.mass_properties(), ring.mass_properties()
    assert a.volume == pytest.approx(b.volume, rel=1e-14)
    np.testing.assert_allclose(a.centroid, 0.0, atol=1e-18)
    np.testing.assert_allclose(a.inertia, b.inertia, rtol=1e-12, atol=1e-12 * b.inertia.max())


def _arc_rig(tmp_path):
    rig = snippet_rig()
    rig.base = tmp_path
    rig.magnets["arc"] = PermanentMagnet(ARC, material="NdFeB-N42", magnetisation=(1.0, 0.0, 0.0),
                                         at=(0.0, 0.0, 0.04), mount="motor.rotor")
    rig.parts["shell"] = Part(Arc(0.01, 0.02, 0.012, -30.0, 30.0), material="aluminium", at=(0.0, 0.0, 0.1))
    return rig


def test_the_rig_file_the_schema_the_export_and_the_report_carry_it(tmp_path):
    rig = _arc_rig(tmp_path)
    assert rig.validate() == []
    path = tmp_path / "arc.rig.json"
    save(rig, path)
    data = json.loads(path.read_text())
    assert data["magnets"]["arc"]["geometry"] == {
        "type": "arc", "unit": "m", "angle_unit": "deg", "inner_radius": 0.004, "outer_radius": 0.009,
        "length": 0.006, "start_angle": 30.0, "end_angle": 100.0}
    jsonschema.validate(data, json.loads((RESOURCES / "rig.schema.json").read_text()))
    assert load(path) == rig
    source = to_python(rig, tmp_path)
    assert "Arc(inner_radius=0.004, outer_radius=0.009, length=0.006, start_angle=30.0, end_angle=100.0)" \
        in source
    (tmp_path / "rig.py").write_text(source)
    assert runpy.run_path(str(tmp_path / "rig.py"))["rig"] == rig
    built = rig.build()
    report = built.report.part("arc")
    assert report["geometry"]["type"] == "arc"
    volume = math.radians(70.0) / 2 * (0.009**2 - 0.004**2) * 0.006
    assert report["volume"] == pytest.approx(volume, rel=1e-14)
    assert "arc: arc r=0.004–0.009 m, length 0.006 m, 30°–100°" in built.report.to_text()
    # drawn with its centroid on its graft frame: its triangles shifted by the centroid
    (shape,) = built.segments["motor"].tree.links["part:arc"].visuals
    np.testing.assert_allclose(shape.link_X_shape[:3, 3], -ARC.mass_properties().centroid)


@pytest.mark.parametrize("angles", [(10.0, 10.0), (90.0, 0.0), (0.0, 361.0), (-800.0, 0.0)])
def test_angles_that_make_no_segment_are_a_geometry_finding(tmp_path, angles):
    rig = _arc_rig(tmp_path)
    rig.magnets["arc"] = PermanentMagnet(Arc(0.004, 0.009, 0.006, *angles), material="NdFeB-N42")
    found = [f for f in rig.validate() if f.code == "part.geometry"]
    assert [f.where for f in found] == ["magnets.arc.geometry"]
    assert "angle" in found[0].message


@pytest.mark.parametrize("angles, ok", [((-720.0, -360.0), True), ((360.0, 720.0), True),
                                        ((-720.0001, -400.0), False), ((400.0, 720.0001), False)],
                         ids=["from-minus-720", "to-720", "below-minus-720", "above-720"])
def test_angles_of_720_degrees_either_way_are_taken_and_beyond_them_refused(angles, ok):
    problems = Arc(0.004, 0.009, 0.006, *angles).problems()
    if ok:
        assert problems == []
    else:
        assert len(problems) == 1 and "within ±720°" in problems[0]


def test_a_rig_file_without_its_angle_unit_is_refused(tmp_path):
    rig = _arc_rig(tmp_path)
    data = to_data(rig, tmp_path)
    del data["magnets"]["arc"]["geometry"]["angle_unit"]
    path = tmp_path / "bad.rig.json"
    path.write_text(json.dumps(data))
    with pytest.raises(RigFileError) as err:
        load(path)
    assert err.value.code == "rigfile.missing"


def test_a_point_is_inside_only_in_its_material_between_its_angles(tmp_path):
    c = ARC.mass_properties().centroid

    def polar(rho, degrees, z=0.0):
        t = math.radians(degrees)
        return [rho * math.cos(t), rho * math.sin(t), z]

    points = np.array([polar(0.006, 60), polar(0.006, 31), polar(0.006, 29), polar(0.006, 101),
                       polar(0.003, 60), polar(0.0095, 60), polar(0.006, 60, 0.0031), polar(0.006, 420)])
    assert inside(ARC, points - c).tolist() == [True, True, False, False, False, False, False, True]
    rig = _arc_rig(tmp_path)
    axis = np.array([0.0, 0.0, 0.04]) - c  # the magnet's `at` places its centroid
    rig.probes = {"in": Probe(tuple(axis + polar(0.006, 60)), mount="motor.rotor"),
                  "bore": Probe(tuple(axis), mount="motor.rotor")}
    assert [f.where for f in rig.validate() if f.code == "probe.inside-magnet"] == ["probes.in.at"]


def test_a_point_on_the_end_angle_s_surface_band_is_not_inside_and_one_just_short_of_it_is():
    # the end face along +x, so the point's angle is a tiny one that atan2 gives to the last digit; the
    # material ends where the surface tolerance's band of the span begins, the band itself excluded
    g = Arc(0.004, 0.009, 0.006, -200.0, 0.0)
    c = g.mass_properties().centroid

    def at(degrees, rho=0.006):
        t = math.radians(degrees)
        return [rho * math.cos(t), rho * math.sin(t), 0.0]

    band = 200.0 * (1.0 - SURFACE_TOLERANCE) - 200.0  # the band's edge, as an angle from the end face
    points = np.array([at(band), at(band - 1e-9), at(-100.0), at(0.0)])
    assert inside(g, points - c).tolist() == [False, True, True, False]


def test_an_arc_past_all_four_axes_is_held_by_the_whole_ring_s_square_about_its_centroid():
    r, R, length, a, b = 0.01, 0.02, 0.004, -100.0, 200.0
    # it crosses -90°, 0°, 90° and 180°, so its box reaches ±R along x and y; its centroid lies on the
    # mid-line (50°) at 2·sin(α)·(R³ − r³) / (3α·(R² − r²)) from the axis, α the half span (150°)
    alpha = math.radians((b - a) / 2)
    reach = 2 * math.sin(alpha) * (R**3 - r**3) / (3 * alpha * (R * R - r * r))
    cx, cy = reach * math.cos(math.radians(50.0)), reach * math.sin(math.radians(50.0))
    np.testing.assert_allclose(Arc(r, R, length, a, b).half_extents(), [R + abs(cx), R + abs(cy), length / 2],
                               rtol=1e-12)


def test_an_arc_in_one_quadrant_and_past_90_degrees_is_held_from_its_centroid_to_its_farthest_points():
    r, R, length, a, b = 0.004, 0.009, 0.006, 30.0, 100.0
    alpha = math.radians((b - a) / 2)
    reach = 2 * math.sin(alpha) * (R**3 - r**3) / (3 * alpha * (R * R - r * r))
    cx, cy = reach * math.cos(math.radians(65.0)), reach * math.sin(math.radians(65.0))
    # its extreme points: along x the outer corners at 30° (right) and at 100° (left); along y the outer
    # arc's top at 90° and the inner corner at 30° (the lowest point)
    right, left = R * math.cos(math.radians(30.0)), R * math.cos(math.radians(100.0))
    top, bottom = R, r * math.sin(math.radians(30.0))
    expected = [max(right - cx, cx - left), max(top - cy, cy - bottom), length / 2]
    assert right - cx > cx - left and cy - bottom > top - cy  # the centroid is off the box's middle
    np.testing.assert_allclose(Arc(r, R, length, a, b).half_extents(), expected, rtol=1e-12)
