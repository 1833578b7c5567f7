"""Small contracts of the command line, pinned: ``field --probe NAME`` on a rig without probes says the rig
has none; ``plan`` refuses ``--workers`` given with ``--scheduler`` as ``sweep`` does (``sweep.workers``:
give one of the two); ``report`` and ``export --commands``, run through ``cli.rig.run(args, out, err)`` as an
embedding program calls it, print their findings and refusals on the stream they are given; and an unknown
``trajectory`` name lists every trajectory of the rig, ``, `` between two."""

from __future__ import annotations

import errno
import io
import json
import os
import shutil

from cli_helpers import rig_args, run_cli

from mime_gui import RESOURCES
from mime_gui.cli import rig as rig_command
from mime_gui.rig import load

DEMO = RESOURCES / "demo"


def _demo_copy(tmp_path, change) -> str:
    """The demo rig copied with its URDF (the rig file names arm.urdf beside it), ``change(doc)`` applied."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)
    rig = folder / "demo.rig.json"
    doc = json.loads(rig.read_text(encoding="utf-8"))
    change(doc)
    rig.write_text(json.dumps(doc), encoding="utf-8")
    return str(rig)


# -- field: a probe named on a rig without probes ------------------------------------------------------------

def test_a_probe_named_on_a_rig_without_probes_is_refused_saying_the_rig_has_none(tmp_path):
    rig = _demo_copy(tmp_path, lambda doc: doc.update(probes={}))
    status, stdout, stderr = run_cli("field", rig, "--commands", DEMO / "wave.csv", "--probe", "nope",
                                     "--out", tmp_path / "o.npz")
    assert (status, stdout) == (2, "")
    # the list of names the user may give is empty: the message says so in words, not as an empty list
    assert stderr == ("error[field.probe] --probe: 'nope' is no probe of the rig (probes: (the rig has none"
                      ")) and not a point X,Y,Z in metres; name a probe or give a point\n")
    assert not (tmp_path / "o.npz").exists()


# -- plan: --workers with --scheduler ------------------------------------------------------------------------

def test_plan_refuses_workers_given_with_a_scheduler_as_the_sweep_does(tmp_path):
    # docs/sweeps.md: sweep.workers is "--workers ... given with --scheduler"; plan runs its starts as the
    # sweep does, so the two together are refused before anything runs (and no cluster is asked)
    out = tmp_path / "plan.csv"
    status, stdout, stderr = run_cli("plan", DEMO / "demo.rig.json", "--at", "probes.sample",
                                     "--axis", "0,0,1", "--frequency", "5", "--low", "1", "--high", "50",
                                     "--starts", "1", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9",
                                     "--out", out)
    assert (status, stdout) == (2, "")
    assert stderr == ("error[sweep.workers] --workers: --workers sets the local worker processes; with "
                      "--scheduler the cluster's workers run the sweep: give one of the two\n")
    assert not out.exists()


# -- cli.rig.run: the stream it is given ---------------------------------------------------------------------

def test_the_report_of_a_rig_that_does_not_build_goes_to_the_stream_it_is_given(tmp_path, capsys):
    rig = _demo_copy(tmp_path, lambda doc: doc["chain"][1].update(mount="flange"))
    findings = [str(f) for f in load(rig).validate()]
    assert findings and findings[0].startswith("error[chain.mount] chain.motor.mount: 'flange'")
    out, err = io.StringIO(), io.StringIO()
    assert rig_command.run(rig_args("report", rig), out, err) == 1
    # one line per finding, on ``out``; nothing on the process's own streams
    assert out.getvalue().splitlines() == findings
    assert err.getvalue() == ""
    assert capsys.readouterr() == ("", "")


def test_a_pose_export_the_system_refuses_goes_to_the_stream_it_is_given(tmp_path, capsys):
    target = tmp_path / "missing" / "pose.csv"  # its folder does not exist: the write is refused
    out, err = io.StringIO(), io.StringIO()
    args = rig_args("export", DEMO / "demo.rig.json", "--commands", target, "--pose", "home")
    assert rig_command.run(args, out, err) == 1
    assert out.getvalue() == f"error[export.io] {target}: cannot write ({os.strerror(errno.ENOENT)})\n"
    assert err.getvalue() == ""
    assert capsys.readouterr() == ("", "")
    assert not target.parent.exists()


# -- trajectory: an unknown name -----------------------------------------------------------------------------

def test_an_unknown_trajectory_lists_every_trajectory_of_the_rig_comma_separated(tmp_path):
    def two_trajectories(doc):
        doc["trajectories"]["spin again"] = doc["trajectories"]["spin 5 Hz"]

    rig = _demo_copy(tmp_path, two_trajectories)
    target = tmp_path / "t.csv"
    status, stdout, stderr = run_cli("trajectory", rig, "nope", "--out", target)
    assert (status, stderr) == (1, "")
    assert stdout == ("error[trajectory.unknown] NAME: the rig has no trajectory 'nope'; trajectories: "
                      "spin 5 Hz, spin again\n")
    assert not target.exists()
