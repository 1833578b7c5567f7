"""Declared frames in the window: a turned frame on the flange is a row under the flange in the chain tree
(said to be declared, with a triad's icon), the part mounted on it a row under it, its triad drawn where
Pinocchio's forward kinematics and the offset put it; an edit of its offset moves the frame, the part and
the triad, and undo brings them back."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.docks.tree import REF_ROLE
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import DeclaredFrame
from mime_gui.session import ItemRef, SetValue

pytestmark = pytest.mark.timeout(120)
DEMO_URDF = RESOURCES / "demo" / "arm.urdf"
ANGLE = math.radians(30)  # about the flange's x
AT = (0.0, 0.01, 0.03)
TILTED = ItemRef("arm", "link", "tilted")


def turn_x(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def pose(R=None, p=(0.0, 0.0, 0.0)) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3] = np.eye(3) if R is None else R
    X[:3, 3] = p
    return X


def tool0_by_pinocchio(q) -> np.ndarray:
    """The flange's world pose at the arm's joint positions ``q`` (joint_1 … joint_6), by Pinocchio."""
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    data = model.createData()
    x = pin.neutral(model)
    for k, value in enumerate(q, start=1):
        j = model.joints[model.getJointId(f"joint_{k}")]
        if j.nq == 2:  # continuous: (cos, sin)
            x[j.idx_q:j.idx_q + 2] = math.cos(value), math.sin(value)
        else:
            x[j.idx_q] = value
    pin.framesForwardKinematics(model, data, x)
    return data.oMf[model.getFrameId("tool0")].homogeneous


@pytest.fixture
def tilted(window, tmp_path):
    """The demo with a frame turned 30° about the flange's x and the holder mounted on it."""
    folder = tmp_path / "demo"
    shutil.copytree(RESOURCES / "demo", folder)
    data = json.loads((folder / "demo.rig.json").read_text(encoding="utf-8"))
    data["frames"] = {"tilted": {"mount": "arm.tool0", "at": {"value": list(AT), "unit": "m"},
                                 "orientation": {"wxyz": [math.cos(ANGLE / 2), math.sin(ANGLE / 2), 0, 0]}}}
    data["parts"]["holder"]["mount"] = "arm.tilted"
    (folder / "demo.rig.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert window.open_file(str(folder / "demo.rig.json"))
    wait_until_ready(window)
    QApplication.processEvents()
    assert window.session.findings == ()
    return window


def triad(window, ref: ItemRef):
    (actor,) = [a for a in window.scene.actors(ref.segment, "frames") if window.scene.item_of(a) == ref]
    return np.asarray(actor.user_matrix)


def test_a_declared_frame_is_a_row_under_its_mount_and_the_part_on_it_a_row_under_it(tilted):
    tree = tilted.tree_dock
    row = tree.item_for(TILTED)
    assert row is not None
    assert row.parent().data(0, REF_ROLE) == ItemRef("arm", "link", "tool0")
    assert row.text(1) == "declared on tool0" and "declared frame" in row.toolTip(0)
    assert row.text(1) != tree.item_for(ItemRef("arm", "link", "link_6")).text(1)
    holder = tree.row_of(ItemRef("", "part", "holder"))
    assert holder.parent() is row
    assert tree.item_for(ItemRef("arm", "joint", "tilted")) is None  # its weld is no row of its own
    frame_row = tree.item_for(ItemRef("arm", "frame", "tilted"))
    assert frame_row is not None and frame_row.text(1).startswith("declared")


def test_the_triad_of_a_declared_frame_is_drawn_where_the_offset_puts_it_and_follows_an_edit(tilted):
    session = tilted.session
    tilted.layer_actions["frames"].trigger()
    QApplication.processEvents()
    q = session.joint_positions("arm")
    expected = tool0_by_pinocchio(q) @ pose(turn_x(ANGLE), AT)
    np.testing.assert_allclose(session.frame_world_pose("arm", "tilted"), expected, atol=1e-12)
    np.testing.assert_allclose(triad(tilted, ItemRef("arm", "frame", "tilted")), expected, atol=1e-12)
    holder = session.segments["arm"].graft_of("holder")
    at = session.rig.parts["holder"].at
    np.testing.assert_allclose(session.segments["arm"].frame_pose(holder), expected @ pose(p=at), atol=1e-12)

    session.apply(SetValue("frames.tilted", DeclaredFrame("arm.tool0", at=(0.0, 0.0, 0.05),
                                                          orientation=(0.0, 1.0, 0.0, 0.0))))
    QApplication.processEvents()
    assert session.findings == ()
    moved = tool0_by_pinocchio(q) @ pose(turn_x(math.pi), (0.0, 0.0, 0.05))
    np.testing.assert_allclose(session.frame_world_pose("arm", "tilted"), moved, atol=1e-12)
    np.testing.assert_allclose(session.segments["arm"].frame_pose(holder), moved @ pose(p=at), atol=1e-12)
    np.testing.assert_allclose(triad(tilted, ItemRef("arm", "frame", "tilted")), moved, atol=1e-12)
    assert tilted.tree_dock.item_for(TILTED) is not None

    session.apply(SetValue("frames.tilted.at", (0.02, 0.0, 0.05)))  # one value of the frame, by its path
    QApplication.processEvents()
    np.testing.assert_allclose(session.frame_world_pose("arm", "tilted"),
                               tool0_by_pinocchio(q) @ pose(turn_x(math.pi), (0.02, 0.0, 0.05)), atol=1e-12)

    session.undo()
    session.undo()
    QApplication.processEvents()
    np.testing.assert_allclose(session.frame_world_pose("arm", "tilted"), expected, atol=1e-12)
    np.testing.assert_allclose(triad(tilted, ItemRef("arm", "frame", "tilted")), expected, atol=1e-12)


def test_a_bad_offset_is_a_finding_and_the_frame_stays_drawn(tilted):
    session = tilted.session
    session.apply(SetValue("frames.tilted.orientation", (1.0, 1.0, 0.0, 0.0)))
    QApplication.processEvents()
    found = [(f.code, f.where) for f in session.findings]
    assert found == [("frame.orientation", "frames.tilted.orientation")]
    assert tilted.tree_dock.item_for(TILTED) is not None
    assert np.all(np.isfinite(session.frame_world_pose("arm", "tilted")))
