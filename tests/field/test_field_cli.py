"""``mime-gui field``: the arrays equal the headless API's, the summary is printed, and every bad input is
one coded line on stderr with exit status 2, never a traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from field_helpers import DEMO_RIG, probe
from oracle import chain_B_by_hand

from mime_gui.cli import main
from mime_gui.field import field_along, rotating_summary
from mime_gui.nodes import read_commands
from mime_gui.rig import load, save
from mime_gui.rig.playback import RigPlayable

PROBES = {"sample": probe((0.0, 0.0, 0.05), mount="motor.stator"), "rider": probe((0.01, 0.0, 0.03),
                                                                                  mount="motor.rotor")}


@pytest.fixture
def rig_file(tmp_path):
    """The demo rig beside its arm and commands, with two probes."""
    for name in ("arm.urdf", "chain.csv"):
        shutil.copy(DEMO_RIG.parent / name, tmp_path / name)
    shutil.copytree(DEMO_RIG.parent / "meshes", tmp_path / "meshes")
    rig = load(DEMO_RIG)
    rig.probes = dict(PROBES)
    return save(rig, tmp_path / "demo.rig.json")


def run(argv, capsys):
    code = main(["field", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_writes_the_arrays_of_the_api_and_prints_the_summary(rig_file, tmp_path, capsys):
    out = tmp_path / "field.npz"
    code, text, err = run([rig_file, "--commands", tmp_path / "chain.csv", "--probe", "sample",
                           "--probe", "0.3,0,0.25", "--contributions", "--out", out], capsys)
    assert code == 0, err
    built = load(rig_file).build()
    playable = RigPlayable(built)
    schedule = playable.schedule(read_commands(tmp_path / "chain.csv"), None)
    chosen = {"sample": PROBES["sample"], "0.3,0,0.25": (0.3, 0, 0.25)}
    api = field_along(built, playable.play(schedule), chosen, contributions=True, start=schedule.start)
    with np.load(out) as data:
        assert data["probe_names"].tolist() == ["sample", "0.3,0,0.25"]
        assert data["magnet_names"].tolist() == ["m1"]
        assert np.array_equal(data["time"], api.time) and np.array_equal(data["B"], api.B)
        steps = [0, 60, 150, len(api.time) - 1]
        times, B = chain_B_by_hand(tmp_path / "chain.csv", steps, [(0.0, 0.0, 0.05)],
                                   [(0.3, 0, 0.25)])
        np.testing.assert_allclose(data["time"][steps], times, atol=1e-12)
        np.testing.assert_allclose(data["B"][steps], B, rtol=1e-9, atol=1e-15)
        assert np.array_equal(data["contributions"], api.contributions)
        assert data["B"].shape == (len(api.time), 2, 3)
        summary = rotating_summary(api.time, api.B)
        assert np.array_equal(data["frequency"], [s.frequency for s in summary])
        assert np.array_equal(data["B_max"], [s.B_max for s in summary])
    assert "sample: " in text and " Hz about " in text and "ellipticity" in text and err == ""


def test_a_command_file_starting_late_gives_the_field_at_its_own_times(rig_file, tmp_path, capsys):
    """chain.csv with every time put 3 s later (named CMD.CSV): the same poses, at t0 + (n + 1) dt."""
    lines = (tmp_path / "chain.csv").read_text().splitlines()
    shifted = [lines[0], lines[1], *(f"{float(r.split(',', 1)[0]) + 3.0:.2f},{r.split(',', 1)[1]}"
                                     for r in lines[2:] if r)]
    (tmp_path / "CMD.CSV").write_text("\n".join(shifted) + "\n")
    out = tmp_path / "field.npz"
    code, _, err = run([rig_file, "--commands", tmp_path / "CMD.CSV", "--probe", "sample", "--out", out,
                        "--quiet"], capsys)
    assert code == 0, err
    with np.load(out) as data:
        steps = [0, 45, len(data["time"]) - 1]
        times, B = chain_B_by_hand(tmp_path / "CMD.CSV", steps, [(0.0, 0.0, 0.05)])
        assert times[0] == pytest.approx(3.02)
        np.testing.assert_allclose(data["time"][steps], times, atol=1e-9)
        np.testing.assert_allclose(data["B"][steps], B, rtol=1e-9, atol=1e-15)


def test_without_probe_options_every_probe_of_the_rig_and_no_contributions(rig_file, tmp_path, capsys):
    out = tmp_path / "field.npz"
    argv = [rig_file, "--commands", tmp_path / "chain.csv", "--out", out, "--quiet"]
    assert run(argv, capsys)[:2] == (0, "")
    with np.load(out) as data:
        assert data["probe_names"].tolist() == ["sample", "rider"] and "contributions" not in data


def test_a_probe_inside_the_magnet_at_some_steps_is_a_warning(rig_file, tmp_path, capsys):
    code, _, err = run([rig_file, "--commands", tmp_path / "chain.csv", "--probe", "0.3,0,0.2",
                        "--out", tmp_path / "f.npz"], capsys)
    assert code == 0 and err == ""  # nowhere near: no warning
    rig = load(rig_file)
    rig.probes = {"through": probe((0.0, 0.0, 0.025), mount="motor.stator")}  # on the axis, in the magnet
    save(rig, rig_file)
    code, _, err = run([rig_file, "--commands", tmp_path / "chain.csv", "--out", tmp_path / "f.npz"],
                       capsys)
    assert code == 0
    assert err.startswith("warning[field.probe-inside-magnet] probes.through: inside magnet 'm1'")


@pytest.mark.parametrize("args, code, where", [
    (["--probe", "nowhere"], "field.probe", "--probe"),
    (["--probe", "1,2"], "field.probe", "--probe"),
    (["--probe", "1,2,x"], "field.probe", "--probe"),
    (["--probe", "1,nan,2"], "field.probe", "--probe"),
    (["--probe", "sample", "--probe", "sample"], "field.probe", "--probe"),
    (["--dt", "0"], "field.dt", "--dt"),
    (["--servo-tau", "-1"], "field.servo-tau", "--servo-tau"),
], ids=["unknown-name", "two-numbers", "not-a-number", "nan", "twice", "dt", "servo"])
def test_bad_options_are_one_coded_line(rig_file, tmp_path, capsys, args, code, where):
    status, text, err = run([rig_file, "--commands", tmp_path / "chain.csv", "--out", tmp_path / "f.npz",
                             *args], capsys)
    assert status == 2 and text == ""
    assert err.startswith(f"error[{code}] {where}: ") and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "f.npz").exists()


def test_bad_files_are_one_coded_line(rig_file, tmp_path, capsys):
    commands = tmp_path / "chain.csv"
    cases = {"field.out": [rig_file, "--commands", commands, "--out", tmp_path / "f.txt"],
             "field.io": [rig_file, "--commands", commands, "--out", tmp_path / "missing" / "f.npz"],
             "field.format": [DEMO_RIG.parent / "arm.urdf", "--commands", commands, "--out",
                              tmp_path / "f.npz"]}
    rig = load(rig_file)
    rig.probes = {}
    cases["field.no-probe"] = [save(rig, tmp_path / "bare.rig.json"), "--commands", commands, "--out",
                               tmp_path / "f.npz"]
    rig = load(rig_file)
    rig.magnets = {}
    cases["field.no-magnet"] = [save(rig, tmp_path / "nomag.rig.json"), "--commands", commands, "--out",
                                tmp_path / "f.npz"]
    rig = load(rig_file)
    rig.magnets["m1"].material = "aluminium"
    cases["magnet.remanence"] = [save(rig, tmp_path / "weak.rig.json"), "--commands", commands, "--out",
                                 tmp_path / "f.npz"]
    for code, argv in cases.items():
        status, _, err = run(argv, capsys)
        assert status == 2 and err.startswith(f"error[{code}] ") and err.count("\n") == 1, (code, err)
    assert not (tmp_path / "f.npz").exists()


def test_poses_beyond_the_output_limit_are_refused_before_playing(rig_file, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", "0.01")
    argv = [rig_file, "--commands", tmp_path / "chain.csv", "--out", tmp_path / "f.npz"]
    status, _, err = run(argv, capsys)
    assert status == 2 and err.startswith("error[field.too-large] ") and "MIME_GUI_MAX_PLAY_MB" in err
    assert "limit; choose a larger step (--dt)" in err  # nothing to leave out without --contributions
    status, _, err = run([*argv, "--contributions"], capsys)
    assert status == 2 and "limit; leave out --contributions, choose a larger step (--dt)" in err


def test_the_command_loads_no_qt_pyvista_or_vtk(rig_file, tmp_path):
    probe_code = (
        "import json, sys\n"
        "from mime_gui.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in ('PySide6', 'pyvista', 'pyvistaqt',"
        " 'vtk', 'vtkmodules', 'shiboken6'))\n"
        "print(json.dumps({'code': code, 'loaded': bad, 'magpylib': 'magpylib' in sys.modules}))\n")
    argv = [sys.executable, "-c", probe_code, "field", str(rig_file), "--commands",
            str(tmp_path / "chain.csv"), "--out", str(tmp_path / "f.npz"), "--quiet"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"code": 0, "loaded": [], "magpylib": True}, proc.stderr
