"""The Python export: MIME-style source that executes into an equal rig, whatever the names and reasons."""

from __future__ import annotations

import runpy
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from rig_helpers import DEMO_RIG, snippet_rig
from rig_strategies import rigs

from mime_gui.rig import Mesh, Part, RigError, kg, load
from mime_gui.rig.export import export_python, to_python


def _run(source: str, folder: Path):
    path = folder / "exported.py"
    path.write_text(source, encoding="utf-8")
    return runpy.run_path(str(path))["rig"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rigs)
def test_any_rig_exports_to_python_that_rebuilds_it(rig):
    with tempfile.TemporaryDirectory() as folder:
        rig.base = Path(folder)
        assert _run(to_python(rig, folder), Path(folder)) == rig


def test_hostile_names_and_reasons_are_quoted(tmp_path):
    rig = snippet_rig()
    nasty = "x'); import os; os.remove('precious') #\"\"\"\n\\ü"
    rig.name = nasty
    rig.parts[nasty] = Part(rig.parts["holder"].geometry, mass=kg(0.01, reason=nasty + "\r\t\x00"))
    rig.chain["arm"].armature["joint_6"] = rig.chain["arm"].armature["joint_6"].__class__(
        2e-4, "kg m2", reason='"""' + nasty)
    rig.base = Path.cwd()
    back = _run(to_python(rig, tmp_path), tmp_path)
    assert back == rig
    assert back.parts[nasty].mass.reason == nasty + "\r\t\x00"


def test_demo_export_is_readable_mime_style(tmp_path):
    text = to_python(load(DEMO_RIG), DEMO_RIG.parent, source="demo.rig.json")
    assert "rig = Apparatus(" in text and "Arm.Dynamic(" in text and "Motor.Dynamic(" in text
    assert "kg_m2(0.0002, reason=" in text and "description='arm.urdf'" in text
    compile(text, "exported.py", "exec")


def test_export_python_refuses_an_invalid_rig_and_writes_nothing(tmp_path):
    rig = snippet_rig()
    rig.parts["holder"].mount = "motor.nowhere"
    out = tmp_path / "out.py"
    with pytest.raises(RigError) as info:
        export_python(rig, out)
    assert [f.code for f in info.value.findings] == ["part.mount"]
    assert not out.exists()


def test_mesh_paths_follow_the_export(tmp_path):
    import trimesh

    (tmp_path / "meshes").mkdir()
    trimesh.creation.icosphere(radius=0.01).export(tmp_path / "meshes" / "ball.stl")
    rig = snippet_rig(base=tmp_path)
    rig.parts["holder"].geometry = Mesh("meshes/ball.stl")
    assert rig.validate() == []
    out = tmp_path / "sub" / "rig.py"
    out.parent.mkdir()
    export_python(rig, out)
    assert "Mesh('../meshes/ball.stl'" in out.read_text()
    back = runpy.run_path(str(out))["rig"]
    assert back == rig and back.validate() == []
