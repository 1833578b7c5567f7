"""An edited rig's analysis takes over from the last one (``analyse(rig, since=...)``) what the edit left as
it was, and is the same analysis as one made from nothing: the same findings in the same order, the same
mounts, masses, moments, frames and armature. What it takes over it does not check again; what it cannot
know is unchanged (a file named by a shape, a registry) it checks again."""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rig_helpers import DEMO_RIG
from rig_strategies import rigs, trajectories

from mime_gui.rig import Apparatus, Box, Cylinder, Mesh, Part, PermanentMagnet, Probe, load
from mime_gui.rig import rules as rules_module
from mime_gui.rig.actuators import register_actuator, unregister_actuator
from mime_gui.rig.geometries.registry import KINDS, Field, GeometryKind, MassProperties, register
from mime_gui.rig.paths import replace as replace_at
from mime_gui.rig.rules import analyse

COLLECTIONS = ("chain", "parts", "magnets", "probes", "frames", "samples", "zones", "trajectories")


def summary(a) -> dict:
    """What an analysis says and resolves, as plain values."""
    return {
        "findings": list(a.findings),
        "segment_mounts": dict(a.segment_mounts), "part_mounts": dict(a.part_mounts),
        "frames": dict(a.frames), "declared": dict(a.declared),
        "trees": {n: None if t is None else sorted(t.links) for n, t in a.trees.items()},
        "masses": {k: (m.mass, m.volume, m.source, np.asarray(m.centroid).tolist(),
                       np.asarray(m.inertia).tolist()) for k, m in a.masses.items()},
        "moments": {k: m.to_dict() for k, m in a.moments.items()},
        "armature": {k: [s.to_dict() for s in v] for k, v in a.armature.items()},
    }


def same_as_fresh(rig, since) -> None:
    assert summary(analyse(rig, since=since)) == summary(analyse(rig))


def with_items(rig: Apparatus, **collections) -> Apparatus:
    """``rig`` with some collections replaced; every other item is the same object."""
    keep = {c: getattr(rig, c) for c in COLLECTIONS}
    keep.update(collections)
    return Apparatus(rig.name, base=rig.base, package_dirs=rig.package_dirs, clearance=rig.clearance,
                     poses=rig.poses, targets=rig.targets, **keep)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(old=rigs, other=rigs, moves=st.lists(st.tuples(st.sampled_from(COLLECTIONS[:-1]), st.booleans()),
                                            max_size=4),
       trajectory=st.none() | trajectories)
def test_an_edit_of_any_rig_is_analysed_as_a_rig_read_from_nothing(old, other, moves, trajectory):
    # each move takes a collection from the other rig (whole) or one item of it into the old one's
    new = {}
    for collection, whole in moves:
        ours, theirs = dict(new.get(collection, getattr(old, collection))), getattr(other, collection)
        if whole or not theirs:
            ours = dict(theirs)
        else:
            name = next(iter(theirs))
            ours[name] = theirs[name]
        new[collection] = ours
    if trajectory is not None:
        new["trajectories"] = {"t": trajectory}
    same_as_fresh(with_items(old, **new), analyse(old))


def test_a_session_of_edits_on_the_demo_rig_is_analysed_as_from_nothing():
    rig = load(DEMO_RIG)
    steps = [
        ("parts.holder.geometry", Cylinder(radius=0.012, length=0.02)),
        ("parts.holder.geometry", Cylinder(radius=-1.0, length=0.02)),  # a finding
        ("parts.holder.mount", "motor.nowhere"),  # another
        ("parts.holder.geometry", Cylinder(radius=0.01, length=0.02)),  # the first fixed
        ("parts.holder.mount", "motor.rotor"),  # and the second
        ("magnets.m1.at", (0.0, 0.0, float("nan"))),
        ("magnets.m1.at", (0.0, 0.0, 0.03)),
        ("chain.motor.axis", (1.0, 0.0, 0.0)),  # the chain changes: read again
        ("chain.arm.initial_positions", {"joint_1": 9.0}),  # out of its limits
        ("chain.arm.initial_positions", {"joint_1": 0.2}),
    ]
    a = analyse(rig)
    seen = set()
    for path, value in steps:
        rig = replace_at(rig, path, value)
        fresh, incremental = analyse(rig), analyse(rig, since=a)
        assert summary(incremental) == summary(fresh), path
        seen |= {f.code for f in fresh.findings}
        a = incremental
    assert {"part.geometry", "part.mount", "part.placement", "chain.initial-positions"} <= seen


def counting(monkeypatch, name: str) -> list:
    calls = []
    original = getattr(rules_module, name)

    def counted(*args, **kw):
        calls.append(args)
        return original(*args, **kw)

    monkeypatch.setattr(rules_module, name, counted)
    return calls


def test_what_the_edit_left_as_it_was_is_not_checked_again(monkeypatch):
    rig = load(DEMO_RIG)
    before = analyse(rig)
    trees, masses = counting(monkeypatch, "_segment_tree"), counting(monkeypatch, "part_mass")
    stage = counting(monkeypatch, "import_module")
    edited = replace_at(rig, "parts.holder.geometry", Cylinder(radius=0.011, length=0.02))
    after = analyse(edited, since=before)
    assert trees == []  # the chain is taken over
    assert [args[0] for args in masses] == [edited.parts["holder"]]  # the magnet's mass is taken over
    assert stage == []  # probes, poses, trajectories… read nothing the edit changed
    assert summary(after) == summary(analyse(edited))
    # a probe added: the probe rules run again, the chain and the parts stay taken over
    trees.clear(), masses.clear()
    probed = with_items(edited, probes={**edited.probes, "p2": Probe((0.0, 0.0, 0.5))})
    again = analyse(probed, since=after)
    assert trees == [] and masses == []
    assert "mime_gui.rig.probe_rules" in [args[0] for args in stage]
    assert summary(again) == summary(analyse(probed))
    # without ``since``, everything is checked
    trees.clear()
    analyse(edited)
    assert len(trees) == len(edited.chain)


def stl_box(path, sides) -> None:
    import trimesh

    trimesh.creation.box(extents=sides).export(path)


def test_a_shape_read_from_a_file_is_read_again_though_the_part_is_unchanged(tmp_path):
    mesh = tmp_path / "bracket.stl"
    stl_box(mesh, (0.01, 0.01, 0.01))
    rig = Apparatus("r", chain={}, base=tmp_path, parts={
        "bracket": Part(Mesh("bracket.stl", (1.0, 1.0, 1.0)), material="aluminium"),
        "plate": Part(Box((0.02, 0.02, 0.002)), material="aluminium")})
    before = analyse(rig)
    stl_box(mesh, (0.02, 0.01, 0.01))  # changed on disk: twice the volume
    stamp = mesh.stat().st_mtime_ns + 10**9
    os.utime(mesh, ns=(stamp, stamp))  # as a later save would leave it (the same size of file)
    edited = replace_at(rig, "parts.plate.at", (0.0, 0.0, 0.1))
    after = analyse(edited, since=before)
    assert after.masses[("parts", "bracket")].volume == pytest.approx(2e-6, rel=1e-9)
    assert summary(after) == summary(analyse(edited))


def test_a_registered_actuator_is_seen_by_the_next_edit():
    rig = load(DEMO_RIG)
    arm = rig.chain["arm"]
    rig = replace_at(rig, "chain.arm", dataclasses.replace(arm, actuators={**arm.actuators,
                                                                           "motor_1": "lab-motor-7"}))
    before = analyse(rig)
    assert any(f.where.startswith("chain.arm.actuators.motor_1") for f in before.findings)
    register_actuator("lab-motor-7", 2.0e-5, "lab datasheet (test)")
    try:
        edited = replace_at(rig, "parts.holder.at", (0.0, 0.0, 0.012))
        after = analyse(edited, since=before)
        assert not any(f.where.startswith("chain.arm.actuators") for f in after.findings)
        assert summary(after) == summary(analyse(edited))
    finally:
        unregister_actuator("lab-motor-7")
    # unregistered: the next edit sees that too
    again = analyse(replace_at(edited, "parts.holder.at", (0.0, 0.0, 0.01)), since=after)
    assert any(f.where.startswith("chain.arm.actuators.motor_1") for f in again.findings)


def test_a_rig_moved_to_another_folder_reads_its_descriptions_again(tmp_path):
    rig = load(DEMO_RIG)
    before = analyse(rig)
    moved = Apparatus(rig.name, chain=rig.chain, parts=rig.parts, magnets=rig.magnets, probes=rig.probes,
                      base=tmp_path)  # no arm.urdf there
    after = analyse(moved, since=before)
    assert any(f.code == "chain.description" for f in after.findings)
    assert summary(after) == summary(analyse(moved))


def test_a_probe_inside_a_magnet_is_seen_when_the_magnet_moves_onto_it():
    magnet = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                             magnetisation=(0.0, 0.0, 1.0), at=(0.0, 0.0, 0.5))
    rig = Apparatus("r", chain={}, magnets={"m": magnet}, probes={"p": Probe((0.0, 0.0, 0.0))})
    before = analyse(rig)
    assert not any(f.code == "probe.inside-magnet" for f in before.findings)
    moved = replace_at(rig, "magnets.m.at", (0.0, 0.0, 0.0))  # only the magnet changed
    after = analyse(moved, since=before)
    assert any(f.code == "probe.inside-magnet" for f in after.findings)
    assert summary(after) == summary(analyse(moved))


def test_a_sample_is_told_when_a_probe_takes_its_name():
    from mime_gui.rig.samples import Sample

    rig = Apparatus("r", chain={}, samples={"bead": Sample((0.0, 0.0, 0.1), moment=1e-9,
                                                           magnetisation=(0.0, 0.0, 1.0))})
    before = analyse(rig)
    assert not any(f.code == "sample.name" for f in before.findings)
    named = with_items(rig, probes={"bead": Probe((0.0, 0.0, 0.0))})  # the sample itself is unchanged
    after = analyse(named, since=before)
    assert any(f.code == "sample.name" and f.where == "samples.bead" for f in after.findings)
    assert summary(after) == summary(analyse(named))


def hand_in_a_workspace(tmp_path, monkeypatch):
    """A rig on a URDF whose mesh is ``package://gripper/…``, the package under ``tmp_path/ws``: (the rig, the
    mesh's path)."""
    from mime_gui.rig import Arm

    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    mesh = tmp_path / "ws" / "gripper" / "meshes" / "finger.stl"
    mesh.parent.mkdir(parents=True)
    stl_box(mesh, (0.01, 0.01, 0.01))
    (tmp_path / "hand.urdf").write_text(
        '<robot name="hand"><link name="palm"><visual><geometry><mesh '
        'filename="package://gripper/meshes/finger.stl"/></geometry></visual></link></robot>')
    return Apparatus("hand", chain={"hand": Arm.Kinematic(description="hand.urdf")}, base=tmp_path), mesh


def test_package_folders_given_after_an_analysis_resolve_the_descriptions_meshes(tmp_path, monkeypatch):
    rig, mesh = hand_in_a_workspace(tmp_path, monkeypatch)
    before = analyse(rig)
    assert before.trees["hand"].links["palm"].visuals[0].geometry.filename is None
    found = Apparatus("hand", chain=rig.chain, base=tmp_path, package_dirs=["ws"])  # the same segment
    after = analyse(found, since=before)
    assert after.trees["hand"].links["palm"].visuals[0].geometry.filename == str(mesh)


def demo_with(**collections) -> Apparatus:
    rig = load(DEMO_RIG)
    keep = {c: getattr(rig, c) for c in (*COLLECTIONS, "poses", "targets")}
    keep.update(collections)
    return Apparatus(rig.name, base=rig.base, **keep)


def test_each_rule_hears_of_the_items_it_reads_though_its_own_are_unchanged():
    from mime_gui.rig.poses import Pose
    from mime_gui.rig.targets import FieldTarget
    from mime_gui.rig.trajectories import Keyframe, Trajectory
    from mime_gui.rig.zones import Zone

    cases = [  # (a rig, the same with another collection changed, the finding that comes or goes)
        (demo_with(zones={"z": Zone((0.0, 0.0, 1.0), sphere=0.01)}),
         {"probes": {"z": Probe((0.0, 0.0, 0.5))}}, "zone.name"),
        (demo_with(trajectories={"t": Trajectory({"arm": (Keyframe(0.0, pose="up"), Keyframe(1.0))})}),
         {"poses": {"up": Pose({"arm": {"joint_1": 10.0}})}}, "trajectory.pose"),
        (demo_with(targets={"aim": FieldTarget("probes.tip", direction=(0.0, 0.0, 1.0))}),
         {"probes": {"tip": Probe((0.0, 0.0, 0.5))}}, "target.at"),
    ]
    for rig, change, code in cases:
        before = analyse(rig)
        changed = demo_with(**{c: getattr(rig, c) for c in (*COLLECTIONS, "poses", "targets")} | change)
        after = analyse(changed, since=before)
        codes = {f.code for f in before.findings} ^ {f.code for f in after.findings}
        assert code in codes, (code, before.findings, after.findings)
        assert summary(after) == summary(analyse(changed)), code


def test_a_mesh_removed_after_it_was_read_stands_as_read(tmp_path):
    from mime_gui.rig.geometries import load_mesh

    mesh = tmp_path / "gone.stl"
    stl_box(mesh, (0.01, 0.02, 0.03))
    read = load_mesh(str(mesh))
    mesh.unlink()
    assert load_mesh(str(mesh)) is read
    never = tmp_path / "never.stl"
    with pytest.raises(OSError):
        load_mesh(str(never))


def test_the_process_package_folders_changed_read_the_descriptions_again(tmp_path, monkeypatch):
    from mime_gui.multibody.resolve import package_dirs, set_package_dirs

    rig, mesh = hand_in_a_workspace(tmp_path, monkeypatch)
    kept = package_dirs()
    try:
        before = analyse(rig)
        assert before.trees["hand"].links["palm"].visuals[0].geometry.filename is None
        set_package_dirs([tmp_path / "ws"])
        after = analyse(rig, since=before)
        assert after.trees["hand"].links["palm"].visuals[0].geometry.filename == str(mesh)
    finally:
        set_package_dirs(kept)


@dataclasses.dataclass(frozen=True)
class Blob:
    """A lab's solid read from a file: a ball whose radius (m) the file at ``path`` holds."""

    path: str
    kind = "blob"

    def radius(self) -> float:
        with open(self.path, encoding="utf-8") as f:
            return float(f.read())

    def problems(self, base=None) -> list[str]:
        return []

    def mass_properties(self, base=None) -> MassProperties:
        r = self.radius()
        volume = 4.0 / 3.0 * np.pi * r**3
        return MassProperties(volume, np.zeros(3), np.eye(3) * 0.4 * volume * r**2)


@pytest.fixture
def blob():
    """The kind :class:`Blob`, registered for one test: its probe-inside test reads its file."""
    register(GeometryKind("blob", Blob, (Field("path", "File", unit="path"),), text="blob {path}",
                          summary="a ball read from a file",
                          mesh=lambda g, base=None: (np.zeros((0, 3)), np.zeros((0, 3), dtype=int)),
                          inside=lambda g, p: np.linalg.norm(p, axis=-1) < g.radius(),
                          source=lambda g, J, base=None: None))
    yield
    del KINDS["blob"]


def test_a_rule_stage_reads_again_an_item_whose_shape_names_a_file(tmp_path, blob):
    radius = tmp_path / "radius.txt"
    radius.write_text("0.001")
    rig = Apparatus("r", chain={}, base=tmp_path,
                    parts={"plate": Part(Box((0.02, 0.02, 0.002)), material="aluminium")},
                    magnets={"m": PermanentMagnet(Blob(str(radius)), material="NdFeB-N42")},
                    probes={"p": Probe((0.002, 0.0, 0.0))})
    before = analyse(rig)
    assert not [f for f in before.findings if f.code == "probe.inside-magnet"]
    radius.write_text("0.005")  # the magnet's file changed on disk: its ball now holds the probe
    edited = replace_at(rig, "parts.plate.at", (0.0, 0.0, 0.1))  # the probes and magnets are the same
    after = analyse(edited, since=before)
    assert [f.where for f in after.findings if f.code == "probe.inside-magnet"] == ["probes.p.at"]
    assert summary(after) == summary(analyse(edited))
