"""Probes in the 3D view: a marker at each probe, and an arrow along the field there that turns as the rotor
turns (the same B as the headless field at those poses); hidden with the parts layer and while the rig does
not build."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest
from oracle import demo_B_now, demo_poses
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready
from mime_gui.app.scene.probe_marks import CEILING, FLOOR, arrow_length
from mime_gui.rig import Probe
from mime_gui.session import AddItem, ItemRef, SetValue

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def demo_window(window, tmp_path):
    folder = tmp_path / "demo"
    shutil.copytree(RESOURCES / "demo", folder)
    assert window.open_file(str(folder / "demo.rig.json"))
    wait_until_ready(window)
    window.session.apply(SetValue("magnets.m1.magnetisation", (1.0, 0.0, 0.0)))  # diametric
    window.session.apply(AddItem("probes", "axis", Probe((0.0, 0.0, 0.05), mount="motor.stator")))
    QApplication.processEvents()
    return window


def _tip_direction(actor) -> np.ndarray:
    X = np.asarray(actor.user_matrix)
    d = X[:3, :3] @ np.array([1.0, 0.0, 0.0])
    return d / np.linalg.norm(d)


def test_a_probe_has_a_marker_and_an_arrow_along_the_field_that_turns_with_the_rotor(demo_window):
    session = demo_window.session
    marks = demo_window.assembly.probe_marks
    marker, arrow = marks.markers["axis"], marks.arrows["axis"]
    stator = demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])["stator"]
    assert marker.GetVisibility() and arrow.GetVisibility()
    where = stator[:3, :3] @ [0, 0, 0.05] + stator[:3, 3]
    np.testing.assert_allclose(np.asarray(marker.user_matrix)[:3, 3], where, atol=1e-9)
    before = _tip_direction(arrow)
    expected = demo_B_now(session, session.rig.probes, (1.0, 0.0, 0.0))[0]
    np.testing.assert_allclose(before, expected / np.linalg.norm(expected), atol=1e-9)
    session.set_joint_positions("motor", [math.pi / 2])  # a quarter turn of the rotor
    QApplication.processEvents()
    after = _tip_direction(arrow)
    axis = stator[:3, 2]
    assert abs(before @ after) < 1e-6  # a quarter turn apart
    assert np.cross(before, after) @ axis == pytest.approx(1.0, abs=1e-6)  # turned with the rotor


def test_the_marks_hide_with_the_parts_layer_and_the_arrow_while_the_rig_does_not_build(demo_window):
    session = demo_window.session
    marks = demo_window.assembly.probe_marks
    session.set_layer_visible("parts", False)
    QApplication.processEvents()
    assert not marks.markers["axis"].GetVisibility() and not marks.arrows["axis"].GetVisibility()
    session.set_layer_visible("parts", True)
    session.apply(SetValue("magnets.m1.material", "aluminium"))  # no remanence: a finding
    QApplication.processEvents()
    assert marks.markers["axis"].GetVisibility() and not marks.arrows["axis"].GetVisibility()
    session.undo()
    QApplication.processEvents()
    assert marks.arrows["axis"].GetVisibility()


def test_the_arrow_length_grows_with_log_b_between_its_floor_and_ceiling():
    assert arrow_length(FLOOR / 10, 1.0) == arrow_length(FLOOR, 1.0) == pytest.approx(0.1)
    assert arrow_length(CEILING * 10, 1.0) == arrow_length(CEILING, 1.0) == pytest.approx(1.0)
    assert arrow_length(1e-3, 1.0) == pytest.approx(0.55)


def test_the_arrow_follows_a_magnet_edit_and_a_part_added_beside_keeps_it_without_computing_again(
        demo_window, monkeypatch):
    """The marks' field is computed again when a magnet changes (its magnetisation turned: the arrow turns
    with it, to the headless field's direction), not when a part that is no magnet is added or the selection
    moves (the same magnets and probes at the same poses)."""
    from mime_gui.field import live

    session = demo_window.session
    arrow = demo_window.assembly.probe_marks.arrows["axis"]
    session.apply(SetValue("magnets.m1.magnetisation", (0.0, 1.0, 0.0)))
    QApplication.processEvents()
    expected = demo_B_now(session, session.rig.probes, (0.0, 1.0, 0.0))[0]
    np.testing.assert_allclose(_tip_direction(arrow), expected / np.linalg.norm(expected), atol=1e-9)
    calls = []
    real = live.field_along
    monkeypatch.setattr(live, "field_along", lambda *a, **k: calls.append(1) or real(*a, **k))
    session.apply(AddItem("parts", "plate", session.rig.parts["holder"]))
    session.select(ItemRef("", "part", "plate"))
    QApplication.processEvents()
    assert calls == []  # nothing the field depends on changed
    np.testing.assert_allclose(_tip_direction(arrow), expected / np.linalg.norm(expected), atol=1e-9)
    session.set_joint_positions("motor", [0.3])  # the rotor turned: computed again
    QApplication.processEvents()
    assert len(calls) == 1
