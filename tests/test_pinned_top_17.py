"""Small contracts of the command line and the command files, pinned: ``sweep`` given a bundle (.zip) opens it
into the bundle cache and varies the rig inside it, and a command file of one sample played without a step is
refused with its code, its header line and the words that say to give ``--dt``."""

from __future__ import annotations

import contextlib
import csv
import io

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.nodes import CommandFileError, read_commands
from mime_gui.rig import load
from mime_gui.rig.bundle import SUFFIX, write_bundle

DEMO = RESOURCES / "demo"
ONE_SAMPLE = "one sample only: the step cannot come from the sample spacing; give a step (--dt)"


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def _rows(path) -> list[dict]:
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def test_a_sweep_of_a_bundle_varies_the_rig_extracted_from_it(tmp_path, monkeypatch):
    """``sweep RIG`` takes a bundle as well as a rig file (its help says so): the zip is extracted into the
    bundle cache and the rig inside it is the one varied, each row a variant of it."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(cache))
    bundle = write_bundle(load(DEMO / "demo.rig.json"), tmp_path / "demo.zip")
    out = tmp_path / "t.csv"
    status, text, err = _cli("sweep", bundle, "--vary=parts.holder.geometry.radius=0.008:0.012:2",
                             "--out", out, "--workers", "1")
    assert (status, err) == (0, "")
    assert text.splitlines()[0] == f"sweep of {bundle} (demo): 2 variant(s) (2) on 1 local worker process"
    rows = _rows(out)
    assert [(r["parts.holder.geometry.radius"], r["findings"]) for r in rows] == [("0.008", "0"),
                                                                                  ("0.012", "0")]
    # the rig came out of the zip: one extraction in the cache, holding the bundle's rig file
    [extracted] = [p for p in cache.iterdir() if p.name.endswith(SUFFIX)]
    assert (extracted / "rig.rig.json").is_file()


def test_one_sample_without_a_step_is_refused_saying_to_give_one(tmp_path):
    """A step cannot come from the spacing of one sample: ``commands.dt`` on the CSV header's line, in the
    words the user reads on the command line (docs/command-files.md)."""
    path = tmp_path / "one.csv"
    path.write_text("time,joint_1\n2.5,0.1\n")
    with pytest.raises(CommandFileError) as info:
        read_commands(path).sample_spacing()
    assert (info.value.code, info.value.line, info.value.message) == ("commands.dt", 1, ONE_SAMPLE)
    status, text, err = _cli("play", DEMO / "arm.urdf", "--commands", path, "--out", tmp_path / "o.npz")
    assert (status, text) == (2, "")
    assert err == f"error[commands.dt] {path}:1: {ONE_SAMPLE}\n"
    assert not (tmp_path / "o.npz").exists()
