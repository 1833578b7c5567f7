"""Hostile input to every headless command: a coded one-line refusal, never a traceback, never a lost file.

The project's rule for bad input: every bad file or value gets a clear error with a stable code, the place
(file:line, rig path or JSON pointer) and how to fix it — never a traceback, a silent drop, a crash or a
lost file. Each test below feeds ``mime_gui.cli.main`` (in-process) something broken and checks the exit
status, that every line printed is ``error[CODE] WHERE: message`` with a known code, and that nothing was
written where nothing should be. A few run the real program in a subprocess to prove stderr holds no
traceback. Hypothesis generates broken command files and rig files mutated from the demo rig.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import re
import shutil
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from plain_ids import plain_id

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import RULES, RigFileError, load

DEMO = RESOURCES / "demo"
DEMO_URDF = DEMO / "arm.urdf"
DEMO_RIG_DATA = json.loads((DEMO / "demo.rig.json").read_text(encoding="utf-8"))
BAD_URDFS = sorted((Path(__file__).parent / "data" / "bad_urdf").glob("*.urdf"))

RIGFILE_CODES = {"rigfile.io", "rigfile.json", "rigfile.type", "rigfile.key", "rigfile.missing",
                 "rigfile.unit", "rigfile.value", "rigfile.format", "rigfile.version", "rigfile.duplicate"}
FILE_CODES = {"file.not-regular", "file.too-large", "file.limit"}
RIG_CODES = set(RULES) | RIGFILE_CODES | FILE_CODES | {"export.io"}
ERROR_LINE = re.compile(r"^error\[(?P<code>[a-z]+(?:[.\-][a-z]+)*)\] (?P<where>[^\n]*?): (?P<message>\S.*)$")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- helpers -----------------------------------------------------------------------------------------
def cli(*argv) -> tuple[int, str, str]:
    """``main(argv)`` in-process: (status, stdout, stderr); any exception but SystemExit fails the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own refusals (a missing or malformed option)
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def error_lines(text: str, codes=None) -> list[re.Match]:
    """Every line of ``text`` as a parsed ``error[CODE] WHERE: message`` (fails on any other line, and on a
    line holding a character a terminal would not show as itself)."""
    assert text.endswith("\n"), f"no final newline: {text!r}"
    lines = text[:-1].split("\n")
    matches = []
    for line in lines:
        assert line.isprintable(), f"unprintable characters in {line!r}"
        m = ERROR_LINE.match(line)
        assert m, f"not a coded one-line error: {line!r}"
        assert codes is None or m["code"] in codes, f"unknown code in {line!r}"
        assert "Traceback" not in line
        matches.append(m)
    return matches


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    """A copy of the demo folder (arm, meshes, rig, command files) that tests may write beside."""
    folder = tmp_path_factory.mktemp("demo")
    shutil.copytree(DEMO, folder, dirs_exist_ok=True)
    return folder


def write_rig(folder: Path, data, name: str = "bad.rig.json") -> Path:
    path = folder / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def demo_data() -> dict:
    return copy.deepcopy(DEMO_RIG_DATA)


# == play: recorded command files =======================================================================
CSV_CASES = [
    # (file name, content, code, line or None when the refusal has no line)
    ("garbage.csv", bytes(range(256)) * 3, "commands.format", None),
    ("empty.csv", b"", "commands.empty", None),
    ("blank.csv", b"\n\n   \n# a comment\n", "commands.empty", None),
    ("header.csv", b"time,joint_1\n", "commands.empty", 1),
    ("nan.csv", b"time,joint_1\n0,0\n0.1,NaN\n", "commands.non-finite", 3),
    ("inf.csv", b"time,joint_1\n0,-inf\n", "commands.non-finite", 2),
    ("overflow.csv", b"time,joint_1\n0,1e400\n", "commands.non-finite", 2),
    ("short_row.csv", b"time,joint_1,joint_2\n0,0,0\n0.1,1\n", "commands.columns", 3),
    ("long_row.csv", b"time,joint_1\n0,0\n0.1,1,2,3\n", "commands.columns", 3),
    ("no_time.csv", b"joint_1,time\n0,0\n", "commands.columns", 1),
    ("only_time.csv", b"time\n0\n1\n", "commands.columns", 1),
    ("twice.csv", b"time,joint_1,joint_1\n0,0,0\n", "commands.columns", 1),
    ("nameless.csv", b"time,,joint_1\n0,0,0\n", "commands.columns", 1),
    ("decreasing.csv", b"time,joint_1\n0,0\n0.2,1\n0.1,2\n", "commands.time-order", 4),
    ("repeated.csv", b"# c\ntime,joint_1\n0,0\n0,1\n", "commands.time-order", 4),
    ("word.csv", b"time,joint_1\n0,zero\n", "commands.format", 2),
    ("nul.csv", b"time,joint_1\n0,0\x00\n", "commands.format", 2),
    ("bad_quote.csv", b'time,joint_1\n0,"0\n0.1,1\n', "commands.format", 2),
    ("stray_quote.csv", b'time,joint_1\n0,0"1\n0.1,1\n', "commands.format", 2),
    ("latin1.csv", "time,joint_1\n0,0\n# caf\u00e9\n".encode("latin-1"), "commands.format", None),
    ("unit.csv", b"time,joint_1[furlong]\n0,0\n", "commands.units", 1),
    ("metres_on_revolute.csv", b"# r\ntime,joint_3[m]\n0,0\n0.1,1\n", "commands.units", 2),
    ("unknown.csv", b"time,joint_1,elbow\n0,0,0\n", "commands.unknown-joint", 1),
    ("fixed.csv", b"time,tool0_joint\n0,0\n", "commands.unknown-joint", 1),
    ("vertical_tab.csv", b"time,joint_1\n0,0\x0b0.1,1\n", "commands.columns", 2),
    ("one_sample.csv", b"time,joint_1\n0,0\n", "commands.dt", 1),
    ("huge_times.csv", b"time,joint_1\n-1e308,0\n1e308,1\n", "commands.time-range", 2),
    ("too_many_steps.csv", b"time,joint_1\n0,0\n1e-9,0\n2e-9,0\n1e3,1\n", "commands.dt", None),
    ("huge_continuous.csv", b"time,joint_6\n0,1e308\n1,-1e308\n", "play.non-finite", None),
    ("tiny_spacing.csv", b"time,joint_1\n0,0\n5e-324,1\n", "play.non-finite", None),
]


@pytest.mark.parametrize("name, content, code, line", CSV_CASES, ids=[c[0] for c in CSV_CASES])
def test_play_refuses_a_broken_csv_with_its_code_and_line(tmp_path, name, content, code, line):
    cmd = tmp_path / name
    cmd.write_bytes(content)
    out = tmp_path / "out.npz"
    status, stdout, stderr = cli("play", DEMO_URDF, "--commands", cmd, "--out", out)
    assert status == 2 and stdout == ""
    (m,) = error_lines(stderr)
    assert m["code"] == code, stderr
    assert m["where"] == (f"{cmd}:{line}" if line else str(cmd)), stderr
    assert not out.exists() and not list(tmp_path.glob("*.part.npz"))


def test_values_outside_the_limits_are_clamped_and_counted_not_refused(tmp_path):
    cmd = tmp_path / "wide.csv"
    cmd.write_text("time,joint_1,joint_2\n0,1e300,-1e300\n0.1,0,0\n")
    status, stdout, stderr = cli("play", DEMO_URDF, "--commands", cmd, "--out", tmp_path / "o.npz")
    assert status == 0 and stderr == ""
    assert "clamped command values: 2 of 12 (joint_1: 1, joint_2: 1)" in stdout
    data = np.load(tmp_path / "o.npz")
    assert data["joint_positions"][0, 0] == 2.9 and data["joint_positions"][0, 1] == -1.8
    for key in ("joint_positions", "frame_poses", "frame_angular_velocities"):
        assert np.all(np.isfinite(data[key]))


def _npz(path: Path, **arrays) -> Path:
    np.savez(path, **{k: np.asarray(v) for k, v in arrays.items()})
    return path


def _damaged_npz(path: Path) -> Path:
    good = path.with_name("good.npz")
    np.savez_compressed(good, time=np.arange(2000.0), joint_positions=np.zeros((2000, 1)),
                        joint_names=np.array(["joint_1"]))
    data = bytearray(good.read_bytes())
    data[300:360] = bytes(range(60))  # inside the compressed stream of the first member
    path.write_bytes(bytes(data))
    return path


def _npy_renamed(path: Path) -> Path:
    with open(path, "wb") as fh:
        np.save(fh, np.zeros(3))
    return path


def _zip_of_text(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("time.npy", "not an array")
        z.writestr("joint_positions.npy", "not an array")
        z.writestr("joint_names.npy", "not an array")
    return path


J1 = np.array(["joint_1"])
NPZ_CASES = {
    "not_a_zip": (lambda p: (p.write_bytes(b"PK\x03\x04 but not really"), p)[1], "commands.format"),
    "empty_file": (lambda p: (p.write_bytes(b""), p)[1], "commands.format"),
    "npy_renamed": (_npy_renamed, "commands.format"),
    "damaged_member": (_damaged_npz, "commands.format"),
    "members_not_arrays": (_zip_of_text, "commands.format"),
    "missing_names": (lambda p: _npz(p, time=[0.0], joint_positions=[[0.0]]), "commands.format"),
    "pickled_names": (lambda p: _npz(p, time=[0.0], joint_positions=[[0.0]],
                                     joint_names=np.array(["joint_1"], dtype=object)), "commands.format"),
    "numeric_names": (lambda p: _npz(p, time=[0.0], joint_positions=[[0.0]], joint_names=[1]),
                      "commands.format"),
    "non_utf8_names": (lambda p: _npz(p, time=[0.0], joint_positions=[[0.0]],
                                      joint_names=np.array([b"j\xff"])), "commands.format"),
    "text_times": (lambda p: _npz(p, time=["a"], joint_positions=[[0.0]], joint_names=J1), "commands.format"),
    "complex_values": (lambda p: _npz(p, time=[0.0], joint_positions=np.zeros((1, 1), complex),
                                      joint_names=J1), "commands.format"),
    "scalar_time": (lambda p: _npz(p, time=1.0, joint_positions=[[0.0]], joint_names=J1), "commands.columns"),
    "wrong_columns": (lambda p: _npz(p, time=[0.0, 0.1], joint_positions=np.zeros((2, 3)), joint_names=J1),
                      "commands.columns"),
    "empty_time": (lambda p: _npz(p, time=np.zeros(0), joint_positions=np.zeros((0, 1)), joint_names=J1),
                   "commands.empty"),
    "nan_value": (lambda p: _npz(p, time=[0.0, 0.1], joint_positions=[[0.0], [np.nan]], joint_names=J1),
                  "commands.non-finite"),
    "inf_time": (lambda p: _npz(p, time=[0.0, np.inf], joint_positions=[[0.0], [0.0]], joint_names=J1),
                 "commands.non-finite"),
    "decreasing_unsigned": (lambda p: _npz(p, time=np.array([3, 1], np.uint8), joint_positions=[[0.0], [0.0]],
                                           joint_names=J1), "commands.time-order"),
    "unknown_joint": (lambda p: _npz(p, time=[0.0, 0.1], joint_positions=[[0.0], [0.0]],
                                     joint_names=["shoulder"]), "commands.unknown-joint"),
}


@pytest.mark.parametrize("case", sorted(NPZ_CASES))
def test_play_refuses_a_broken_npz(tmp_path, case):
    make, code = NPZ_CASES[case]
    cmd = make(tmp_path / f"{case}.npz")
    out = tmp_path / "out.npz"
    status, stdout, stderr = cli("play", DEMO_URDF, "--commands", cmd, "--out", out)
    assert status == 2 and stdout == ""
    (m,) = error_lines(stderr)
    assert m["code"] == code and m["where"] == str(cmd), stderr
    assert not out.exists()


def test_play_refuses_missing_and_odd_paths(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("time,joint_1\n0,0\n0.1,1\n")
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "folder.urdf").mkdir()
    out = tmp_path / "out.npz"
    cases = [
        ((DEMO_URDF, "--commands", tmp_path / "missing.csv"), "commands.io"),
        ((DEMO_URDF, "--commands", tmp_path / "folder.csv"), "file.not-regular"),
        ((DEMO_URDF, "--commands", tmp_path / ("x" * 300 + ".csv")), "commands.io"),
        ((DEMO_URDF, "--commands", tmp_path / "commands.txt"), "commands.format"),
        ((tmp_path / "missing.urdf", "--commands", good), "urdf.io"),
        ((tmp_path / "folder.urdf", "--commands", good), "file.not-regular"),
        ((tmp_path / "missing.rig.json", "--commands", good), "rigfile.io"),
        ((good, "--commands", good), "play.format"),
        ((DEMO_URDF, "--commands", good, "--dt", "0"), "play.dt"),
        ((DEMO_URDF, "--commands", good, "--dt", "inf"), "play.dt"),
        ((DEMO_URDF, "--commands", good, "--dt", "1e-320"), "commands.dt"),
        ((DEMO_URDF, "--commands", good, "--servo-tau", "-1"), "play.servo-tau"),
    ]
    for args, code in cases:
        status, stdout, stderr = cli("play", *args, "--out", out)
        assert status == 2 and stdout == "", (args, stderr)
        (m,) = error_lines(stderr)
        assert m["code"] == code, (args, stderr)
    assert not out.exists()
    # argparse refuses what is not a number at all, with its usage line and status 2, no traceback
    status, _, stderr = cli("play", DEMO_URDF, "--commands", good, "--dt", "fast", "--out", out)
    assert status == 2 and "invalid number value: 'fast'" in stderr and "Traceback" not in stderr


def test_play_refuses_an_output_it_cannot_write_and_leaves_nothing(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("time,joint_1\n0,0\n0.1,1\n")
    (tmp_path / "taken.npz").mkdir()
    a_file = tmp_path / "plain"
    a_file.write_text("a file, not a folder")
    for target, code in [(tmp_path / "no" / "such" / "dir" / "o.npz", "play.io"),
                         (a_file / "o.npz", "play.io"),  # the "folder" is a file
                         (tmp_path / "taken.npz", "file.not-regular"),  # a folder where the file would go
                         (tmp_path / "o.csv", "play.out")]:
        status, stdout, stderr = cli("play", DEMO_URDF, "--commands", good, "--out", target)
        assert status == 2 and stdout == ""
        (m,) = error_lines(stderr)
        assert m["code"] == code and str(target) in m["where"], stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.csv", "plain", "taken.npz"]
    assert a_file.read_text() == "a file, not a folder" and not any((tmp_path / "taken.npz").iterdir())


def test_a_failing_output_write_keeps_the_previous_output(tmp_path, monkeypatch):
    good = tmp_path / "good.csv"
    good.write_text("time,joint_1\n0,0\n0.1,1\n")
    out = tmp_path / "o.npz"
    out.write_bytes(b"previous run")

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", refuse)
    status, _, stderr = cli("play", DEMO_URDF, "--commands", good, "--out", out)
    assert status == 2 and error_lines(stderr)[0]["code"] == "play.io" and "No space left" in stderr
    assert out.read_bytes() == b"previous run" and sorted(p.name for p in tmp_path.iterdir()) == ["good.csv",
                                                                                                   "o.npz"]


# -- hypothesis: any command file is played or refused with a code ----------------------------------------
JOINTS = ["joint_1", "joint_2", "joint_6", "joint_1[deg]", "joint_2[rad]", "elbow", "tool0_joint",
          "joint_3[m]", "", " ", "time"]
CELLS = st.one_of(st.sampled_from(["0", "-0", "0.1", "1e308", "-1e308", "1e-320", "nan", "inf", "", " 2 ",
                                   "1_0", "0x10", "abc", '"1"', "1,", "\x00", "\u00e9"]),
                  st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.floats(-10, 10).map(lambda x: f"{x:.3f}"))


GOOD_CELLS = st.floats(-4, 4).map(lambda x: f"{x:.4g}")


@st.composite
def command_files(draw) -> bytes:
    """A command file, usually well formed, with one kind of damage or extreme value in most of them."""
    hostile = draw(st.integers(0, 3)) > 0
    joints = st.sampled_from(JOINTS if hostile else JOINTS[:5])
    header = ["time", *draw(st.lists(joints, min_size=0 if hostile else 1, max_size=4,
                                     unique=not hostile))]
    if hostile and draw(st.integers(0, 5)) == 0:
        header[0] = draw(st.sampled_from(["Time", "t", "time[s]", "time[ms]", ""]))
    lines = [",".join(header)]
    t = draw(st.floats(-5, 5))
    for _ in range(draw(st.integers(0 if hostile else 2, 6))):
        steps = [0.01, 0.1, 0.0, -0.1, 1e-9, 3.0] if hostile else [0.01, 0.1]
        t += draw(st.sampled_from(steps))
        n = len(header) + (draw(st.sampled_from([0, 0, 0, 0, -1, 1])) if hostile else 0)
        cells = [repr(t)] + [draw(CELLS if hostile and draw(st.integers(0, 3)) == 0 else GOOD_CELLS)
                             for _ in range(max(0, n - 1))]
        lines.append(",".join(cells))
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(["# note", "", "  ", "\r"])))
    text = "\n".join(lines).encode("utf-8")
    if hostile and draw(st.integers(0, 9)) == 0:
        text += draw(st.binary(max_size=20))
    return text


@SETTINGS
@given(content=command_files(), dt=st.sampled_from([None, "0.05", "1e-12"]))
def test_any_command_file_plays_or_is_refused_with_a_code(tmp_path_factory, content, dt):
    folder = tmp_path_factory.mktemp("cmd")
    cmd = folder / "c.csv"
    cmd.write_bytes(content)
    out = folder / "o.npz"
    status, stdout, stderr = cli("play", DEMO_URDF, "--commands", cmd, "--out", out, "--quiet",
                                 *(["--dt", dt] if dt else []))
    event(f"status {status}")
    if status == 0:
        assert stderr == "" and stdout == ""
        data = np.load(out)
        for key in ("time", "joint_positions", "frame_poses", "frame_angular_velocities"):
            assert np.all(np.isfinite(data[key])), key
        node_limits = (-2.9 - 1e-12, 2.9 + 1e-12)
        assert np.all((data["joint_positions"][:, 0] >= node_limits[0])
                      & (data["joint_positions"][:, 0] <= node_limits[1]))
    else:
        assert status == 2 and stdout == ""
        (m,) = error_lines(stderr)
        assert m["code"].startswith(("commands.", "play.")), stderr
        assert m["where"].startswith(str(cmd)), stderr
        assert not out.exists()


@SETTINGS
@given(time=st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5),
       values=st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=10),
       names=st.lists(st.sampled_from(JOINTS), max_size=3), kind=st.sampled_from(["f", "i", "u", "U"]))
def test_any_npz_plays_or_is_refused_with_a_code(tmp_path_factory, time, values, names, kind):
    folder = tmp_path_factory.mktemp("npz")
    t = np.array(time)
    if kind in "iu":
        t = np.nan_to_num(t, posinf=0, neginf=0).clip(0, 1e6).astype(kind + "8")
    elif kind == "U":
        t = t.astype(str)
    k = len(names)
    q = np.array(values[: (len(values) // k) * k] if k else values, dtype=float)
    q = q.reshape(-1, k) if k else q
    path = _npz(folder / "c.npz", time=t, joint_positions=q, joint_names=np.array(names, dtype=str))
    out = folder / "o.npz"
    status, _, stderr = cli("play", DEMO_URDF, "--commands", path, "--dt", "0.1", "--out", out, "--quiet")
    event(f"status {status}")
    if status != 0:
        assert status == 2
        (m,) = error_lines(stderr)
        assert m["code"].startswith(("commands.", "play.")) and m["where"] == str(path), stderr
    else:
        assert np.all(np.isfinite(np.load(out)["frame_poses"]))


# == validate / report / export: rig files ==============================================================
def _mutated(pointer_keys, value):
    data = demo_data()
    target = data
    for key in pointer_keys[:-1]:
        target = target[key]
    if isinstance(target, list) and pointer_keys[-1] == len(target):
        target.append(value)
    else:
        target[pointer_keys[-1]] = value
    return data


RIGFILE_CASES = [
    # (id, file content, code, JSON pointer or None, line or None)
    ("not_json", "{", "rigfile.json", None, 1),
    ("empty", "", "rigfile.json", None, 1),
    ("binary", bytes(range(256)), "rigfile.json", None, None),
    ("utf16", json.dumps(DEMO_RIG_DATA).encode("utf-16"), "rigfile.json", None, None),
    ("deep_lists", "[" * 100_000 + "]" * 100_000, "rigfile.json", None, None),
    ("deep_objects", '{"a":' * 50_000 + "1" + "}" * 50_000, "rigfile.json", None, None),
    ("nan", '{"format": "mime-rig", "version": NaN, "name": "x"}', "rigfile.json", None, None),
    ("huge_integer_text", '{"format": "mime-rig", "version": ' + "9" * 5000 + ', "name": "x"}',
     "rigfile.json", None, None),
    ("duplicate_key", '{"format": "mime-rig",\n "version": 1,\n "name": "x",\n "parts": {"p":\n'
     ' {"geometry": {"type": "sphere", "unit": "m", "radius": 1, "radius": 2}}}}', "rigfile.duplicate", None,
     5),
    ("top_list", "[]", "rigfile.type", "/", None),
    ("top_null", "null", "rigfile.type", "/", None),
    ("wrong_format", json.dumps({**DEMO_RIG_DATA, "format": "urdf"}), "rigfile.format", "/format", None),
    ("format_list", json.dumps({**DEMO_RIG_DATA, "format": ["mime-rig"]}), "rigfile.format", "/format", None),
    ("version_2", json.dumps({**DEMO_RIG_DATA, "version": 2}), "rigfile.version", "/version", None),
    ("version_text", json.dumps({**DEMO_RIG_DATA, "version": "1"}), "rigfile.version", "/version", None),
    ("version_float", json.dumps({**DEMO_RIG_DATA, "version": 1.0}), "rigfile.version", "/version", None),
    ("version_bool", json.dumps({**DEMO_RIG_DATA, "version": True}), "rigfile.version", "/version", None),
    ("missing_name", json.dumps({"format": "mime-rig", "version": 1}), "rigfile.missing", "/", None),
    ("unknown_top_key", json.dumps({**DEMO_RIG_DATA, "colour": 1}), "rigfile.key", "/colour", None),
    ("name_number", json.dumps({**DEMO_RIG_DATA, "name": 3}), "rigfile.type", "/name", None),
    ("chain_object", json.dumps({**DEMO_RIG_DATA, "chain": {}}), "rigfile.type", "/chain", None),
    ("parts_list", json.dumps({**DEMO_RIG_DATA, "parts": []}), "rigfile.type", "/parts", None),
    ("segment_null", json.dumps(_mutated(["chain", 0], None)), "rigfile.type", "/chain/0", None),
    ("kind_list", json.dumps(_mutated(["chain", 0, "kind"], ["Arm.Dynamic"])), "rigfile.value",
     "/chain/0/kind", None),
    ("kind_object", json.dumps(_mutated(["chain", 1, "kind"], {"a": 1})), "rigfile.value", "/chain/1/kind",
     None),
    ("kind_unknown", json.dumps(_mutated(["chain", 1, "kind"], "Motor.Quantum")), "rigfile.value",
     "/chain/1/kind", None),
    ("geometry_type_object", json.dumps(_mutated(["parts", "holder", "geometry", "type"], {"a": 1})),
     "rigfile.value", "/parts/holder/geometry/type", None),
    ("geometry_type_list", json.dumps(_mutated(["magnets", "m1", "geometry", "type"], [])),
     "rigfile.value", "/magnets/m1/geometry/type", None),
    ("radius_text", json.dumps(_mutated(["parts", "holder", "geometry", "radius"], "1 cm")), "rigfile.type",
     "/parts/holder/geometry/radius", None),
    ("radius_1e999", json.dumps(DEMO_RIG_DATA).replace('"radius": 0.01', '"radius": 1e999'),
     "rigfile.value", "/parts/holder/geometry/radius", None),
    ("radius_400_digits", json.dumps(DEMO_RIG_DATA).replace('"radius": 0.01', '"radius": ' + "9" * 400),
     "rigfile.value", "/parts/holder/geometry/radius", None),
    ("at_two_numbers", json.dumps(_mutated(["chain", 0, "at", "value"], [0, 0])), "rigfile.type",
     "/chain/0/at/value", None),
    ("at_bool", json.dumps(_mutated(["chain", 0, "at", "value"], [0, True, 0])), "rigfile.type",
     "/chain/0/at/value/1", None),
    ("at_in_mm", json.dumps(_mutated(["chain", 0, "at", "unit"], "mm")), "rigfile.unit", "/chain/0/at/unit",
     None),
    ("unknown_part_key", json.dumps(_mutated(["parts", "holder", "colour"], "red")), "rigfile.key",
     "/parts/holder/colour", None),
    ("slash_in_name", json.dumps(_mutated(["parts", "a/b~c"], {"geometry": 1})), "rigfile.type",
     "/parts/a~1b~0c/geometry", None),
    ("reason_number", json.dumps(_mutated(["chain", 1, "inertia", "reason"], 7)), "rigfile.type",
     "/chain/1/inertia/reason", None),
    ("quantity_unit_unknown", json.dumps(_mutated(["chain", 1, "inertia", "unit"], "g cm2")), "rigfile.unit",
     "/chain/1/inertia/unit", None),
    ("initial_positions_list", json.dumps(_mutated(["chain", 0, "initial_positions", "value"], [1])),
     "rigfile.type", "/chain/0/initial_positions/value", None),
    ("duplicate_segment", json.dumps(_mutated(["chain", 2], DEMO_RIG_DATA["chain"][1])), "rigfile.duplicate",
     "/chain/2/name", None),
    ("lone_surrogate_name", '{"format": "mime-rig", "version": 1, "name": "\\ud800"}', "rigfile.value",
     "/name", None),
    ("lone_surrogate_key", json.dumps(DEMO_RIG_DATA).replace('"holder"', '"\\udc00"'), "rigfile.value",
     "/parts/\\udc00", None),  # the pointer prints the escape: no terminal can print a lone surrogate
    ("newline_key", json.dumps(_mutated(["parts", "holder", "two\nlines"], 1)), "rigfile.key",
     "/parts/holder/two\\nlines", None),
]


@pytest.mark.parametrize("case", RIGFILE_CASES, ids=[c[0] for c in RIGFILE_CASES])
@pytest.mark.parametrize("command", ["validate", "report", "export"])
def test_a_refused_rig_file_is_one_coded_line_with_its_pointer(demo_dir, tmp_path, command, case):
    name, content, code, pointer, line = case
    path = write_rig(demo_dir, content, f"{name}.rig.json")
    extra = ["--json", tmp_path / "out.rig.json"] if command == "export" else []
    status, stdout, _ = cli(command, path, *extra)
    assert status == 1
    (m,) = error_lines(stdout, RIG_CODES)
    assert m["code"] == code, stdout
    line = line or (1 if pointer else None)  # a document with a pointer is one line: the value is on it
    assert m["where"] == str(path) + (f":{line}" if line else ""), stdout
    assert m["message"].startswith(f"#{pointer}: ") if pointer else not m["message"].startswith("#"), stdout
    assert not (tmp_path / "out.rig.json").exists()


FINDING_CASES = [
    # (id, edit of the demo data, rule code, rig path)
    ("missing_urdf", (["chain", 0, "description"], "nowhere/arm.urdf"), "chain.description",
     "chain.arm.description"),
    ("urdf_is_a_folder", (["chain", 0, "description"], "meshes"), "chain.description",
     "chain.arm.description"),
    ("urdf_is_the_rig", (["chain", 0, "description"], "demo.rig.json"), "chain.description",
     "chain.arm.description"),
    ("empty_description", (["chain", 0, "description"], ""), "chain.description", "chain.arm.description"),
    ("nul_description", (["chain", 0, "description"], "arm\x00.urdf"), "chain.description",
     "chain.arm.description"),
    ("mesh_missing", (["parts", "holder", "geometry"], {"type": "mesh", "path": "no.stl"}), "part.geometry",
     "parts.holder.geometry"),
    ("mesh_is_urdf", (["parts", "holder", "geometry"], {"type": "mesh", "path": "arm.urdf"}), "part.geometry",
     "parts.holder.geometry"),
    ("mesh_nul", (["parts", "holder", "geometry"], {"type": "mesh", "path": "a\x00b.stl"}), "part.geometry",
     "parts.holder.geometry"),
    ("radius_overflows_volume", (["parts", "holder", "geometry", "radius"], 1e200), "part.geometry",
     "parts.holder.geometry"),
    ("radius_underflows_volume", (["parts", "holder", "geometry", "radius"], 5e-324), "part.geometry",
     "parts.holder.geometry"),
    ("mass_over_a_tiny_volume", (["parts", "holder", "mass"], {"value": 1e308, "unit": "kg", "reason": "x"}),
     "part.mass", "parts.holder.mass"),
    ("rotor_overflows", (["chain", 0, "actuators", "motor_3", "value"], 1e308), "chain.armature",
     "chain.arm.actuators.motor_3"),
    ("remanence_overflows", (["magnets", "m1"], {
        **DEMO_RIG_DATA["magnets"]["m1"], "geometry": {"type": "sphere", "unit": "m", "radius": 1.0},
        "remanence": {"value": 1e308, "unit": "T", "reason": "x"}}),
     "magnet.remanence", "magnets.m1.remanence"),
    ("zero_magnetisation", (["magnets", "m1", "magnetisation"], [0, 0, 0]), "magnet.magnetisation",
     "magnets.m1.magnetisation"),
    ("bare_inertia", (["chain", 1, "inertia"], 3e-6), "unit", "chain.motor.inertia"),
    ("no_reason", (["chain", 1, "inertia", "reason"], "  "), "declaration.reason", "chain.motor.inertia"),
    ("unknown_actuator", (["chain", 0, "actuators", "motor_9"], "example-bldc-60mm"), "chain.armature",
     "chain.arm.actuators.motor_9"),
    ("both_ways", (["chain", 0, "armature", "joint_1"], {"value": 1e-4, "unit": "kg m2", "reason": "x"}),
     "chain.armature", "chain.arm.actuators.motor_1"),  # the second source of joint_1 is the one refused
    ("mount_nowhere", (["chain", 1, "mount"], "flange"), "chain.mount", "chain.motor.mount"),
    ("first_mounted", (["chain", 0, "mount"], "tool0"), "chain.mount-first", "chain.arm.mount"),
    ("part_mount_nowhere", (["parts", "holder", "mount"], "motor.shaft"), "part.mount", "parts.holder.mount"),
    ("material_unknown", (["parts", "holder", "material"], "unobtainium"), "part.material",
     "parts.holder.material"),
]


@pytest.mark.parametrize("case", FINDING_CASES, ids=[c[0] for c in FINDING_CASES])
def test_a_rig_breaking_a_rule_is_refused_by_every_command_and_nothing_is_written(demo_dir, tmp_path, case):
    name, (keys, value), code, where = case
    path = write_rig(demo_dir, _mutated(keys, value), f"{name}.rig.json")
    status, stdout, _ = cli("validate", path)
    assert status == 1
    found = {(m["code"], m["where"]) for m in error_lines(stdout, RIG_CODES)}
    assert (code, where) in found, stdout
    for command, extra in [("report", []), ("report", ["--json"]),
                           ("export", ["--json", tmp_path / "o.rig.json"]),
                           ("export", ["--python", tmp_path / "o.py"])]:
        status, again, err = cli(command, path, *extra)
        assert status == 1 and again == stdout, (command, again)
        assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
    # play refuses it too, on one line naming the first finding and how many more
    cmd = demo_dir / "wave.csv"
    status, _, stderr = cli("play", path, "--commands", cmd, "--out", tmp_path / "o.npz")
    assert status == 2 and error_lines(stderr, RIG_CODES)[0]["code"] in RIG_CODES
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("urdf", BAD_URDFS, ids=[p.stem for p in BAD_URDFS])
def test_a_description_the_reader_refuses_is_a_finding_with_the_readers_code(demo_dir, tmp_path, urdf):
    from mime_gui.multibody import UrdfError, read_urdf

    try:
        tree = read_urdf(urdf)
    except UrdfError as exc:
        refused = exc.code
    else:  # a defect confined to one element: it loads with the error in its report; strict refuses it
        assert tree.report.errors, f"{urdf.name} loads without an error in its report"
        with pytest.raises(UrdfError) as strict:
            read_urdf(urdf, strict=True)
        assert strict.value.code in {e.code for e in tree.report.errors}
        return
    data = demo_data()
    data["chain"][0]["description"] = str(urdf)
    path = write_rig(demo_dir, data, f"urdf_{urdf.stem}.rig.json")
    status, stdout, _ = cli("validate", path)
    assert status == 1
    lines = error_lines(stdout, RIG_CODES)
    assert (lines[0]["code"], lines[0]["where"]) == ("chain.description", "chain.arm.description")
    assert f"[{refused}]" in lines[0]["message"]
    status, _, stderr = cli("play", urdf, "--commands", demo_dir / "wave.csv", "--out", tmp_path / "o.npz")
    assert status == 2 and error_lines(stderr)[0]["code"] == refused


# -- wrong types at every level of the demo rig --------------------------------------------------------
def _pointers(value, keys=()):
    """(keys, value) of every value in the document, outermost first."""
    yield keys, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _pointers(v, (*keys, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _pointers(v, (*keys, i))


def _escape(key) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


WRONG = [None, True, -1, 1.5e308, "", "x", [], [1, 2, 3], {}, {"value": 1, "unit": "kg"}]


def _wrong_type_cases():
    for keys, value in _pointers(DEMO_RIG_DATA):
        if not keys:
            continue
        for wrong in WRONG:
            if type(wrong) is type(value) and wrong == value:
                continue
            yield keys, wrong


def test_a_wrong_type_anywhere_is_a_refusal_at_that_place_or_a_finding(demo_dir):
    """Every value of the demo rig replaced by each of a few values of other types: the file is refused
    with a pointer at (or beside) the replaced value, or it loads and validation returns findings; no other
    exception, ever."""
    seen = {"refused": 0, "findings": 0, "valid": 0}
    for keys, wrong in _wrong_type_cases():
        data = copy.deepcopy(DEMO_RIG_DATA)
        target = data
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = wrong
        pointer = "/" + "/".join(_escape(k) for k in keys)
        parent = pointer.rsplit("/", 1)[0] or "/"
        path = write_rig(demo_dir, data, "wrong.rig.json")
        try:
            rig = load(path)
        except RigFileError as exc:
            assert exc.code in RIGFILE_CODES
            p = exc.pointer
            related = (p == "/" or parent == "/" or p.startswith(parent) or parent.startswith(p)
                       or pointer.startswith(p))
            assert related, (pointer, wrong, exc.one_line())
            assert "Traceback" not in exc.one_line()
            seen["refused"] += 1
            continue
        findings = rig.validate()
        assert all(f.code in RULES and f.where and f.message for f in findings), findings
        seen["findings" if findings else "valid"] += 1
    assert seen["refused"] > 300 and seen["findings"] > 10, seen


# -- hypothesis: mutated demo rigs -----------------------------------------------------------------------
ANY_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False)
    | st.sampled_from(["", "arm.urdf", "meshes", "tool0", "motor.rotor", "aluminium", "kg", "kg m2", "m",
                       "Arm.Kinematic", "Motor.Dynamic", "box", "mesh", "mime-rig", "rad|m", "a.b", " x "])
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


KEYWORDS = {"unit": ["m", "kg", "kg m2", "kg/m3", "T", "s", "rad", "rad|m"], "format": ["mime-rig"],
            "kind": ["Arm.Kinematic", "Arm.Dynamic", "Motor.Kinematic", "Motor.Dynamic"],
            "type": ["box", "cylinder", "sphere", "mesh"], "version": [1]}


def _similar(key, value):
    """Values of the same JSON type as ``value``: the mutations that reach validation, not only loading."""
    if key in KEYWORDS:
        return st.sampled_from(KEYWORDS[key])
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int | float):
        return st.sampled_from([0, -1, 1e-300, 1e308, -0.0, 0.5, 3]) | st.floats(allow_nan=False,
                                                                                 allow_infinity=False)
    if isinstance(value, str):
        return st.sampled_from(["", "arm.urdf", "meshes/base.stl", "meshes/wrist.obj", "tool0", "link_6",
                                "motor.rotor", "motor.stator", "arm.link_3", "aluminium", "NdFeB-N42",
                                "steel", "example-bldc-60mm", "a.b", " x ", "joint_1", "shaft",
                                "\u00e9 'q' \\", "two\nlines"])
    if isinstance(value, list):
        return st.lists(st.floats(-2, 2) | st.sampled_from([0.0, 1e308]), min_size=len(value),
                        max_size=len(value))
    return ANY_VALUE


@st.composite
def mutated_rigs(draw):
    data = demo_data()
    for _ in range(draw(st.integers(1, 3))):
        places = [keys for keys, _ in _pointers(data) if keys]
        if not places:
            break
        keys = draw(st.sampled_from(places))
        target = data
        for key in keys[:-1]:
            target = target[key]
        last = keys[-1]
        action = draw(st.sampled_from(["similar"] * 6 + ["drop", "replace", "rename"]))
        if action == "drop":
            del target[last]
        elif action == "rename" and isinstance(target, dict):
            target[draw(st.sampled_from(["name", "mount", "at", "kind", "colour", "value", "unit"]))] = \
                target.pop(last)
        elif action == "similar":
            target[last] = draw(_similar(last, target[last]))
        else:
            target[last] = draw(ANY_VALUE)
    return data


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mutated_rigs())
def test_a_mutated_demo_rig_gives_only_coded_errors(demo_dir, data):
    path = write_rig(demo_dir, data, "mutated.rig.json")
    status, stdout, stderr = cli("validate", path)
    event("valid" if status == 0 else stdout[:stdout.index("]") + 1] if stdout.startswith("error[") else "?")
    assert stderr == ""
    if status == 0:
        assert stdout.endswith("is valid (" + stdout.rsplit("is valid (", 1)[1]) and "error[" not in stdout
        status, stdout, stderr = cli("report", path, "--json")
        assert status == 0 and "segments" in json.loads(stdout)
        out = demo_dir / "mutated_out.rig.json"
        status, stdout, _ = cli("export", path, "--json", out)
        assert status == 0 and load(out) == load(path)
    else:
        assert status == 1
        lines = error_lines(stdout, RIG_CODES)
        for m in lines:
            if m["code"] in RIGFILE_CODES:
                assert len(lines) == 1 and m["where"].startswith(str(path))
        status, again, stderr = cli("report", path)
        assert status == 1 and again == stdout and "Traceback" not in stderr


# -- saves: atomic, and nothing written for an invalid rig ------------------------------------------------
def test_export_of_an_invalid_rig_writes_nothing_and_keeps_an_old_file(demo_dir, tmp_path):
    path = write_rig(demo_dir, _mutated(["parts", "holder", "material"], "unobtainium"), "invalid.rig.json")
    old_json, old_py = tmp_path / "old.rig.json", tmp_path / "old.py"
    old_json.write_text("old json")
    old_py.write_text("old python")
    for option, target in [("--json", old_json), ("--python", old_py), ("--json", tmp_path / "new.rig.json"),
                           ("--python", tmp_path / "new.py")]:
        status, stdout, stderr = cli("export", path, option, target)
        assert status == 1 and "nothing written" in stderr
        assert [m["code"] for m in error_lines(stdout, RIG_CODES)] == ["part.material"]
    assert old_json.read_text() == "old json" and old_py.read_text() == "old python"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.py", "old.rig.json"]


@pytest.mark.parametrize("failing", ["fsync", "replace", "write"])
@pytest.mark.parametrize("option", ["--json", "--python"])
def test_a_failing_save_keeps_the_old_file_intact(tmp_path, monkeypatch, failing, option):
    target = tmp_path / ("old.rig.json" if option == "--json" else "old.py")
    target.write_text("the old contents\n")

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    real_fdopen = os.fdopen

    class HalfFull:
        """The temporary file: half the text goes in, then the disk is full."""

        def __init__(self, fd, *args, **kwargs):
            self.fh = real_fdopen(fd, *args, **kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, text):
            self.fh.write(text[: len(text) // 2])
            raise OSError(28, "No space left on device")

    if failing == "write":
        monkeypatch.setattr(os, "fdopen", HalfFull)
    else:
        monkeypatch.setattr(os, failing, refuse)
    status, stdout, _ = cli("export", DEMO / "demo.rig.json", option, target)
    monkeypatch.undo()
    assert status == 1
    (m,) = error_lines(stdout, RIG_CODES)
    assert m["code"] == "export.io" and m["where"] == str(target) and "No space left" in m["message"]
    assert target.read_text() == "the old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]  # no temporary file left


def test_export_to_a_place_that_cannot_hold_a_file(tmp_path):
    a_file = tmp_path / "plain"
    a_file.write_text("x")
    (tmp_path / "taken.rig.json").mkdir()
    for option, target, code in [("--json", tmp_path / "no" / "dir" / "o.rig.json", "export.io"),
                                 ("--python", a_file / "o.py", "export.io"),
                                 ("--json", tmp_path / "taken.rig.json", "file.not-regular")]:
        status, stdout, _ = cli("export", DEMO / "demo.rig.json", option, target)
        assert status == 1
        (m,) = error_lines(stdout, RIG_CODES)
        assert m["code"] == code and m["where"] == str(target), stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plain", "taken.rig.json"]
    assert a_file.read_text() == "x" and not any((tmp_path / "taken.rig.json").iterdir())


def test_a_rig_holding_text_a_file_cannot_store_is_refused_by_save_not_half_written(tmp_path, monkeypatch):
    from mime_gui.rig import RigFileError, save

    rig = load(DEMO / "demo.rig.json")
    rig.chain["motor"].inertia = type(rig.chain["motor"].inertia)(3e-6, "kg m2", "bad \ud800 reason")
    target = tmp_path / "r.rig.json"
    target.write_text("old")
    with pytest.raises(RigFileError) as info:
        save(rig, target)
    assert info.value.code == "rigfile.value" and info.value.pointer == "/chain/1/inertia/reason"
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["r.rig.json"]
    # the export command says so on one line, and writes nothing either
    import argparse

    from mime_gui.cli import rig as rig_command

    monkeypatch.setattr("mime_gui.rig.load", lambda path: rig)
    out = io.StringIO()
    args = argparse.Namespace(rig="r.rig.json", command="export", python=None, json=str(target))
    assert rig_command.run(args, out, io.StringIO()) == 1
    (m,) = error_lines(out.getvalue(), RIG_CODES)
    assert m["code"] == "rigfile.value" and m["where"] == "#/chain/1/inertia/reason"
    assert target.read_text() == "old"
    # a name with a lone surrogate is a finding, so nothing exports it
    rig = load(DEMO / "demo.rig.json")
    rig.parts["\udcff"] = rig.parts.pop("holder")
    assert [(f.code, f.where) for f in rig.validate()] == [("name.invalid", "parts.\udcff")]
    assert str(rig.validate()[0]).startswith("error[name.invalid] parts.\\udcff: ")
    rig = load(DEMO / "demo.rig.json")
    rig.name = "demo \ud800"
    assert [(f.code, f.where) for f in rig.validate()] == [("name.invalid", "name")]


# -- the Python export: hostile text is quoted, never executed --------------------------------------------
HOSTILE = [
    "it's", 'say "hi"', "back\\slash\\", "new\nline", "cr\rlf\r\n", "tab\t", "nul\x00", "x\x85\u2028\u2029y",
    "'''", '"""', "\\'); import os; os.system('false') #", "{rig}", "${HOME}", "\u00e9\u4e2d\U0001f9f2",
    "'; open(__file__ + '.pwned', 'w').write('x'); '", "\\N{BULLET}", "\\x41", "end\\",
]


def _rig_with_text(text: str):
    rig = load(DEMO / "demo.rig.json")
    motor = rig.chain["motor"]
    motor.inertia = type(motor.inertia)(motor.inertia.value, motor.inertia.unit, text)
    # a name keeps the rule of names (no control characters); a reason is free text and keeps them all
    shown = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Zl", "Zp"))
    rig.name = "rig " + shown
    part = rig.parts.pop("holder")
    name = shown.replace(".", "").strip() or "p"
    rig.parts[name] = part
    part.material = "aluminium"
    return rig, name


def _exec_export(path: Path):
    namespace = {"__file__": str(path), "__name__": "exported"}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)  # noqa: S102
    return namespace["rig"]


@pytest.mark.parametrize("text", HOSTILE, ids=[f"text{i}" for i in range(len(HOSTILE))])
def test_hostile_names_and_reasons_export_and_execute_into_an_equal_rig(tmp_path, text):
    from mime_gui.rig import save
    from mime_gui.rig.export import export_python

    rig, part = _rig_with_text(text)
    assert rig.validate() == []
    out = tmp_path / "rig.py"
    export_python(rig, out)
    again = _exec_export(out)
    assert again == rig and again.chain["motor"].inertia.reason == text and part in again.parts
    assert not list(tmp_path.glob("*.pwned"))
    # and through the rig file, losslessly
    save(rig, tmp_path / "r.rig.json")
    assert load(tmp_path / "r.rig.json") == rig


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reason=st.text(st.characters(codec="utf-8"), max_size=30),
       name=st.text(st.characters(codec="utf-8", exclude_characters=".",
                                  exclude_categories=("Cc", "Zl", "Zp")), min_size=1, max_size=12))
def test_any_text_exports_and_executes_back(tmp_path_factory, reason, name):
    from mime_gui.rig.export import export_python

    rig = load(DEMO / "demo.rig.json")
    motor = rig.chain["motor"]
    motor.inertia = type(motor.inertia)(motor.inertia.value, motor.inertia.unit, reason + "r")
    rig.magnets["m_" + name.strip()] = rig.magnets.pop("m1")
    rig.name = name
    assert rig.validate() == [] or not name.strip()
    if not name.strip():
        rig.name = "r" + name
    out = tmp_path_factory.mktemp("export") / "rig.py"
    export_python(rig, out)
    assert _exec_export(out) == rig


# == sweep: every bad --vary, option and table =============================================================
SWEEP_VARY_CASES = [
    # (--vary values, code): each refused at --vary before any variant is computed
    (["parts.holder.geometry.radius"], "sweep.vary"),  # no =
    (["=0.01"], "sweep.vary"),
    (["parts.holder.geometry.radius="], "sweep.vary"),
    (["parts.holder.geometry.radius=1", "parts.holder.geometry.radius=2"], "sweep.vary"),
    (["parts.nothing.geometry.radius=0.01"], "sweep.path"),
    (["parts.holder.geometry.girth=0.01"], "sweep.path"),
    (["furniture.holder=0.01"], "sweep.path"),
    (["parts.holder.at.3=0.01"], "sweep.path"),  # a vector of three
    (["parts.holder.at.x=0.01"], "sweep.path"),
    (["parts.holder.at=0.01"], "sweep.type"),  # a vector: one component by its index
    (["parts.holder.geometry=0.01"], "sweep.type"),
    (["parts.holder=0.01"], "sweep.type"),
    (["chain.arm.initial_positions=0.1"], "sweep.type"),
    (["magnets.m1.remanence=1.3"], "sweep.type"),  # not set in the rig
    (["parts.holder.geometry.radius=0.01:0.03"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:5:7"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:0"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:-2"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:100001"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:99999999999999999999999"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:2.5"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:0.03:1_0"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01:inf:3"], "sweep.range"),
    (["parts.holder.geometry.radius=-1e308:1e308:3"], "sweep.range"),  # the span overflows
    (["parts.holder.geometry.radius=a:b:3"], "sweep.range"),
    (["parts.holder.geometry.radius=0.01,,0.02"], "sweep.range"),
    (["parts.holder.mount=motor.rotor,"], "sweep.range"),
    (["parts.holder.geometry.radius=big"], "sweep.value"),
    (["parts.holder.geometry.radius=nan"], "sweep.value"),
    (["parts.holder.geometry.radius=1e400"], "sweep.value"),
    (["parts.holder.geometry.radius=\u0663"], "sweep.value"),  # an Arabic-Indic three
    (["chain.motor.inertia.unit=furlong"], "sweep.value"),  # text the rig's own checks refuse
    (["parts.holder.geometry.radius=0.01:0.02:1000", "parts.holder.geometry.length=0.01:0.02:1000"],
     "sweep.too-many"),
    ([], "sweep.vary"),
]


@pytest.mark.parametrize("vary, code", SWEEP_VARY_CASES,
                         ids=[plain_id("|".join(v)) or "none" for v, _ in SWEEP_VARY_CASES])
def test_sweep_refuses_a_bad_vary_at_the_option_with_its_code(demo_dir, tmp_path, vary, code):
    out = tmp_path / "table.csv"
    argv = ["sweep", demo_dir / "demo.rig.json", *[f"--vary={v}" for v in vary], "--out", out, "--workers", 1]
    if not vary:  # argparse requires one: the API refuses none with its code
        from mime_gui.sweep import SweepError, parse_all

        with pytest.raises(SweepError) as info:
            parse_all([], load(demo_dir / "demo.rig.json"))
        assert info.value.code == code
        status, stdout, stderr = cli(*argv)
        assert status == 2 and "--vary" in stderr and "Traceback" not in stderr
        return
    status, stdout, stderr = cli(*argv)
    assert status == 2 and stdout == ""
    (m,) = error_lines(stderr)
    assert (m["code"], m["where"]) == (code, "--vary"), stderr
    assert not out.exists()


def test_sweep_refuses_bad_options_files_and_tables_and_keeps_what_was_there(demo_dir, tmp_path, monkeypatch):
    rig, vary = demo_dir / "demo.rig.json", "--vary=parts.holder.geometry.radius=0.01"
    (tmp_path / "folder.csv").mkdir()
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n")
    damaged = tmp_path / "damaged.csv"
    damaged.write_text(f"# mime-gui sweep: key {'0' * 64}; 1 variants\nvariant,findings\n0,1,2\n")
    cases = [
        ((rig, vary, "--out", tmp_path / "t.txt"), "sweep.out", str(tmp_path / "t.txt")),
        ((rig, vary, "--out", tmp_path / "t.csv", "--workers", "0"), "sweep.workers", "--workers"),
        ((rig, vary, "--out", tmp_path / "t.csv", "--workers", "257"), "sweep.workers", "--workers"),
        ((rig, vary, "--out", tmp_path / "t.csv", "--workers", "1", "--scheduler", "tcp://127.0.0.1:9"),
         "sweep.workers", "--workers"),
        ((rig, vary, "--out", tmp_path / "t.csv", "--dt", "0"), "sweep.dt", "--dt"),
        ((rig, vary, "--out", tmp_path / "t.csv", "--servo-tau", "-1"), "sweep.servo-tau", "--servo-tau"),
        ((DEMO_URDF, vary, "--out", tmp_path / "t.csv"), "sweep.format", str(DEMO_URDF)),
        ((tmp_path / "missing.rig.json", vary, "--out", tmp_path / "t.csv"), "rigfile.io",
         str(tmp_path / "missing.rig.json")),
        ((rig, vary, "--commands", tmp_path / "missing.csv", "--out", tmp_path / "t.csv"), "commands.io",
         str(tmp_path / "missing.csv")),
        ((rig, vary, "--out", tmp_path / "folder.csv", "--workers", "1"), "file.not-regular",
         str(tmp_path / "folder.csv")),
        ((rig, vary, "--out", plain, "--workers", "1"), "sweep.table", f"{plain}:1"),
        ((rig, vary, "--out", damaged, "--workers", "1"), "sweep.table", f"{damaged}:3"),
    ]
    for args, code, where in cases:
        status, stdout, stderr = cli("sweep", *args)
        assert status == 2 and stdout == "", (args, stderr)
        (m,) = error_lines(stderr)
        assert (m["code"], m["where"]) == (code, where), (args, stderr)
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", "0.01")  # what one worker holds while it plays a variant
    status, _, stderr = cli("sweep", rig, vary, "--commands", DEMO / "chain.csv", "--out", tmp_path / "t.csv")
    (m,) = error_lines(stderr)
    assert status == 2 and (m["code"], m["where"]) == ("sweep.too-large", str(DEMO / "chain.csv"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.csv", "folder.csv", "plain.csv"]
    assert plain.read_text() == "a,b\n1,2\n" and not any((tmp_path / "folder.csv").iterdir())


@SETTINGS
@given(text=st.text(st.sampled_from("parts.holder.geometry.radius.mount.at.012:,=-e+ x\u0663"), max_size=60)
       | st.text(max_size=30))
def test_any_vary_text_is_a_variant_list_or_a_coded_refusal(text):
    from mime_gui.sweep import MAX_VARIANTS, SweepError, parse_all

    try:
        varies = parse_all([text], load(DEMO / "demo.rig.json"))
    except SweepError as exc:
        event(exc.code)
        assert exc.code.startswith("sweep.") and exc.file == "--vary" and exc.message
        return
    event("taken")
    assert 1 <= len(varies[0].values) <= MAX_VARIANTS


# == one subprocess per command: the real program, no traceback on stderr ================================
def _run(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "mime_gui", *map(str, argv)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_the_program_never_prints_a_traceback(demo_dir, tmp_path):
    bad_npz = _damaged_npz(tmp_path / "damaged.npz")
    deep = write_rig(tmp_path, "[" * 100_000 + "]" * 100_000, "deep.rig.json")
    surrogate = write_rig(tmp_path, '{"format": "mime-rig", "version": 1, "name": "\\ud800"}',
                          "surrogate.rig.json")
    nul = write_rig(demo_dir, _mutated(["chain", 0, "description"], "arm\x00.urdf"), "nul.rig.json")
    cases = [
        (("play", DEMO_URDF, "--commands", bad_npz, "--out", tmp_path / "o.npz"), 2, "commands.format"),
        (("validate", deep), 1, "rigfile.json"),
        (("report", surrogate, "--json"), 1, "rigfile.value"),
        (("export", nul, "--python", tmp_path / "o.py"), 1, "chain.description"),
        (("sweep", demo_dir / "demo.rig.json", "--vary", "parts.holder.at=1", "--out", tmp_path / "o.csv"), 2,
         "sweep.type"),
    ]
    for argv, status, code in cases:
        done = _run(*argv)
        assert done.returncode == status, (argv, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "Error:" not in done.stderr, done.stderr
        printed = done.stderr if argv[0] in ("play", "sweep") else done.stdout
        assert error_lines(printed)[0]["code"] == code, printed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.npz", "deep.rig.json", "good.npz",
                                                            "surrogate.rig.json"]
