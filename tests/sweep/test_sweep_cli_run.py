"""``mime-gui sweep`` as a user runs it, on one local worker process: the progress bar on a terminal, an
interrupted run that says where its rows are and resumes, ``--quiet``, a rig that does not build as written
(its variants may), the summary without the clearance check, a rig file gone between its two reads, and a
bug that is not dressed as a refusal."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sys

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO = RESOURCES / "demo"
DEMO_RIG = DEMO / "demo.rig.json"
DT = "0.04"  # the demo's 4 s command file in 100 steps


def _radii(n: int) -> str:
    return f"--vary=parts.holder.geometry.radius=0.008:0.012:{n}"


def _rows(path) -> list[dict]:
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_sweep_of_twenty_variants_on_a_terminal_draws_its_bar_row_by_row(tmp_path, monkeypatch, capsys):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    out = tmp_path / "t.csv"
    assert main(["sweep", str(DEMO_RIG), _radii(20), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    frames = terminal.getvalue().split("\r")
    assert frames[0] == ""  # each frame redraws the line from its start
    # 40 characters for 20 variants: two more # per row, the last frame ending the line
    expected = [f"  [{'#' * (2 * k)}{'.' * (40 - 2 * k)}] {k}/20 variants" for k in range(1, 21)]
    expected[-1] += "\n"
    assert frames[1:] == expected
    assert len(_rows(out)) == 20 and capsys.readouterr().out == ""


def test_a_bar_is_redrawn_only_when_it_grows_and_not_below_twenty_variants(tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["sweep", str(DEMO_RIG), _radii(50), "--out", str(tmp_path / "a.csv"), "--workers", "1",
                 "--quiet"]) == 0
    frames = terminal.getvalue().split("\r")[1:]
    # 50 rows on 40 characters: a frame for each width the bar takes, 0 to 40 (40 * done // 50)
    widths = [frame.count("#") for frame in frames]
    assert widths == list(range(41))
    assert frames[:2] == [f"  [{'.' * 40}] 1/50 variants", f"  [#{'.' * 39}] 2/50 variants"]
    assert not any("] 6/50 " in frame for frame in frames)  # 40 * 6 // 50 = 4, as for the fifth row
    assert frames[-1] == f"  [{'#' * 40}] 50/50 variants\n"
    terminal.seek(0)
    terminal.truncate()
    assert main(["sweep", str(DEMO_RIG), _radii(19), "--out", str(tmp_path / "b.csv"), "--workers", "1",
                 "--quiet"]) == 0
    assert terminal.getvalue() == ""


def test_an_interrupted_sweep_says_where_its_rows_are_and_the_same_command_resumes(tmp_path, monkeypatch,
                                                                                 capsys):
    import mime_gui.cli.sweep as command

    real = command.run_sweep

    def stopped_after_three(job, out, runner, about, on_row=None):
        def on_row_then_stop(done, total):
            if done == 3:
                raise KeyboardInterrupt  # Ctrl-C while the third row comes in
        return real(job, out, runner, about, on_row=on_row_then_stop)

    monkeypatch.setattr(command, "run_sweep", stopped_after_three)
    out = tmp_path / "t.csv"
    argv = ["sweep", str(DEMO_RIG), _radii(6), "--out", str(out), "--workers", "1"]
    assert main(argv) == 130
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [f"interrupted: the rows done are in {out}; run the same command "
                                         "again to resume"]
    assert len(_rows(out)) == 3
    monkeypatch.setattr(command, "run_sweep", real)
    assert main(argv) == 0
    assert "  computed 3, kept 3 from the table; 0 with findings" in capsys.readouterr().out.splitlines()
    assert [r["variant"] for r in _rows(out)] == [str(k) for k in range(6)]


def test_quiet_prints_nothing_and_still_writes_the_table(tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["sweep", str(DEMO_RIG), _radii(2), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    assert [r["parts.holder.geometry.radius"] for r in _rows(out)] == ["0.008", "0.012"]


@pytest.fixture
def folder(tmp_path):
    """The demo rig beside its arm, meshes and commands, its magnet magnetised along no direction: a rig
    that does not build as written."""
    for name in ("arm.urdf", "chain.csv", "package.xml"):
        shutil.copy(DEMO / name, tmp_path / name)
    shutil.copytree(DEMO / "meshes", tmp_path / "meshes")
    data = json.loads(DEMO_RIG.read_text())
    data["magnets"]["m1"]["magnetisation"] = [0, 0, 0]
    (tmp_path / "bad.rig.json").write_text(json.dumps(data))
    return tmp_path


def test_a_rig_that_does_not_build_is_swept_with_commands_and_the_variant_that_builds_is_played(folder,
                                                                                                capsys):
    out = folder / "t.csv"
    status = main(["sweep", str(folder / "bad.rig.json"), "--vary=magnets.m1.magnetisation.0=0,1",
                   "--commands", str(folder / "chain.csv"), "--dt", DT, "--out", str(out), "--workers", "1"])
    text = capsys.readouterr()
    assert status == 0 and text.err == "", text
    assert "  computed 2, kept 0 from the table; 1 with findings (magnet.magnetisation: 1)" in text.out
    assert "findings only" not in text.out and "no clearance columns" not in text.out
    broken, built = _rows(out)
    assert (broken["findings"], broken["codes"]) == ("1", "magnet.magnetisation")
    assert broken["B_max.sample"] == ""  # not played: it does not build
    assert built["findings"] == "0" and float(built["B_max.sample"]) > 0  # played: the field at the probe


def test_without_the_clearance_check_the_summary_says_the_columns_are_missing(tmp_path, monkeypatch, capsys):
    import mime_gui.cli.sweep as command

    monkeypatch.setattr(command, "clearance_along", None)
    status = main(["sweep", str(DEMO_RIG), _radii(1), "--commands", str(DEMO / "chain.csv"), "--dt", DT,
                   "--out", str(tmp_path / "t.csv"), "--workers", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert status == 0
    assert lines[2] == ("  no clearance columns: the clearance check (mime_gui.rig.clearance_check) is not "
                        "installed")
    assert not any("findings only" in line for line in lines)


def test_a_rig_file_gone_between_its_two_reads_is_one_sweep_io_refusal(tmp_path, monkeypatch, capsys):
    import mime_gui.rig.actuator_sources as sources

    rig = tmp_path / "gone.rig.json"
    data = json.loads(DEMO_RIG.read_text())
    data["chain"][0]["description"] = str(DEMO / "arm.urdf")
    rig.write_text(json.dumps(data))
    real = sources.discover

    def discover_then_lose_the_file(folder):
        real(folder)
        rig.unlink()  # another process removes it after it was read

    monkeypatch.setattr(sources, "discover", discover_then_lose_the_file)
    out = tmp_path / "t.csv"
    assert main(["sweep", str(rig), _radii(2), "--out", str(out), "--workers", "1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"error[sweep.io] {rig}: cannot read the rig file again (")
    assert "No such file or directory" in line and not out.exists()


def test_an_error_without_a_code_is_a_bug_and_is_not_printed_as_a_refusal(tmp_path, monkeypatch, capsys):
    import mime_gui.cli.sweep as command

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the grid")

    monkeypatch.setattr(command, "parse_all", broken)
    with pytest.raises(RuntimeError, match="a bug in the grid"):
        main(["sweep", str(DEMO_RIG), _radii(2), "--out", str(tmp_path / "t.csv"), "--workers", "1"])
    assert capsys.readouterr().err == ""
