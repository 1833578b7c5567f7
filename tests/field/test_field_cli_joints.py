"""``mime-gui field`` on a rig whose arm declares a field tolerance and whose sample declares a drag: it
writes |B| at the joints and the sample's step-out frequency, each equal to the headless API's, and a joint
over its tolerance and a sample left behind are warning lines (the command still succeeds)."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from field_helpers import DEMO_RIG, probe

from mime_gui.cli import main
from mime_gui.field import forces_along, joint_field, step_out
from mime_gui.nodes import read_commands
from mime_gui.rig import Sample, a_m2, load, n_m_s, save, tesla
from mime_gui.rig.playback import RigPlayable


@pytest.fixture
def rig_file(tmp_path):
    for name in ("arm.urdf", "chain.csv"):
        shutil.copy(DEMO_RIG.parent / name, tmp_path / name)
    shutil.copytree(DEMO_RIG.parent / "meshes", tmp_path / "meshes")
    rig = load(DEMO_RIG)
    rig.probes = {"sample": probe((0.0, 0.0, 0.05), mount="motor.stator")}
    rig.chain["arm"].field_tolerance = tesla(4e-4, reason="the wrist's Hall encoder")
    rig.samples = {"free": Sample((0.0, 0.0, 0.05), mount="motor.stator", moment=a_m2(5e-4, reason="VSM"),
                                  orientation="follows", drag=n_m_s(1e-5, reason="a paste")),
                   "bead": Sample((0.0, 0.005, 0.05), mount="motor.stator", moment=a_m2(1e-3, reason="VSM"))}
    assert rig.validate() == []
    return save(rig, tmp_path / "demo.rig.json")


def test_the_joints_field_and_the_step_out_frequency_are_written_and_warned(rig_file, tmp_path, capsys):
    out = tmp_path / "field.npz"
    code = main(["field", str(rig_file), "--commands", str(tmp_path / "chain.csv"), "--out", str(out),
                 "--quiet"])
    text, err = capsys.readouterr()
    assert code == 0, err
    lines = err.splitlines()
    assert text == "" and len(lines) == 2
    assert lines[0].startswith("warning[field.step-out] samples.free: ")
    assert lines[1].startswith("warning[field.joint] chain.arm: |B| at joint 'joint_6' exceeds")
    built = load(rig_file).build()
    playable = RigPlayable(built)
    schedule = playable.schedule(read_commands(tmp_path / "chain.csv"), None)
    trajectory = playable.play(schedule)
    joints = joint_field(built, trajectory, start=schedule.start)
    keeping = step_out(built, trajectory, forces_along(built, trajectory, start=schedule.start),
                       start=schedule.start)
    with np.load(out) as data:
        assert data["joint_names"].tolist() == [f"arm.joint_{k}" for k in range(1, 7)]
        assert np.array_equal(data["joint_B"], joints.B)
        assert np.array_equal(data["joint_over"], joints.over)
        assert data["joint_over"][:, 5].any() and not data["joint_over"][:, :5].any()
        step = data["sample_step_out"]
        assert np.array_equal(step, keeping.available, equal_nan=True)
        assert np.isnan(step[:, 1]).all()  # the bead declares no drag
        # |m||B|/(2π ζ) with the field the file holds beside it
        B = np.linalg.norm(data["sample_B"][:, 0], axis=-1)
        assert np.allclose(step[:, 0], 5e-4 * B / (2 * math.pi * 1e-5), rtol=1e-12)
