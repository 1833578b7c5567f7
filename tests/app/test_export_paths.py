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


def test_the_apps_bundle_export_holds_what_the_command_lines_does_and_opens(window, tmp_path, monkeypatch):
    import zipfile

    from mime_gui.rig import bundle

    folder = tmp_path / "bench"
    shutil.copytree(RESOURCES / "demo", folder)
    rig = folder / "demo.rig.json"
    assert window.open_file(str(rig))
    wait_until_ready(window)
    from_app, from_cli = tmp_path / "app.zip", tmp_path / "cli.zip"
    monkeypatch.setattr("PySide6.QtWidgets.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(from_app), "Rig bundles (*.zip)"))
    assert window.assembly.act_export_bundle.isEnabled()
    window.assembly.act_export_bundle.trigger()
    assert main(["export", str(rig), "--bundle", str(from_cli)]) == 0

    def entries(path):
        with zipfile.ZipFile(path) as z:
            return {info.filename: z.read(info) for info in z.infolist()}

    assert entries(from_app) == entries(from_cli)  # the same files, byte for byte
    # the rig and every file it names, laid out as beside it
    assert set(entries(from_app)) == {"rig.rig.json", "files/arm.urdf", "files/meshes/base.stl",
                                      "files/meshes/wrist.obj"}
    opened = bundle.open_bundle(str(from_app))  # and it opens as a bundle
    assert opened.name.endswith(".rig.json")
    assert window.session.path == str(rig)


def test_a_rig_that_breaks_a_rule_exports_no_bundle(window, tmp_path, monkeypatch):
    folder = tmp_path / "bench"
    shutil.copytree(RESOURCES / "demo", folder)
    rig = folder / "demo.rig.json"
    rig.write_text(rig.read_text().replace('"material": "NdFeB-N42"', '"material": "unobtainium"'))
    assert window.open_file(str(rig))
    wait_until_ready(window)
    assert window.session.findings and not window.assembly.act_export_bundle.isEnabled()
    out = tmp_path / "out.zip"
    assert not window.assembly.export_to("bundle", str(out))
    assert not out.exists()
