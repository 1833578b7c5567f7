"""The window over the editable document: an edit updates the docks in place, pose events rebuild nothing,
Edit → Undo mirrors the Session's history, and a rig that breaks rules opens with its findings."""

from __future__ import annotations

import shutil

import numpy as np

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import Box, Part
from mime_gui.session import AddItem, ItemRef, RenameItem, SetValue

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def open_ready(window, path) -> None:
    assert window.open_file(str(path))
    wait_until_ready(window)


def test_an_edit_rebuilds_only_the_rows_of_the_segment_it_changed(window, qtbot):
    open_ready(window, DEMO_RIG)
    dock = window.tree_dock
    rebuilds = dock.rebuilds
    before = dock.counts()
    motor_top = dock._tops["motor"]
    motor_row = dock.item_for(ItemRef("motor", "link", "rotor"))
    window.session.apply(AddItem("parts", "bracket", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                          mount="arm.link_3")))
    assert dock.rebuilds == rebuilds  # no whole-tree rebuild
    assert dock._tops["motor"] is motor_top and dock.item_for(ItemRef("motor", "link", "rotor")) is motor_row
    after = dock.counts()
    assert after["link"] == before["link"] + 1  # its row; its weld joint and frame are not rows
    assert after["frame"] == before["frame"] and after.get("joint") == before.get("joint")
    assert dock.item_for(ItemRef("arm", "link", "part:bracket")) is not None
    # the tree keeps the chain order
    tops = [dock.tree.topLevelItem(i).text(0) for i in range(dock.tree.topLevelItemCount())]
    assert tops == ["arm", "motor"]


def test_an_edit_sets_the_document_summary_s_values_in_place(window, qtbot):
    """Nothing selected, the Properties dock shows the document's summary; an edit that keeps its rows
    (a part added: one more link on its segment) sets their values, and one that adds a row rebuilds it."""
    open_ready(window, DEMO_RIG)
    session, dock = window.session, window.properties_dock
    session.select(None)
    before, rebuilds = dock.values(), dock.rebuilds
    first_row = dock.tree.topLevelItem(1).child(0)
    session.apply(AddItem("parts", "bracket", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                   mount="arm.link_3")))
    after = dock.values()
    assert dock.rebuilds == rebuilds and dock.tree.topLevelItem(1).child(0) is first_row
    assert int(after["Segment arm/links"]) == int(before["Segment arm/links"]) + 1
    assert after["Segment arm/total mass"] != before["Segment arm/total mass"]
    assert after["Segment motor/links"] == before["Segment motor/links"]
    arm = dock.tree.topLevelItem(1)
    links = next(arm.child(j) for j in range(arm.childCount()) if arm.child(j).text(0) == "links")
    assert links.toolTip(1) == after["Segment arm/links"]
    session.undo()
    assert dock.values() == before and dock.rebuilds == rebuilds
    # a segment renamed: its section's title changes, so the summary is shown anew
    session.apply(RenameItem("chain", "motor", "spindle"))
    assert dock.rebuilds == rebuilds + 1
    assert dock.values()["Segment spindle/links"] == before["Segment motor/links"]
    assert not any(k.startswith("Segment motor/") for k in dock.values())


def test_pose_events_change_text_and_rebuild_no_dock(window, qtbot):
    open_ready(window, DEMO_RIG)
    session = window.session
    session.select(ItemRef("arm", "joint", "joint_2"))
    tree_rebuilds, props_rebuilds = window.tree_dock.rebuilds, window.properties_dock.rebuilds
    values = window.properties_dock.values()
    for i in range(600):
        session.set_joint_positions("arm", {"joint_2": -0.3 + 0.001 * i})
        if i % 100 == 0:
            qtbot.wait(1)
    qtbot.wait(20)
    assert window.tree_dock.rebuilds == tree_rebuilds
    assert window.properties_dock.rebuilds == props_rebuilds
    shown = window.properties_dock.values()["Joint joint_2/position"]
    assert shown != values["Joint joint_2/position"] and shown.startswith(f"{-0.3 + 0.599:.6g}")


def test_edit_menu_undo_and_redo_mirror_the_history(window, qtbot):
    open_ready(window, DEMO_RIG)
    actions = window.undo_actions
    assert not actions.undo.isEnabled() and not window.isWindowModified()
    window.session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.03)))
    assert actions.undo.isEnabled() and actions.undo.text() == "&Undo Set parts.holder.at"
    assert window.isWindowModified() and "[*]" in window.windowTitle()
    actions.undo.trigger()
    assert window.session.rig.parts["holder"].at != (0.0, 0.0, 0.03)
    assert not window.isWindowModified() and actions.redo.isEnabled()
    actions.redo.trigger()
    assert window.session.rig.parts["holder"].at == (0.0, 0.0, 0.03)


def test_a_rig_that_breaks_rules_opens_with_its_findings_and_no_dialog(window, tmp_path):
    folder = tmp_path / "demo"  # the demo names its meshes package://demo/…
    shutil.copytree(DEMO_RIG.parent, folder)
    path = folder / "demo.rig.json"
    path.write_text(path.read_text().replace('"mount": "motor.rotor"', '"mount": "motor.rotorr"', 1))
    open_ready(window, path)
    assert window.error_dialog is None
    assert "1 finding" in window.status_counts.text()
    assert "part.mount" in window.status_counts.toolTip()
    assert window.properties_dock.values()["Document demo.rig.json/rules"] == "1 finding"


def test_the_view_keeps_its_camera_when_a_part_is_added(window, qtbot):
    open_ready(window, DEMO_RIG)
    cam = window.scene.plotter.renderer.GetActiveCamera()
    cam.Azimuth(33.0)
    before = (cam.GetPosition(), cam.GetFocalPoint(), cam.GetViewUp())
    window.session.apply(AddItem("parts", "bracket", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                          mount="arm.link_3")))
    wait_until_ready(window)
    after = (cam.GetPosition(), cam.GetFocalPoint(), cam.GetViewUp())
    np.testing.assert_allclose(np.array(after), np.array(before))


def test_reload_keeps_the_camera_and_reads_meshes_again(window, qtbot, monkeypatch):
    from mime_gui.app.scene import meshes

    open_ready(window, DEMO_RIG)
    cam = window.scene.plotter.renderer.GetActiveCamera()
    cam.Azimuth(40.0)
    cam.Elevation(15.0)
    before = np.array([cam.GetPosition(), cam.GetFocalPoint(), cam.GetViewUp()])
    cleared = []
    monkeypatch.setattr(meshes, "clear_caches", lambda: cleared.append(True))
    window.reload()
    wait_until_ready(window)
    assert cleared == [True]
    after = np.array([cam.GetPosition(), cam.GetFocalPoint(), cam.GetViewUp()])
    np.testing.assert_allclose(after, before, atol=1e-9)
    # an open of another file frames it again
    window.open_file(str(RESOURCES / "demo" / "arm.urdf"))
    wait_until_ready(window)
    moved = np.array([cam.GetPosition(), cam.GetFocalPoint(), cam.GetViewUp()])
    assert not np.allclose(moved, before)


def test_the_filter_clears_when_a_file_opens(window, qtbot):
    open_ready(window, DEMO_RIG)
    window.tree_dock.filter.setText("link_3")
    assert window.tree_dock.item_for(ItemRef("arm", "link", "link_1")).isHidden()
    open_ready(window, RESOURCES / "demo" / "arm.urdf")
    assert window.tree_dock.filter.text() == ""
    name = next(iter(window.session.segments))
    assert not window.tree_dock.item_for(ItemRef(name, "link", "link_1")).isHidden()


def test_a_part_added_changes_the_plots_frame_list_only(window, qtbot):
    """A dropped part adds a frame: the Plots dock lists it, keeps the frame it shows, and does not rebuild
    its joint list and curves (that cost a drop more than its whole edit)."""
    open_ready(window, DEMO_RIG)
    plots = window.driving.plots
    plots.set_frame("arm", "link_2")
    rows = [plots.joint_list.item(i) for i in range(plots.joint_list.count())]
    plot_items = list(plots.joint_plot.listDataItems())
    window.session.apply(AddItem("parts", "bracket", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                          mount="arm.link_3")))
    qtbot.wait(10)
    texts = [plots.frame_box.itemText(i) for i in range(plots.frame_box.count())]
    assert "arm.part:bracket" in texts and plots.frame_box.currentText() == "arm.link_2"
    assert [plots.joint_list.item(i) for i in range(plots.joint_list.count())] == rows  # the same rows
    assert list(plots.joint_plot.listDataItems()) == plot_items
    window.session.undo()
    qtbot.wait(10)
    assert "arm.part:bracket" not in [plots.frame_box.itemText(i) for i in range(plots.frame_box.count())]
    assert plots.frame_box.currentText() == "arm.link_2"
