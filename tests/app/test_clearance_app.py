"""Nothing collides unseen, in the window: a magnet dropped inside a Panda link is a clearance row in the
Validation dock at once; driving moves the line between the closest pair and the status text (against the
plain per-step loop of the collision library); the clearance plot of a played trajectory and a click on it;
View → Clearance hides the line and stops the computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from gestures import drop_on_row
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication
from test_driving import open_ready

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Part, Sphere
from mime_gui.rig.clearance_check import clearance_along, initial_clearance, per_step_minimum
from mime_gui.rig.collision import clearance_model
from mime_gui.session import ItemRef, SetValue

pytestmark = pytest.mark.timeout(180)
DEMO = RESOURCES / "demo"


def _rendered(window, qtbot) -> None:
    """Wait for the render that shows what was just done (the line and the status move just before it)."""
    n = window.scene.render_count
    window.scene.request_render()
    qtbot.waitUntil(lambda: window.scene.render_count > n, timeout=5000)


def test_a_magnet_dropped_on_a_panda_links_origin_is_a_clearance_row_that_goes_to_the_magnet(
        window, qtbot, robot_file):
    open_ready(window, robot_file("panda"), qtbot)
    session, views = window.session, window.clearance
    qtbot.waitUntil(lambda: views.assembled >= 1, timeout=30000)  # the first check hulls Panda's meshes
    segment = next(iter(session.segments))
    drop_on_row(window, "magnet.cylinder", ItemRef(segment, "link", "panda_link4"))
    (name,) = session.rig.magnets
    expected = [(f.code, f.where, f.message) for f in initial_clearance(session.rig)]
    assert any(code == "clearance.contact" and f"{segment}.panda_link4 and magnets.{name} overlap" in message
               for code, _where, message in expected)
    dock = window.docks["ValidationDock"]
    qtbot.waitUntil(lambda: [r for r in dock.rows() if r[0].startswith("clearance.")] == expected,
                    timeout=10000)
    tree = dock.tree
    group = next(tree.topLevelItem(i) for i in range(tree.topLevelItemCount())
                 if tree.topLevelItem(i).text(0).startswith("Clearance in the initial pose"))
    assert group.text(0) == f"Clearance in the initial pose ({len(expected)})"
    assert "can be exported" in dock.summary.text()  # a warning, not a refusal
    row = next(group.child(j) for j in range(group.childCount())
               if f"panda_link4 and magnets.{name}" in group.child(j).text(2))
    session.select(None)
    tree.scrollToItem(row)
    qtbot.mouseClick(tree.viewport(), Qt.LeftButton, pos=tree.visualItemRect(row).center())
    qtbot.waitUntil(lambda: session.selection is not None and session.selection.name == name, timeout=5000)


def _swing_rig() -> Apparatus:
    """The demo arm with a 1 cm ball (the holder) fixed in the world 6 cm beside the plane link_2 swings in,
    0.3 m along it when joint_2 is at 0.8 rad."""
    ball = Part(Sphere(radius=0.01), material="aluminium",
                at=(0.3 * math.sin(0.8), 0.06, 0.26 + 0.3 * math.cos(0.8)))
    return Apparatus("swing", chain={"arm": Arm.Kinematic(description=str(DEMO / "arm.urdf"))},
                     parts={"holder": ball})


def _expected(session):
    """The closest pair and its distance at the pose shown, by the plain loop of the collision library."""
    built = session.document.built
    model = clearance_model(built)
    poses = np.stack([session.segments[n.split(".", 1)[0]].frame_pose(n.split(".", 1)[1])
                      for n in built.frame_names])
    d, k = per_step_minimum(model, poses[None])
    i, j = model.moving[k[0]]
    return model.bodies[i].label, model.bodies[j].label, float(d[0])


def test_driving_a_joint_moves_the_closest_pair_its_line_and_the_status_text(window, qtbot):
    window.session.open_apparatus(_swing_rig())
    views = window.clearance
    qtbot.waitUntil(lambda: views.assembled >= 1 and views.shown is not None, timeout=20000)
    session, sliders = window.session, window.driving.sliders
    if not sliders.teleport.isChecked():
        sliders.teleport.click()
    q = np.array(session.segments["arm"].q)
    seen = set()
    for q2 in (-0.6, 0.3, 0.8, 1.2):
        q[1] = q2
        session.set_joint_positions("arm", q)
        _rendered(window, qtbot)
        a, b, d = _expected(session)
        seen.add((a, b))
        c = views.shown
        assert {c.first, c.second} == {a, b} and c.distance == pytest.approx(d, abs=1e-9)
        assert views.status.text() == f"closest: {c.first} ↔ {c.second} {d * 1e3:.1f} mm"
        line = np.asarray(views.line.line.points)
        assert np.linalg.norm(line[1] - line[0]) == pytest.approx(abs(d), abs=1e-6)
        # red within the 5 mm margin, orange beyond (to a colour's 8 bits)
        assert views.line.colour() == pytest.approx((0.86, 0.1, 0.1) if d < 0.005 else (1.0, 0.55, 0.0),
                                                    abs=0.005)
    assert ("arm.link_2", "parts.holder") in seen and len(seen) > 1
    # at 0.8 rad the ball is 6 cm from link_2's axis plane: 0.06 − 0.035 (the box's half width) − 0.01
    q[1] = 0.8
    session.set_joint_positions("arm", q)
    _rendered(window, qtbot)
    assert views.shown.distance == pytest.approx(0.015, abs=1e-6)
    # a render without a pose change computes nothing
    n = views.live.computed
    _rendered(window, qtbot)
    assert views.live.computed == n
    # the ball moved 2 cm nearer the plane (an edit: a new build, its model made on the worker): it overlaps
    # link_2's box by 0.035 + 0.01 − 0.04 = 5 mm, in red
    at = list(session.rig.parts["holder"].at)
    session.apply(SetValue("parts.holder.at", (at[0], 0.04, at[2])))
    qtbot.waitUntil(lambda: views.shown is not None and views.shown.distance < 0, timeout=10000)
    assert views.shown.distance == pytest.approx(-0.005, abs=1e-6)
    assert views.status.text() == f"closest: {views.shown.first} ↔ {views.shown.second} overlap 5.0 mm"
    assert views.line.colour() == pytest.approx((0.86, 0.1, 0.1), abs=0.005)


def test_view_clearance_off_hides_the_line_and_stops_the_computation(window, qtbot):
    window.session.open_apparatus(_swing_rig())
    views = window.clearance
    qtbot.waitUntil(lambda: views.shown is not None, timeout=20000)
    assert views.action.isChecked() and views.action in window.menus["View"].actions()
    assert views.line.line_actor.GetVisibility() and views.status.isVisible()
    views.action.trigger()
    _rendered(window, qtbot)
    assert not views.line.line_actor.GetVisibility() and not views.line.end_actor.GetVisibility()
    assert not views.status.isVisible()
    n = views.live.computed
    q = np.array(window.session.segments["arm"].q)
    for q2 in (0.2, 0.5):
        q[1] = q2
        window.session.set_joint_positions("arm", q)
        _rendered(window, qtbot)
    assert views.live.computed == n
    views.action.trigger()
    _rendered(window, qtbot)
    assert views.live.computed == n + 1 and views.line.line_actor.GetVisibility()
    assert views.shown.distance == pytest.approx(_expected(window.session)[2], abs=1e-9)


def test_the_clearance_plot_of_a_played_trajectory_and_a_click_that_goes_to_its_worst_step(
        window, qtbot, tmp_path):
    window.session.open_apparatus(_swing_rig())
    views = window.clearance
    qtbot.waitUntil(lambda: views.assembled >= 1, timeout=20000)
    # link_2 swings from 0 to 1.6 rad and back, past the ball at 0.8 rad
    t = np.arange(0, 4.0, 0.02)
    q2 = 0.8 + 0.8 * np.sin(2 * np.pi * t / 4.0 - np.pi / 2)
    csv = tmp_path / "swing.csv"
    csv.write_text("time,arm.joint_2\n" + "".join(f"{a:.2f},{b:.6f}\n" for a, b in zip(t, q2, strict=True)))
    transport = window.services.transport
    player = transport.open(str(csv))
    plot = views.plot
    qtbot.waitUntil(lambda: plot.computed == 1, timeout=20000)
    found = clearance_along(player.playable.built, player.trajectory, player.schedule.start)
    x, y = plot.values()
    np.testing.assert_allclose(x, player.times - player.schedule.start)
    np.testing.assert_allclose(y, found.minimum * 1e3, atol=1e-9)
    loop, _ = per_step_minimum(clearance_model(player.playable.built), player.trajectory.frame_poses)
    np.testing.assert_allclose(y, loop * 1e3, atol=1e-6)
    assert plot.margin_line.value() == pytest.approx(5.0)
    # a click on the dip of the curve: the playhead goes to the worst step
    dock = window.docks["PlotsDock"]
    dock.raise_()
    qtbot.waitUntil(lambda: plot.plot.isVisible() and dock.graphs.isVisible(), timeout=5000)
    QApplication.processEvents()
    worst = int(np.argmin(loop))
    assert 0 < worst < player.rows - 1
    box = plot.plot.getViewBox()
    scene_at = box.mapViewToScene(QPointF(x[worst], y[worst]))
    transport.seek(0)
    qtbot.mouseClick(dock.graphs.viewport(), Qt.LeftButton, pos=dock.graphs.mapFromScene(scene_at))
    qtbot.waitUntil(lambda: player.row == worst, timeout=5000)
    assert plot.playhead.value() == pytest.approx(x[worst])
    # one check per loaded player: seeking and replotting compute nothing more
    transport.seek(3)
    assert plot.computed == 1
