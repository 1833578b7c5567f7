"""What the command line says of itself and how it ends: the help of the window's options and of `play`, the
exit status of an interrupted subcommand, and the wall-time line of `field` in milliseconds."""

from __future__ import annotations

import importlib
import shutil
import types

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO = RESOURCES / "demo"


def _help(argv, capsys) -> str:
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())


def test_the_window_s_help_says_what_version_does_and_names_the_package_folder_dir(capsys):
    text = _help(["--help"], capsys)
    assert "--version print the version and exit" in text
    assert "--package-dir DIR" in text and "--package-dir PACKAGE_DIR" not in text


@pytest.mark.parametrize("argv", [["play", "--help"], ["validate", "--help"], ["field", "--help"]],
                         ids=["play", "validate", "field"])
def test_each_subcommand_names_the_package_folder_dir(argv, capsys):
    assert "--package-dir DIR" in _help(argv, capsys)


def test_play_s_help_lists_the_kinds_of_file_it_plays(capsys):
    # docs/command-files.md and the README: a URDF, a rig file or a bundle
    assert "what to play (*.urdf, *.rig.json, *.zip)" in _help(["play", "--help"], capsys)


def test_an_interrupted_subcommand_ends_with_the_shell_s_status_for_an_interrupt(monkeypatch):
    def interrupted(argv):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module("mime_gui.cli.main"), "_headless", interrupted)
    assert main(["validate", str(DEMO / "demo.rig.json")]) == 128 + 2  # 128 + SIGINT, as a shell reports it


def test_field_prints_the_time_it_took_in_milliseconds(tmp_path, monkeypatch, capsys):
    field_module = importlib.import_module("mime_gui.cli.field")
    for name in ("demo.rig.json", "arm.urdf", "chain.csv"):
        shutil.copy(DEMO / name, tmp_path / name)
    shutil.copytree(DEMO / "meshes", tmp_path / "meshes")
    # the command reads its clock four times: at its start, before and after the field, at the end (seconds)
    readings = iter([100.0, 101.0, 101.25, 103.5])
    monkeypatch.setattr(field_module, "_time", types.SimpleNamespace(perf_counter=lambda: next(readings)))
    assert main(["field", str(tmp_path / "demo.rig.json"), "--commands", str(tmp_path / "chain.csv"),
                 "--probe", "0,0,0.3", "--out", str(tmp_path / "field.npz")]) == 0
    out = capsys.readouterr().out
    assert "  wall time: 250.0 ms computing the field, 3500.0 ms in all\n" in out


def test_play_prints_the_time_it_took_playing_and_in_all_in_milliseconds(tmp_path, monkeypatch, capsys):
    play_module = importlib.import_module("mime_gui.cli.play")
    # the command reads its clock four times: at its start, before and after playing, at the end (seconds)
    readings = iter([10.0, 10.5, 10.625, 12.0])
    monkeypatch.setattr(play_module, "_time", types.SimpleNamespace(perf_counter=lambda: next(readings)))
    assert main(["play", str(DEMO / "demo.rig.json"), "--commands", str(DEMO / "chain.csv"),
                 "--out", str(tmp_path / "played.npz")]) == 0
    out = capsys.readouterr().out
    assert "  wall time: 125.0 ms playing, 2000.0 ms in all\n" in out


def test_trajectory_s_help_says_what_each_argument_is(capsys):
    from mime_gui.cli.trajectory import DT

    text = _help(["trajectory", "--help"], capsys)
    for words in ("RIG.rig.json the rig file, or a bundle (.zip)", "NAME the rig's trajectory to render",
                  f"--dt S the samples' spacing in seconds (default {DT:g})",
                  "--out CMD.csv the command file to write (.csv or .npz)",
                  "--fit stretch the timeline just enough for every joint to keep within its velocity and "
                  "acceleration limits first"):
        assert words in text, (words, text)


def test_export_s_help_names_the_file_each_output_option_writes(capsys):
    text = _help(["export", "--help"], capsys)
    for words in ("--python OUT.py write MIME-style Python source defining `rig`",
                  "--json OUT.rig.json write a rig file", "--bundle OUT.zip write a zip of the rig file",
                  "--urdf OUT.urdf write the whole rig as one URDF",
                  "--mjcf OUT.xml write the whole rig as MuJoCo's MJCF",
                  "--commands OUT.csv write the pose --pose as a held command file"):
        assert words in text, (words, text)


def test_the_rig_runner_writes_a_rig_it_cannot_read_to_the_stream_it_is_given(tmp_path, capsys):
    """validate, report and export run through cli.rig.run(args, out, err), as the tests and any embedding
    program call it: the one coded line for a missing rig goes to ``out``, nothing to the process's stdout."""
    import argparse
    import io

    from mime_gui.cli import rig as rig_command

    missing = tmp_path / "gone.rig.json"
    out, err = io.StringIO(), io.StringIO()
    assert rig_command.run(argparse.Namespace(rig=str(missing), command="validate"), out, err) == 1
    (line,) = out.getvalue().splitlines()
    assert line.startswith("error[") and str(missing) in line
    assert capsys.readouterr().out == "" and err.getvalue() == ""
