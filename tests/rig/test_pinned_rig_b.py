"""Small rig answers pinned down: a sample's geometry refusal, a rig path into an empty mapping, the
payload of a segment kind that declares no ``carries_payload``, a long segment listing's count, the
torque output's excess texts and a COLLADA mesh converted for MuJoCo."""

from __future__ import annotations

import re
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF

from mime_gui.rig import Apparatus, Arm, Motor, Pose, Sample
from mime_gui.rig.limits import excesses
from mime_gui.rig.paths import RigPathError, get
from mime_gui.rig.payload import report_entry
from mime_gui.rig.torques import RigTorques


def test_a_sample_of_no_geometry_kind_is_refused_saying_it_may_also_have_none():
    with pytest.raises(TypeError) as info:
        Sample(geometry="cube")
    message = str(info.value)
    assert message.startswith("geometry must be one of Box, ")
    assert message.endswith(" or None, got 'cube'")  # a sample may go without a shape (a declared moment)


def test_a_path_into_an_empty_mapping_says_it_has_no_entries():
    rig = Apparatus("r", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))})
    with pytest.raises(RigPathError) as info:
        get(rig, "chain.arm.armature.joint_6")
    assert info.value.message == "no entry 'joint_6'; entries: (none)"


def test_a_dynamic_segment_kind_without_a_carries_payload_flag_carries_what_rides_on_it():
    entry = report_entry("stage", SimpleNamespace(dynamic=True), [])
    assert entry["carried"] is True and entry["mass"] == 0.0 and entry["detail"] == "nothing rides on it"


def test_a_pose_naming_no_segment_of_a_long_chain_lists_sixteen_and_counts_the_rest():
    chain = {f"m{i:02d}": Motor.Kinematic() for i in range(1, 19)}  # 18 segments
    rig = Apparatus("r", chain=chain, poses={"p": Pose({"stage": {"x": 0.0}})})
    [finding] = [f for f in rig.validate() if f.code == "pose.segment"]
    shown = ", ".join(f"m{i:02d}" for i in range(1, 17))
    assert finding.message.endswith(f"; segments: {shown} … (2 more)")  # 18 - 16


def test_the_torque_output_holds_the_text_of_each_limit_excess():
    t = np.arange(8) * 0.1
    tau = np.array([[0.0], [10.0], [11.0], [12.0], [10.0], [-13.0], [0.0], [10.0000001]])
    found = tuple(excesses(("a.j",), t, tau, np.zeros_like(tau), [10.0], [np.inf]))
    torques = RigTorques(("a.j",), t, tau, np.zeros_like(tau), np.zeros_like(tau), np.array([10.0]),
                         np.array([np.inf]), found)
    texts = torques.arrays()["limit_excesses"].tolist()
    # three runs above 10 N·m: steps 2-3 (worst 12), step 5 (13 the other way), step 7 (just above)
    assert len(texts) == 3
    assert texts[0].startswith("warning[torque.effort] a.j: from t=0.2 s (step 2, 2 steps)")
    assert "margin -2 N·m" in texts[0]
    assert texts[1].startswith("warning[torque.effort] a.j: from t=0.5 s (step 5, 1 step)")
    assert "margin -3 N·m" in texts[1]
    assert texts[2].startswith("warning[torque.effort] a.j: from t=0.7 s (step 7, 1 step)")


def test_a_collada_mesh_is_copied_for_mujoco_as_an_stl_file_of_the_same_shape(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    mujoco = pytest.importorskip("mujoco")
    from mime_gui.rig import load
    from mime_gui.rig.mjcf_export import export_mjcf

    source = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    stl = source / "meshes" / "base.stl"
    shape = trimesh.load(stl)
    shape.export(source / "meshes" / "base.dae")
    stl.unlink()
    urdf = source / "arm.urdf"
    urdf.write_text(urdf.read_text().replace("meshes/base.stl", "meshes/base.dae"))
    (tmp_path / "out").mkdir()  # an export writes into a folder that exists
    path = export_mjcf(load(source / "demo.rig.json"), tmp_path / "out" / "rig.xml")
    copies = tmp_path / "out" / "rig_meshes"
    assert sorted(p.name for p in copies.iterdir()) == ["base.stl", "wrist.obj"]
    assert 'file="rig_meshes/base.stl"' in re.findall(r'file="[^"]*"', path.read_text())
    np.testing.assert_allclose(trimesh.load(copies / "base.stl").bounds, shape.bounds, atol=1e-6)
    assert mujoco.MjModel.from_xml_path(str(path)).nv == 7
