"""``mime-gui field`` on a rig with samples and zones: it writes the samples' force and torque, the gradient
at the probes and the zones' check beside B, each equal to the headless API's, and a breached zone is a
warning line (the command still succeeds)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from field_helpers import DEMO_RIG, probe

from mime_gui.cli import main
from mime_gui.field import field_along, forces_along, zone_findings
from mime_gui.field.forces import gradient_at
from mime_gui.field.sources import magnet_sources
from mime_gui.nodes import read_commands
from mime_gui.rig import Sample, Zone, a_m2, load, save
from mime_gui.rig.playback import RigPlayable


@pytest.fixture
def rig_file(tmp_path):
    for name in ("arm.urdf", "chain.csv"):
        shutil.copy(DEMO_RIG.parent / name, tmp_path / name)
    shutil.copytree(DEMO_RIG.parent / "meshes", tmp_path / "meshes")
    rig = load(DEMO_RIG)
    rig.probes = {"sample": probe((0.0, 0.0, 0.05), mount="motor.stator")}
    rig.samples = {"bead": Sample((0.0, 0.005, 0.05), mount="motor.stator", moment=a_m2(1e-3, reason="VSM")),
                   "free": Sample((0.005, 0.0, 0.045), mount="motor.stator", moment=a_m2(5e-4, reason="VSM"),
                                  orientation="follows")}
    rig.zones = {"coil": Zone((0.0, 0.0, 0.045), sphere=0.01, mount="motor.stator", limit=0.05,
                              reason="a pick-up coil"),
                 "operator": Zone((0.8, 0.0, 0.9), box=(0.4, 0.6, 1.8), reason="the operator")}
    assert rig.validate() == []
    return save(rig, tmp_path / "demo.rig.json")


def test_forces_gradients_and_zones_are_written_beside_B(rig_file, tmp_path, capsys):
    out = tmp_path / "field.npz"
    code = main(["field", str(rig_file), "--commands", str(tmp_path / "chain.csv"), "--gradient",
                 "--out", str(out), "--quiet"])
    text, err = capsys.readouterr()
    assert code == 0, err
    assert text == "" and err.startswith("warning[field.zone] zones.coil: ") and "operator" not in err
    built = load(rig_file).build()
    playable = RigPlayable(built)
    schedule = playable.schedule(read_commands(tmp_path / "chain.csv"), None)
    trajectory = playable.play(schedule)
    forces = forces_along(built, trajectory, start=schedule.start)
    zones = zone_findings(built, trajectory, start=schedule.start)
    field = field_along(built, trajectory, start=schedule.start)
    magnets = magnet_sources(built)
    X = np.stack([m.poses(np.asarray(trajectory.frame_poses)) for m in magnets], axis=1)
    with np.load(out) as data:
        assert data["sample_names"].tolist() == ["bead", "free"]
        assert np.array_equal(data["sample_force"], forces.force)
        assert np.array_equal(data["sample_torque"], forces.torque)
        assert np.array_equal(data["sample_gradient"], forces.gradient)
        assert data["sample_route"].tolist() == ["dipole", "dipole"]
        assert np.array_equal(data["gradient"], gradient_at(magnets, X, field.probe_positions)[1])
        assert data["gradient"].shape == (len(field.time), 1, 3, 3)
        assert data["zone_names"].tolist() == ["coil", "operator"]
        assert np.array_equal(data["zone_breach"], zones.breach)
        assert data["zone_breach"][:, 0].all() and not data["zone_breach"][:, 1].any()


def test_a_refused_run_counts_ten_bytes_a_step_for_each_zone(rig_file, tmp_path, capsys, monkeypatch):
    """docs/field.md (``field.too-large``): with zones, 10 bytes per step and zone. A million steps (4 s at
    --dt 4e-6) refused under a 1 MB limit: the field the message gives for the rig's two zones is
    2 × 10 × 1,000,001 bytes (19.1 MB) more than for the same rig without them, to the tenth of a MB each is
    rounded to."""
    import re

    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", "1")

    def reported(path):
        status = main(["field", str(path), "--commands", str(tmp_path / "chain.csv"), "--dt", "4e-6",
                       "--out", str(tmp_path / "f.npz")])
        err = capsys.readouterr().err
        assert status == 2 and err.startswith("error[field.too-large] "), err
        found = re.search(r"\((\d+) steps: .* at 1 probe\(s\) (\d+\.\d) MB", err)
        return int(found[1]), float(found[2])

    steps, zoned = reported(rig_file)
    rig = load(rig_file)
    rig.zones = {}
    bare_steps, bare = reported(save(rig, tmp_path / "bare.rig.json"))
    assert steps == bare_steps == 1_000_001
    assert abs((zoned - bare) - 2 * 10 * steps / 2**20) <= 0.1
