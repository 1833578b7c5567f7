"""What the geometry kinds declare beyond their shape: the palette's part and magnet templates (every kind
that can be a magnet offers one), the text of rule ``part.geometry`` (and the docs' rules table, equal to the
program's), and the files a kind names (its fields of unit ``"path"``), which the bundle, the provenance and
the rig's equality follow for any kind: a kind registered here, naming two files by fields of its own names,
is rebased, recorded, bundled and checked with no code of its own."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.rig import PermanentMagnet, load
from mime_gui.rig.bundle import BundleError, confine
from mime_gui.rig.geometries import KINDS, Arc, Field, GeometryKind, Mesh, paths_of, with_paths
from mime_gui.rig.geometries import mesh as mesh_kind
from mime_gui.rig.geometries.registry import register
from mime_gui.rig.geometries.tables import geometry_rule
from mime_gui.rig.provenance import referenced_files
from mime_gui.rig.rules import RULES
from mime_gui.rig.templates import MAGNET_MATERIAL, TEMPLATES, kind_templates

ROOT = Path(__file__).resolve().parents[2]

#: kinds that can be magnets (every kind has a Magpylib source) but offer no magnet template, and why
NO_MAGNET_TEMPLATE = {
    "mesh": "its size and shape are its file's: a mesh magnet is written in the rig file (or Python), where "
            "its file, scale and magnetisation are chosen together",
}

#: the palette's templates before the geometry kinds declared them (keys, in order): kept as they were
EARLIER = ["part.box", "part.cylinder", "part.ring", "part.sphere", "part.mesh", "magnet.block",
           "magnet.cylinder", "magnet.ring", "magnet.sphere", "probe.point", "segment.motor", "segment.arm"]


# -- templates ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_that_can_be_a_magnet_offers_a_magnet_template_or_says_why_not(kind):
    k = KINDS[kind]
    assert callable(k.source)  # every kind has a Magpylib source: every kind can be a magnet
    magnets = [t for t in k.templates if t.role == "magnet"]
    assert bool(magnets) != (kind in NO_MAGNET_TEMPLATE), kind


def test_the_palette_lists_the_kinds_templates_parts_then_magnets_and_keeps_the_earlier_ones():
    keys = list(TEMPLATES)
    assert [k for k in keys if k in EARLIER] == EARLIER  # the earlier keys, in their order
    # then the arc magnet among the magnets, the sample and the keep-out zone after the probe
    assert [k for k in keys if k not in EARLIER] == ["magnet.arc", "sample.sphere", "zone.sphere"]
    assert keys.index("probe.point") < keys.index("sample.sphere") < keys.index("zone.sphere") \
        < keys.index("segment.motor")
    made = kind_templates()
    assert len({t.key for t in made}) == len(made) == sum(len(k.templates) for k in KINDS.values())
    groups = [t.group for t in made]
    assert groups == sorted(groups, key=["Parts", "Magnets"].index)
    order = list(KINDS)
    for group in ("Parts", "Magnets"):
        kinds = [type(t.make("a.b", str(DEMO_RIG.parent / "meshes" / "base.stl")).geometry).kind
                 for t in made if t.group == group]
        assert kinds == sorted(kinds, key=order.index)


def test_the_arc_magnet_template_is_a_radially_magnetised_quarter_of_a_ring():
    t = TEMPLATES["magnet.arc"]
    assert (t.label, t.group, t.collection, t.base_name) == ("Arc magnet", "Magnets", "magnets", "magnet")
    m = t.make("motor.rotor")
    assert isinstance(m, PermanentMagnet) and m.material == MAGNET_MATERIAL and m.mount == "motor.rotor"
    assert m.geometry == Arc(0.005, 0.01, 0.005, -45.0, 45.0) and m.geometry.problems() == []
    assert m.magnetisation == (1.0, 0.0, 0.0)
    centroid = m.geometry.mass_properties().centroid  # on +x: the magnetisation is radial through its middle
    assert centroid[0] > 0 and centroid[1:] == pytest.approx([0.0, 0.0], abs=1e-15)
    assert all(part in t.tip for part in ("90°", "5 mm", "10 mm", "radially", "N42"))


# -- the rule's text ---------------------------------------------------------------------------------------
def test_rule_part_geometry_names_every_kind_s_conditions_and_bounds():
    text = geometry_rule()  # built afresh: RULES holds the text made at import
    assert text == RULES["part.geometry"]
    for kind in KINDS.values():
        assert kind.conditions in text
        for f in kind.fields:
            if f.unit in ("deg", "1"):
                assert f"{kind.type}'s" in text and f.label.lower() in text
    assert "1e6 m" in text and "±720°" in text and "1e+06" not in text


@dataclass(frozen=True)
class Wedge:
    """A kind whose angle runs from -30° to 90° (not ± one bound) and whose factor reaches 1e12."""

    tilt: float
    gain: float
    kind = "wedge"


@pytest.fixture
def wedge():
    """The kind :class:`Wedge`, registered for one test."""
    tilt = Field("tilt", "Tilt", unit="deg", low=-30.0, high=90.0)
    gain = Field("gain", "Gain", unit="1", high=1e12)
    kind = register(GeometryKind(
        "wedge", Wedge, (tilt, gain), text="wedge tilted {tilt} with gain {gain}", summary="a wedge",
        mesh=lambda g, base=None: None, inside=lambda g, p: None, source=lambda g, J, base=None: None))
    yield kind
    del KINDS["wedge"]


def test_rule_part_geometry_writes_uneven_angle_bounds_and_large_factors_as_the_other_rules(wedge):
    text = geometry_rule()
    assert "a wedge's tilt from -30° to 90°" in text  # both ends, as they are not ± one number
    assert "a wedge's gain positive and at most 1e12" in text  # 1e12, not 1e+12


def test_the_docs_rules_table_is_the_program_s():
    docs = (ROOT / "docs" / "rig-file.md").read_text(encoding="utf-8")
    table = docs.split("## Rules (`mime-gui validate`)", 1)[1].split("\n\n| code | rule |", 1)[1]
    rows = dict(re.findall(r"^\| `([^`]+)` \| (.*) \|$", table.split("\n\n", 1)[0], re.M))
    assert rows == RULES


# -- files a kind names ------------------------------------------------------------------------------------
def test_paths_are_the_fields_of_unit_path():
    for kind in KINDS.values():
        named = {f.name for f in kind.fields if f.unit == "path"}
        assert named == ({"path"} if kind.type == "mesh" else set())
    g = Mesh("meshes/base.stl", scale=(2.0, 2.0, 2.0))
    assert paths_of(g) == {"path": "meshes/base.stl"}
    moved = with_paths(g, lambda p: "files/" + p)
    assert moved == Mesh("files/meshes/base.stl", scale=(2.0, 2.0, 2.0))
    box = TEMPLATES["part.box"].make(None).geometry
    assert paths_of(box) == {} and with_paths(box, lambda p: 1 / 0) is box
    assert paths_of("not a geometry") == {}


@dataclass(frozen=True)
class Lined:
    """A mesh with a second file beside it (say, its liner): two fields of unit "path", neither named
    ``path``. Its solid is the first file's."""

    body: str
    liner: str
    kind = "lined"

    def _mesh(self, which: str) -> Mesh:
        return Mesh(getattr(self, which))

    def problems(self, base=None) -> list[str]:
        return self._mesh("body").problems(base) + self._mesh("liner").problems(base)

    def mass_properties(self, base=None):
        return self._mesh("body").mass_properties(base)

    def half_extents(self) -> np.ndarray:
        return np.full(3, 0.05)


@pytest.fixture
def lined():
    """The kind :class:`Lined`, registered for one test."""
    body = Field("body", "File", unit="path", tip="relative to the rig file")
    liner = Field("liner", "Liner", unit="path", tip="relative to the rig file")
    kind = register(GeometryKind(
        "lined", Lined, (body, liner), text="lined {body} with {liner}", summary="a mesh and its liner",
        mesh=lambda g, base=None: mesh_kind._mesh(g._mesh("body"), base), inside=lambda g, p: None,
        source=lambda g, J, base=None: mesh_kind._source(g._mesh("body"), J, base)))
    yield kind
    del KINDS["lined"]


def _lined_rig(folder: Path, body: str, liner: str) -> Path:
    data = json.loads((folder / "demo.rig.json").read_text())
    data["parts"]["holder"]["geometry"] = {"type": "lined", "body": body, "liner": liner}
    (folder / "demo.rig.json").write_text(json.dumps(data))
    return folder / "demo.rig.json"


def test_a_kind_naming_files_is_rebased_recorded_bundled_and_checked_without_code_of_its_own(
        lined, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    source = tmp_path / "lab" / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    shared = tmp_path / "lab" / "shared"
    shared.mkdir()
    shutil.copy(source / "meshes" / "base.stl", shared / "liner.stl")
    rig_file = _lined_rig(source, "meshes/base.stl", "../shared/liner.stl")
    rig = load(rig_file)
    assert rig.validate() == []
    assert paths_of(rig.parts["holder"].geometry) == {"body": "meshes/base.stl",
                                                      "liner": "../shared/liner.stl"}
    # equality: each path stands for the file it names, however it is spelled
    holder = rig.parts["holder"]
    same, other = load(rig_file), load(rig_file)
    same.parts["holder"] = dataclasses.replace(holder, geometry=Lined("./meshes/../meshes/base.stl",
                                                                      "../../lab/shared/liner.stl"))
    other.parts["holder"] = dataclasses.replace(holder, geometry=Lined("meshes/base.stl", "liner.stl"))
    assert same == rig and other != rig
    # provenance: both files are referenced, as the part's geometry
    found = {r.path: (r.role, r.kind) for r in referenced_files(rig)}
    assert found[shared / "liner.stl"] == ("parts.holder.geometry", "mesh")
    # the bundle holds both, the rig naming each inside it, and validates with the sources gone
    out = tmp_path / "b.zip"
    assert main(["export", str(rig_file), "--bundle", str(out)]) == 0
    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        geometry = json.loads(z.read("rig.rig.json"))["parts"]["holder"]["geometry"]
    assert geometry == {"type": "lined", "body": "files/demo/meshes/base.stl",
                        "liner": "files/shared/liner.stl"}
    assert {geometry["body"], geometry["liner"]} <= names
    shutil.rmtree(tmp_path / "lab")
    capsys.readouterr()
    assert main(["validate", str(out)]) == 0
    # a bundle whose rig names a file outside it by one of these fields is refused
    hostile = tmp_path / "hostile"
    with zipfile.ZipFile(out) as z:
        z.extractall(hostile)
    data = json.loads((hostile / "rig.rig.json").read_text())
    data["parts"]["holder"]["geometry"]["liner"] = "../../outside.stl"
    (hostile / "rig.rig.json").write_text(json.dumps(data))
    with pytest.raises(BundleError) as err:
        confine(hostile / "rig.rig.json", hostile)
    assert err.value.code == "bundle.outside" and "parts.holder.geometry" in str(err.value)
