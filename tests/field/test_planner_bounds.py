"""Bounds on the gradient and the force at a target: the candidates the planner offers keep within them (the
gradient by Magpylib's field differenced in space, the force by Magpylib's getFT on the sample's dipole, the
poses by Pinocchio: tests/oracle.py), their trajectories are checked against them at every step, a bound no
pose meets is named as what binds, bad bounds are refused with their codes (in Python, in the rig file, on
the command line), and a target with bounds goes through the rig file and the Python export unchanged."""

from __future__ import annotations

import json
import math
import runpy
import shutil

import numpy as np
import pytest
from oracle import DEMO_MAGNETISATION, demo_poses, magnet_B
from test_planner import KNOWN, MOTOR, field_by_hand, magnet_centre

from mime_gui import RESOURCES
from mime_gui.cli.main import main
from mime_gui.field.planner import check_candidate, describe_binding, plan, trajectory_to
from mime_gui.rig import Probe, RigFileError, Sample, a_m2, load, save
from mime_gui.rig.export import to_python
from mime_gui.rig.targets import FieldTarget, TargetError

magpy = pytest.importorskip("magpylib")

DEMO = RESOURCES / "demo"
MOMENT = 0.02  # A·m², the bead's declared moment, along the world's x


def _gradient_by_hand(arm, motor, point, h=1e-5) -> np.ndarray:
    rotor = demo_poses(arm, motor)["rotor"]
    steps = np.concatenate([np.eye(3), -np.eye(3)]) * h
    B = magnet_B(rotor, point + steps, DEMO_MAGNETISATION)
    return ((B[:3] - B[3:]) / (2 * h)).T


def _force_by_hand(arm, motor, point) -> np.ndarray:
    """getFT on the bead as a dipole, the magnet m1 placed by Pinocchio."""
    from scipy.spatial.transform import Rotation

    rotor = demo_poses(arm, motor)["rotor"]
    br = json.loads((RESOURCES / "materials.json").read_text())["materials"]
    br = next(m["remanence"] for m in br if m["name"] == "NdFeB-N42")
    source = magpy.magnet.Cylinder(dimension=(0.01, 0.01),
                                   polarization=tuple(br * np.array(DEMO_MAGNETISATION)))
    X = rotor.copy()
    X[:3, 3] = rotor[:3, :3] @ [0.0, 0.0, 0.025] + rotor[:3, 3]
    source.position, source.orientation = X[:3, 3], Rotation.from_matrix(X[:3, :3])
    F, _ = magpy.getFT(source, magpy.misc.Dipole(moment=(MOMENT, 0.0, 0.0), position=point), eps=1e-5)
    return np.asarray(F).reshape(3)


@pytest.fixture(scope="module")
def bench():
    """The demo rig with a probe and a sample (a declared moment held along x) fixed in the world 3 cm
    beside the magnet at the known pose, and the field, gradient and force there."""
    rig = load(DEMO / "demo.rig.json")
    point = magnet_centre(KNOWN, MOTOR) + np.array([0.02, -0.01, -0.02])
    rig.probes = {**rig.probes, "dish": Probe(tuple(point))}
    rig.samples = {"bead": Sample(tuple(point), moment=a_m2(MOMENT, reason="a test bead"),
                                  magnetisation=(1.0, 0.0, 0.0))}
    B = field_by_hand(KNOWN, MOTOR, point)
    G = _gradient_by_hand(KNOWN, MOTOR, point)
    F = _force_by_hand(KNOWN, MOTOR, point)
    return rig, rig.build(), point, B, G, F


def _fixed(at, B, **bounds):
    size = float(np.linalg.norm(B))
    return FieldTarget(at, direction=tuple(B), tolerance=math.radians(5.0), low=0.9 * size, high=1.1 * size,
                       **bounds)


def test_a_gradient_bound_is_kept_by_every_candidate_and_along_its_trajectory(bench):
    rig, built, point, B, G, F = bench
    bound = 1.05 * float(np.linalg.norm(G))
    found = plan(built, _fixed("probes.dish", B, max_gradient=bound), starts=4)
    assert found.candidates and found.binding is None
    for c in found.candidates:  # each by Pinocchio and Magpylib at its own joints
        g = np.linalg.norm(_gradient_by_hand(c.positions[:6], c.positions[6], point))
        assert g <= bound
        assert c.gradient == pytest.approx(g, rel=1e-5) and c.margins["gradient"] >= 0.0
    best = found.candidates[0]
    checked = check_candidate(built, found, trajectory_to(built, found, best))
    assert checked.confirms and checked.findings == []
    assert checked.gradient <= bound and math.isnan(checked.force)


def test_a_force_bound_on_a_sample_is_kept_by_every_candidate_and_along_its_trajectory(bench):
    rig, built, point, B, G, F = bench
    bound = 1.05 * float(np.linalg.norm(F))
    found = plan(built, _fixed("samples.bead", B, max_force=bound), starts=4)
    assert found.candidates and found.binding is None
    for c in found.candidates:
        f = np.linalg.norm(_force_by_hand(c.positions[:6], c.positions[6], point))
        assert f <= bound and c.force == pytest.approx(f, rel=1e-5)
    checked = check_candidate(built, found, trajectory_to(built, found, found.candidates[0]))
    assert checked.confirms and checked.force <= bound


def test_a_rotating_target_keeps_its_gradient_bound_over_the_whole_turn(bench):
    """A turn read at a known pose, asked for with a gradient bound a tenth above its largest over the turn:
    every candidate's turn keeps within it (16 shaft angles by hand), and so does its spin as played."""
    from mime_gui.field.planner import rotation_of

    rig, built, point, B, G, F = bench
    shaft = MOTOR + 2 * math.pi * np.arange(16) / 16
    turn = np.array([field_by_hand(KNOWN, a, point) for a in shaft])
    largest = max(np.linalg.norm(_gradient_by_hand(KNOWN, a, point)) for a in shaft)
    axis, ellipticity, b_min, b_max = rotation_of(turn)
    bound = 1.1 * largest
    target = FieldTarget("probes.dish", axis=tuple(axis), frequency=5.0, low=0.8 * b_min, high=1.2 * b_max,
                         ellipticity=max(ellipticity - 0.1, 0.0), max_gradient=bound)
    found = plan(built, target, starts=4)
    assert found.candidates
    for c in found.candidates:
        angles = c.positions[6] + 2 * math.pi * np.arange(16) / 16
        g = max(np.linalg.norm(_gradient_by_hand(c.positions[:6], a, point)) for a in angles)
        assert g <= bound and c.gradient == pytest.approx(g, rel=1e-5)
    checked = check_candidate(built, found, trajectory_to(built, found, found.candidates[0]))
    assert checked.confirms and checked.gradient <= bound


@pytest.mark.parametrize("key, code", [("max_gradient", "gradient"), ("max_force", "force")])
def test_a_bound_no_pose_meets_names_what_binds(bench, key, code):
    """The |B| window asks for the field near the magnet, the bound for a thousandth of what it brings."""
    rig, built, point, B, G, F = bench
    value = 1e-3 * float(np.linalg.norm(G if key == "max_gradient" else F))
    found = plan(built, _fixed("samples.bead", B, **{key: value}), starts=3)
    assert found.candidates == [] and found.binding == code
    assert ("T/m" if code == "gradient" else " N") in describe_binding(found)
    assert describe_binding(found).startswith("where the field asked for is met")


def test_a_played_trajectory_that_passes_a_bound_fails_its_check_and_says_where(bench):
    """A candidate met at the end of its approach fails when the bound is lowered below what it plays."""
    from dataclasses import replace

    rig, built, point, B, G, F = bench
    found = plan(built, _fixed("probes.dish", B, max_gradient=1e3), starts=2)
    best = found.candidates[0]
    trajectory = trajectory_to(built, found, best)
    lowered = replace(found, target=replace(found.target, max_gradient=0.5 * best.gradient))
    checked = check_candidate(built, lowered, trajectory)
    assert not checked.confirms
    assert [f.code for f in checked.findings] == ["plan.gradient"]
    message = checked.findings[0].message
    assert "T/m" in message and "first above the bound at t =" in message


def test_bad_bounds_are_refused_with_their_codes():
    for kwargs, code in ((dict(max_gradient=0.0), "target.gradient"),
                         (dict(max_gradient=-1.0), "target.gradient"),
                         (dict(max_gradient=math.inf), "target.gradient"),
                         (dict(max_gradient=2e6), "target.gradient"),
                         (dict(max_gradient=True), "target.gradient"),
                         (dict(max_force=math.nan), "target.force"),
                         (dict(max_force=0), "target.force")):
        with pytest.raises(TargetError) as err:
            FieldTarget("samples.bead", direction=(0, 0, 1), **kwargs)
        assert (err.value.code, err.value.file) == (code, next(iter(kwargs))), kwargs
    with pytest.raises(TargetError) as err:
        FieldTarget("probes.dish", direction=(0, 0, 1), max_force=1e-3)  # a probe has no moment
    assert err.value.code == "target.force" and "sample" in err.value.message


def test_bounds_go_through_the_rig_file_and_the_python_export(bench, tmp_path):
    import jsonschema

    rig, built, point, B, G, F = bench
    rig = load(DEMO / "demo.rig.json")
    rig.probes = {**rig.probes, "dish": Probe(tuple(point))}
    rig.samples = {"bead": Sample(tuple(point), moment=a_m2(MOMENT, reason="a test bead"))}
    rig.targets = {"gentle": FieldTarget("samples.bead", axis=(0, 0, 1), frequency=5.0, max_gradient=2.5,
                                         max_force=1e-4),
                   "plain": FieldTarget("probes.dish", direction=(0, 0, 1))}
    folder = tmp_path / "rig"
    shutil.copytree(DEMO, folder)
    path = save(rig, folder / "b.rig.json")
    data = json.loads(path.read_text())
    jsonschema.validate(data, json.loads((RESOURCES / "rig.schema.json").read_text()))
    assert data["targets"]["gentle"]["max_gradient"] == {"value": 2.5, "unit": "T/m"}
    assert data["targets"]["gentle"]["max_force"] == {"value": 1e-4, "unit": "N"}
    assert "max_gradient" not in data["targets"]["plain"]  # written only when bounded
    back = load(path)
    assert back.targets == rig.targets and back.validate() == []
    source = to_python(back, folder)
    assert "max_gradient=2.5" in source and "max_force=0.0001" in source
    script = folder / "exported.py"
    script.write_text(source, encoding="utf-8")
    assert runpy.run_path(str(script))["rig"].targets == rig.targets


@pytest.mark.parametrize("change, code, pointer", [
    (lambda t: t.update(max_gradient={"value": -1.0, "unit": "T/m"}), "target.gradient",
     "/targets/t/max_gradient"),
    (lambda t: t.update(max_gradient={"value": 1.0, "unit": "T"}), "rigfile.unit",
     "/targets/t/max_gradient/unit"),
    (lambda t: t.update(max_force={"value": 0.0, "unit": "N"}), "target.force", "/targets/t/max_force"),
    (lambda t: t.update(at="probes.dish", max_force={"value": 1e-3, "unit": "N"}), "target.force",
     "/targets/t/max_force"),
])
def test_a_bad_bound_in_a_rig_file_is_refused_at_its_place(bench, tmp_path, change, code, pointer):
    rig, built, point, B, G, F = bench
    rig = load(DEMO / "demo.rig.json")
    rig.probes = {**rig.probes, "dish": Probe(tuple(point))}
    rig.samples = {"bead": Sample(tuple(point), moment=a_m2(MOMENT, reason="a test bead"))}
    rig.targets = {"t": FieldTarget("samples.bead", direction=(0.0, 0.0, 1.0))}
    data = json.loads(save(rig, tmp_path / "t.rig.json").read_text())
    change(data["targets"]["t"])
    bad = tmp_path / "bad.rig.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(RigFileError) as err:
        load(bad)
    assert (err.value.code, err.value.pointer) == (code, pointer), err.value


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _plan_files(bench, tmp_path):
    """The bench rig saved beside the demo's files, the plan's output, and the options asking for the bench's
    field at the bead (its direction within 5°, its size within ±10 %)."""
    rig, built, point, B, G, F = bench
    folder = tmp_path / "rig"
    shutil.copytree(DEMO, folder)
    path = save(rig, folder / "bench.rig.json")
    out = tmp_path / "plan.csv"
    size = float(np.linalg.norm(B))
    direction = ",".join(repr(float(v)) for v in B / size)
    common = ["--at", "samples.bead", f"--direction={direction}", "--tolerance", "5", "--low",
              repr(0.9 * size * 1e3), "--high", repr(1.1 * size * 1e3), "--starts", "3", "--out", out]
    return folder, path, out, common


def test_mime_gui_plan_takes_the_bounds_and_refuses_bad_ones(bench, tmp_path, capsys):
    rig, built, point, B, G, F = bench
    folder, path, out, common = _plan_files(bench, tmp_path)
    gradient, force = 1.05 * float(np.linalg.norm(G)), 1.05 * float(np.linalg.norm(F))
    code, text, err = run(capsys, "plan", path, *common, "--max-gradient", repr(gradient), "--max-force",
                          repr(force))
    assert code == 0 and err == "" and out.exists(), (text, err)
    assert f"gradient at most {gradient:g} T/m, force at most {force:g} N" in text
    assert "passes its checks" in text and "largest along the trajectory: gradient" in text
    out.unlink()
    code, text, err = run(capsys, "plan", path, *common, "--max-force", repr(1e-3 * force))
    assert code == 1 and "force binds" in text and not out.exists(), text
    common[1] = "probes.dish"
    code, text, err = run(capsys, "plan", path, *common, "--max-force", "1e-3")
    assert code == 2 and "error[target.force] max_force:" in err and not out.exists()
    rig.targets = {"t": _fixed("probes.dish", B)}
    path = save(rig, folder / "bench.rig.json")
    code, text, err = run(capsys, "plan", path, "--target", "t", "--max-gradient", "1", "--out", out)
    assert code == 2 and "error[plan.option] --target" in err


def test_mime_gui_plan_shows_only_the_bounded_quantity_for_a_force_bound(bench, tmp_path, capsys):
    """A force bound alone: each candidate's row and the passing line give the force, in N, within the bound,
    and no gradient (none was asked for, none computed)."""
    F = bench[-1]
    _, path, out, common = _plan_files(bench, tmp_path)
    force = 1.05 * float(np.linalg.norm(F))
    code, text, err = run(capsys, "plan", path, *common, "--max-force", repr(force))
    assert code == 0 and err == "" and out.exists(), (text, err)
    rows = [line for line in text.splitlines() if " margin " in line]
    passed = [line for line in text.splitlines() if "passes its checks" in line]
    assert rows and len(passed) == 1
    assert "gradient" not in text
    for line in rows:
        shown = float(line.split(", force ")[1].split(" N")[0])
        assert 0.0 < shown <= force
    largest = passed[0].split("largest along the trajectory: ")[1]
    assert largest.startswith("force ") and float(largest.split(" ")[1]) <= force
