"""Probes in the window as a user meets them: the Probe template dropped on a frame (a real QMimeData drop),
its row under that frame, selected from the tree or by a click on its marker, its form with the field there,
B at it in the Plots dock (live and over a loaded command file, with the rotating field's summary), the |B|
plane through it, and Edit → Delete / Rename / Undo."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from gestures import click_row, drop_on_row
from oracle import chain_B_by_hand, demo_B_now
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.docks.forms.probe import ProbeForm
from mime_gui.app.main import wait_until_ready
from mime_gui.field import field_along, field_plane, rotating_summary
from mime_gui.field.plane import plane_side
from mime_gui.rig import Probe, load, save
from mime_gui.session import AddItem, ItemRef, SetValue

pytestmark = pytest.mark.timeout(120)
PROBE = ItemRef("", "probe", "probe")


def settle(qtbot, ms: int = 5) -> None:
    QApplication.processEvents()
    qtbot.wait(ms)


@pytest.fixture
def demo(window, tmp_path):
    folder = tmp_path / "demo"
    shutil.copytree(RESOURCES / "demo", folder)
    rig = load(folder / "demo.rig.json")
    rig.probes = {}  # the demo's own probe aside: these tests add theirs
    save(rig, folder / "demo.rig.json")
    assert window.open_file(str(folder / "demo.rig.json"))
    wait_until_ready(window)
    window.session.apply(SetValue("magnets.m1.magnetisation", (1.0, 0.0, 0.0)))  # diametric: B turns
    window.activateWindow()
    QApplication.processEvents()
    window.folder = folder
    return window


def dropped_probe(window, qtbot) -> None:
    drop_on_row(window, "probe.point", ItemRef("motor", "link", "stator"))
    qtbot.waitUntil(lambda: isinstance(window.properties_dock.forms.form, ProbeForm), timeout=5000)


def field_text(window, label: str) -> str:
    form = window.properties_dock.forms.form
    return {"|B|": form.magnitude, "Bx, By, Bz": form.components}[label].text()


def B_now(window, name="probe") -> np.ndarray:
    """B at the probe by Pinocchio and Magpylib (the magnet magnetised along x by the fixture)."""
    s = window.session
    return demo_B_now(s, {name: s.rig.probes[name]}, (1.0, 0.0, 0.0))[0]


def plot_shown(window) -> bool:
    views = window.field_views
    return window.driving.plots._extras[views.plot.plot][1]


# -- probes as items -----------------------------------------------------------------------------------
def test_dropping_the_probe_template_on_a_frame_adds_a_probe_there_with_its_row_form_and_field(demo, qtbot):
    session = demo.session
    dropped_probe(demo, qtbot)
    assert session.rig.probes == {"probe": Probe((0.0, 0.0, 0.0), mount="motor.stator")}
    assert session.selection == PROBE
    row = demo.tree_dock.item_for(PROBE)
    assert row is not None and row.isSelected()
    assert row.parent() is demo.tree_dock.item_for(ItemRef("motor", "link", "stator"))
    # the field at the probe, as the headless API gives it at the poses shown, in mT
    B = B_now(demo) * 1e3
    assert field_text(demo, "|B|") == f"{np.linalg.norm(B):.5g} mT"
    assert field_text(demo, "Bx, By, Bz").startswith(f"({B[0]:.4g}, ")
    # typed into its place: the form's At field moves the probe (lengths in mm)
    at = demo.properties_dock.forms.form.field_for("probes.probe.at")
    edit = at.edits[2]
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, "40")
    settle(qtbot)
    assert session.rig.probes["probe"].at == pytest.approx((0.0, 0.0, 0.04))
    B2 = B_now(demo) * 1e3
    assert not np.allclose(B, B2)
    assert field_text(demo, "|B|") == f"{np.linalg.norm(B2):.5g} mT"
    # the field follows the rotor: a quarter turn changes the shown components
    session.set_joint_positions("motor", [math.pi / 2])
    settle(qtbot)
    B3 = B_now(demo) * 1e3
    # at the vector's precision: each component rounded at the place of the largest one's 4th digit
    places = 3 - int(np.floor(np.log10(np.abs(B3).max())))
    assert field_text(demo, "Bx, By, Bz") == "(" + ", ".join(
        f"{round(b, places) + 0.0:.4g}" for b in B3) + ") mT"
    # undo, step by step, takes the probe, its row and its plot away
    QTest.keyClick(demo, Qt.Key_Z, Qt.ControlModifier)
    QTest.keyClick(demo, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert "probe" not in session.rig.probes
    assert demo.tree_dock.item_for(PROBE) is None and session.selection is None
    assert not plot_shown(demo)


def test_a_probe_is_selected_from_its_row_or_a_click_on_its_marker_and_lit(demo, qtbot):
    session = demo.session
    session.apply(AddItem("probes", "sample", Probe((0.0, 0.0, 0.04), mount="motor.stator")))
    session.apply(AddItem("probes", "bench", Probe((0.3, 0.0, 0.2))))
    settle(qtbot)
    bench = demo.tree_dock.item_for(ItemRef("", "probe", "bench"))
    assert bench.parent().text(0) == "World" and bench.parent().parent() is None
    click_row(demo, ItemRef("", "probe", "sample"))
    assert session.selection == ItemRef("", "probe", "sample")
    assert isinstance(demo.properties_dock.forms.form, ProbeForm)
    marks = demo.assembly.probe_marks
    lit = marks.markers["sample"].GetProperty().GetColor()
    assert lit != marks.markers["bench"].GetProperty().GetColor()
    # a click on the bench probe's marker in the 3D view selects it
    session.select(None)
    renderer = demo.scene.plotter.renderer
    renderer.SetWorldPoint(*np.asarray(marks.markers["bench"].user_matrix)[:3, 3], 1.0)
    renderer.WorldToDisplay()
    x, y, _ = renderer.GetDisplayPoint()
    assert demo.scene.pick(x, y) == ItemRef("", "probe", "bench")
    settle(qtbot)
    assert session.selection == ItemRef("", "probe", "bench")
    assert demo.tree_dock.item_for(ItemRef("", "probe", "bench")).isSelected()
    # a link selected: no probe, no field plot
    click_row(demo, ItemRef("arm", "link", "link_2"))
    assert not plot_shown(demo)


def test_delete_and_rename_a_probe_through_the_edit_menu_and_its_form(demo, qtbot):
    session = demo.session
    dropped_probe(demo, qtbot)
    name = demo.properties_dock.forms.form.field_for("probes.probe")
    name.edit.setFocus()
    name.edit.selectAll()
    QTest.keyClicks(name.edit, "sample")
    QTest.keyClick(name.edit, Qt.Key_Return)
    settle(qtbot)
    assert list(session.rig.probes) == ["sample"]
    assert session.selection == ItemRef("", "probe", "sample")
    assert demo.tree_dock.item_for(ItemRef("", "probe", "sample")) is not None
    # remounted on the rotor from the form's list, then typed into the magnet there: the finding shows
    # under At, and the field says why it has no value
    form = demo.properties_dock.forms.form
    mount = form.field_for("probes.sample.mount")
    mount.combo.setCurrentIndex(mount.combo.findText("motor.rotor"))
    mount.combo.activated.emit(mount.combo.currentIndex())
    settle(qtbot)
    assert session.rig.probes["sample"].mount == "motor.rotor"
    assert demo.tree_dock.item_for(ItemRef("", "probe", "sample")).parent() is \
        demo.tree_dock.item_for(ItemRef("motor", "link", "rotor"))
    at = demo.properties_dock.forms.form.field_for("probes.sample.at")
    at.edits[2].setFocus()
    at.edits[2].selectAll()
    QTest.keyClicks(at.edits[2], "25")
    settle(qtbot)
    assert "[probe.inside-magnet]" in at.message.text() and at.message.isVisible()
    assert demo.properties_dock.forms.form.magnitude.text().startswith("— (the rig breaks rules")
    QTest.keyClick(demo, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert not at.message.isVisible()
    demo.assembly.act_duplicate.trigger()
    settle(qtbot)
    assert set(session.rig.probes) == {"sample", "sample_2"}
    assert demo.assembly.act_delete.isEnabled()
    demo.assembly.act_delete.trigger()
    settle(qtbot)
    assert set(session.rig.probes) == {"sample"}
    assert demo.tree_dock.item_for(ItemRef("", "probe", "sample_2")) is None


# -- B at the selected probe in the Plots dock -----------------------------------------------------------
def test_the_plots_show_B_at_the_selected_probe_live_and_over_a_loaded_command_file(demo, qtbot):
    session = demo.session
    session.apply(AddItem("probes", "probe", Probe((0.0, 0.0, 0.04), mount="motor.stator")))
    assert not plot_shown(demo)
    session.select(PROBE)
    settle(qtbot)
    assert plot_shown(demo)
    view = demo.field_views.plot
    for angle in (0.3, 0.6, 0.9):  # driving: each pose's B joins the live curves
        session.set_joint_positions("motor", [angle])
        settle(qtbot, 80)
    _t, live = view.curves[0].getOriginalDataset()
    assert live[-1] == pytest.approx(B_now(demo)[0] * 1e3, rel=1e-9)
    assert f"{np.linalg.norm(B_now(demo)) * 1e3:.4g} mT" in view.readout.text()
    # a command file loaded: B over the whole trajectory, the field_along of the played poses, once
    assert demo.driving.player.open_file(str(demo.folder / "chain.csv"))
    settle(qtbot, 80)
    player = demo.driving.transport.player
    built = session.document.built
    expected = field_along(built, player.trajectory, {"probe": session.rig.probes["probe"]},
                           start=player.schedule.start)
    t, bx = view.curves[0].getOriginalDataset()
    rows = [0, 50, 120, len(t) - 1]
    times, by_hand = chain_B_by_hand(demo.folder / "chain.csv", rows, [(0.0, 0.0, 0.04)],
                                     direction=(1.0, 0.0, 0.0))
    np.testing.assert_allclose(bx[rows], by_hand[:, 0, 0] * 1e3, rtol=1e-9)
    np.testing.assert_allclose(t[rows], times - times[0] + t[0])
    assert t[0] == pytest.approx(0.02)  # from the file's first time
    np.testing.assert_allclose(bx, expected.B[:, 0, 0] * 1e3, rtol=1e-12)  # the curve is all of it
    summary = rotating_summary(expected.time, expected.B)[0]
    assert f"rotates at {summary.frequency:.4g} Hz" in view.readout.text()
    computed = view.computed
    for row in (10, 50, 120):  # scrubbing reads the computed field, it does not compute again
        demo.driving.transport.seek(row)
        settle(qtbot)
    assert view.computed == computed == 1
    assert view.playhead.value() == pytest.approx(player.times[120] - player.schedule.start)
    assert f"{by_hand[2, 0, 2] * 1e3:+.4g}" in view.readout.text()


# -- the |B| plane ---------------------------------------------------------------------------------------
def test_the_B_plane_appears_through_the_selected_probe_follows_the_rig_once_it_stops_and_goes(demo, qtbot):
    session = demo.session
    session.apply(AddItem("probes", "probe", Probe((0.0, 0.0, 0.04), mount="motor.stator")))
    session.select(PROBE)
    settle(qtbot)
    plane = demo.field_views.plane
    demo.field_views.plane_action.trigger()
    assert demo.properties_dock.forms.form.plane_box.isChecked()
    qtbot.waitUntil(lambda: plane.updates == 1, timeout=10000)
    assert plane.actor.GetVisibility() and plane.bar.GetVisibility()
    built = session.document.built
    poses = np.stack([session.frame_world_pose(*n.split(".", 1)) for n in built.frame_names])
    stator = session.frame_world_pose("motor", "stator")
    centre = stator[:3, :3] @ [0, 0, 0.04] + stator[:3, 3]
    side = plane_side(built, poses, centre)  # sized to the magnet (its rule is checked by hand headless)
    assert side < 0.1  # a magnet of a centimetre or two: not the old fixed 10 cm
    expected = field_plane(built, poses, centre, stator[:3, 2], side, 100)
    drawn = np.array(plane.mesh["|B| (mT)"])  # a copy: the grid is updated in place
    np.testing.assert_allclose(np.sort(drawn), np.sort(np.maximum(expected.magnitude.ravel() * 1e3, 1e-3)),
                               rtol=1e-9)
    np.testing.assert_allclose(plane.mesh.center, centre, atol=1e-9)
    # moving: no plane is computed while the rig keeps moving, one once it stops
    for i in range(6):
        session.set_joint_positions("motor", [0.2 * (i + 1)])
        settle(qtbot, 40)
    assert plane.updates == 1
    qtbot.waitUntil(lambda: plane.updates == 2, timeout=10000)
    assert not np.allclose(np.asarray(plane.mesh["|B| (mT)"]), drawn)
    # off from the form's box: the plane and its colour bar go
    demo.properties_dock.forms.form.plane_box.click()
    settle(qtbot)
    assert not demo.field_views.plane_action.isChecked()
    assert not plane.actor.GetVisibility() and not plane.bar.GetVisibility()


def test_the_plane_waits_for_a_probe_and_says_so(demo, qtbot):
    demo.field_views.plane_action.trigger()
    settle(qtbot)
    plane = demo.field_views.plane
    assert plane.status == "select a probe" and plane.updates == 0
    demo.session.apply(AddItem("probes", "probe", Probe((0.0, 0.0, 0.04), mount="motor.stator")))
    demo.session.select(PROBE)
    qtbot.waitUntil(lambda: plane.updates == 1, timeout=10000)
    demo.session.select(None)
    settle(qtbot)
    assert plane.status == "select a probe" and not plane.actor.GetVisibility()


def test_field_lines_from_the_selected_magnet_appear_and_wait_for_a_magnet(demo, qtbot):
    session = demo.session
    lines = demo.field_views.lines
    demo.field_views.lines_action.trigger()
    settle(qtbot)
    assert lines.status == "select a magnet" and lines.updates == 0
    session.select(ItemRef("", "magnet", "m1"))
    qtbot.waitUntil(lambda: lines.updates == 1, timeout=20000)
    assert lines.actor.GetVisibility()
    assert lines.mesh.n_lines == 12 and lines.mesh.n_points > 12
    X = session.frame_world_pose(*next(n for n in session.document.built.frame_names
                                       if n.endswith("part:m1")).split(".", 1))
    first = np.asarray(lines.mesh.points[0])
    assert (first - X[:3, 3]) @ (X[:3, :3] @ [1.0, 0.0, 0.0]) > 0  # from the north pole (along +x now)
    session.select(None)
    settle(qtbot)
    assert lines.status == "select a magnet" and not lines.actor.GetVisibility()
    demo.field_views.lines_action.trigger()
    assert lines.status == "off"
