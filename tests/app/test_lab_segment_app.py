"""A lab's segment kind in the app: the chain tree lists it with its frames, the 3D view draws its frames as
triads, and its slider drives it with what rides on it following."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from mime_gui.app.main import wait_until_ready
from mime_gui.rig import Apparatus, Arm, LabSegment, Motor, dynamics, save
from mime_gui.session import ItemRef

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rig"))
from lab_stage import ARM_URDF, install  # noqa: E402


@pytest.fixture
def lab_rig(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(install(tmp_path / "site")))
    dynamics.refresh()
    (tmp_path / "pivot.urdf").write_text(ARM_URDF)
    rig = Apparatus("lab", base=tmp_path, chain={
        "arm": Arm.Kinematic(description="pivot.urdf"),
        "stage": LabSegment(kind="linear-stage", params={"travel": 0.05}, mount="tool"),
        "motor": Motor.Kinematic(mount="carriage"),
    })
    yield save(rig, tmp_path / "lab.rig.json")
    sys.modules.pop("lab_stages", None)
    dynamics.refresh()


def test_the_chain_tree_and_the_view_show_the_lab_segment(window, qtbot, lab_rig):
    assert window.open_file(str(lab_rig))
    wait_until_ready(window)
    assert window.session.document.findings == ()
    tree = window.tree_dock
    tops = [tree.tree.topLevelItem(i).text(0) for i in range(tree.tree.topLevelItemCount())]
    assert [t.split()[0] for t in tops[:3]] == ["arm", "stage", "motor"]
    for frame in ("base", "carriage"):
        assert tree.item_for(ItemRef("stage", "link", frame)) is not None
    for frame in ("base", "carriage"):  # each frame drawn as a triad
        assert window.scene._registry.actors_of(ItemRef("stage", "frame", frame))

    window.session.select(ItemRef("stage", "segment", "stage"))  # its properties show, kind as registered
    qtbot.wait(1)
    assert "linear-stage" in window.tree_dock.item_for(ItemRef("stage", "segment", "stage")).text(1) + \
        window.tree_dock.item_for(ItemRef("stage", "segment", "stage")).toolTip(0)
    window.session.select(ItemRef("stage", "frame", "carriage"))
    qtbot.wait(1)

    # the stage's slider drives it; the motor riding on the carriage follows
    window.driving.clock.stop()
    sliders = window.driving.sliders
    sliders.teleport.click()
    row = sliders.row("stage", "slide")
    qtbot.mouseClick(row.slider, Qt.LeftButton, pos=QPoint(int(row.slider.width() * 0.9),
                                                            row.slider.height() // 2))
    s = window.session.joint_positions("stage")[0]
    assert 0.0 < s <= 0.05
    tool = window.session.frame_world_pose("arm", "tool")
    carriage = window.session.frame_world_pose("stage", "carriage")
    np.testing.assert_allclose(carriage[:3, 3], tool[:3, 3] + tool[:3, :3] @ [s, 0, 0.02], atol=1e-12)
    np.testing.assert_allclose(window.session.frame_world_pose("motor", "stator"), carriage, atol=1e-12)
