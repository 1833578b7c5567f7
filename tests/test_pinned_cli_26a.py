"""Command-line contracts pinned after the twenty-sixth mutation sample:

- ``mime-gui field`` refused as too large without ``--contributions`` gives no magnet's share in its message
  (there is none to leave out); with it, the share is steps × magnets × probes × 24 bytes;
- ``mime-gui field`` writes every array docs/field.md lists under its documented name: the per-probe
  ``ellipticity`` of the summary it prints, and for a rig with samples ``sample_positions`` (a sample fixed in
  the world stays at its point);
- ``mime-gui inspect`` of a URDF without joints writes its counts line with no joint types after ``joints 0``;
- ``mime-gui --version`` prints ``mime-gui VERSION`` and exits 0.
"""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from cli_helpers import run_cli

from mime_gui import RESOURCES, __version__
from mime_gui.field import field_along, forces_along, rotating_summary
from mime_gui.nodes import read_commands
from mime_gui.rig import Sample, a_m2, load, save
from mime_gui.rig.playback import RigPlayable

DEMO = RESOURCES / "demo"
WORLD_POINT = (0.3, 0.0, 0.25)


@pytest.fixture
def demo(tmp_path):
    """A copy of the demo folder: its rig (one magnet, one probe ``sample``), arm, meshes and commands."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    return folder


def test_the_field_too_large_message_names_a_magnets_share_only_with_contributions(demo, monkeypatch):
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", "0.01")  # 10485 bytes: the demo's 201 steps are over it
    out = demo / "f.npz"
    argv = ["field", demo / "demo.rig.json", "--commands", demo / "chain.csv", "--out", out]
    status, text, err = run_cli(*argv)
    assert (status, text) == (2, "")
    # without --contributions the parts end with the field: no share of 0 bytes, nothing to leave out
    assert re.fullmatch(
        rf"error\[field\.too-large\] {re.escape(str(out))}: the run would take about [\d.]+ MB \(201 steps: "
        r"the played poses [\d.]+ MB, the field of 1 magnet\(s\) at 1 probe\(s\) [\d.]+ MB\), more than the "
        r"10485 bytes limit; choose a larger step \(--dt\), fewer probes or a shorter command file, or set "
        r"MIME_GUI_MAX_PLAY_MB \(megabytes\) to raise the limit\n", err), err
    assert "share" not in err
    status, text, err = run_cli(*argv, "--contributions")
    assert (status, text) == (2, "")
    # docs/field.md: each magnet's share is steps × magnets × probes × 24 bytes = 201 × 1 × 1 × 24
    assert re.search(r"at 1 probe\(s\) [\d.]+ MB, each magnet's share 4824 bytes \(--contributions\)\), more "
                     r"than the 10485 bytes limit; leave out --contributions, choose a larger step", err), err
    assert not out.exists()


def test_the_field_npz_holds_the_documented_arrays_with_the_printed_ellipticity_and_sample_positions(demo):
    rig = load(demo / "demo.rig.json")
    rig.samples = {"bead": Sample((0.0, 0.005, 0.05), mount="motor.stator",
                                  moment=a_m2(1e-3, reason="VSM")),
                   "fixed": Sample(WORLD_POINT, moment=a_m2(5e-4, reason="VSM"))}  # in the world
    assert rig.validate() == []
    rig_file = save(rig, demo / "samples.rig.json")
    out = demo / "field.npz"
    status, text, err = run_cli("field", rig_file, "--commands", demo / "chain.csv", "--out", out)
    assert (status, err) == (0, "")
    built = load(rig_file).build()
    playable = RigPlayable(built)
    schedule = playable.schedule(read_commands(demo / "chain.csv"), None)
    trajectory = playable.play(schedule)
    api = field_along(built, trajectory, start=schedule.start)
    forces = forces_along(built, trajectory, start=schedule.start)
    summary = rotating_summary(api.time, api.B)
    with np.load(out) as data:
        # docs/field.md: the arrays of a rig with samples (no drag, zones or joint tolerance), by these names
        assert set(data.files) == {
            "time", "probe_names", "B", "magnet_names", "probe_positions", "inside", "dt", "frequency",
            "axis", "B_min", "B_max", "ellipticity", "sample_names", "sample_positions", "sample_moment",
            "sample_B", "sample_gradient", "sample_force", "sample_torque", "sample_route"}
        assert data["probe_names"].tolist() == ["sample"]
        assert data["sample_names"].tolist() == ["bead", "fixed"]
        ellipticity = data["ellipticity"]
        assert np.array_equal(ellipticity, [s.ellipticity for s in summary])
        assert 0 < ellipticity[0] < 1  # a turn of the demo's magnet seen from the stator: an ellipse
        # the summary line the command prints for the probe gives the ellipticity written
        [line] = [row for row in text.splitlines() if row.startswith("  sample: ")]
        assert line.endswith(f", ellipticity {ellipticity[0]:.3f}")
        positions = data["sample_positions"]
        assert positions.shape == (len(api.time), 2, 3)
        assert np.array_equal(positions, forces.position)
        # a sample with no mount stays where it is put, at every step
        assert np.array_equal(positions[:, 1], np.broadcast_to(WORLD_POINT, (len(api.time), 3)))
        # the mounted one rides the motor's stator: it moves with the arm
        assert np.ptp(positions[:, 0, :], axis=0).max() > 1e-3


def test_the_inspect_counts_of_a_urdf_without_joints_list_no_joint_types(tmp_path):
    urdf = tmp_path / "one.urdf"
    urdf.write_text('<robot name="lone"><link name="base"/></robot>')
    status, out, err = run_cli("inspect", urdf)
    assert (status, err) == (0, "")
    # the types in brackets follow "joints N" only when there is a joint to count
    assert out.splitlines()[1] == "  links 1, joints 0, dof 0, frames 1, mimic 0, transmissions 0"


def test_the_version_option_prints_the_program_and_its_version(monkeypatch):
    status, out, err = run_cli("--version")
    assert (status, out, err) == (0, f"mime-gui {__version__}\n", "")
