"""Handles in the 3D view, driven with the mouse as a user would: a part's arrow dragged moves it along its
mount frame's axis by the distance the mouse went (pixels → metres through the camera, computed here from the
camera's own parameters), as one undo step, with the form following; snapping; Escape puts it back; a
robot's frame dragged and the arm follows (UR5 and Panda, robots the handles were not written for)."""

from __future__ import annotations

import numpy as np
import pytest
import vtk
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from test_assembly import field, open_ready, settle
from test_driving import open_ready as open_with_clock_stopped

from mime_gui.app.scene.handles import Snap
from mime_gui.session import ItemRef


def top_view(window, qtbot) -> None:
    """Looking straight down, orthographic: the screen's plane is the world's xy plane."""
    scene = window.scene
    scene.view_standard("top")
    scene.set_orthographic(True)
    scene.render_now()
    settle(qtbot, 20)


def centre_on(scene, qtbot, point) -> None:
    """Slide the top view so ``point`` is in the middle of the screen (the handles fit around it)."""
    cam = scene.plotter.renderer.GetActiveCamera()
    shift = np.asarray(point, float) - np.array(cam.GetFocalPoint())
    shift[2] = 0.0
    cam.SetFocalPoint(*(np.array(cam.GetFocalPoint()) + shift))
    cam.SetPosition(*(np.array(cam.GetPosition()) + shift))
    scene.plotter.renderer.ResetCameraClippingRange()
    scene.render_now()
    settle(qtbot, 20)


def on_screen(scene, point) -> np.ndarray:
    """Display position (VTK's, origin bottom-left) of a world point, through VTK's own coordinate chain."""
    c = vtk.vtkCoordinate()
    c.SetCoordinateSystemToWorld()
    c.SetValue(*map(float, point))
    return np.array(c.GetComputedDoubleDisplayValue(scene.plotter.renderer))


def qt_point(scene, display) -> QPoint:
    h = scene.plotter.height()
    return QPoint(int(round(display[0])), int(round(h - 1 - display[1])))


def per_pixel(scene) -> float:
    cam = scene.plotter.renderer.GetActiveCamera()
    assert cam.GetParallelProjection()
    return 2.0 * cam.GetParallelScale() / scene.plotter.renderer.GetSize()[1]


def screen_axes(scene) -> tuple[np.ndarray, np.ndarray]:
    """World directions of the screen's right and up."""
    cam = scene.plotter.renderer.GetActiveCamera()
    up = np.array(cam.GetViewUp())
    forward = np.array(cam.GetDirectionOfProjection())
    up -= forward * up.dot(forward)
    up /= np.linalg.norm(up)
    return np.cross(forward, up), up


def drag(qtbot, scene, start: QPoint, steps, modifier=Qt.NoModifier, release: bool = True) -> QPoint:
    """Press at ``start``, move through each offset of ``steps`` (pixels, Qt's y down), let go."""
    plotter = scene.plotter
    QTest.mousePress(plotter, Qt.LeftButton, modifier, start)
    here = start
    for dx, dy in steps:
        here = start + QPoint(dx, dy)
        QTest.mouseMove(plotter, here)
        settle(qtbot, 2)
    if release:
        QTest.mouseRelease(plotter, Qt.LeftButton, modifier, here)
        settle(qtbot, 5)
    return here


def grab_point(scene, axis: int, fraction: float = 0.7) -> QPoint:
    handles = scene.handles
    X = handles.world_X_handles
    return qt_point(scene, on_screen(scene, X[:3, 3] + fraction * handles.scale * X[:3, axis]))


def world_under(scene, qpoint: QPoint) -> np.ndarray:
    """A world point under a widget point, through VTK's display → world chain (any depth: the top
    orthographic view's rays are vertical)."""
    c = vtk.vtkCoordinate()
    c.SetCoordinateSystemToDisplay()
    c.SetValue(float(qpoint.x()), float(scene.plotter.height() - 1 - qpoint.y()), 0.0)
    return np.array(c.GetComputedWorldValue(scene.plotter.renderer))


def expected_turn(scene, centre, normal, start: QPoint, end: QPoint) -> float:
    """The angle (rad, about ``normal``) between where the vertical rays under ``start`` and ``end`` meet the
    ring's plane, seen from its centre."""
    def on_plane(q):
        p = world_under(scene, q)
        p[2] = centre[2] - (normal[0] * (p[0] - centre[0]) + normal[1] * (p[1] - centre[1])) / normal[2]
        return p - centre
    v0, v1 = on_plane(start), on_plane(end)
    return float(np.arctan2(normal @ np.cross(v0, v1), v0 @ v1))


def expected_along(scene, axis_world, dx: int, dy: int) -> float:
    """How far along ``axis_world`` a mouse move of (dx, dy) pixels goes in the top orthographic view: the
    move in the world's screen plane, projected on the axis's shadow in that plane."""
    right, up = screen_axes(scene)
    moved = per_pixel(scene) * (dx * right - dy * up)  # Qt's y grows downwards
    shadow = axis_world - np.array([0.0, 0.0, axis_world[2]])
    return float(moved @ shadow / (shadow @ shadow))


@pytest.fixture
def ur5_box_selected(ur5_with_box, window, qtbot):
    session, clock = ur5_with_box
    session.select(ItemRef("", "part", "box"))
    top_view(window, qtbot)
    assert window.scene.handles.ref == ItemRef("", "part", "box")
    return session, clock


def box_world_position(window):
    return window.scene.items.poses[ItemRef("", "part", "box")][:3, 3].copy()


@pytest.mark.parametrize("axis", [0, 1])
def test_an_arrow_dragged_moves_the_part_by_the_mouse_distance_as_one_step(window, qtbot, ur5_box_selected,
                                                                           axis):
    session, clock = ur5_box_selected
    scene = window.scene
    at0 = np.array(session.rig.parts["box"].at)
    world0 = box_world_position(window)
    steps_before = len(session.history)
    a = scene.handles.world_X_handles[:3, axis].copy()
    start = grab_point(scene, axis)
    dx, dy = 37, -23
    moves = [(dx * i // 6, dy * i // 6) for i in range(1, 7)]
    clock.now += 30  # far beyond the merge window mid-drag: still one step
    drag(qtbot, scene, start, moves)
    amount = expected_along(scene, a, dx, dy)
    assert abs(amount) > 1e-3  # the drag did go somewhere
    at = np.array(session.rig.parts["box"].at)
    want = at0.copy()
    want[axis] += amount
    np.testing.assert_allclose(at, want, atol=1e-9 + 1e-6 * abs(amount))
    # in the world, the part went along the arrow by that much
    np.testing.assert_allclose(box_world_position(window) - world0, amount * a,
                               atol=1e-6 * abs(amount) + 1e-9)
    assert len(session.history) == steps_before + 1
    session.undo()
    np.testing.assert_allclose(session.rig.parts["box"].at, at0, atol=0)
    settle(qtbot, 20)  # the next frame: the handles came back with the part
    np.testing.assert_allclose(scene.handles.world_X_handles[:3, 3], world0, atol=1e-9)


def test_the_form_follows_the_drag_live(window, qtbot, ur5_box_selected):
    session, _clock = ur5_box_selected
    scene = window.scene
    start = grab_point(scene, 0)
    drag(qtbot, scene, start, [(20, 0), (40, 0)], release=False)
    assert scene.handles.dragging  # mid-drag, the form already shows where the box is
    edits = field(window, "parts.box.at").edits
    shown = [float(e.text()) for e in edits]
    np.testing.assert_allclose(shown, np.array(session.rig.parts["box"].at) * 1e3, rtol=1e-3, atol=1e-3)
    QTest.mouseRelease(scene.plotter, Qt.LeftButton, Qt.NoModifier, start + QPoint(40, 0))
    settle(qtbot)
    assert not scene.handles.dragging


def test_snapping_moves_by_whole_steps_and_ctrl_inverts_it(window, qtbot, ur5_box_selected):
    session, _clock = ur5_box_selected
    scene = window.scene
    window.posing.set_snap(on=True, length=0.005)
    assert scene.snap() == Snap(True, 0.005)
    at0 = np.array(session.rig.parts["box"].at)
    drag(qtbot, scene, grab_point(scene, 0), [(13, 5), (29, 9)])
    step = (np.array(session.rig.parts["box"].at) - at0)[0] / 0.005
    assert step != 0 and abs(step - round(step)) < 1e-9
    session.undo()
    drag(qtbot, scene, grab_point(scene, 0), [(13, 5), (29, 9)], modifier=Qt.ControlModifier)
    step = (np.array(session.rig.parts["box"].at) - at0)[0] / 0.005
    assert abs(step - round(step)) > 1e-6  # Ctrl: not snapped


def test_escape_puts_the_part_back_and_leaves_no_step(window, qtbot, ur5_box_selected):
    session, _clock = ur5_box_selected
    scene = window.scene
    at0 = session.rig.parts["box"].at
    steps_before = len(session.history)
    here = drag(qtbot, scene, grab_point(scene, 1), [(10, 30), (20, 60)], release=False)
    assert session.rig.parts["box"].at != at0
    QTest.keyClick(scene.plotter, Qt.Key_Escape)
    settle(qtbot)
    assert session.rig.parts["box"].at == at0 and len(session.history) == steps_before
    assert not scene.handles.dragging
    camera = scene.plotter.camera_position
    QTest.mouseRelease(scene.plotter, Qt.LeftButton, Qt.NoModifier, here)
    settle(qtbot)
    assert scene.plotter.camera_position == camera


def test_a_press_beside_the_handles_turns_the_camera_not_the_part(window, qtbot, ur5_box_selected):
    session, _clock = ur5_box_selected
    scene = window.scene
    at0 = session.rig.parts["box"].at
    camera = scene.plotter.camera_position
    far = qt_point(scene, on_screen(scene, scene.handles.world_X_handles[:3, 3])) + QPoint(260, 200)
    drag(qtbot, scene, far, [(30, 10), (60, 20)])
    assert session.rig.parts["box"].at == at0
    assert scene.plotter.camera_position != camera


def test_no_handles_without_a_selection_or_when_turned_off(window, qtbot, ur5_box_selected):
    session, _clock = ur5_box_selected
    scene = window.scene
    assert scene.handles.visible()
    window.posing.act_show.setChecked(False)
    assert not scene.handles.visible() and scene.handles.handle_at(0, 0) is None
    window.posing.act_show.setChecked(True)
    session.select(None)
    assert not scene.handles.visible()


PANDA_READY = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])  # away from limits and singularities


def ready_panda(window, qtbot, robot_file):
    """Panda open, standing at its usual ready pose, Teleport on; ``(session, segment)``."""
    open_ready(window, robot_file("panda"))
    session = window.session
    segment = next(iter(session.segments))
    names = session.command_names(segment)
    session.set_joint_positions(segment, dict(zip(names[:7], PANDA_READY, strict=True)))
    window.posing.act_teleport.setChecked(True)
    return session, segment


def flattest_axis(R) -> int:
    """The axis lying most nearly in the screen's plane (top view): its arrow is longest on screen."""
    return int(np.argmin(np.abs(R[2, :])))


def _pose_of(session, segment, frame):
    return session.frame_world_pose(segment, frame).copy()


def test_a_frame_dragged_with_teleport_moves_the_arm_there(window, qtbot, robot_file):
    session, segment = ready_panda(window, qtbot, robot_file)
    frame = "panda_link8"
    session.select(ItemRef(segment, "frame", frame))
    top_view(window, qtbot)
    scene = window.scene
    assert scene.handles.ref == ItemRef(segment, "frame", frame) and scene.handles.turns
    X0 = _pose_of(session, segment, frame)
    centre_on(scene, qtbot, X0[:3, 3])
    k = flattest_axis(X0[:3, :3])
    a = scene.handles.world_X_handles[:3, k].copy()
    dx, dy = 25, 15
    drag(qtbot, scene, grab_point(scene, k), [(dx // 2, dy // 2), (dx, dy)])
    amount = expected_along(scene, a, dx, dy)
    assert abs(amount) > 1e-3
    X = _pose_of(session, segment, frame)
    np.testing.assert_allclose(X[:3, 3], X0[:3, 3] + amount * a, atol=1e-6)
    np.testing.assert_allclose(X[:3, :3], X0[:3, :3], atol=1e-6)  # its orientation kept
    assert window.posing.last_reach.result.converged
    assert window.statusBar().currentMessage().endswith("reached")


def test_a_frame_turned_by_a_ring_turns_about_that_axis(window, qtbot, robot_file):
    session, segment = ready_panda(window, qtbot, robot_file)
    frame = "panda_link8"
    session.select(ItemRef(segment, "frame", frame))
    scene = window.scene
    top_view(window, qtbot)
    X0 = _pose_of(session, segment, frame)
    centre_on(scene, qtbot, X0[:3, 3])
    R0 = X0[:3, :3]
    # the ring about the axis nearest the view direction is seen full face: grab it on its rim, between
    # the arrows
    k = int(np.argmax(np.abs(R0[2, :])))
    u = (R0[:, (k + 1) % 3] + R0[:, (k + 2) % 3]) / np.sqrt(2.0)
    handles = scene.handles
    c = handles.world_X_handles[:3, 3]
    rim = on_screen(scene, c + 0.8 * handles.scale * u)
    centre = on_screen(scene, c)
    start = qt_point(scene, rim)
    # a quarter turn of the mouse about the ring's centre on screen
    r = rim - centre
    quarter = centre + np.array([-r[1], r[0]])
    end = qt_point(scene, quarter)
    drag(qtbot, scene, start, [((end - start).x() // 2, (end - start).y() // 2),
                               ((end - start).x(), (end - start).y())])
    want = expected_turn(scene, c, R0[:, k], start, end)
    assert abs(abs(want) - np.pi / 2) < 0.1
    X = _pose_of(session, segment, frame)
    np.testing.assert_allclose(X[:3, 3], X0[:3, 3], atol=1e-6)  # turned in place
    turn = X[:3, :3] @ R0.T
    angle = np.arccos(np.clip((np.trace(turn) - 1) / 2, -1, 1))
    axis = np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]])
    assert abs(angle - abs(want)) < 1e-6
    np.testing.assert_allclose(axis / np.linalg.norm(axis), np.sign(want) * R0[:, k], atol=1e-6)


def test_a_frame_dragged_through_the_servo_is_commanded_not_jumped(window, qtbot, robot_file):
    open_with_clock_stopped(window, robot_file("ur5"), qtbot)  # the test ticks the servo itself
    session = window.session
    segment = next(iter(session.segments))
    frame = "tool0" if "tool0" in session.segment(segment).articulation.frame_names else "wrist_3_link"
    names = session.command_names(segment)  # bent, away from the stretched-out singularity at zero
    session.set_joint_positions(segment, dict(zip(names, [0.3, -1.2, 1.5, -1.9, -1.57, 0.2], strict=True)))
    session.select(ItemRef(segment, "frame", frame))
    top_view(window, qtbot)
    scene = window.scene
    X0 = _pose_of(session, segment, frame)
    centre_on(scene, qtbot, X0[:3, 3])
    q0 = session.joint_positions(segment).copy()
    steps_before = len(session.history)
    k = flattest_axis(X0[:3, :3])
    start = grab_point(scene, k)
    tip = grab_point(scene, k, 1.0)
    along = np.array([tip.x() - start.x(), tip.y() - start.y()], float)
    along *= 40.0 / np.linalg.norm(along)  # 40 pixels along the arrow on screen
    a = scene.handles.world_X_handles[:3, k].copy()
    moved = tuple(int(v) for v in along)
    drag(qtbot, scene, start, [tuple(int(v) for v in along / 2), moved])
    target = X0[:3, 3] + expected_along(scene, a, *moved) * a
    assert window.posing.last_reach is not None
    np.testing.assert_array_equal(session.joint_positions(segment), q0)  # not there yet: the servo lags
    assert not np.allclose(session.command(segment), q0[:len(session.command(segment))])
    for _ in range(4000):
        session.tick(0.005)
    X = _pose_of(session, segment, frame)
    assert np.linalg.norm(target - X0[:3, 3]) > 5e-3
    np.testing.assert_allclose(X[:3, 3], target, atol=1e-5)  # the servo got there
    assert len(session.history) == steps_before  # commands are not the rig


# -- a declared frame: its offset edited, or, with Alt, the arm posed by it ---------------------------------
ANGLE = np.radians(30.0)


@pytest.fixture
def tilted(window, qtbot, demo_copy):
    """The demo with a frame turned 30° about the flange's x, 5 cm out, and the holder mounted on it."""
    import json
    import math

    data = json.loads((demo_copy / "demo.rig.json").read_text(encoding="utf-8"))
    data["frames"] = {"tilted": {"mount": "arm.tool0", "at": {"value": [0.0, 0.0, 0.05], "unit": "m"},
                                 "orientation": {"wxyz": [math.cos(ANGLE / 2), math.sin(ANGLE / 2), 0, 0]}}}
    data["parts"]["holder"]["mount"] = "arm.tilted"
    (demo_copy / "demo.rig.json").write_text(json.dumps(data, indent=2), encoding="utf-8")
    open_with_clock_stopped(window, demo_copy / "demo.rig.json", qtbot)
    session = window.session
    assert session.findings == ()
    session.select(ItemRef("arm", "frame", "tilted"))
    top_view(window, qtbot)
    centre_on(window.scene, qtbot, session.frame_world_pose("arm", "tilted")[:3, 3])
    return session


def test_a_declared_frames_arrow_edits_its_offset_and_what_is_on_it_follows(window, qtbot, tilted):
    session, scene = tilted, window.scene
    assert scene.handles.ref == ItemRef("arm", "frame", "tilted") and scene.handles.turns
    frame0 = session.rig.frames["tilted"]
    X0 = session.frame_world_pose("arm", "tilted").copy()
    holder0 = scene.items.poses[ItemRef("", "part", "holder")][:3, 3].copy()
    q0 = session.joint_positions("arm").copy()
    k = flattest_axis(X0[:3, :3])
    a = X0[:3, k].copy()
    steps = len(session.history)
    dx, dy = 30, -12
    drag(qtbot, scene, grab_point(scene, k), [(dx // 2, dy // 2), (dx, dy)])
    amount = expected_along(scene, a, dx, dy)
    assert abs(amount) > 1e-3
    # its offset moved along its own axis k, written in its parent's (tool0's) axes
    c, s = np.cos(ANGLE), np.sin(ANGLE)
    own_in_parent = np.array([[1, 0, 0], [0, c, -s], [0, s, c]])[:, k]
    np.testing.assert_allclose(session.rig.frames["tilted"].at,
                               np.array(frame0.at) + amount * own_in_parent, atol=1e-6 * abs(amount) + 1e-12)
    assert session.rig.frames["tilted"].orientation == frame0.orientation
    settle(qtbot, 20)
    np.testing.assert_allclose(session.frame_world_pose("arm", "tilted")[:3, 3], X0[:3, 3] + amount * a,
                               atol=1e-6 * abs(amount) + 1e-12)
    np.testing.assert_allclose(scene.items.poses[ItemRef("", "part", "holder")][:3, 3], holder0 + amount * a,
                               atol=1e-6 * abs(amount) + 1e-12)
    np.testing.assert_array_equal(session.joint_positions("arm"), q0)  # the arm did not move
    assert len(session.history) == steps + 1
    session.undo()
    assert session.rig.frames["tilted"] == frame0


def test_a_declared_frames_ring_turns_it_about_its_own_axis(window, qtbot, tilted):
    from mime_gui.multibody.spatial import quaternion_to_matrix

    session, scene = tilted, window.scene
    frame0 = session.rig.frames["tilted"]
    R0 = session.frame_world_pose("arm", "tilted")[:3, :3].copy()
    k = int(np.argmax(np.abs(R0[2, :])))  # the ring seen most nearly face on
    handles = scene.handles
    c = handles.world_X_handles[:3, 3]
    u = (R0[:, (k + 1) % 3] + R0[:, (k + 2) % 3]) / np.sqrt(2.0)
    rim, centre = on_screen(scene, c + 0.8 * handles.scale * u), on_screen(scene, c)
    r = rim - centre
    start, end = qt_point(scene, rim), qt_point(scene, centre + np.array([-r[1], r[0]]))
    d = end - start
    drag(qtbot, scene, start, [(d.x() // 2, d.y() // 2), (d.x(), d.y())])
    want = expected_turn(scene, c, R0[:, k], start, end)
    assert abs(want) > 1.0
    frame = session.rig.frames["tilted"]
    assert frame.at == frame0.at
    turn = quaternion_to_matrix(frame0.orientation).T @ quaternion_to_matrix(frame.orientation)  # in its axes
    angle = np.arccos(np.clip((np.trace(turn) - 1) / 2, -1, 1))
    axis = np.array([turn[2, 1] - turn[1, 2], turn[0, 2] - turn[2, 0], turn[1, 0] - turn[0, 1]])
    assert abs(angle - abs(want)) < 1e-6
    np.testing.assert_allclose(axis / np.linalg.norm(axis), np.sign(want) * np.eye(3)[k], atol=1e-9)
    session.undo()
    assert session.rig.frames["tilted"] == frame0


def test_alt_on_a_declared_frames_arrow_poses_the_arm_by_it(window, qtbot, tilted):
    session, scene = tilted, window.scene
    window.posing.act_teleport.setChecked(True)
    rig0 = session.rig
    X0 = session.frame_world_pose("arm", "tilted").copy()
    k = flattest_axis(X0[:3, :3])
    a = X0[:3, k].copy()
    steps = len(session.history)
    drag(qtbot, scene, grab_point(scene, k), [(8, 4), (16, 8)], modifier=Qt.AltModifier)
    amount = expected_along(scene, a, 16, 8)
    assert session.rig is rig0 and len(session.history) == steps  # the rig untouched
    X = session.frame_world_pose("arm", "tilted")
    assert window.posing.last_reach is not None
    if window.posing.last_reach.result.converged:
        np.testing.assert_allclose(X[:3, 3], X0[:3, 3] + amount * a, atol=1e-6)
    else:  # a six-joint arm may not keep the frame's orientation there: nearer, never farther
        assert np.linalg.norm(X[:3, 3] - (X0[:3, 3] + amount * a)) < abs(amount)


def test_a_selected_probes_handles_are_drawn_over_the_robot(window, qtbot, demo_copy):
    """The handles are drawn in the overlay pass, which runs only when something needs it: a probe's
    selection lights nothing there, its handles must still switch it on."""
    from mime_gui.app.scene.handles import COLOURS

    open_with_clock_stopped(window, demo_copy / "demo.rig.json", qtbot)
    scene = window.scene
    window.session.select(ItemRef("", "probe", "sample"))
    settle(qtbot, 20)
    assert scene.handles.visible() and scene._registry.overlay.GetDraw()
    scene.render_now()
    image = scene.plotter.screenshot(None, return_img=True)
    h = image.shape[0]
    X = scene.handles.world_X_handles
    for k in range(3):
        x, y = on_screen(scene, X[:3, 3] + 0.75 * scene.handles.scale * X[:3, k])[:2]
        patch = image[int(h - 1 - y) - 2:int(h - 1 - y) + 3, int(x) - 2:int(x) + 3, :3].reshape(-1, 3) / 255.0
        # the arrow's own colour dominates somewhere on it (shading scales it, the hue stays)
        hue = int(np.argmax(COLOURS[k]))
        assert any(int(np.argmax(p)) == hue and p.max() - p.min() > 0.15 for p in patch)
    window.posing.act_show.setChecked(False)
    settle(qtbot, 10)
    assert not scene._registry.overlay.GetDraw()  # nothing else over the geometry: the pass is off again
