"""The main window on real robots: tree counts, selection both ways, layer toggles, refusals, screenshots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.docks.report import ROLE_CODE
from mime_gui.app.main import wait_until_ready
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(60)
DEMO_URDF = RESOURCES / "demo" / "arm.urdf"

#: a refused URDF (urdf.closed-chain), copied under a test's own name
CLOSED_CHAIN = Path(__file__).resolve().parents[1] / "data" / "bad_urdf" / "closed_chain_two_parents.urdf"


def open_ready(window, path) -> None:
    assert window.open_file(str(path)), window.error_dialog and window.error_dialog.text()
    wait_until_ready(window)


def shown_xyz(text: str) -> list[float]:
    return [float(v) for v in text.split()[:3]]


def only_segment(window):
    (name, seg), = window.session.segments.items()
    return name, seg


@pytest.mark.parametrize("robot", ["demo", "pr2", "panda", "ur5"])
def test_tree_counts_equal_links_joints_frames(window, robot, robot_file):
    open_ready(window, robot_file(robot))
    name, seg = only_segment(window)
    counts = window.tree_dock.counts()
    assert counts["segment"] == 1
    assert counts["link"] == len(seg.tree.links)
    assert counts["joint"] == len(seg.tree.joints)
    assert counts["frame"] == seg.articulation.nframes
    # every link, joint and frame has its own row, addressable by reference
    for link in seg.tree.links:
        assert window.tree_dock.item_for(ItemRef(name, "link", link)) is not None
    # the scene shows the robot
    assert window.scene.actor_counts().get("visual", 0) > 0
    assert window.windowTitle().startswith(robot_file(robot).name)


def test_selection_syncs_tree_scene_and_properties(window, qtbot):
    open_ready(window, DEMO_URDF)
    name, seg = only_segment(window)
    tree = window.tree_dock.tree
    # tree → session → scene highlight and properties
    item = window.tree_dock.item_for(ItemRef(name, "joint", "joint_2"))
    tree.setCurrentItem(item)
    assert window.session.selection == ItemRef(name, "joint", "joint_2")
    values = window.properties_dock.values()
    art = seg.articulation
    i = art.joint_index("joint_2")
    assert values["Joint joint_2/type"] == "revolute"
    assert values["Limits/lower"].startswith(f"{art.lower[i]:.6g}")
    assert values["Limits/upper"].startswith(f"{art.upper[i]:.6g}")
    # scene pick → session → tree follows without echoing a second selection
    seen = []
    window.session.selection_changed.connect(seen.append)
    ref = ItemRef(name, "link", "link_3")
    window.scene.picked.emit(ref)
    assert window.session.selection == ref
    assert [i.data(0, Qt.UserRole) for i in tree.selectedItems()] == [ref]
    assert seen == [ref]
    values = window.properties_dock.values()
    X = seg.frame_pose("link_3")
    assert shown_xyz(values["World pose/xyz"]) == pytest.approx(X[:3, 3], abs=5e-5)
    # an empty pick clears the selection everywhere
    window.scene.picked.emit(None)
    assert window.session.selection is None and tree.selectedItems() == []


def test_properties_follow_pose_changes(window, qtbot):
    open_ready(window, DEMO_URDF)
    name, seg = only_segment(window)
    window.session.select(ItemRef(name, "frame", "tool0"))
    before = window.properties_dock.values()["World pose/xyz"]
    q = np.clip(np.full(seg.articulation.nq, 0.4), seg.articulation.lower, seg.articulation.upper)
    window.session.set_joint_positions(name, q)
    qtbot.waitUntil(lambda: window.properties_dock.values()["World pose/xyz"] != before, timeout=2000)
    X = window.session.frame_world_pose(name, "tool0")
    assert shown_xyz(window.properties_dock.values()["World pose/xyz"]) == pytest.approx(X[:3, 3], abs=5e-5)


def test_layer_toggles_add_and_remove_actors(window):
    open_ready(window, DEMO_URDF)
    name, seg = only_segment(window)
    scene = window.scene
    for layer in ("frames", "collision", "com"):
        action = window.layer_actions[layer]
        assert not action.isChecked()
        before = scene.actor_counts().get(layer, 0)
        action.trigger()
        assert window.session.layers[layer] is True
        shown = scene.actor_counts().get(layer, 0)
        assert shown > before
        action.trigger()
        assert window.session.layers[layer] is False
        assert scene.actor_counts().get(layer, 0) == before
    # the menu follows a change made elsewhere (no loop: the Session emits once)
    window.session.set_layer_visible("grid", False)
    assert not window.layer_actions["grid"].isChecked()


def test_robot_opacity_menu(window):
    open_ready(window, DEMO_URDF)
    name, _ = only_segment(window)
    assert window.opacity_actions[1.0].isChecked()
    window.opacity_actions[0.25].trigger()
    assert window.scene.visual_opacity() == 0.25
    assert {a.GetProperty().GetOpacity() for a in window.scene.actors(name, "visual")} == {0.25}
    assert window.opacity_actions[0.25].isChecked() and not window.opacity_actions[1.0].isChecked()


def test_frame_layer_has_one_triad_per_frame(window, robot_file):
    open_ready(window, robot_file("ur5"))
    name, seg = only_segment(window)
    window.layer_actions["frames"].trigger()
    assert window.scene.actor_counts()["frames"] >= seg.articulation.nframes


def test_refused_file_keeps_previous_document(window, tmp_path):
    open_ready(window, DEMO_URDF)
    doc = window.session.document
    counts = window.tree_dock.counts()
    visual = window.scene.actor_counts().get("visual")
    bad = tmp_path / "loop.urdf"
    bad.write_bytes(CLOSED_CHAIN.read_bytes())
    assert window.open_file(str(bad)) is False
    assert window.session.document is doc
    assert window.tree_dock.counts() == counts
    assert window.scene.actor_counts().get("visual") == visual
    assert window.error_dialog is not None and window.error_dialog.isVisible()
    assert "error[urdf.closed-chain]" in window.error_dialog.text()
    assert "loop.urdf" in window.error_dialog.text()
    assert str(bad.resolve()) not in window.recent_files()


def test_filter_hides_rows_that_do_not_match(window, qtbot, robot_file):
    open_ready(window, robot_file("panda"))
    dock = window.tree_dock
    dock.filter.setText("hand")
    name, seg = only_segment(window)
    names = {"link": seg.tree.links, "joint": seg.tree.joints, "frame": seg.articulation.frame_names}
    items = {ref: dock.item_for(ref) for ref in
             (ItemRef(name, kind, n) for kind, of_kind in names.items() for n in of_kind)}
    shown = [ref.name for ref, item in items.items() if not item.isHidden()]
    assert shown and all("hand" in n for n in shown)
    matching = [ref for ref in items if "hand" in ref.name]
    assert sorted(r.name for r in matching) == sorted(shown)
    assert dock.item_for(ItemRef(name, "link", seg.tree.root)).isHidden()
    dock.filter.clear()
    assert all(not item.isHidden() for item in items.values())


@pytest.mark.filterwarnings("ignore:placeholder shown for mesh")
def test_report_groups_and_unresolved_mesh_paths(window, tmp_path):
    urdf = tmp_path / "missing_mesh.urdf"
    urdf.write_text("""<robot name="m"><link name="base"/><link name="arm">
      <visual><geometry><mesh filename="package://nowhere/meshes/arm.stl"/></geometry></visual></link>
      <joint name="j" type="continuous"><parent link="base"/><child link="arm"/></joint>
      <gazebo reference="arm"/></robot>""")
    open_ready(window, urdf)
    name, seg = only_segment(window)
    report = seg.tree.report
    groups = window.report_dock.groups()
    assert groups["used"].childCount() == len(report.used)
    assert groups["ignored"].childCount() == len(report.ignored) >= 1
    assert groups["refused"].childCount() == 0
    assert groups["warnings"].childCount() == len(report.warnings)
    (mesh_row,) = [groups["warnings"].child(i) for i in range(groups["warnings"].childCount())
                   if groups["warnings"].child(i).data(0, ROLE_CODE) == "urdf.mesh-unresolved"]
    mesh = seg.tree.links["arm"].visuals[0].geometry
    assert mesh.filename is None and mesh.tried
    tried = [mesh_row.child(i).text(0) for i in range(mesh_row.childCount())]
    assert tried == [f"tried {p}" for p in mesh.tried]
    # the scene keeps going: a placeholder stands in for the mesh
    assert window.scene.actor_counts().get("visual", 0) >= 1
    # clicking the warning selects its link
    window.report_dock.tree.itemClicked.emit(mesh_row, 0)
    assert window.session.selection == ItemRef(name, "link", "arm")


def test_drop_a_file_opens_it_and_remembers_it(window, qtbot, robot_file):
    open_ready(window, DEMO_URDF)
    path = robot_file("ur5")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(50, 50), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.session.path == str(path), timeout=5000)
    assert window.recent_files()[0] == str(path.resolve())
    assert window.recent_menu.actions()[0].text() == path.name


def test_window_layout_is_restored(make_window):
    first = make_window(restore=True)
    first.report_dock.hide()
    first.resize(1000, 700)
    first.close()
    second = make_window(restore=True)
    assert not second.report_dock.isVisible()
    assert second.tree_dock.isVisible()
    assert (second.width(), second.height()) == (1000, 700)


def test_about_lists_versions(window):
    text = window.about_text()
    for name in ("Qt", "PySide6", "VTK", "PyVista", "NumPy", "Python"):
        assert name in text


def test_screenshot_is_not_blank(window, tmp_path):
    open_ready(window, DEMO_URDF)
    out = tmp_path / "shot.png"
    assert window.save_screenshot(str(out))
    from PySide6.QtGui import QImage

    image = QImage(str(out)).convertToFormat(QImage.Format_RGB888)
    w, h = image.width(), image.height()
    assert (w, h) == (window.width(), window.height())
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())[:, : 3 * w]
    pixels = pixels.reshape(h, w, 3)
    scene = window.scene
    top_left = scene.mapTo(window, scene.rect().topLeft())
    view = pixels[top_left.y(): top_left.y() + scene.height(), top_left.x(): top_left.x() + scene.width()]
    # the 3D view holds a robot: many distinct colours, and a few percent of its pixels far from the
    # background (a blank or failed render is one colour, or black)
    flat = view.reshape(-1, 3).astype(int)
    colours, counts = np.unique(flat // 8, axis=0, return_counts=True)
    assert len(colours) > 50
    assert counts.max() / counts.sum() < 0.97
    background = colours[counts.argmax()] * 8 + 4
    far = np.abs(flat - background).sum(axis=1) > 90
    assert far.mean() > 0.02
    assert view.mean() > 8  # not black
    assert pixels.std() > 10  # the docks are there too


def test_a_screenshot_that_cannot_be_written_says_so(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    target = str(tmp_path / "no-such-folder" / "shot.png")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (target, "PNG (*.png)"))
    window.screenshot_dialog()
    assert "error[screenshot.write]" in window.error_dialog.text()


def test_cli_screenshot_and_refusal(tmp_path):
    out = tmp_path / "cli.png"
    done = subprocess.run([sys.executable, "-m", "mime_gui", "--screenshot", str(out), str(DEMO_URDF),
                           "--size", "900x600"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    app = QApplication.instance()
    assert app is not None
    from PySide6.QtGui import QImage

    image = QImage(str(out))
    assert (image.width(), image.height()) == (900, 600)
    bad = tmp_path / "loop.urdf"
    bad.write_bytes(CLOSED_CHAIN.read_bytes())
    done = subprocess.run([sys.executable, "-m", "mime_gui", "--screenshot", str(out), str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error[urdf.closed-chain]") and "Traceback" not in done.stderr


def test_a_pick_in_the_view_selects_in_the_tree(window):
    open_ready(window, DEMO_URDF)
    name, seg = only_segment(window)
    window.scene.view_standard("front")
    window.scene.plotter.render()
    # the middle of link_2's box (0.35 m long, centred 0.175 m up its frame), projected to the display
    centre = seg.frame_pose("link_2") @ np.array([0.0, 0.0, 0.175, 1.0])
    ren = window.scene.plotter.renderer
    ren.SetWorldPoint(*centre)
    ren.WorldToDisplay()
    x, y, _ = ren.GetDisplayPoint()
    ref = window.scene.pick(x, y)
    assert ref == ItemRef(name, "link", "link_2")
    assert window.session.selection == ref
    assert [i.data(0, Qt.UserRole) for i in window.tree_dock.tree.selectedItems()] == [ref]
    assert "Link link_2/segment" in window.properties_dock.values()


def test_export_report_and_save_as_copy(window, tmp_path):
    import json

    open_ready(window, DEMO_URDF)
    name, seg = only_segment(window)
    # a URDF is a one-segment rig: Save writes a rig file beside it
    assert window.act_save.isEnabled()
    assert window.session.suggested_path() == str(DEMO_URDF.parent / "arm.rig.json")
    out = tmp_path / "report.json"
    assert window.export_read_report(str(out))
    assert json.loads(out.read_text()) == {name: json.loads(json.dumps(seg.tree.report.to_dict()))}
    assert not window.export_read_report(str(tmp_path / "no-such-folder" / "report.json"))  # no traceback
    assert "error[session.write]" in window.error_dialog.text()


def test_the_demo_rig_shows_every_segment(window):
    rig_file = RESOURCES / "demo" / "demo.rig.json"
    open_ready(window, rig_file)
    segments = window.session.segments
    assert len(segments) >= 2
    counts = window.tree_dock.counts()
    assert counts["segment"] == len(segments)
    assert counts["link"] == sum(len(s.tree.links) for s in segments.values())
    # a grafted part is one row (its graft link's); its weld joint and its own frame are not rows
    grafts = sum(len(s.tree.part_links) for s in segments.values())
    assert grafts == len(window.session.rig.parts) + len(window.session.rig.magnets)
    assert counts["joint"] == sum(len(s.tree.joints) for s in segments.values()) - grafts
    assert counts["frame"] == sum(s.articulation.nframes for s in segments.values()) - grafts
    assert window.session.kind == "rig" and window.act_save.isEnabled()
    # a rider moves with its mount
    arm = next(n for n, s in segments.items() if s.mount is None)
    rider = next(n for n, s in segments.items() if s.mount is not None)
    before = window.session.segment(rider).world_X_frame.copy()
    art = segments[arm].articulation
    window.session.set_joint_positions(arm, np.clip(np.full(art.nq, 0.3), art.lower, art.upper))
    assert not np.allclose(window.session.segment(rider).world_X_frame, before)


def test_tree_hides_a_frame_filters_triads_and_focuses_the_camera(window, qtbot):
    open_ready(window, DEMO_URDF)
    name, seg = only_segment(window)
    scene = window.scene
    window.layer_actions["frames"].trigger()
    all_frames = scene.actor_counts()["frames"]
    assert all_frames >= seg.articulation.nframes
    # hide one frame (what the context menu does), then show it again
    ref = ItemRef(name, "frame", "link_4")
    window.session.set_item_visible(ref, False)
    assert scene.actor_counts()["frames"] < all_frames
    assert window.tree_dock.item_for(ref).font(0).italic()
    window.session.set_item_visible(ref, True)
    assert scene.actor_counts()["frames"] == all_frames
    # the tree's filter also filters the triads
    window.tree_dock.filter.setText("tool0")
    assert 0 < scene.actor_counts()["frames"] < all_frames
    window.tree_dock.filter.clear()
    assert scene.actor_counts()["frames"] == all_frames
    # double-click focuses the camera on the item
    camera = scene.plotter.camera
    before = (tuple(camera.focal_point), camera.distance)
    item = window.tree_dock.item_for(ItemRef(name, "link", "link_6"))
    window.tree_dock.tree.itemDoubleClicked.emit(item, 0)
    after = (tuple(camera.focal_point), camera.distance)
    assert after != before
    link6 = seg.frame_pose("link_6")[:3, 3]
    assert np.linalg.norm(np.array(after[0]) - link6) < np.linalg.norm(np.array(before[0]) - link6)
