"""A file changed on disk: the bar above the view offers to read it again; Reload keeps the joint positions,
the selection and the camera; Ignore keeps what is open; the window's own save is no change."""

from __future__ import annotations

import numpy as np
import pytest
from test_assembly import field, open_ready, settle, type_into

from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(120)


def test_a_description_edited_on_disk_is_offered_and_reloaded_keeping_the_pose_and_selection(
        window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session, watch = window.session, window.file_watch
    assert {str(demo_copy / "arm.urdf"), str(demo_copy / "meshes" / "base.stl")} <= set(watch.known)
    q = session.joint_positions("arm").copy()
    q[0] = 0.3
    session.set_joint_positions("arm", q)
    session.select(ItemRef("", "part", "holder"))
    camera = window.scene.plotter.camera_position
    urdf = demo_copy / "arm.urdf"
    text = urdf.read_text()
    mass = session.segments["arm"].tree.links["link_1"].inertial.mass
    urdf.write_text(text.replace('<mass value="2.0"/>', '<mass value="2.5"/>', 1))
    qtbot.waitUntil(lambda: watch.bar.isVisible(), timeout=10000)
    assert "arm.urdf changed on disk" in watch.bar.text.text()
    assert "discards" not in watch.bar.text.text()  # nothing unsaved
    watch.bar.reload.click()
    settle(qtbot, 20)
    assert not watch.bar.isVisible()
    assert session.segments["arm"].tree.links["link_1"].inertial.mass == 2.5 != mass
    assert session.joint_positions("arm")[0] == 0.3
    assert session.selection == ItemRef("", "part", "holder")
    now = window.scene.plotter.camera_position
    assert np.allclose(np.asarray(now.to_list()), np.asarray(camera.to_list()))


def test_ignore_keeps_what_is_open_and_unsaved_work_is_named(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session, watch = window.session, window.file_watch
    session.select(ItemRef("", "part", "holder"))
    type_into(qtbot, field(window, "parts.holder.at").edits[0], "12")
    rig = demo_copy / "demo.rig.json"
    rig.write_text(rig.read_text().replace('"name": "demo"', '"name": "changed"'))
    qtbot.waitUntil(lambda: watch.bar.isVisible(), timeout=10000)
    assert "demo.rig.json changed on disk" in watch.bar.text.text()
    assert "discards your unsaved changes" in watch.bar.text.text()
    watch.bar.ignore.click()
    assert not watch.bar.isVisible() and session.rig.name == "demo"
    assert session.rig.parts["holder"].at[0] == pytest.approx(0.012)
    watch._offer()  # the same content again is known now: no offer
    assert not watch.bar.isVisible()


def test_the_windows_own_save_is_no_change_on_disk(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session, watch = window.session, window.file_watch
    session.select(ItemRef("", "part", "holder"))
    type_into(qtbot, field(window, "parts.holder.at").edits[0], "12")
    window.act_save.trigger()
    settle(qtbot)
    assert not session.history.modified
    watch._offer()
    assert not watch.bar.isVisible()
    assert watch.changed == []


def test_a_urdf_saved_as_a_rig_file_is_no_change_and_the_rig_file_is_watched(window, qtbot, tmp_path):
    import shutil

    from mime_gui import RESOURCES

    folder = tmp_path / "robot"
    shutil.copytree(RESOURCES / "demo", folder)
    open_ready(window, folder / "arm.urdf")
    session, watch = window.session, window.file_watch
    window.act_save.trigger()  # a URDF is saved as a rig file beside it
    settle(qtbot)
    assert session.document.path.endswith("arm.rig.json")
    watch._offer()
    assert not watch.bar.isVisible()
    assert str(folder / "arm.rig.json") in watch.known and str(folder / "arm.urdf") in watch.known
