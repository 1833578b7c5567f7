"""Pins of the command line: ``export`` refuses ``--dt`` given without ``--commands`` (the pose options go
with a pose command file only) and writes nothing."""

from __future__ import annotations

from cli_helpers import run_cli

from mime_gui import RESOURCES

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_the_export_of_a_rig_with_dt_but_no_commands_is_refused_naming_dt(tmp_path):
    # --dt spaces the samples of a pose command file: alone it would be silently ignored, so it is refused
    out = tmp_path / "copy.rig.json"
    status, stdout, _ = run_cli("export", DEMO_RIG, "--json", out, "--dt", "0.05")
    assert status == 1
    assert stdout.strip() == "error[export.pose] --dt: goes with --commands OUT.csv"
    assert not out.exists()
