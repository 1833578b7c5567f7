"""Every geometry kind is declared once and has every adapter: its class holds exactly its declared fields
and gives its problems, volume, inertia and extent; it has triangles, an inside test, a Magpylib source and a
view; the rig file reads and writes it, the export rebuilds it, the report and the properties describe it;
and the schema's ``geometry`` and the docs' table are the ones derived from the registry."""

from __future__ import annotations

import dataclasses
import json
import re
import runpy
from pathlib import Path

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui import RESOURCES
from mime_gui.multibody import tree as description
from mime_gui.rig import Part, PermanentMagnet, load, save
from mime_gui.rig.export import to_python
from mime_gui.rig.geometries import KINDS, Arc, Box, Cylinder, Field, GeometryKind, Mesh, Ring, Sphere
from mime_gui.rig.geometries.registry import register
from mime_gui.rig.geometries.tables import docs_table, geometry_schema
from mime_gui.rig.report import _geometry_text, geometry_dict
from mime_gui.rig.visuals import part_shape

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "rig-file.md"
MESH = RESOURCES / "demo" / "meshes" / "base.stl"

#: one valid geometry of each kind; a kind registered without one here fails the coverage test
EXAMPLES = {
    "box": Box((0.01, 0.02, 0.005)),
    "cylinder": Cylinder(0.005, 0.01),
    "ring": Ring(0.003, 0.006, 0.003),
    "sphere": Sphere(0.004),
    "mesh": Mesh(str(MESH), scale=(0.001, 0.001, 0.001)),
    "arc": Arc(0.01, 0.02, 0.005, 20.0, 110.0),
}
#: the kinds whose inside test cannot tell (the probe rules and the field say so)
UNTOLD = {"mesh"}


def test_every_registered_kind_has_an_example_here():
    assert set(EXAMPLES) == set(KINDS)


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_kind_declares_exactly_its_class_s_fields_and_every_adapter(kind):
    k = KINDS[kind]
    assert k.cls.kind == kind
    assert [f.name for f in k.fields] == [f.name for f in dataclasses.fields(k.cls)]
    for f in k.fields:
        assert f.label and f.unit in ("m", "deg", "1", "path") and f.size in (1, 3)
    for method in ("problems", "mass_properties"):
        assert callable(getattr(k.cls, method, None)), (kind, method)
    for adapter in ("mesh", "inside", "source"):
        assert callable(getattr(k, adapter)), (kind, adapter)
    assert k.drawn is None or callable(k.drawn)
    assert set(re.findall(r"{(\w+)}", k.text)) <= {f.name for f in k.fields}
    assert k.summary


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_adapter_answers_for_an_example(kind):
    k, g = KINDS[kind], EXAMPLES[kind]
    assert g.problems() == []
    props = g.mass_properties()
    assert props.volume > 0 and np.all(np.isfinite(props.inertia))
    vertices, faces = k.mesh(g, None)
    vertices, faces = np.asarray(vertices), np.asarray(faces)
    assert vertices.ndim == 2 and vertices.shape[1] == 3 and faces.shape[1] == 3
    assert faces.min() >= 0 and faces.max() < len(vertices)
    centred = vertices - props.centroid
    within = k.inside(g, centred)
    if kind in UNTOLD:
        assert within is None
    else:  # the surface is not inside; the centroid of a convex one is
        assert within.shape == (len(vertices),) and not within.any()
        if kind in ("box", "cylinder", "sphere"):
            assert k.inside(g, np.zeros(3))
    half = getattr(g, "half_extents", None)
    if half is not None:  # the box it gives about the centroid holds the triangles
        assert np.all(np.abs(centred) <= half() * (1 + 1e-9) + 1e-15)
    source = k.source(g, (0.0, 0.0, 1.0), None)
    assert np.all(np.isfinite(source.getB((0.3, 0.2, 0.4))))
    shape = part_shape(Part(g), props.centroid)
    assert isinstance(shape.geometry, description.Box | description.Cylinder | description.Sphere
                      | description.Mesh | description.Solid)
    np.testing.assert_allclose(shape.link_X_shape[:3, 3], -props.centroid)
    text = _geometry_text(geometry_dict(g))
    assert text.startswith(kind)


def test_the_rig_file_the_export_and_the_report_carry_every_kind(tmp_path):
    rig = snippet_rig()
    rig.base = tmp_path
    for kind, g in EXAMPLES.items():
        rig.parts[f"p_{kind}"] = Part(g, material="aluminium", at=(0.0, 0.0, 0.05), mount="motor.rotor")
        rig.magnets[f"m_{kind}"] = PermanentMagnet(g, material="NdFeB-N42", at=(0.1, 0.0, 0.0))
    assert rig.validate() == []
    save(rig, tmp_path / "all.rig.json")
    assert load(tmp_path / "all.rig.json") == rig
    (tmp_path / "rig.py").write_text(to_python(rig, tmp_path))
    assert runpy.run_path(str(tmp_path / "rig.py"))["rig"] == rig
    report = rig.build().report
    for kind in EXAMPLES:
        assert report.part(f"m_{kind}")["geometry"]["type"] == kind


def test_the_schema_s_geometry_is_the_registry_s():
    schema = json.loads((RESOURCES / "rig.schema.json").read_text(encoding="utf-8"))
    assert schema["$defs"]["geometry"] == geometry_schema()


def test_the_docs_table_of_geometries_is_the_registry_s():
    text = DOCS.read_text(encoding="utf-8")
    start, end = "<!-- geometry kinds: generated from the registry -->\n", "<!-- end of geometry kinds -->"
    table = text[text.index(start) + len(start):text.index(end)]
    assert table == docs_table()


@dataclasses.dataclass(frozen=True)
class Slab:
    """A solid whose class names no kind."""

    width: float


@dataclasses.dataclass(frozen=True)
class Plate(Slab):
    """A solid whose class names another kind than the one it is registered as."""

    kind = "plate"


@pytest.mark.parametrize("cls", [Slab, Plate], ids=["no kind attribute", "another kind"])
def test_a_kind_whose_class_does_not_name_it_is_refused_and_not_registered(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.kind must be 'slab'"):
        register(GeometryKind("slab", cls, (Field("width", "Width"),), text="slab {width}", summary="a slab",
                              mesh=lambda g, base=None: None, inside=lambda g, p: None,
                              source=lambda g, J, base=None: None))
    assert "slab" not in KINDS
