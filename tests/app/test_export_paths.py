"""File → Export rig → JSON writes what ``mime-gui export --json`` writes for the same rig: one export, its
provenance included."""

from __future__ import annotations

import json
import shutil

import pytest

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready
from mime_gui.cli.main import main

pytestmark = pytest.mark.timeout(120)


def test_the_apps_json_export_is_the_command_lines(window, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "bench"  # a copy of the demo under another name: its meshes still count
    shutil.copytree(RESOURCES / "demo", folder)
    rig = folder / "demo.rig.json"
    assert window.open_file(str(rig))
    wait_until_ready(window)
    from_app, from_cli = tmp_path / "app.rig.json", tmp_path / "cli.rig.json"  # one folder: paths alike
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(from_app), "Rig files (*.rig.json)"))
    window.assembly.act_export_json.trigger()
    assert main(["export", str(rig), "--json", str(from_cli)]) == 0
    assert from_app.read_bytes() == from_cli.read_bytes()
    provenance = json.loads(from_app.read_text())["provenance"]
    assert set(provenance["files"]) == {"bench/arm.urdf", "bench/meshes/base.stl", "bench/meshes/wrist.obj"}
    assert provenance["segments"]["arm"]["rung"] == "dynamic"
    assert window.session.path == str(rig)  # the export leaves the document's own file
