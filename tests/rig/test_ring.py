"""Rings (hollow cylinders) as parts and magnets: their mass properties against trimesh's annulus, their
refusals, the rig file and its schema, the Python export, probes in the bore and in the material."""

from __future__ import annotations

import json
import math
import runpy

import jsonschema
import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui import RESOURCES
from mime_gui.rig import Part, PermanentMagnet, Probe, RigFileError, Ring, load, save
from mime_gui.rig.export import to_python
from mime_gui.rig.probes import inside
from mime_gui.rig.rigfile import to_data

trimesh = pytest.importorskip("trimesh")


def _ring_rig(tmp_path=None):
    rig = snippet_rig()
    rig.magnets["ring"] = PermanentMagnet(Ring(0.003, 0.006, 0.003), material="NdFeB-N42",
                                          magnetisation=(1.0, 0.0, 0.0), at=(0.0, 0.0, 0.04),
                                          mount="motor.rotor")
    rig.parts["collar"] = Part(Ring(0.01, 0.02, 0.012), material="aluminium", at=(0.0, 0.0, 0.01),
                               mount="arm.link_3")
    if tmp_path is not None:
        rig.base = tmp_path
    return rig


@pytest.mark.parametrize("sizes", [(0.003, 0.006, 0.003), (0.01, 0.02, 0.05), (0.019, 0.02, 0.001)])
def test_a_ring_s_mass_properties_are_those_of_trimesh_s_annulus(sizes):
    r, R, h = sizes
    props = Ring(r, R, h).mass_properties()
    annulus = trimesh.creation.annulus(r_min=r, r_max=R, height=h, sections=2048)
    assert annulus.is_watertight
    # a polygon of 2048 sides holds a little less than the circle
    assert props.volume == pytest.approx(annulus.volume, rel=1e-5)
    assert props.volume == pytest.approx(math.pi * (R * R - r * r) * h, rel=1e-15)
    np.testing.assert_allclose(props.centroid, annulus.center_mass, atol=1e-12)
    np.testing.assert_allclose(props.inertia, annulus.moment_inertia, rtol=2e-5, atol=1e-20)
    np.testing.assert_allclose(Ring(r, R, h).half_extents(), [R, R, h / 2])


@pytest.mark.parametrize(("ring", "said"), [
    (Ring(0.006, 0.003, 0.003), "inner radius must be smaller than its outer radius"),
    (Ring(0.003, 0.003, 0.003), "inner radius must be smaller than its outer radius"),
    (Ring(0.0, 0.006, 0.003), "finite, positive inner radius"),
    (Ring(0.003, 0.006, -1.0), "finite, positive inner radius"),
    (Ring(0.003, math.inf, 0.003), "finite, positive inner radius"),
])
def test_a_ring_that_is_no_ring_is_a_finding_on_its_geometry(ring, said):
    rig = snippet_rig()
    rig.parts["holder"] = Part(ring, material="aluminium", mount="motor.rotor")
    found = [f for f in rig.validate() if f.code == "part.geometry"]
    assert len(found) == 1 and found[0].where == "parts.holder.geometry" and said in found[0].message


def test_a_ring_s_sizes_are_numbers():
    with pytest.raises(TypeError, match="inner radius is a number of metres"):
        Ring("3 mm", 0.006, 0.003)


def test_rings_round_trip_through_the_rig_file_that_its_schema_accepts(tmp_path):
    rig = _ring_rig(tmp_path)
    path = save(rig, tmp_path / "r.rig.json")
    data = json.loads(path.read_text())
    assert data["magnets"]["ring"]["geometry"] == {"type": "ring", "unit": "m", "inner_radius": 0.003,
                                                   "outer_radius": 0.006, "length": 0.003}
    jsonschema.validate(data, json.loads((RESOURCES / "rig.schema.json").read_text()))
    assert load(path) == rig
    assert to_data(load(path), tmp_path) == data


@pytest.mark.parametrize(("mutate", "code", "pointer"), [
    (lambda g: g.pop("outer_radius"), "rigfile.missing", "/magnets/ring/geometry"),
    (lambda g: g.update(outer_radius="6 mm"), "rigfile.type", "/magnets/ring/geometry/outer_radius"),
    (lambda g: g.update(radius=0.006), "rigfile.key", "/magnets/ring/geometry/radius"),
    (lambda g: g.update(unit="mm"), "rigfile.unit", "/magnets/ring/geometry/unit"),
])
def test_a_bad_ring_in_a_rig_file_is_refused_with_its_pointer(tmp_path, mutate, code, pointer):
    path = save(_ring_rig(tmp_path), tmp_path / "r.rig.json")
    data = json.loads(path.read_text())
    mutate(data["magnets"]["ring"]["geometry"])
    path.write_text(json.dumps(data))
    with pytest.raises(RigFileError) as caught:
        load(path)
    assert (caught.value.code, caught.value.pointer) == (code, pointer)


def test_rings_export_to_python_that_rebuilds_them_and_other_exports_do_not_import_ring(tmp_path):
    rig = _ring_rig(tmp_path)
    source = to_python(rig, tmp_path)
    assert "Ring(inner_radius=0.003, outer_radius=0.006, length=0.003)" in source
    (tmp_path / "rig.py").write_text(source)
    assert runpy.run_path(str(tmp_path / "rig.py"))["rig"] == rig
    assert "Ring" not in to_python(snippet_rig(), tmp_path)


def test_a_ring_magnet_and_part_build_with_their_mass_and_moment():
    built = _ring_rig().build()
    magnet, collar = built.report.part("ring"), built.report.part("collar")
    volume = math.pi * (0.006 ** 2 - 0.003 ** 2) * 0.003
    assert magnet["volume"] == pytest.approx(volume, rel=1e-15)
    assert magnet["geometry"] == {"type": "ring", "inner_radius": 0.003, "outer_radius": 0.006,
                                  "length": 0.003}
    moment = magnet["magnet"]["remanence"] * volume / (4e-7 * math.pi)
    assert magnet["magnet"]["moment"] == pytest.approx(moment, rel=1e-6)
    assert collar["mass"] == pytest.approx(collar["density"] * math.pi * (0.02 ** 2 - 0.01 ** 2) * 0.012)
    assert "collar: ring r=0.01–0.02 m, length 0.012 m, on arm.link_3" in built.report.to_text()


def test_a_point_in_a_ring_s_bore_is_not_inside_it_and_one_in_its_material_is():
    ring = Ring(0.003, 0.006, 0.004)
    points = np.array([[0.0, 0.0, 0.0], [0.0029, 0.0, 0.0], [0.0045, 0.0, 0.0], [0.0, -0.0059, 0.0019],
                       [0.0045, 0.0, 0.0021], [0.0061, 0.0, 0.0], [0.003, 0.0, 0.0]])
    assert inside(ring, points).tolist() == [False, False, True, True, False, False, False]
    rig = _ring_rig()
    rig.probes = {"bore": Probe((0.0, 0.0, 0.04), mount="motor.rotor"),
                  "material": Probe((0.0045, 0.0, 0.04), mount="motor.rotor")}
    found = [f for f in rig.validate() if f.code == "probe.inside-magnet"]
    assert [f.where.split(".")[1] for f in found] == ["material"]
