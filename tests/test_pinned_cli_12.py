"""Small contracts of the command line, pinned: ``field`` plays an overflowing command file without numpy's
warnings, ``inspect`` folds attribute kinds into their element's line of the same group and prints a joint's
effort, ``trajectory`` prints the findings of a trajectory past its limits on the stream it is given, a
refused size of a tenth of a megabyte less a fraction is written in MB, and a probe inside any magnet of
several is reported inside."""

from __future__ import annotations

import argparse
import contextlib
import io
import warnings

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.field import field_along
from mime_gui.rig import (
    Apparatus,
    Keyframe,
    Motor,
    PermanentMagnet,
    Probe,
    Sphere,
    Trajectory,
    load,
    save,
    tesla,
)

DEMO = RESOURCES / "demo"
DEMO_RIG = DEMO / "demo.rig.json"


def _cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


# -- field: an overflow while playing is refused by the finiteness check, not warned about by numpy ----------

@pytest.mark.parametrize("column", ["arm.joint_6", "motor.shaft"], ids=["arm", "motor"])
def test_field_of_commands_that_overflow_is_refused_without_any_numpy_warning(tmp_path, column):
    cmd = tmp_path / "huge.csv"
    cmd.write_text(f"time,{column}\n0,1e308\n1,-1e308\n", encoding="utf-8")
    out = tmp_path / "out.npz"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, stdout, stderr = _cli("field", DEMO_RIG, "--commands", cmd, "--out", out)
    assert [str(w.message) for w in caught] == []
    assert (status, stdout) == (2, "")
    assert stderr.startswith(f"error[field.non-finite] {cmd}: the joint rates overflow at step 1 ({column})")
    assert not out.exists()


# -- inspect: the groups' lines and a joint's line --------------------------------------------------------

URDF = ('<robot name="r"><link name="a" colour="red"/><link name="b"/>'
        '<joint name="slide" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/>'
        '<limit lower="-0.25" upper="0.5" effort="40" velocity="0.125"/></joint></robot>')


def _section(lines: list[str], title: str) -> list[str]:
    start = lines.index(title) + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


def test_inspect_folds_each_attribute_into_its_element_line_of_the_same_group(tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(URDF, encoding="utf-8")
    status, out, err = _cli("inspect", urdf)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    # counted by hand from the file: 7 elements and 11 attributes read, in the reader's sorted order
    assert _section(lines, "read and used (18 kinds)") == [
        "  robot x1 (@name x1)",
        "  robot/joint x1 (@name x1, @type x1)",
        "  robot/joint/axis x1 (@xyz x1)",
        "  robot/joint/child x1 (@link x1)",
        "  robot/joint/limit x1 (@effort x1, @lower x1, @upper x1, @velocity x1)",
        "  robot/joint/parent x1 (@link x1)",
        "  robot/link x2 (@name x2)",
    ]
    # an attribute whose element is in another group stands on its own line, with its note
    assert _section(lines, "recognised and not used (1 kind)") == [
        "  robot/link@colour x1: attribute not used"]


@pytest.mark.parametrize("kind, limit, text", [
    ("prismatic", 'lower="-0.25" upper="0.5" effort="40" velocity="0.125"',
     "slide (prismatic) [-0.25, 0.5] m, effort 40, velocity 0.125 -> b"),
    ("revolute", 'lower="-1.5" upper="2" effort="7.25" velocity="3"',
     "slide (revolute) [-1.5, 2] rad, effort 7.25, velocity 3 -> b"),
    ("continuous", 'effort="0.5" velocity="12"', "slide (continuous), effort 0.5, velocity 12 -> b"),
], ids=["prismatic", "revolute", "continuous"])
def test_inspect_prints_the_joint_effort_written_in_the_file(tmp_path, kind, limit, text):
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="a"/><link name="b"/>'
                    f'<joint name="slide" type="{kind}"><parent link="a"/><child link="b"/>'
                    f'<axis xyz="0 0 1"/><limit {limit}/></joint></robot>', encoding="utf-8")
    status, out, err = _cli("inspect", urdf)
    assert (status, err) == (0, "")
    assert _section(out.splitlines(), "tree") == ["  a", f"    {text}"]


# -- trajectory: findings go to the stream given ----------------------------------------------------------

def test_trajectory_past_its_limits_prints_its_findings_on_the_stream_it_is_given(tmp_path, capsys):
    from mime_gui.cli import trajectory as command

    rig = load(DEMO_RIG)
    # joint_4 from its rest at 0 to 2 rad in a fixed 0.2 s: 10 rad/s against the arm's limit of 3 rad/s
    rig.trajectories["Quick Turn"] = Trajectory({"arm": [Keyframe(0.2, values={"joint_4": 2.0}, fixed=True)]})
    path = save(rig, tmp_path / "r.rig.json")
    target = tmp_path / "t.csv"
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    args = parser.parse_args([str(path), "Quick Turn", "--out", str(target)])
    out, err = io.StringIO(), io.StringIO()
    assert command.run(args, out, err) == 1
    assert out.getvalue() == (
        "error[trajectory.speed] trajectories.Quick Turn.segments.arm.0: arm.joint_4 exceeds its velocity "
        "limit at 0 s by 7 rad/s (10 > 3 rad/s); the interval into this keyframe is fixed: unfix it, move "
        "the keyframe later or ask less\n")
    assert err.getvalue() == (f"{path}: the trajectory 'Quick Turn' is not within its limits; nothing "
                              "written\n")
    assert capsys.readouterr() == ("", "")
    assert not target.exists()


# -- sizes in refusals -----------------------------------------------------------------------------------

# the limit 0.05 MB is int(0.05 * 1048576) = int(52428.8) = 52428 bytes; a tenth of a MB is 104857.6 bytes
@pytest.mark.parametrize("size, held", [
    (104_856, "104856 bytes"),
    (104_857, "0.1 MB"),  # 104857 / 1048576 = 0.09999990…, which rounds to 0.1
    (104_858, "0.1 MB"),
], ids=["below", "a-tenth-less-a-fraction", "above"])
def test_a_file_over_its_limit_is_refused_naming_its_size_in_mb_from_104857_bytes(tmp_path, monkeypatch, size,
                                                                                 held):
    monkeypatch.setenv("MIME_GUI_MAX_URDF_MB", "0.05")
    urdf = tmp_path / "big.urdf"
    urdf.write_bytes(b" " * size)
    status, out, err = _cli("inspect", urdf)
    assert (status, out) == (2, "")
    assert err == (f"error[file.too-large] {urdf}: the file holds {held}, more than the 52428 bytes a URDF "
                   "may hold; set MIME_GUI_MAX_URDF_MB (megabytes) to raise the limit\n")


# -- field: inside any of several magnets -----------------------------------------------------------------

def _ball(at) -> PermanentMagnet:
    return PermanentMagnet(Sphere(0.005), magnetisation=(0.0, 0.0, 1.0), at=at, mount=None,
                           remanence=tesla(1.3, reason="a round N42 figure"))


def test_a_probe_inside_the_first_of_two_magnets_is_inside():
    # two 5 mm balls 10 cm apart in the world; one probe in each, one between them
    magnets = {"first": _ball((0.0, 0.0, 0.0)), "second": _ball((0.1, 0.0, 0.0))}
    probes = {"in first": Probe((0.002, 0.0, -0.003)), "in second": Probe((0.1, 0.004, 0.0)),
              "between": Probe((0.05, 0.0, 0.0))}
    chain = {"motor": Motor.Kinematic(axis=(0.0, 0.0, 1.0))}
    built = Apparatus("bench", chain=chain, magnets=magnets).build()
    field = field_along(built, built.play({"motor.shaft": [0.3, 0.6, 0.9]}, 0.01), probes)
    assert field.inside.tolist() == [[True, True, False]] * 3
    assert [(f.code, f.where, f.message.split(" at ")[0]) for f in field.findings] == [
        ("field.probe-inside-magnet", "probes.in first", "inside magnet 'first'"),
        ("field.probe-inside-magnet", "probes.in second", "inside magnet 'second'"),
    ]
    assert np.all(np.isfinite(field.B[:, 2]))
