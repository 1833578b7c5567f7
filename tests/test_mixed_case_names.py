"""File names in capitals or mixed case (``ARM.URDF``, ``Demo.Rig.JSON``, ``CMD.CSV``) are read by what
their suffix says, whatever its case, on the command line."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO = RESOURCES / "demo"


def test_a_rig_named_in_mixed_case_validates_and_plays_a_command_file_in_capitals(tmp_path, capsys):
    shutil.copytree(DEMO, tmp_path / "demo")
    folder = tmp_path / "demo"
    (folder / "demo.rig.json").rename(folder / "Demo.Rig.JSON")
    (folder / "chain.csv").rename(folder / "CMD.CSV")
    assert main(["validate", str(folder / "Demo.Rig.JSON")]) == 0, capsys.readouterr()
    out = tmp_path / "out.npz"
    assert main(["play", str(folder / "Demo.Rig.JSON"), "--commands", str(folder / "CMD.CSV"), "--out",
                 str(out), "--quiet"]) == 0, capsys.readouterr().err
    samples = np.loadtxt(folder / "CMD.CSV", delimiter=",", skiprows=2)
    with np.load(out) as data:
        assert len(data["time"]) == len(samples)  # every sample of the file played, at its spacing
        assert data["time"][-1] == pytest.approx(samples[-1, 0] + (samples[1, 0] - samples[0, 0]), abs=1e-9)


def test_an_arm_named_in_capitals_is_read_as_a_urdf(tmp_path, capsys):
    shutil.copy(DEMO / "arm.urdf", tmp_path / "ARM.URDF")
    (tmp_path / "CMD.CSV").write_text("time,joint_1\n0,0\n0.1,0.5\n")
    out = tmp_path / "o.npz"
    assert main(["play", str(tmp_path / "ARM.URDF"), "--commands", str(tmp_path / "CMD.CSV"), "--out",
                 str(out), "--quiet"]) == 0, capsys.readouterr().err
    with np.load(out) as data:
        np.testing.assert_allclose(data["joint_positions"][-1, 0], 0.5)  # no servo lag on a bare URDF
