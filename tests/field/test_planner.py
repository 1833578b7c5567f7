"""Ask for a field, get the motion: a field read at a known pose is asked for and found again, a rotating
field built from a known pose and spin is met and confirmed by ``mime-gui field`` on the written command
file, a target beyond the magnet's reach names what binds, and every offered candidate passes what it claims
— each checked by an independent route (Pinocchio's poses and Magpylib's field: tests/oracle.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from oracle import DEMO_MAGNETISATION, demo_poses, magnet_B

from mime_gui import RESOURCES
from mime_gui.cli.main import main
from mime_gui.field.planner import check_candidate, plan, rotation_of, trajectory_to
from mime_gui.nodes import read_commands
from mime_gui.rig import Probe, load, save
from mime_gui.rig.targets import FieldTarget, TargetError

DEMO = RESOURCES / "demo"
#: a pose of the demo arm (rad) and its motor, the flange turned down over the bench
KNOWN = np.array([0.35, 0.55, 0.45, 0.25, -0.6, 0.3])
MOTOR = 0.4


def field_by_hand(arm, motor, point) -> np.ndarray:
    return magnet_B(demo_poses(arm, motor)["rotor"], [point], DEMO_MAGNETISATION)[0]


def magnet_centre(arm, motor) -> np.ndarray:
    rotor = demo_poses(arm, motor)["rotor"]
    return rotor[:3, :3] @ np.array([0.0, 0.0, 0.025]) + rotor[:3, 3]


@pytest.fixture(scope="module")
def dish():
    """The demo rig with a probe fixed in the world 3 cm beside the magnet at the known pose."""
    rig = load(DEMO / "demo.rig.json")
    point = magnet_centre(KNOWN, MOTOR) + np.array([0.02, -0.01, -0.02])
    rig.probes = {**rig.probes, "dish": Probe(tuple(point))}
    return rig, rig.build(), point


def test_a_field_read_at_a_known_pose_is_asked_for_and_found(dish):
    rig, built, point = dish
    B = field_by_hand(KNOWN, MOTOR, point)
    size = float(np.linalg.norm(B))
    target = FieldTarget("probes.dish", direction=tuple(B), tolerance=math.radians(3.0), low=0.95 * size,
                         high=1.05 * size)
    found = plan(built, target, starts=6)
    assert found.candidates and found.binding is None
    for c in found.candidates:  # each by Pinocchio and Magpylib at its own joints
        arm, motor = c.positions[:6], c.positions[6]
        b = field_by_hand(arm, motor, point)
        assert math.degrees(math.acos(np.clip(b @ B / (np.linalg.norm(b) * size), -1, 1))) <= 3.0 + 1e-9
        assert 0.95 * size <= np.linalg.norm(b) <= 1.05 * size
        assert np.linalg.norm(magnet_centre(arm, motor) - point) > 0.0056  # outside the magnet's sphere
        node = built.node("arm")
        lo, hi = node.lower[node._commanded], node.upper[node._commanded]
        assert np.all(arm >= lo - 1e-12) and np.all(arm <= hi + 1e-12)
    ranked = [c.margin for c in found.candidates]
    assert ranked == sorted(ranked, reverse=True)


def test_the_chosen_candidate_plays_to_the_field_asked_for(dish):
    rig, built, point = dish
    B = field_by_hand(KNOWN, MOTOR, point)
    size = float(np.linalg.norm(B))
    target = FieldTarget("probes.dish", direction=tuple(B), tolerance=math.radians(3.0), low=0.95 * size,
                         high=1.05 * size)
    found = plan(built, target, starts=4)
    best = found.candidates[0]
    trajectory = trajectory_to(built, found, best)
    checked = check_candidate(built, found, trajectory)
    assert checked.findings == [] and checked.confirms
    # the trajectory ends at the candidate: the last pose's field by hand
    from mime_gui.rig.trajectories import render

    _, commands = render(built, trajectory, 0.01)
    last = commands[-1]
    b = field_by_hand(last[:6], last[6], point)
    assert np.linalg.norm(b - best.B) <= 1e-9 * size + 1e-15


def test_a_target_beyond_the_magnets_reach_names_the_window(dish):
    rig, built, point = dish
    target = FieldTarget("probes.dish", direction=(0.0, 0.0, 1.0), low=2.0, high=3.0)  # 2 T: no magnet here
    found = plan(built, target, starts=3)
    assert found.candidates == [] and found.binding == "window"


def test_a_rotation_read_over_a_known_turn(dish):
    """rotation_of against the field of a turn sampled by hand: the axis is the sense the field turns."""
    rig, built, point = dish
    turn = [field_by_hand(KNOWN, MOTOR + 2 * math.pi * k / 16, point) for k in range(16)]
    axis, ellipticity, b_min, b_max = rotation_of(np.array(turn))
    # the field turns about axis: each step's cross product points along it
    crosses = np.cross(turn, np.roll(turn, -1, axis=0))
    assert np.all(crosses @ axis > 0)
    sizes = np.linalg.norm(turn, axis=1)
    assert b_min == pytest.approx(sizes.min(), rel=1e-12) and b_max == pytest.approx(sizes.max(), rel=1e-12)
    assert 0.0 < ellipticity <= 1.0


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_rotating_target_from_a_known_pose_is_met_and_confirmed_by_mime_gui_field(dish, tmp_path, capsys):
    rig, built, point = dish
    turn = np.array([field_by_hand(KNOWN, MOTOR + 2 * math.pi * k / 16, point) for k in range(16)])
    axis, ellipticity, b_min, b_max = rotation_of(turn)
    folder = tmp_path / "rig"
    folder.mkdir()
    for name in ("arm.urdf", "actuators.json"):
        if (DEMO / name).exists():
            (folder / name).write_bytes((DEMO / name).read_bytes())
    import shutil

    shutil.copytree(DEMO / "meshes", folder / "meshes")
    path = save(rig, folder / "dish.rig.json")
    out = tmp_path / "plan.csv"
    axis_text = ",".join(repr(float(v)) for v in axis)
    code, text, err = run(capsys, "plan", path, "--at", "probes.dish", f"--axis={axis_text}",
                          "--frequency", "5", "--tolerance", "10", "--low", repr(float(0.8 * b_min * 1e3)),
                          "--high", repr(float(1.2 * b_max * 1e3)),
                          "--ellipticity", repr(float(max(ellipticity - 0.1, 0))),
                          "--starts", "4", "--out", out)
    assert code == 0 and err == "", (text, err)
    assert "passes its checks" in text and out.exists()
    # the table's candidates meet the |B| window asked for, in mT as it was given
    import re

    rows = re.findall(r"\|B\| ([0-9.e+-]+)–([0-9.e+-]+) mT", text)
    assert rows
    for low, high in rows:
        assert 0.8 * b_min * 1e3 * (1 - 1e-3) <= float(low) <= float(high) <= 1.2 * b_max * 1e3 * (1 + 1e-3)
    # the written file, played by mime-gui field: its rotating-field summary over the held spin
    field_out = tmp_path / "field.npz"
    code, _, err = run(capsys, "field", path, "--commands", out, "--probe", "dish", "--out", field_out)
    assert code == 0, err
    recorded = read_commands(out)
    shaft = recorded.joint_positions[:, list(recorded.joint_names).index("motor.shaft")]
    speed = np.gradient(shaft, recorded.time)
    held = np.abs(np.abs(speed) - 2 * math.pi * 5.0) < 1e-6  # the spin's held part, from the file itself
    assert held.sum() > 100
    from mime_gui.field.summary import rotating_summary

    with np.load(field_out) as data:
        time, B = data["time"], data["B"]
    # the field's rows are the played steps, one per command row
    s = rotating_summary(time[held], B[held][:, :1])[0]
    assert s.frequency == pytest.approx(5.0, rel=0.01)
    # the checks it claims, again by mime-gui play on the written file: no limit exceeded, no contact
    played = tmp_path / "played.npz"
    code, _, err = run(capsys, "play", path, "--commands", out, "--torques", "--clearance", "--out", played,
                       "--quiet")
    assert code == 0, err
    with np.load(played) as data:
        assert data["limit_excesses"].size == 0 and data["clearance_findings"].size == 0
    assert math.degrees(math.acos(np.clip(s.axis @ axis, -1, 1))) <= 10.0
    assert 0.8 * b_min <= s.B_min and s.B_max <= 1.2 * b_max


def test_what_cannot_be_aimed_at_is_refused_with_its_code(dish):
    rig, built, point = dish
    with pytest.raises(Exception) as err:
        plan(built, FieldTarget("probes.nowhere", direction=(0, 0, 1)))
    assert err.value.code == "plan.target"
    for kwargs, code in ((dict(direction=(0, 0, 0)), "target.direction"),
                         (dict(direction=(0, 0, 1), frequency=5.0), "target.kind"),
                         (dict(axis=(0, 0, 1)), "target.frequency"),
                         (dict(axis=(0, 0, 1), frequency=0.0), "target.frequency"),
                         (dict(direction=(0, 0, 1), low=2e-3, high=1e-3), "target.window"),
                         (dict(direction=(0, 0, 1), ellipticity=1.5), "target.ellipticity"),
                         (dict(direction=(0, 0, 1), tolerance=math.nan), "target.tolerance"),
                         (dict(), "target.kind")):
        with pytest.raises(TargetError) as err:
            FieldTarget("probes.dish", **kwargs)
        assert err.value.code == code, kwargs
    with pytest.raises(TargetError) as err:
        FieldTarget("parts.holder", direction=(0, 0, 1))
    assert err.value.code == "target.at"



@pytest.mark.parametrize("given, unit", [((1e308, 1e308, 0.0), (math.sqrt(0.5), math.sqrt(0.5), 0.0)),
                                         ((0.0, -1e-320, 0.0), (0.0, -1.0, 0.0)),
                                         ((3.0, 0.0, 4.0), (0.6, 0.0, 0.8))],
                         ids=["huge", "subnormal", "plain"])
def test_a_target_s_direction_and_axis_are_unit_vectors_however_large_or_small_given(given, unit):
    # a vector whose norm overflows was made (0, 0, 0) and searched for; a subnormal one refused as zero
    fixed = FieldTarget("probes.dish", direction=given)
    turning = FieldTarget("probes.dish", axis=given, frequency=5.0)
    for got in (fixed.direction, turning.axis):
        np.testing.assert_allclose(got, unit, rtol=1e-15, atol=0)

def test_a_target_kept_in_the_rig_file_is_planned_by_name(dish, tmp_path, capsys):
    """targets in the rig file: read back as written, checked by the rules, planned with --target NAME."""
    import json
    import shutil

    import jsonschema

    rig, built, point = dish
    B = field_by_hand(KNOWN, MOTOR, point)
    size = float(np.linalg.norm(B))
    rig.targets = {"beside": FieldTarget("probes.dish", direction=tuple(B), tolerance=math.radians(3.0),
                                         low=0.95 * size, high=1.05 * size)}
    folder = tmp_path / "rig"
    shutil.copytree(DEMO, folder)
    path = save(rig, folder / "dish.rig.json")
    data = json.loads(path.read_text())
    jsonschema.validate(data, json.loads((RESOURCES / "rig.schema.json").read_text()))
    assert data["targets"]["beside"]["tolerance"] == {"value": math.radians(3.0), "unit": "rad"}
    assert load(path).targets == rig.targets and load(path).validate() == []
    out = tmp_path / "beside.csv"
    code, text, err = run(capsys, "plan", path, "--target", "beside", "--starts", "3", "--out", out)
    assert code == 0 and err == "" and out.exists(), (text, err)
    code, _, err = run(capsys, "plan", path, "--target", "nowhere", "--out", out)
    assert code == 2 and "error[plan.target] --target: the rig has no target 'nowhere'; targets: beside" \
        in err
    code, _, err = run(capsys, "plan", path, "--target", "beside", "--at", "probes.dish", "--out", out)
    assert code == 2 and "error[plan.option] --target" in err


def test_a_bad_target_in_a_rig_file_is_refused_at_its_place(dish, tmp_path):
    import json

    from mime_gui.rig import RigFileError

    rig, built, point = dish
    rig.targets = {"t": FieldTarget("probes.dish", direction=(0.0, 0.0, 1.0))}
    path = save(rig, tmp_path / "t.rig.json")
    for change, code, pointer in ((lambda t: t.update(direction=[0, 0, 0]), "target.direction",
                                   "/targets/t/direction"),
                                  (lambda t: t.update(ellipticity=2), "target.ellipticity",
                                   "/targets/t/ellipticity"),
                                  (lambda t: t.update(tolerance={"value": 10, "unit": "deg"}), "rigfile.unit",
                                   "/targets/t/tolerance/unit")):
        data = json.loads(path.read_text())
        change(data["targets"]["t"])
        bad = tmp_path / "bad.rig.json"
        bad.write_text(json.dumps(data))
        with pytest.raises(RigFileError) as err:
            load(bad)
        assert (err.value.code, err.value.pointer) == (code, pointer), err.value


def test_a_target_follows_its_probe_when_the_probe_is_renamed(dish):
    from mime_gui.session import RenameItem, Session

    rig, built, point = dish
    rig.targets = {"t": FieldTarget("probes.dish", direction=(0.0, 0.0, 1.0))}
    session = Session()
    session.open_apparatus(rig)
    session.apply(RenameItem("probes", "dish", "bench"))
    assert session.rig.targets["t"].at == "probes.bench" and session.findings == ()
    session.undo()
    assert session.rig.targets["t"].at == "probes.dish"


def test_the_starts_on_worker_processes_end_where_they_end_here(dish, tmp_path):
    """The multi-start on the sweep's executors (in order, and on two local worker processes): the same
    ends, bit for bit, as in this process."""
    from mime_gui.field.planner import plan_job
    from mime_gui.sweep.executors import LocalExecutor, SerialExecutor

    rig, built, point = dish
    path = save(rig, tmp_path / "dish.rig.json")
    rig = load(path)
    built = rig.build()
    B = field_by_hand(KNOWN, MOTOR, point)
    size = float(np.linalg.norm(B))
    target = FieldTarget("probes.dish", direction=tuple(B), tolerance=math.radians(3.0), low=0.95 * size,
                         high=1.05 * size)
    here = plan(built, target, starts=4)
    job = plan_job(path.read_text(), str(path), str(path.parent), target)
    for runner in (SerialExecutor(), LocalExecutor(2)):
        there = plan(built, target, starts=4, executor=runner, job=job)
        assert len(there.ends) == len(here.ends) and there.evaluations == here.evaluations
        for a, b in zip(here.ends, there.ends, strict=True):
            np.testing.assert_array_equal(a.positions, b.positions)
            assert (a.meets, a.margin) == (b.meets, b.margin)


def test_a_target_turning_the_other_way_is_confirmed_by_the_motor_turning_backward(dish):
    """A candidate at the known pose for a target about the forward turn's axis at a negative frequency:
    its spin, as played, turns the field the other way about that axis (by hand: each step's cross product
    of the field at the played shaft angles points against it), and the check confirms it."""
    from mime_gui.field.planner import Candidate, Plan
    from mime_gui.rig.trajectories import render

    rig, built, point = dish
    turn = np.array([field_by_hand(KNOWN, MOTOR + 2 * math.pi * k / 16, point) for k in range(16)])
    axis, ellipticity, b_min, b_max = rotation_of(turn)
    target = FieldTarget("probes.dish", axis=tuple(axis), frequency=-5.0, tolerance=math.radians(10.0),
                         low=0.8 * b_min, high=1.2 * b_max, ellipticity=max(ellipticity - 0.1, 0.0))
    here = Candidate(np.append(KNOWN, MOTOR), 0.0, b_min, b_max, ellipticity, 1, True, {}, 1.0, turn)
    found = Plan(target, [here], [here], None, ("motor", "shaft"), built.command_names, 0)
    trajectory = trajectory_to(built, found, here)
    time, commands = render(built, trajectory, 0.01)
    spin = trajectory.segments["motor"][-1]
    held = (time > spin.time - 1.5) & (time < spin.time - 0.5)  # the held second of the spin
    rows = commands[held][:8]
    B = np.array([field_by_hand(r[:6], r[6], point) for r in rows])
    assert np.all(np.cross(B[:-1], B[1:]) @ axis < 0)
    checked = check_candidate(built, found, trajectory)
    assert checked.angle <= math.radians(10.0) and checked.frequency == pytest.approx(5.0, rel=0.02)
    assert checked.confirms
