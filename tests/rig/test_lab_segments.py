"""A lab's segment kind from an installed package's entry point, in a rig with an Arm and a Motor: it
validates, mounts and is mounted on, saves, loads, exports and plays (poses checked by hand)."""

from __future__ import annotations

import json
import runpy
import sys

import jsonschema
import numpy as np
import pytest
from lab_stage import ARM_URDF, install

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import (
    Apparatus,
    Arm,
    Box,
    LabSegment,
    Motor,
    Part,
    RigFileError,
    dynamics,
    load,
    register_dynamics,
    save,
    unregister_dynamics,
)
from mime_gui.rig.dynamics import DynamicsError
from mime_gui.rig.export import to_python


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """``lab_stages`` installed: on ``sys.path`` with its dist-info; the entry points are read afresh."""
    site = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(site))
    dynamics.refresh()
    yield site
    sys.modules.pop("lab_stages", None)
    dynamics.refresh()


@pytest.fixture
def rig(tmp_path, installed) -> Apparatus:
    (tmp_path / "pivot.urdf").write_text(ARM_URDF)
    return Apparatus("lab", base=tmp_path, chain={
        "arm": Arm.Kinematic(description="pivot.urdf"),
        "stage": LabSegment(kind="linear-stage", params={"travel": 0.05, "height": 0.02}, mount="tool"),
        "motor": Motor.Kinematic(axis=(0, 0, 1), mount="carriage"),
    }, parts={"puck": Part(Box((0.01, 0.01, 0.01)), material="aluminium", at=(0, 0, 0.005),
                           mount="stage.carriage")})


def _rz(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def test_the_installed_kind_is_found_with_its_package_and_version(installed):
    k = dynamics.kinds()["linear-stage"]
    assert (k.package, k.version) == ("lab-stages", "1.2.0")


def test_the_rig_validates_and_names_the_stage_frames_and_channels(rig):
    assert rig.validate() == []
    built = rig.build()
    assert built.command_names == ("arm.joint_1", "stage.slide", "motor.shaft")
    assert built.frame_names[built.frame_names.index("stage.base"):] == (
        "stage.base", "stage.carriage", "stage.part:puck", "motor.stator", "motor.rotor")


def test_mounts_on_the_stage_follow_the_same_rules(rig):
    chain = dict(rig.chain)
    chain["motor"] = Motor.Kinematic(mount="stage.table")
    bad = Apparatus("lab", chain=chain, base=rig.base)
    [finding] = bad.validate()
    assert finding.code == "chain.mount" and finding.where == "chain.motor.mount"
    assert "carriage" in finding.message and "base" in finding.message
    chain["stage"] = LabSegment(kind="linear-stage", mount="flange")  # a joint, not a frame of the arm
    chain["motor"] = rig.chain["motor"]
    assert [f.code for f in Apparatus("lab", chain=chain, base=rig.base).validate()] == ["chain.mount"]


def test_bad_params_and_initial_positions_are_findings_at_the_segment(rig):
    chain = dict(rig.chain)
    chain["stage"] = LabSegment(kind="linear-stage", params={"travel": -1}, mount="tool")
    [finding] = Apparatus("lab", chain=chain, base=rig.base).validate()
    assert finding.code == "chain.description" and finding.where == "chain.stage.params"
    assert "travel must be a positive number" in finding.message and "lab-stages" in finding.message
    chain["stage"] = LabSegment(kind="linear-stage", params={"travel": 0.05}, mount="tool",
                                initial_positions={"slide": 0.051})  # past the travel
    [finding] = Apparatus("lab", chain=chain, base=rig.base).validate()
    assert finding.code == "chain.initial-positions" and "outside its limits" in finding.message
    chain["stage"] = LabSegment(kind="linear-stage", params={"travel": 0.05}, mount="tool",
                                initial_positions={"slide": 0.05})  # at the travel
    assert Apparatus("lab", chain=chain, base=rig.base).validate() == []


def test_it_plays_with_poses_by_hand(rig):
    built = rig.build()
    T, theta, s, phi = 4, 0.7, 0.03, -1.1
    traj = built.play({"arm": np.full(T, theta), "stage": np.full(T, s), "motor": np.full(T, phi)}, 0.01)
    poses = dict(zip(traj.frame_names, traj.frame_poses[-1], strict=True))
    tool = np.array([0.2 * np.cos(theta), 0.2 * np.sin(theta), 0.1])
    assert np.allclose(poses["stage.base"][:3, 3], tool)
    carriage = tool + _rz(theta) @ np.array([s, 0, 0.02])
    assert np.allclose(poses["stage.carriage"][:3, 3], carriage)
    assert np.allclose(poses["stage.carriage"][:3, :3], _rz(theta))
    assert np.allclose(poses["stage.part:puck"][:3, 3], carriage + [0, 0, 0.005])
    assert np.allclose(poses["motor.rotor"][:3, 3], carriage)
    assert np.allclose(poses["motor.rotor"][:3, :3], _rz(theta + phi))


def test_it_saves_and_loads_by_its_kind_with_its_params_and_package(rig, tmp_path):
    path = save(rig, tmp_path / "lab.rig.json")
    stage = json.loads(path.read_text())["chain"][1]
    assert stage["kind"] == "linear-stage" and stage["package"] == "lab-stages"
    assert stage["params"] == {"travel": 0.05, "height": 0.02} and stage["mount"] == "tool"
    assert load(path) == rig
    schema = json.loads((RESOURCES / "rig.schema.json").read_text())
    jsonschema.validate(json.loads(path.read_text()), schema)
    data = json.loads(path.read_text())
    data["chain"][1]["kind"] = "Arm.Kinematic"  # a built-in kind holds its own keys only
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_an_unknown_kind_names_the_installed_kinds_and_the_package_to_install(rig, tmp_path):
    path = save(rig, tmp_path / "lab.rig.json")
    data = json.loads(path.read_text())
    data["chain"][1]["kind"] = "rotary-table"
    path.write_text(json.dumps(data))
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == "rigfile.value" and info.value.pointer == "/chain/1/kind"
    assert "Arm.Kinematic" in info.value.message and "linear-stage" in info.value.message
    assert "the package 'lab-stages' provides it" in info.value.message


def test_without_the_package_the_rig_file_says_what_to_install(rig, tmp_path, monkeypatch, capsys):
    path = save(rig, tmp_path / "lab.rig.json")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if "site" not in p.split("/")[-1:]])
    sys.modules.pop("lab_stages", None)
    dynamics.refresh()
    assert "linear-stage" not in dynamics.kinds()
    capsys.readouterr()
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("error[rigfile.value] ") and "#/chain/1/kind" in out
    assert "unknown segment kind 'linear-stage'" in out and "the package 'lab-stages' provides it" in out


def test_the_export_records_the_kind_package_version_and_rung(rig, tmp_path, capsys):
    path = save(rig, tmp_path / "lab.rig.json")
    out = tmp_path / "exported.rig.json"
    assert main(["export", str(path), "--json", str(out)]) == 0
    segments = json.loads(out.read_text())["provenance"]["segments"]
    assert segments["stage"] == {"kind": "linear-stage", "package": "lab-stages", "version": "1.2.0",
                                 "rung": "kinematic"}
    assert "pivot.urdf" in json.loads(out.read_text())["provenance"]["files"]
    py = tmp_path / "exported.py"
    assert main(["export", str(path), "--python", str(py)]) == 0
    assert runpy.run_path(str(py))["rig"] == load(path)


def test_the_python_export_keeps_the_stage_s_initial_position(rig, tmp_path):
    rig.chain["stage"] = LabSegment(kind="linear-stage", params={"travel": 0.05, "height": 0.02},
                                    mount="tool", initial_positions={"slide": 0.03})
    py = tmp_path / "exported.py"
    py.write_text(to_python(rig, tmp_path), encoding="utf-8")
    again = runpy.run_path(str(py))["rig"]
    assert again.chain["stage"].initial_positions == {"slide": 0.03}
    assert again == rig


def test_mime_gui_play_reads_joint_positions_channels(rig, tmp_path, capsys):
    path = save(rig, tmp_path / "lab.rig.json")
    csv = tmp_path / "cmd.csv"
    csv.write_text("time,arm.joint_positions.0,stage.joint_positions,motor.joint_positions.shaft\n"
                   "0,0.7,0.03,-1.1\n0.01,0.7,0.03,-1.1\n0.02,0.7,0.03,-1.1\n")
    out = tmp_path / "o.npz"
    assert main(["play", str(path), "--commands", str(csv), "--out", str(out), "--quiet"]) == 0
    data = np.load(out)
    names = list(data["frame_names"])
    carriage = data["frame_poses"][-1, names.index("stage.carriage")]
    assert np.allclose(carriage[:3, 3], [0.23 * np.cos(0.7), 0.23 * np.sin(0.7), 0.12])


@pytest.mark.parametrize(("column", "words", "code"), [
    ("arm.joint_positions.1", "arm has 1 commanded joint(s)", "unknown-joint"),
    ("arm.joint_positions.flange", "'flange' is not a commanded joint of arm", "unknown-joint"),
    ("stage.joint_torques.0", "segment 'stage' is kinematic", "torque"),  # a lab segment plays kinematically
    ("stage.joint_torques", "segment 'stage' is kinematic", "torque"),
    ("stage.torque", "segment 'stage' is kinematic", "torque"),
    ("stage.joint_velocities", "unknown joint", "unknown-joint"),
    ("arm.joint_1", "which another column names too", "columns"),
])
def test_an_unknown_channel_is_a_coded_error_with_the_line(rig, tmp_path, capsys, column, words, code):
    path = save(rig, tmp_path / "lab.rig.json")
    csv = tmp_path / "cmd.csv"
    csv.write_text(f"time,arm.joint_positions.0,{column}\n0,0.1,0.2\n0.01,0.1,0.2\n")
    assert main(["play", str(path), "--commands", str(csv), "--out", str(tmp_path / "o.npz")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error[commands.{code}]") and f"{csv}:1: column 3: " in err and words in err
    assert not (tmp_path / "o.npz").exists()


def test_register_dynamics_in_python_returns_a_shortcut(tmp_path):
    def turntable(radius=0.1):
        return dynamics.frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0.01),
                                                      (0, 0, 1), None)])

    Turntable = register_dynamics("turntable", turntable)
    try:
        seg = Turntable(params={"radius": 0.2})
        assert seg == LabSegment(kind="turntable", params={"radius": 0.2})
        rig = Apparatus("t", chain={"table": seg, "motor": Motor.Kinematic(mount="table")})
        assert rig.validate() == []
        assert rig.build().command_names == ("table.spin", "motor.shaft")
        with pytest.raises(DynamicsError) as info:
            register_dynamics("turntable", turntable)
        assert info.value.code == "dynamics.duplicate"
    finally:
        unregister_dynamics("turntable")


@pytest.mark.parametrize("name", ["Arm.Kinematic", "Motor.Dynamic", "", " stage", "a/b", 3])
def test_a_kind_name_that_is_built_in_or_not_a_name_is_refused(name):
    with pytest.raises(DynamicsError) as info:
        register_dynamics(name, lambda: None)
    assert info.value.code == "dynamics.name"


def test_a_built_in_kind_name_is_refused_listing_the_built_ins_and_asking_for_another_name():
    with pytest.raises(DynamicsError) as info:
        register_dynamics("Motor.Dynamic", lambda: None)
    message = info.value.message
    assert "'Motor.Dynamic' is a built-in kind" in message
    for built_in in ("Arm.Kinematic", "Arm.Dynamic", "Motor.Kinematic"):
        assert built_in in message, built_in
    assert "name the lab's kind otherwise" in message


def test_a_factory_that_returns_no_tree_is_a_finding():
    register_dynamics("broken", lambda: "not a tree")
    try:
        [finding] = Apparatus("b", chain={"x": LabSegment(kind="broken")}).validate()
        assert finding.code == "chain.description" and "must return a MultibodyTree" in finding.message
    finally:
        unregister_dynamics("broken")


def test_a_factory_whose_links_hang_from_no_joint_under_the_root_is_a_finding_naming_them():
    joints = [("slide", "prismatic", "base", "carriage", (0, 0, 0.1), (1, 0, 0), (-0.1, 0.1)),
              ("weld", "fixed", "bracket", "tip", (0, 0, 0), (1, 0, 0), None)]  # 'bracket' is nobody's child
    register_dynamics("loose", lambda: dynamics.frames("stage", "base", joints))
    try:
        [finding] = Apparatus("b", chain={"x": LabSegment(kind="loose")}).validate()
        assert (finding.code, finding.where) == ("chain.description", "chain.x.params")
        assert "'bracket', 'tip'" in finding.message
        assert "no joint reaches from its root 'base'" in finding.message
        assert "'carriage'" not in finding.message
        with pytest.raises(DynamicsError) as info:  # the kind's own refusal: the factory's code
            LabSegment(kind="loose").tree()
        assert info.value.code == "dynamics.factory" and "'bracket', 'tip'" in info.value.message
    finally:
        unregister_dynamics("loose")


def test_its_frames_publish_angular_velocities_that_riders_add_to(rig):
    built = rig.build()
    T, dt = 10, 0.01
    steps = dt * np.arange(1, T + 1)
    traj = built.play({"arm": 0.5 * steps, "stage": np.linspace(0, 0.01, T), "motor": -2.0 * steps}, dt)
    w = dict(zip(traj.frame_names, traj.frame_angular_velocities[-1], strict=True))
    assert np.allclose(w["stage.carriage"], [0, 0, 0.5])  # the arm's turn, carried; the slide adds none
    assert np.allclose(w["motor.rotor"], [0, 0, 0.5 - 2.0])


def test_a_factorys_frames_are_exactly_the_links_its_joints_name_in_any_order():
    joints = [("wrist", "revolute", "upper", "hand", (0, 0, 0.1), (0, 1, 0), (-1.0, 1.0)),
              ("shoulder", "continuous", "base", "upper", (0, 0, 0.05), (0, 0, 1), None)]
    for order in (joints, joints[::-1]):
        tree = dynamics.frames("two", "base", order)
        assert sorted(tree.links) == ["base", "hand", "upper"]
        assert {n: (j.parent, j.child) for n, j in tree.joints.items()} == {
            "wrist": ("upper", "hand"), "shoulder": ("base", "upper")}


def test_a_factorys_frames_are_links_of_their_own_name_even_a_parent_no_joint_places():
    joints = [("slide", "prismatic", "base", "carriage", (0, 0, 0.1), (1, 0, 0), (-0.1, 0.1)),
              ("weld", "fixed", "bracket", "tip", (0, 0, 0), (1, 0, 0), None)]  # 'bracket' is nobody's child
    tree = dynamics.frames("stage", "base", joints)
    assert sorted(tree.links) == ["base", "bracket", "carriage", "tip"]
    for name, link in tree.links.items():
        assert (link.name, link.inertial, link.visuals) == (name, None, []), name


def test_a_kind_not_registered_in_python_is_a_finding_at_its_kind_naming_the_registered_kinds(installed):
    [finding] = Apparatus("u", chain={"table": LabSegment(kind="rotary-table")}).validate()
    assert (finding.code, finding.where) == ("chain.description", "chain.table.kind")
    assert "'rotary-table' is registered" in finding.message and "linear-stage" in finding.message
    with pytest.raises(DynamicsError) as info:
        LabSegment(kind="rotary-table").tree()
    assert info.value.code == "dynamics.unknown"
