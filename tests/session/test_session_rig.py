"""Rig documents in the Session: one segment per chain segment, riders follow their mount frame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mime_gui import rig
from mime_gui.multibody import frame_poses
from mime_gui.session import FakeRenderer, ItemRef, Remount, Session, SessionError

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "arm.urdf"


def apparatus(mount: str = "link_6"):
    return rig.Apparatus("bench", chain={
        "arm": rig.Arm.Kinematic(description=str(DEMO), initial_positions={"joint_2": 0.3}),
        "motor": rig.Motor.Kinematic(axis=(0, 0, 1), mount=mount, at=(0, 0, 0.05)),
    })


@pytest.fixture
def session():
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open_apparatus(apparatus())
    return s


def test_segments_and_initial_positions(session):
    assert session.kind == "rig" and list(session.segments) == ["arm", "motor"]
    arm, motor = session.segment("arm"), session.segment("motor")
    assert arm.q[arm.articulation.joint_index("joint_2")] == pytest.approx(0.3)
    assert motor.mount[0] == "arm" and motor.mount[1].endswith("link_6")
    assert set(session.renderer.segments) == {"arm", "motor"}
    assert session.document.name == "bench"


def test_motor_rides_on_its_mount_frame(session):
    arm, motor = session.segment("arm"), session.segment("motor")
    mount_frame = motor.mount[1]
    expected = arm.frame_pose(mount_frame) @ motor.placement @ frame_poses(motor.articulation, motor.q)
    np.testing.assert_allclose(motor.world_X_frame, expected, atol=1e-12)
    moved = []
    session.poses_changed.connect(moved.append)
    q = np.clip(np.full(arm.articulation.nq, 0.5), arm.articulation.lower, arm.articulation.upper)
    session.set_joint_positions("arm", q)
    assert moved == ["arm", "motor"]
    expected = arm.frame_pose(mount_frame) @ motor.placement @ frame_poses(motor.articulation, motor.q)
    np.testing.assert_allclose(session.renderer.poses["motor"], expected, atol=1e-12)
    # turning the motor moves only the motor
    moved.clear()
    session.set_joint_positions("motor", [1.0])
    assert moved == ["motor"]


def test_a_rig_that_breaks_rules_opens_with_its_findings_and_draws_what_it_can(session):
    doc = session.open_apparatus(apparatus(mount="no_such_frame"))
    assert session.document is doc and doc.built is None
    assert [f.code for f in doc.findings] == ["chain.mount"]
    assert doc.findings[0].where == "chain.motor.mount" and "no_such_frame" in doc.findings[0].message
    # both segments are drawn; the motor, whose mount did not resolve, stands in the world
    assert list(session.segments) == ["arm", "motor"] and session.segment("motor").mount is None
    session.select(ItemRef("motor", "link", "rotor"))
    assert session.renderer.highlighted == ItemRef("motor", "link", "rotor")


def test_a_rig_whose_description_cannot_be_read_is_still_refused(session):
    doc = session.document
    bad = rig.Apparatus("bench", chain={"arm": rig.Arm.Kinematic(description="missing.urdf")})
    with pytest.raises(SessionError) as err:
        session.open_apparatus(bad)
    assert err.value.code == "chain.description" and "missing.urdf" in err.value.message
    assert session.document is doc


RIG_FILE = DEMO.parent / "demo.rig.json"


def test_open_save_and_reopen_the_demo_rig(tmp_path):
    s = Session()
    s.attach_renderer(FakeRenderer())
    doc = s.open(RIG_FILE)
    assert doc.kind == "rig" and len(doc.segments) >= 2
    assert set(s.renderer.segments) == set(doc.segments)
    copy = tmp_path / "copy.rig.json"
    s.save(copy)
    again = Session().open(copy)
    assert list(again.segments) == list(doc.segments)
    for name, seg in doc.segments.items():
        np.testing.assert_allclose(again.segments[name].world_X_frame, seg.world_X_frame, atol=1e-12)


def test_refused_rig_file_has_its_code_and_pointer(tmp_path):
    s = Session()
    bad = tmp_path / "bad.rig.json"
    bad.write_text('{"format": "mime-rig", "version": 1, "name": "x",'
                   ' "chain": [{"name": "a", "kind": "Arm.Dynamic"}]}')
    with pytest.raises(SessionError) as err:
        s.open(bad)
    assert err.value.code == "rigfile.missing"
    assert "/chain/0" in err.value.message and "description" in err.value.message
    assert err.value.file.endswith("bad.rig.json")
    assert s.document is None


def test_export_python_writes_the_rig_and_refuses_an_invalid_one(session, tmp_path):
    out = tmp_path / "bench.py"
    assert session.export_python(out) == str(out)
    assert "Apparatus" in out.read_text()
    session.apply(Remount("chain", "motor", "nowhere"))  # invalid after it was built
    with pytest.raises(SessionError) as err:
        session.export_python(tmp_path / "bad.py")
    assert err.value.code == "chain.mount"
    assert not (tmp_path / "bad.py").exists()
