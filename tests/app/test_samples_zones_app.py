"""Samples and keep-out zones in the window as a user meets them: the Sample template dropped on a frame of
the demo rig and of a robot it was not written for (real QMimeData drops), drawn where the frame's pose (by
Pinocchio) and ``at`` put it, moving with the arm, its row under the frame, its form typed in, undone and
typed again; a zone drawn red while the field enters it beyond its limit (by Magpylib called directly) and
not while it does not; View → Keep-out |B| surface, whose points have |B| equal to the limit and which
follows the pose."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from gestures import click_row, drop_on_row
from oracle import demo_poses, magnet_B
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from test_assembly import open_ready

from mime_gui import RESOURCES
from mime_gui.app.docks.forms.sample import SampleForm
from mime_gui.app.docks.forms.zone import ZoneForm
from mime_gui.app.main import wait_until_ready
from mime_gui.app.scene.sample_marks import BREACH_RGB, ZONE_RGB
from mime_gui.field.zones import surface_points
from mime_gui.rig.templates import SAMPLE_RADIUS, ZONE_RADIUS, ZONE_REASON
from mime_gui.rig.zones import DEFAULT_LIMIT, Zone
from mime_gui.session import AddItem, ItemRef, SetValue

pytestmark = pytest.mark.timeout(180)
REASON = "the operator's chair"


def settle(qtbot, ms: int = 5) -> None:
    QApplication.processEvents()
    qtbot.wait(ms)


def _at(at) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = at
    return X


@pytest.fixture
def demo(window, tmp_path):
    folder = tmp_path / "demo"
    shutil.copytree(RESOURCES / "demo", folder)
    assert window.open_file(str(folder / "demo.rig.json"))
    wait_until_ready(window)
    window.driving.clock.stop()  # the test moves the rig itself
    window.activateWindow()
    qtbot_wait_active(window)
    return window


def qtbot_wait_active(window) -> None:
    for _ in range(300):
        if window.isActiveWindow():
            break
        QTest.qWait(10)


def pinocchio_poses(session) -> dict:
    return demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])


def drawn_at(window, name: str) -> np.ndarray:
    return np.asarray(window.assembly.sample_marks.balls[name].user_matrix)[:3, 3]


def type_into(edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, text)


def direction(session):
    return session.rig.magnets["m1"].magnetisation


# -- samples ---------------------------------------------------------------------------------------------
def test_a_sample_dropped_on_a_frame_is_drawn_there_moves_with_the_arm_and_its_form_edits_it(demo, qtbot):
    session = demo.session
    before = session.rig
    drop_on_row(demo, "sample.sphere", ItemRef("motor", "link", "stator"))
    qtbot.waitUntil(lambda: isinstance(demo.properties_dock.forms.form, SampleForm), timeout=5000)
    # named as items are: the demo's probe already has "sample"
    assert list(session.rig.samples) == ["sample_2"]
    sample = session.rig.samples["sample_2"]
    assert sample.mount == "motor.stator" and sample.orientation == "follows" and not session.findings
    assert sample.geometry.radius == SAMPLE_RADIUS
    ref = ItemRef("", "sample", "sample_2")
    assert session.selection == ref
    row = demo.tree_dock.item_for(ref)
    assert row.parent() is demo.tree_dock.item_for(ItemRef("motor", "link", "stator"))
    assert row.isSelected() and row.text(1) == "sample (follows)"
    # one edit, one undo step
    session.undo()
    assert not session.rig.samples and session.rig == before
    session.redo()
    settle(qtbot)
    assert "sample_2" in session.rig.samples
    click_row(demo, ref)
    assert isinstance(demo.properties_dock.forms.form, SampleForm)
    # drawn at the stator's pose (by Pinocchio) times at
    stator = pinocchio_poses(session)["stator"]
    qtbot.waitUntil(lambda: np.allclose(drawn_at(demo, "sample_2"), stator[:3, 3], atol=1e-9), timeout=5000)
    # the arm moves: the sample follows, placed once per frame
    session.set_joint_positions("arm", [0.4, -0.6, 1.1, 0.2, 0.5, 0.3])
    stator = pinocchio_poses(session)["stator"]
    qtbot.waitUntil(lambda: np.allclose(drawn_at(demo, "sample_2"), stator[:3, 3], atol=1e-9), timeout=5000)
    # follows: its arrow is along the field where it is (Magpylib directly)
    B = magnet_B(pinocchio_poses(session)["rotor"], [stator[:3, 3]], direction(session))[0]
    np.testing.assert_allclose(demo.assembly.sample_marks.directions["sample_2"], B / np.linalg.norm(B),
                               atol=1e-9)
    # typed into its form: At z in mm moves it along the stator's z
    form = demo.properties_dock.forms.form
    at = form.field_for("samples.sample_2.at")
    type_into(at.edits[2], "40")
    settle(qtbot)
    assert session.rig.samples["sample_2"].at == pytest.approx((0.0, 0.0, 0.04))
    expected = (stator @ _at((0, 0, 0.04)))[:3, 3]
    qtbot.waitUntil(lambda: np.allclose(drawn_at(demo, "sample_2"), expected, atol=1e-9), timeout=5000)
    assert form.field_for("samples.sample_2").edit.text() == "sample_2"
    # the field and the force on it at the pose shown
    assert form.derived and "mT" in "".join(w.text() for w in form.findChildren(type(form.other)))
    QTest.keyClick(demo, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert session.rig.samples["sample_2"].at == pytest.approx((0.0, 0.0, 0.0))
    qtbot.waitUntil(lambda: np.allclose(drawn_at(demo, "sample_2"), stator[:3, 3], atol=1e-9), timeout=5000)
    # typed again; a value that is no number is marked and not stored
    at = demo.properties_dock.forms.form.field_for("samples.sample_2.at")
    type_into(at.edits[0], "12")
    settle(qtbot)
    assert session.rig.samples["sample_2"].at == pytest.approx((0.012, 0.0, 0.0))
    type_into(at.edits[0], "1x")
    settle(qtbot)
    assert at.message.isVisible() and session.rig.samples["sample_2"].at[0] != pytest.approx(0.001)
    type_into(at.edits[0], "12")
    settle(qtbot)
    assert not at.message.isVisible() and session.rig.samples["sample_2"].at == pytest.approx((0.012, 0, 0))
    # a radius that breaks a rule: its coded finding shows under the field
    radius = demo.properties_dock.forms.form.field_for("samples.sample_2.geometry.radius")
    type_into(radius.edit, "0")
    settle(qtbot)
    assert "[sample.geometry]" in radius.message.text()
    QTest.keyClick(demo, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    # declared instead: the form is rebuilt with the moment and its reason
    source = demo.properties_dock.forms.form.field_for("samples.sample_2.moment_source")
    source.combo.setCurrentIndex(1)
    source.combo.activated.emit(1)
    settle(qtbot)
    assert session.rig.samples["sample_2"].geometry is None
    moment = demo.properties_dock.forms.form.field_for("samples.sample_2.moment")
    assert "[declaration.reason]" in moment.message.text()  # the reason is missing
    type_into(moment.reason_edit, "VSM measurement")
    settle(qtbot)
    assert not session.findings


def test_a_click_on_a_sample_selects_it(demo, qtbot):
    session = demo.session
    drop_on_row(demo, "sample.sphere", ItemRef("motor", "link", "stator"))
    qtbot.waitUntil(lambda: isinstance(demo.properties_dock.forms.form, SampleForm), timeout=5000)
    session.apply(SetValue("samples.sample_2.at", (0.0, 0.06, 0.0)))  # out of the motor, to be seen
    click_row(demo, ItemRef("arm", "link", "link_2"))
    assert session.selection != ItemRef("", "sample", "sample_2")
    demo.scene.render_now()
    renderer = demo.scene.plotter.renderer
    qtbot.waitUntil(lambda: demo.assembly.sample_marks.balls["sample_2"].GetVisibility(), timeout=5000)
    settle(qtbot, 50)
    renderer.SetWorldPoint(*drawn_at(demo, "sample_2"), 1.0)
    renderer.WorldToDisplay()
    x, y, _ = renderer.GetDisplayPoint()
    assert demo.scene.pick(x, y) == ItemRef("", "sample", "sample_2")
    settle(qtbot)
    assert session.selection == ItemRef("", "sample", "sample_2")
    assert demo.tree_dock.item_for(ItemRef("", "sample", "sample_2")).isSelected()


def test_a_sample_dropped_on_a_robot_it_was_not_written_for_rides_its_wrist(window, qtbot, robot_file):
    open_ready(window, robot_file("ur5"))
    session = window.session
    drop_on_row(window, "sample.sphere", ItemRef("ur5", "link", "wrist_3_link"))
    qtbot.waitUntil(lambda: isinstance(window.properties_dock.forms.form, SampleForm), timeout=5000)
    assert list(session.rig.samples) == ["sample"] and not session.findings
    wrist = session.frame_world_pose("ur5", "wrist_3_link")
    qtbot.waitUntil(lambda: np.allclose(drawn_at(window, "sample"), wrist[:3, 3], atol=1e-9), timeout=5000)
    at = window.properties_dock.forms.form.field_for("samples.sample.at")
    type_into(at.edits[1], "30")
    settle(qtbot)
    expected = (wrist @ _at((0, 0.03, 0)))[:3, 3]
    qtbot.waitUntil(lambda: np.allclose(drawn_at(window, "sample"), expected, atol=1e-9), timeout=5000)
    session.set_joint_positions("ur5", [0.3, -1.0, 1.2, -0.4, 0.8, 0.1])
    wrist = session.frame_world_pose("ur5", "wrist_3_link")
    expected = (wrist @ _at((0, 0.03, 0)))[:3, 3]
    qtbot.waitUntil(lambda: np.allclose(drawn_at(window, "sample"), expected, atol=1e-9), timeout=5000)
    QTest.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    settle(qtbot)
    assert session.rig.samples["sample"].at == pytest.approx((0.0, 0.0, 0.0))
    # a zone dropped on the same wrist rides it too
    drop_on_row(window, "zone.sphere", ItemRef("ur5", "link", "wrist_3_link"))
    qtbot.waitUntil(lambda: isinstance(window.properties_dock.forms.form, ZoneForm), timeout=5000)
    assert session.rig.zones["zone"].sphere == ZONE_RADIUS and not session.findings
    outline = window.assembly.zone_marks.outlines["zone"]
    qtbot.waitUntil(lambda: np.allclose(np.asarray(outline.user_matrix)[:3, 3], wrist[:3, 3]), timeout=5000)


# -- zones -----------------------------------------------------------------------------------------------
def zone_colour(window, name: str):
    return window.assembly.zone_marks.outlines[name].GetProperty().GetColor()


def test_a_zone_is_red_while_the_field_enters_it_beyond_its_limit(demo, qtbot):
    session = demo.session
    drop_on_row(demo, "zone.sphere", ItemRef("arm", "link", "link_2"))
    qtbot.waitUntil(lambda: isinstance(demo.properties_dock.forms.form, ZoneForm), timeout=5000)
    zone = session.rig.zones["zone"]
    assert (zone.sphere, zone.limit, zone.reason, zone.mount) == (ZONE_RADIUS, DEFAULT_LIMIT, ZONE_REASON,
                                                                  "arm.link_2")
    assert demo.tree_dock.item_for(ItemRef("", "zone", "zone")).parent() is \
        demo.tree_dock.item_for(ItemRef("arm", "link", "link_2"))
    marks = demo.assembly.zone_marks
    poses = pinocchio_poses(session)
    rotor = poses["rotor"]
    magnet = (rotor @ _at((0, 0, 0.025)))[:3, 3]

    def largest_on(zone) -> float:
        """|B| on the zone's surface by Magpylib directly, the zone in the world."""
        points = np.asarray(zone.at) + surface_points(zone)
        return float(np.linalg.norm(magnet_B(rotor, points, direction(session)), axis=1).max())

    # around link_2, far below the magnet: within its limit, by Magpylib too
    link_2 = session.frame_world_pose("arm", "link_2")
    far = Zone(tuple(link_2[:3, 3]), sphere=ZONE_RADIUS)
    assert np.linalg.norm(magnet - link_2[:3, 3]) > ZONE_RADIUS and largest_on(far) < DEFAULT_LIMIT
    qtbot.waitUntil(lambda: marks.check is not None, timeout=5000)
    assert "zone" not in marks.breached and zone_colour(demo, "zone") == pytest.approx(ZONE_RGB)
    assert demo.properties_dock.forms.form.field_for("zones.zone.limit").edit.text() == "0.5"
    # in the world at the magnet: a magnet inside is a breach
    session.apply(AddItem("zones", "around", Zone(tuple(magnet), sphere=0.05, reason=REASON)))
    # beside it, the magnet outside but its field on the zone beyond the limit (Magpylib says so)
    near = Zone(tuple(magnet + [0.06, 0, 0]), sphere=0.03, reason=REASON)
    assert largest_on(near) > DEFAULT_LIMIT
    session.apply(AddItem("zones", "near", near))
    # farther: within
    farther = Zone(tuple(magnet + [0.4, 0, 0]), sphere=0.1, reason=REASON)
    assert largest_on(farther) < DEFAULT_LIMIT
    session.apply(AddItem("zones", "farther", farther))
    qtbot.waitUntil(lambda: marks.breached == {"around", "near"}, timeout=5000)
    settle(qtbot, 30)
    assert zone_colour(demo, "around") == pytest.approx(BREACH_RGB)
    assert zone_colour(demo, "near") == pytest.approx(BREACH_RGB)
    assert zone_colour(demo, "farther") == pytest.approx(ZONE_RGB)
    # the zone's form says so, and its limit typed higher than the field there clears it
    session.select(ItemRef("", "zone", "near"))
    settle(qtbot)
    form = demo.properties_dock.forms.form
    assert isinstance(form, ZoneForm)
    texts = {w.text() for w in form.findChildren(type(form.other))}
    assert any(t.startswith("exceeds its limit of 0.5 mT") for t in texts)
    limit = form.field_for("zones.near.limit")
    type_into(limit.edit, f"{largest_on(near) * 1e3 * 1.5:.4g}")
    settle(qtbot)
    assert session.rig.zones["near"].limit == pytest.approx(largest_on(near) * 1.5, rel=1e-3)
    qtbot.waitUntil(lambda: marks.breached == {"around"}, timeout=5000)
    # the zone on link_2 moved (in its frame) over the magnet: red while the magnet is in it
    session.apply(SetValue("zones.zone.at", tuple(np.linalg.inv(link_2) @ [*magnet, 1.0])[:3]))
    qtbot.waitUntil(lambda: marks.breached == {"around", "zone"}, timeout=5000)
    # a limit that breaks a rule, and no reason: coded findings under their fields
    type_into(limit.edit, "-1")
    settle(qtbot)
    assert "[zone.limit]" in limit.message.text()
    reason = form.field_for("zones.near.reason")
    type_into(reason.edit, " ")
    QTest.keyClick(reason.edit, Qt.Key_Return)
    settle(qtbot)
    assert "[zone.reason]" in demo.properties_dock.forms.form.field_for("zones.near.reason").message.text()
    # while the rig breaks rules there is no field to check against: no zone is red
    qtbot.waitUntil(lambda: not marks.breached, timeout=5000)


# -- the keep-out surface ----------------------------------------------------------------------------------
def test_the_keep_out_surface_is_where_B_is_the_limit_and_follows_the_pose(demo, qtbot):
    session = demo.session
    views = demo.field_views
    surface = views.surface
    assert views.surface_action in demo.menus["View"].actions()
    assert not surface.on
    views.surface_action.trigger()
    qtbot.waitUntil(lambda: surface.updates >= 1, timeout=20000)
    assert surface.actor.GetVisibility() and surface.grid.limit == DEFAULT_LIMIT  # no zones: the default

    def check_points(limit: float) -> np.ndarray:
        points = np.asarray(surface.mesh.points)
        assert len(points) > 100
        pick = points[np.random.default_rng(1).choice(len(points), 12, replace=False)]
        B = np.linalg.norm(magnet_B(pinocchio_poses(session)["rotor"], pick, direction(session)), axis=1)
        # log-linear interpolation between grid points some 4 mm apart, 7 cm from the magnet
        np.testing.assert_allclose(B, limit, rtol=0.03)
        return points.mean(axis=0)

    centre = check_points(DEFAULT_LIMIT)
    # a zone of 1 mT: the surface is drawn at the smallest zone limit
    updates = surface.updates
    session.apply(AddItem("zones", "bench", Zone((2.0, 0.0, 0.0), sphere=0.1, limit=1e-3, reason=REASON)))
    qtbot.waitUntil(lambda: surface.updates > updates and surface.grid.limit == 1e-3, timeout=20000)
    check_points(1e-3)
    # the arm moves: the surface follows the magnet
    updates = surface.updates
    session.set_joint_positions("arm", [0.8, -0.3, 0.9, 0.0, 0.6, 0.0])
    qtbot.waitUntil(lambda: surface.updates > updates and not surface._running, timeout=20000)
    moved = check_points(1e-3)
    assert np.linalg.norm(moved - centre) > 0.05
    # off: hidden, and a pose change computes nothing
    views.surface_action.trigger()
    updates = surface.updates
    session.set_joint_positions("arm", [0.0, -0.3, 0.9, 0.0, 0.6, 0.0])
    settle(qtbot, 300)
    assert surface.updates == updates and not surface.actor.GetVisibility()


def test_a_screenshot_with_a_sample_a_zone_and_the_surface(demo, qtbot, tmp_path):
    session = demo.session
    drop_on_row(demo, "sample.sphere", ItemRef("motor", "link", "stator"))
    qtbot.waitUntil(lambda: isinstance(demo.properties_dock.forms.form, SampleForm), timeout=5000)
    session.apply(SetValue("samples.sample_2.at", (0.0, 0.05, 0.03)))
    rotor = pinocchio_poses(session)["rotor"]
    magnet = (rotor @ _at((0, 0, 0.025)))[:3, 3]
    session.apply(AddItem("zones", "chair", Zone(tuple(magnet + [0.08, 0, -0.05]), box=(0.08, 0.08, 0.08),
                                                 reason=REASON)))
    demo.field_views.surface_action.trigger()
    qtbot.waitUntil(lambda: demo.field_views.surface.updates >= 1, timeout=20000)
    session.select(ItemRef("", "zone", "chair"))
    demo.scene.focus(ItemRef("", "zone", "chair"))  # Focus camera: fits the zone
    focal = demo.scene.plotter.renderer.GetActiveCamera().GetFocalPoint()
    np.testing.assert_allclose(focal, session.rig.zones["chair"].at, atol=1e-6)
    settle(qtbot, 300)
    demo.scene.render_now()
    path = tmp_path / "samples.png"
    assert demo.grab().save(str(path))
    shutil.copy(path, "/tmp/samples.png")
