"""Small contracts of the command line, pinned: ``play --clearance`` on a URDF alone is refused with the
whole ``play.clearance`` line (what the check reads, and what to play instead); ``validate`` run through
``cli.rig.run(args, out, err)``, as an embedding program calls it, prints its provenance warnings on the
stream it is given; ``report --json`` refusing a non-finite report names the rig file; and ``trajectory``'s
``--dt`` goes up to 1e9 s exactly, a step beyond refused as ``trajectory.dt`` before the rig is read."""

from __future__ import annotations

import io
import json
import math
import shutil

from cli_helpers import rig_args, run_cli

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.cli import rig as rig_command
from mime_gui.rig import Apparatus

DEMO = RESOURCES / "demo"


# -- play --clearance on a URDF alone ------------------------------------------------------------------------

def test_the_clearance_refusal_of_a_urdf_alone_is_the_whole_documented_line(tmp_path):
    # docs/command-files.md: play.clearance, "the check reads a rig's parts, magnets, samples and margin;
    # play a rig file or bundle": the one line says both, word for word
    out = tmp_path / "o.npz"
    status, stdout, stderr = run_cli("play", DEMO / "arm.urdf", "--commands", DEMO / "wave.csv", "--out", out,
                                     "--clearance")
    assert (status, stdout) == (2, "")
    assert stderr == ("error[play.clearance] --clearance: --clearance checks a rig's items (its links, "
                      "parts, magnets and samples, and its margin): play a rig file or bundle that holds "
                      "this description\n")
    assert not out.exists()


# -- validate: provenance warnings on the stream given -------------------------------------------------------

def test_validate_prints_a_changed_files_warning_on_the_stream_it_is_given(tmp_path, capsys):
    demo = tmp_path / "demo"
    shutil.copytree(DEMO, demo)
    exported = tmp_path / "exported" / "rig.rig.json"
    exported.parent.mkdir()
    assert main(["export", str(demo / "demo.rig.json"), "--json", str(exported)]) == 0
    capsys.readouterr()
    mesh = demo / "meshes" / "wrist.obj"
    mesh.write_bytes(mesh.read_bytes() + b"\n# edited since the export\n")

    out, err = io.StringIO(), io.StringIO()
    assert rig_command.run(rig_args("validate", exported), out, err) == 0  # a warning: still valid
    lines = out.getvalue().splitlines()
    # the warning comes first, on ``out`` (docs/rig-file.md), then the rig's verdict; nothing elsewhere
    assert lines[0].startswith("warning[provenance.changed] ../demo/meshes/wrist.obj: the file changed since "
                               "the export (used by chain.arm.link_5; sha256 ")
    assert lines[0].endswith("…); the rig may not rebuild as exported")
    assert [line for line in lines if line.startswith("warning[provenance.")] == lines[:1]
    assert lines[-1].startswith(f"{exported}: rig 'demo' is valid (")
    assert err.getvalue() == ""
    assert capsys.readouterr() == ("", "")


# -- report --json: a number JSON cannot hold ----------------------------------------------------------------

def test_a_non_finite_report_is_refused_naming_the_rig_file(tmp_path, monkeypatch, capsys):
    # the rig rules keep every reported value finite, so the refusal is a guard: a NaN is slipped into a
    # built report to reach it, and the line must still say which rig file's report it is
    build = Apparatus.build

    def nan_build(self, *a, **k):
        built = build(self, *a, **k)
        built.report.data["totals"]["parts_mass"] = math.nan
        return built

    monkeypatch.setattr(Apparatus, "build", nan_build)
    out, err = io.StringIO(), io.StringIO()
    rig = DEMO / "demo.rig.json"
    assert rig_command.run(rig_args("report", rig, "--json"), out, err) == 1
    printed = out.getvalue()
    assert printed.startswith(f"error[report.non-finite] {rig}: the report holds a number JSON cannot (")
    assert printed.endswith("); run mime-gui validate\n") and printed.count("\n") == 1
    assert err.getvalue() == ""
    assert capsys.readouterr() == ("", "")


def test_a_finite_report_is_strict_json():
    # the other side of the guard: the demo's report prints as JSON that reads back
    out = io.StringIO()
    assert rig_command.run(rig_args("report", DEMO / "demo.rig.json", "--json"), out, io.StringIO()) == 0
    assert json.loads(out.getvalue())["rig"] == "demo"


# -- trajectory --dt: up to 1e9 s ----------------------------------------------------------------------------

def test_a_trajectory_step_beyond_1e9_seconds_is_refused_before_the_rig_is_read(tmp_path):
    # the options are checked first (cli/trajectory.py): a step half a second over 1e9 s is trajectory.dt
    # even when the rig file does not exist
    target = tmp_path / "t.csv"
    status, stdout, stderr = run_cli("trajectory", tmp_path / "missing.rig.json", "spin 5 Hz", "--dt",
                                     "1000000000.5", "--out", target)
    assert (status, stderr) == (1, "")
    assert stdout == ("error[trajectory.dt] --dt: the step must be a positive number of seconds up to 1e9, "
                      "got 1000000000.5\n")
    assert not target.exists()


def test_a_trajectory_step_of_exactly_1e9_seconds_is_rendered(tmp_path):
    target = tmp_path / "t.csv"
    status, stdout, stderr = run_cli("trajectory", DEMO / "demo.rig.json", "spin 5 Hz", "--dt", "1e9",
                                     "--out", target)
    assert (status, stderr) == (0, "")
    assert stdout == f"wrote {target} (trajectory 'spin 5 Hz': 2 samples every 1e+09 s, 1e+09 s)\n"
