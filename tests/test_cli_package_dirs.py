"""``--package-dir`` on every entry point: the folders are the process's package folders while the command
runs (so every description it reads resolves package:// meshes under them), and only then."""

from __future__ import annotations

import os

import pytest

import mime_gui.cli.play as play_module
from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.multibody import resolve

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


class _Seen(Exception):
    """Raised by a stand-in loader once it has recorded the package folders it was called with."""


@pytest.fixture
def seen(monkeypatch):
    record = []

    def capture(*_args, **_kwargs):
        record.append(resolve.package_dirs())
        raise _Seen

    return record, capture


@pytest.mark.parametrize("command, extra", [
    ("validate", []),
    ("report", ["--json"]),
    ("export", ["--json", "out.rig.json"]),
])
def test_rig_commands_read_the_rig_under_the_package_dirs(tmp_path, monkeypatch, seen, command, extra):
    import mime_gui.rig

    record, capture = seen
    monkeypatch.setattr(mime_gui.rig, "load", capture)
    with pytest.raises(_Seen):
        main([command, str(DEMO_RIG), *extra, "--package-dir", str(tmp_path / "a"), "--package-dir", "b"])
    assert record == [(str(tmp_path / "a"), os.path.abspath("b"))]  # relative folders: from the working one
    assert resolve.package_dirs() == ()


def test_play_loads_under_the_package_dirs(tmp_path, monkeypatch, seen):
    record, capture = seen
    monkeypatch.setattr(play_module, "load_playable", capture)
    with pytest.raises(_Seen):
        main(["play", str(DEMO_RIG), "--commands", "c.csv", "--out", str(tmp_path / "o.npz"),
              "--package-dir", str(tmp_path)])
    assert record == [(str(tmp_path),)]
    assert resolve.package_dirs() == ()


def test_inspect_resolves_under_the_package_dirs_and_restores_them(tmp_path, capsys):
    mesh = tmp_path / "pkgs" / "shapes" / "cube.stl"
    mesh.parent.mkdir(parents=True)
    mesh.write_text("solid c\nendsolid c\n")
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="a"><visual><geometry>'
                    '<mesh filename="package://shapes/cube.stl"/></geometry></visual></link></robot>')
    assert main(["inspect", str(urdf), "--package-dir", str(tmp_path / "pkgs")]) == 0
    assert "mesh-unresolved" not in capsys.readouterr().out
    assert resolve.package_dirs() == ()


def test_the_app_takes_the_package_dirs(tmp_path, monkeypatch):
    import mime_gui.app.main as app_main

    calls = []
    monkeypatch.setattr(app_main, "run_app", lambda **kwargs: calls.append(kwargs) or 0)
    assert main(["--package-dir", str(tmp_path), "--package-dir", "x", "robot.urdf"]) == 0
    assert calls[0]["package_dirs"] == [str(tmp_path), "x"] and calls[0]["file"] == "robot.urdf"
