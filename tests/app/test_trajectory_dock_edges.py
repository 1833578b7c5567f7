"""The Trajectory dock on rigs at their edges, as a user gets there: a rig of items fixed in the world and no
segment yet (a new trajectory plays, its clearance is checked, nothing escapes a button), a rig whose
segments were all removed (none is offered for a keyframe), and a spin keyframe added before its profile
(Fit to limits says what it needs, with the rules' code)."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from test_driving import open_ready
from test_trajectory_dock import trajectory_dock, undo

WORLD_ITEMS = {
    "format": "mime-rig", "version": 1, "name": "world_items", "chain": [],
    "parts": {"holder": {"geometry": {"type": "cylinder", "unit": "m", "radius": 0.01, "length": 0.02},
                         "material": "aluminium", "at": {"value": [0, 0, 0.01], "unit": "m"}, "mount": None}},
    "magnets": {"m1": {"geometry": {"type": "cylinder", "unit": "m", "radius": 0.005, "length": 0.01},
                       "material": "NdFeB-N42", "at": {"value": [0, 0, 0.025], "unit": "m"}, "mount": None,
                       "magnetisation": [0, 0, 1]}},
}


def segments_offered(dock) -> list[str]:
    return [dock.segment.itemText(i) for i in range(dock.segment.count())]


def test_a_trajectory_of_a_rig_with_no_segment_plays_and_its_clearance_is_checked(window, qtbot, tmp_path):
    path = tmp_path / "world.rig.json"
    path.write_text(json.dumps(WORLD_ITEMS))
    driving = open_ready(window, path, qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    assert session.findings == () and segments_offered(dock) == [] and not dock.add_button.isEnabled()
    with qtbot.waitSignal(dock.clearance_checked, timeout=30000):
        qtbot.mouseClick(dock.new_button, Qt.LeftButton)
    name = dock.current()
    assert name in session.rig.trajectories
    # the holder and the magnet touch nothing that moves: no finding, and the status says so
    assert dock.clearance_findings == [] and "clear of contact" in dock.status.text()
    qtbot.mouseClick(dock.play_button, Qt.LeftButton)
    player = driving.transport.player
    assert player is not None and player.rows >= 1
    assert player.recorded.joint_names == () and player.arrays()["joint_positions"].shape == (player.rows, 0)
    undo(qtbot, window)
    qtbot.waitUntil(lambda: name not in session.rig.trajectories, timeout=3000)


def test_segments_removed_are_no_longer_offered_for_a_keyframe(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    dock = trajectory_dock(window, qtbot)
    assert segments_offered(dock) == ["arm", "motor"]
    for segment in ("motor", "arm"):
        window.assembly.select("chain", segment)
        window.assembly.act_delete.trigger()
        qtbot.waitUntil(lambda s=segment: s not in segments_offered(dock), timeout=3000)
    # the rig now breaks its rules (parts mounted on segments it lacks); its last valid build had both
    assert window.session.findings and set(window.session.document.built.segments) == {"arm", "motor"}
    assert segments_offered(dock) == [] and not dock.add_button.isEnabled()
    undo(qtbot, window)  # the arm back: offered again
    qtbot.waitUntil(lambda: segments_offered(dock) == ["arm"], timeout=3000)


def test_fit_of_a_spin_keyframe_without_its_profile_says_what_it_needs(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, trajectory_dock(window, qtbot)
    qtbot.mouseClick(dock.new_button, Qt.LeftButton)
    dock.segment.setCurrentText("motor")
    dock.interpolation.setCurrentText("spin")
    qtbot.mouseClick(dock.add_button, Qt.LeftButton)
    name = dock.current()
    keys = session.rig.trajectories[name].segments["motor"]
    # a new trajectory starts each segment where it stands; the keyframe added spins into its second
    assert [k.interpolation for k in keys] == ["linear", "spin"] and keys[1].spin is None
    before = session.rig
    qtbot.mouseClick(dock.fit_button, Qt.LeftButton)
    assert dock.status.text() == ("[trajectory.spin] keyframe 1 of motor spins without a profile: a spin "
                                  "interval needs spin {frequency, ramp, hold or turns}")
    assert session.rig is before  # nothing fitted, nothing edited


def test_a_clearance_check_that_fails_says_so_in_the_status_line(window, qtbot, demo_copy, monkeypatch):
    import mime_gui.rig.clearance_check as clearance_check

    def broken(*_args, **_kwargs):  # a fault of the check itself, which no input here makes
        raise RuntimeError("no collision model")

    monkeypatch.setattr(clearance_check, "clearance_along", broken)
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    dock = trajectory_dock(window, qtbot)
    qtbot.mouseClick(dock.new_button, Qt.LeftButton)
    # said where the findings would have come, not lost in the worker pool's log
    said = "clearance not checked: [clearance.failed] the check failed (RuntimeError: no collision model)"
    qtbot.waitUntil(lambda: dock.status.text() == said, timeout=30000)
    assert dock.clearance_findings == []


def test_a_rig_of_world_items_alone_opens_with_them_filling_the_view(window, qtbot, tmp_path):
    # its items are pushed after its (no) segments are shown: the camera and the grid are fitted on them,
    # not left at the size of an empty scene, where a 2 cm holder is a dot
    import vtk

    path = tmp_path / "world.rig.json"
    path.write_text(json.dumps(WORLD_ITEMS))
    open_ready(window, path, qtbot)
    scene = window.scene
    before = scene.render_count
    scene.request_render()  # a frame as the event loop draws it (its hooks run first)
    qtbot.waitUntil(lambda: scene.render_count > before, timeout=5000)
    # the holder's bottom (z = 0) and the magnet's top (z = 0.03), on the shared axis
    ends = []
    for point in ((0.0, 0.0, 0.0), (0.0, 0.0, 0.03)):
        c = vtk.vtkCoordinate()
        c.SetCoordinateSystemToWorld()
        c.SetValue(*point)
        ends.append(c.GetComputedDoubleDisplayValue(scene.plotter.renderer))
    height = scene.plotter.height()
    (_, low), (_, high) = ends
    assert 0 <= low < high <= height  # both in sight
    assert high - low > 0.4 * height  # and the pair fills much of the view
    assert scene._decorations.size < 0.2  # the grid and markers sized for centimetres, not metres
