"""Every bounded number a subcommand takes, at its bounds: the value on a bound is taken, the next number a
double can hold beyond it is refused with the option's own code. The bounds are the documented ones
(docs/cli.md and each option's help: a step up to 1e9 s, sub-steps up to 5,000,000, 1 to 256 workers, 1 to
1000 starts, a 32-bit seed, fields up to 100 T, a probe within ±1e6 m, …), written here as numbers, not read
from the code.

Each command is given a later option that is refused on purpose (an output of the wrong kind, a rig that does
not exist, no pose named), so a value the bound takes shows as that later refusal and nothing runs."""

from __future__ import annotations

import math
import re

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
WAVE = RESOURCES / "demo" / "wave.csv"


def _up(x: float) -> float:
    return math.nextafter(x, math.inf)


def _down(x: float) -> float:
    return math.nextafter(x, -math.inf)


def _codes(capsys, argv) -> list[str]:
    main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return re.findall(r"error\[([a-z.\-]+)\]", out + err)


def _play(tmp_path, *extra):
    return ["play", DEMO_RIG, "--commands", WAVE, "--out", tmp_path / "out.txt", *extra]


def _field(tmp_path, *extra):
    return ["field", DEMO_RIG, "--commands", WAVE, "--out", tmp_path / "out.txt", *extra]


def _sweep(tmp_path, *extra):
    return ["sweep", DEMO_RIG, "--vary", "parts.holder.at.2=0.01:0.02:2", "--out", tmp_path / "out.txt",
            *extra]


def _trajectory(tmp_path, *extra):
    return ["trajectory", DEMO_RIG, "spin 5 Hz", "--out", tmp_path / "out.txt", *extra]


def _plan(tmp_path, *extra):
    # a rig that is not there: read only once every option has passed
    return ["plan", tmp_path / "missing.rig.json", "--at", "probes.sample", "--direction", "0,0,1",
            "--out", tmp_path / "plan.csv", *extra]


def _plan_on_a_sample(tmp_path, *extra):
    # a force bound needs a sample to feel it (target.force on a probe)
    return ["plan", tmp_path / "missing.rig.json", "--at", "samples.bead", "--direction", "0,0,1",
            "--out", tmp_path / "plan.csv", *extra]


def _export(tmp_path, *extra):
    # no --pose: refused (export.pose) once the step and the hold have passed
    return ["export", DEMO_RIG, "--commands", tmp_path / "pose.csv", *extra]


# (command, option, taken values, refused values, the option's code, the code of the later refusal)
BOUNDS = [
    (_play, "--dt", [1e9, 5e-324], [_up(1e9), 0.0, -1.0], "play.dt", "play.out"),
    (_play, "--servo-tau", [0.0, 1e9], [_up(1e9), -5e-324], "play.servo-tau", "play.out"),
    (_play, "--substeps", [1, 5_000_000], [0, 5_000_001], "play.substeps", "play.out"),
    (_field, "--dt", [1e9], [_up(1e9), 0.0], "field.dt", "field.out"),
    (_field, "--servo-tau", [0.0, 1e9], [_up(1e9), -5e-324], "field.servo-tau", "field.out"),
    (_sweep, "--dt", [1e9], [_up(1e9), 0.0], "sweep.dt", "sweep.out"),
    (_sweep, "--servo-tau", [0.0, 1e9], [_up(1e9)], "sweep.servo-tau", "sweep.out"),
    (_sweep, "--workers", [1, 256], [0, 257], "sweep.workers", "sweep.out"),
    (_trajectory, "--dt", [1e9, 5e-324], [_up(1e9), 0.0], "trajectory.dt", "trajectory.out"),
    (_plan, "--tolerance", [0.0, 180.0], [-5e-324, _up(180.0)], "plan.option", "rigfile.io"),
    (_plan, "--low", [0.0, 1e5], [-5e-324, _up(1e5)], "plan.option", "rigfile.io"),
    (_plan, "--high", [0.0, 1e5], [_up(1e5)], "plan.option", "rigfile.io"),
    (_plan, "--dt", [1e-6, 1e3], [_down(1e-6), _up(1e3)], "plan.option", "rigfile.io"),
    (_plan, "--ellipticity", [0.0, 1.0], [-5e-324, _up(1.0)], "plan.option", "rigfile.io"),
    (_plan, "--max-gradient", [5e-324, 1e6], [0.0, _up(1e6)], "plan.option", "rigfile.io"),
    (_plan_on_a_sample, "--max-force", [5e-324, 1e6], [0.0, _up(1e6)], "plan.option", "rigfile.io"),
    (_plan, "--starts", [1, 1000], [0, 1001], "plan.option", "rigfile.io"),
    (_plan, "--seed", [0, 2**32 - 1], [-1, 2**32], "plan.option", "rigfile.io"),
]


def _ids():
    return [f"{command.__name__[1:].split('_')[0]}{option}" for command, option, *_ in BOUNDS]


@pytest.mark.parametrize("command, option, taken, refused, code, later", BOUNDS, ids=_ids())
def test_a_number_on_its_bound_is_taken_and_the_next_one_beyond_is_refused(tmp_path, capsys, command, option,
                                                                            taken, refused, code, later):
    for value in taken:
        # OPTION=VALUE: a negative number would be read as an option of its own
        assert _codes(capsys, command(tmp_path, f"{option}={value!r}")) == [later], (option, value)
    for value in refused:
        assert _codes(capsys, command(tmp_path, f"{option}={value!r}")) == [code], (option, value)


def test_plan_s_frequency_is_taken_up_to_10_khz_either_way_round(tmp_path, capsys):
    rotating = ["--at", "probes.sample", "--axis", "0,0,1", "--out", tmp_path / "plan.csv"]
    for value, codes in ((1e4, ["rigfile.io"]), (-1e4, ["rigfile.io"]), (_up(1e4), ["plan.option"]),
                         (_down(-1e4), ["plan.option"])):
        argv = ["plan", tmp_path / "missing.rig.json", *rotating, f"--frequency={value!r}"]
        assert _codes(capsys, argv) == codes, value


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_field_takes_a_point_probe_within_a_million_metres_on_each_axis_no_further(tmp_path, capsys, axis):
    def point(v):
        xyz = [0.0, 0.0, 0.0]
        xyz[axis] = v
        return ",".join(repr(c) for c in xyz)

    for value in (1e6, -1e6):
        # the point is read once the rig is; its output of the wrong kind is refused before any of it
        argv = ["field", DEMO_RIG, "--commands", WAVE, f"--probe={point(value)}", "--out", tmp_path / "f.npz",
                "--quiet"]
        main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert "error[" not in out + err, (value, out, err)
        assert (tmp_path / "f.npz").exists()
        (tmp_path / "f.npz").unlink()
    for value in (_up(1e6), _down(-1e6)):
        argv = ["field", DEMO_RIG, "--commands", WAVE, f"--probe={point(value)}", "--out", tmp_path / "f.npz"]
        assert _codes(capsys, argv) == ["field.probe"], value
        assert not (tmp_path / "f.npz").exists()


def test_export_holds_a_pose_from_one_step_up_to_1e9_s_in_fewer_than_five_million_samples(tmp_path, capsys):
    cases = [
        (["--dt", "1e9", "--hold", "1e9"], "export.pose"),
        (["--dt", repr(_up(1e9)), "--hold", "1e9"], "export.dt"),
        (["--dt", "0", "--hold", "1"], "export.dt"),
        (["--dt", "1000", "--hold", "1e9"], "export.pose"),  # a million samples
        (["--dt", "1000", "--hold", repr(_up(1e9))], "export.hold"),
        (["--dt", "0.5", "--hold", "0.5"], "export.pose"),  # one step
        (["--dt", "0.5", "--hold", repr(_down(0.5))], "export.hold"),
        (["--dt", "1", "--hold", "4999999"], "export.pose"),
        (["--dt", "1", "--hold", "5000000"], "export.hold"),  # five million samples: one too many
    ]
    for extra, code in cases:
        assert _codes(capsys, _export(tmp_path, *extra)) == [code], extra
        assert not (tmp_path / "pose.csv").exists()
