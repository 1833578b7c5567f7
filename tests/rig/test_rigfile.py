"""The rig file: lossless round trip, refusals naming the JSON pointer, atomic save, schema, docs."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from plain_ids import plain_id
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig
from rig_strategies import rigs

from mime_gui import RESOURCES
from mime_gui.rig import (
    RigFileError,
    kg_m2,
    load,
    save,
)
from mime_gui.rig import rigfile as rigfile_module

SCHEMA = json.loads((RESOURCES / "rig.schema.json").read_text())
DOCS = Path(__file__).resolve().parents[2] / "docs" / "rig-file.md"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rigs)
def test_round_trip_is_lossless(rig):
    with tempfile.TemporaryDirectory() as folder:
        rig.base = Path(folder)
        path = Path(folder) / "r.rig.json"
        save(rig, path)
        back = load(path)
        assert back == rig
        # names, reasons and chain order exactly as written
        assert list(back.chain) == list(rig.chain)
        assert [type(s) for s in back.chain.values()] == [type(s) for s in rig.chain.values()]
        jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), SCHEMA)
        # saving again gives the same text
        again = Path(folder) / "again.rig.json"
        save(back, again)
        assert again.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_demo_rig_loads_validates_and_matches_the_schema():
    rig = load(DEMO_RIG)
    assert rig.validate() == []
    assert rig.base == DEMO_RIG.parent
    jsonschema.validate(json.loads(DEMO_RIG.read_text()), SCHEMA)
    reasons = [q.reason for q in rig.chain["arm"].armature.values()]
    assert reasons and all(reasons)
    assert rig.chain["motor"].inertia.reason
    assert set(rig.parts) == {"holder"} and set(rig.magnets) == {"m1"}


def test_paths_are_rewritten_relative_to_where_the_file_is_saved(tmp_path):
    rig = snippet_rig(description=os.path.relpath(DEMO_URDF))
    rig.base = Path.cwd()
    out = tmp_path / "deep" / "here.rig.json"
    out.parent.mkdir()
    save(rig, out)
    written = json.loads(out.read_text())["chain"][0]["description"]
    assert not Path(written).is_absolute() and "\\" not in written
    assert (out.parent / written).resolve() == DEMO_URDF.resolve()
    back = load(out)
    assert back == rig and back.validate() == []


def test_schema_is_a_valid_schema_and_the_docs_embed_it():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    block = re.search(r"## Schema.*?```json\n(.*?)```", DOCS.read_text(), re.S).group(1)
    assert json.loads(block) == SCHEMA


def _demo_data() -> dict:
    return json.loads(DEMO_RIG.read_text())


def _write(tmp_path, data) -> Path:
    path = tmp_path / "x.rig.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def _edit(mutate):
    def apply():
        d = _demo_data()
        mutate(d)
        return d
    return apply


REFUSALS = [
    ("unknown top-level key", _edit(lambda d: d.update(colour="red")), "rigfile.key", "/colour"),
    ("unknown part key", _edit(lambda d: d["parts"]["holder"].update(colour="red")), "rigfile.key",
     "/parts/holder/colour"),
    ("unknown key in a quantity", _edit(lambda d: d["chain"][1]["inertia"].update(note="x")), "rigfile.key",
     "/chain/1/inertia/note"),
    ("armature on a kinematic arm", _edit(lambda d: d["chain"][0].update(kind="Arm.Kinematic")),
     "rigfile.key",
     "/chain/0/armature"),
    ("wrong format", _edit(lambda d: d.update(format="urdf")), "rigfile.format", "/format"),
    ("newer version", _edit(lambda d: d.update(version=2)), "rigfile.version", "/version"),
    ("version as text", _edit(lambda d: d.update(version="1")), "rigfile.version", "/version"),
    ("missing name", _edit(lambda d: d.pop("name")), "rigfile.missing", "/"),
    ("wrong type of at", _edit(lambda d: d["parts"]["holder"]["at"].update(value=[0, 0])), "rigfile.type",
     "/parts/holder/at/value"),
    ("text where a number goes", _edit(lambda d: d["magnets"]["m1"].update(magnetisation=[0, 0, "z"])),
     "rigfile.type", "/magnets/m1/magnetisation/2"),
    ("boolean where a number goes", _edit(lambda d: d["chain"][1].update(axis=[0, 0, True])), "rigfile.type",
     "/chain/1/axis/2"),
    ("wrong unit of a position", _edit(lambda d: d["parts"]["holder"]["at"].update(unit="mm")),
     "rigfile.unit",
     "/parts/holder/at/unit"),
    ("unknown unit", _edit(lambda d: d["chain"][1]["inertia"].update(unit="g cm2")), "rigfile.unit",
     "/chain/1/inertia/unit"),
    ("unit that is no text", _edit(lambda d: d["chain"][1]["inertia"].update(unit=5)), "rigfile.type",
     "/chain/1/inertia/unit"),
    ("unknown segment kind", _edit(lambda d: d["chain"][0].update(kind="Arm.Floating")), "rigfile.value",
     "/chain/0/kind"),
    ("unknown geometry", _edit(lambda d: d["parts"]["holder"]["geometry"].update(type="torus")),
     "rigfile.value",
     "/parts/holder/geometry/type"),
    ("segment twice", _edit(lambda d: d["chain"].append(d["chain"][1])),
     "rigfile.duplicate", "/chain/2/name"),
    ("chain as an object", _edit(lambda d: d.update(chain={})), "rigfile.type", "/chain"),
    ("key with a slash", _edit(lambda d: d["parts"].update({"a/b": {"geometry": 1}})), "rigfile.type",
     "/parts/a~1b/geometry"),
]


def _replaced(data, pointer: str, value):
    """``data`` with the value at ``pointer`` (the document itself for "/") replaced by ``value``."""
    keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:] if k]
    if not keys:
        return value
    data = json.loads(json.dumps(data))
    target = data
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    target[int(keys[-1]) if isinstance(target, list) else keys[-1]] = value
    return data


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusals_name_the_json_pointer(case, tmp_path):
    _, make, code, pointer = case
    data = make()
    path = _write(tmp_path, json.dumps(data, indent=2))
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == code
    assert info.value.pointer == pointer
    # the line: where a marker put in place of the value lands in the same indented text
    marked = json.dumps(_replaced(data, pointer, "@marker@"), indent=2).split("\n")
    line = next(n for n, text in enumerate(marked, 1) if "@marker@" in text)
    assert info.value.one_line().startswith(f"error[{code}] {path}:{line}: #{pointer}: ")
    # the schema refuses the same documents (JSON Schema cannot say that names in a list are unique)
    if code != "rigfile.duplicate":
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(data, SCHEMA)


@pytest.mark.parametrize("text, code, line", [
    ('{"format": "mime-rig",\n "version": 1,\n "name": }', "rigfile.json", 3),
    ('{"format": "mime-rig", "version": 1, "name": "a", "name": "b"}', "rigfile.duplicate", 1),
    ('{"format": "mime-rig", "version": 1, "name": "a",\n "parts": {"p": {"geometry":\n  {"type": "sphere", '
     '"type": "box"}}}}', "rigfile.duplicate", 3),  # the line where the object holding the key twice starts
    ('{"format": "mime-rig", "version": 1, "name": "a", "parts": {"p": {"geometry": {"type": "sphere", '
     '"unit": "m", "radius": NaN}}}}', "rigfile.json", 0),
], ids=plain_id)
def test_malformed_json(text, code, line, tmp_path):
    with pytest.raises(RigFileError) as info:
        load(_write(tmp_path, text))
    assert info.value.code == code
    assert info.value.line == line


def test_unreadable_file(tmp_path):
    with pytest.raises(RigFileError) as info:
        load(tmp_path / "absent.rig.json")
    assert info.value.code == "rigfile.io"


def test_a_bare_number_loads_and_validation_reports_it(tmp_path):
    data = _demo_data()
    data["chain"][0]["armature"]["joint_6"] = 2e-4
    data["chain"][0]["description"] = str(DEMO_URDF)
    rig = load(_write(tmp_path, data))
    assert [f.code for f in rig.validate()] == ["unit"]


# -- atomic save ------------------------------------------------------------------------------------
def _folder_listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_save_keeps_the_old_file_when_the_rename_fails(tmp_path, monkeypatch):
    path = tmp_path / "r.rig.json"
    save(snippet_rig(), path)
    before = path.read_bytes()
    changed = snippet_rig()
    changed.name = "changed"

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(rigfile_module.os, "replace", refuse)
    with pytest.raises(OSError):
        save(changed, path)
    assert path.read_bytes() == before
    assert _folder_listing(tmp_path) == ["r.rig.json"]  # no temporary file left behind


def test_save_keeps_the_old_file_when_serialising_fails(tmp_path, monkeypatch):
    path = tmp_path / "r.rig.json"
    save(snippet_rig(), path)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise RuntimeError("encoder broke")

    monkeypatch.setattr(rigfile_module.json, "dumps", broken)
    with pytest.raises(RuntimeError):
        save(snippet_rig(), path)
    assert path.read_bytes() == before
    assert _folder_listing(tmp_path) == ["r.rig.json"]


def test_save_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "r.rig.json"
    save(snippet_rig(), path)
    before = path.read_bytes()

    def no_sync(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(rigfile_module.os, "fsync", no_sync)
    with pytest.raises(OSError):
        save(snippet_rig(), path)
    assert path.read_bytes() == before
    assert _folder_listing(tmp_path) == ["r.rig.json"]


def test_non_finite_numbers_are_refused_before_touching_the_file(tmp_path):
    path = tmp_path / "r.rig.json"
    save(snippet_rig(), path)
    before = path.read_bytes()
    rig = snippet_rig()
    rig.chain["arm"].armature = {"joint_6": kg_m2(float("nan"), reason="x")}
    with pytest.raises(RigFileError) as info:
        save(rig, path)
    assert info.value.code == "rigfile.value"
    assert path.read_bytes() == before


def test_save_keeps_the_file_mode(tmp_path):
    path = tmp_path / "r.rig.json"
    save(snippet_rig(), path)
    os.chmod(path, 0o640)
    save(snippet_rig(), path)
    assert path.stat().st_mode & 0o777 == 0o640
