"""Session behaviour pinned by small checks: the names undo and redo report, a listener whose owner is gone
leaving the others connected, a sample with no magnetisation direction still drawn, the autosave interval's
range ends taken, and a free rotor on a mount that turns staying still in the world."""

from __future__ import annotations

import gc
import logging

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Motor
from mime_gui.rig.geometries import Sphere
from mime_gui.rig.samples import Sample
from mime_gui.rig.units import kg_m2
from mime_gui.session import AddItem, FakeRenderer, ItemRef, Session, SetValue
from mime_gui.session import recovery as recovery_module
from mime_gui.session.events import Event
from mime_gui.session.recovery import autosave_interval
from mime_gui.session.transport import Transport

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_undo_and_redo_name_the_edit_they_take_back_and_do_again():
    session = Session()
    session.open(DEMO_RIG)
    assert session.apply(SetValue("name", "bench")).name == "Set name"
    assert session.undo().name == "Undo Set name"
    assert session.redo().name == "Redo Set name"


class _Listener:
    def __init__(self, heard: list, name: str):
        self.heard, self.name = heard, name

    def hear(self, value):
        self.heard.append((self.name, value))


def test_a_listener_whose_owner_is_gone_is_dropped_and_the_live_ones_still_hear_every_emit():
    event, heard = Event("changed"), []
    kept, gone = _Listener(heard, "kept"), _Listener(heard, "gone")
    event.connect(kept.hear)
    event.connect(gone.hear)
    del gone
    gc.collect()
    event.emit(1)  # finds the dead listener and forgets it
    event.emit(2)
    assert heard == [("kept", 1), ("kept", 2)]
    assert len(event) == 1


def test_a_sample_whose_magnetisation_has_no_direction_is_drawn_with_no_moment():
    session = Session()
    session.attach_renderer(FakeRenderer())
    session.open(DEMO_RIG)
    bead = Sample((0.0, 0.0, 0.04), mount="motor.stator", geometry=Sphere(5e-4), material="NdFeB-N42",
                  magnetisation=(0.0, 0.0, 0.0))
    session.apply(AddItem("samples", "bead", bead))
    assert [f.code for f in session.findings] == ["sample.magnetisation"]
    item = session.renderer.items[ItemRef("", "sample", "bead")]
    assert item.moment is None and item.half_extents == pytest.approx((5e-4,) * 3)


@pytest.mark.parametrize("value, seconds", [("0.05", 0.05), ("86400", 86400.0)],
                         ids=["the shortest", "the longest"])
def test_an_autosave_interval_at_either_end_of_its_range_is_taken(monkeypatch, caplog, value, seconds):
    """The documented range is 0.05 s to one day (86400 s), both ends included."""
    monkeypatch.setenv("MIME_GUI_AUTOSAVE_SECONDS", value)
    with caplog.at_level(logging.WARNING):
        assert autosave_interval() == seconds
    assert [r for r in caplog.records if r.name == recovery_module.__name__] == []


def test_a_free_rotor_on_a_mount_that_starts_turning_about_its_shaft_stays_still_in_the_world():
    """No torque on the rotor about its shaft: its angular momentum in the world holds, so while its mount
    turns at 2 rad/s the shaft turns back at -2 rad/s and the rotor's world angle stays where it was."""
    session = Session()
    session.open_apparatus(Apparatus("spin", chain={
        "spinner": Motor.Kinematic(),
        "rotor": Motor.Dynamic(mount="spinner.rotor", inertia=kg_m2(1e-4, reason="datasheet"))}))
    assert session.findings == ()
    transport = Transport(session)
    session.set_drive("rotor", "torques")
    rate, dt = 2.0, 0.01
    for i in range(1, 11):
        session.set_command("spinner", [rate * dt * i])
        transport.tick(dt)
    np.testing.assert_allclose(session.joint_positions("spinner"), [0.2])
    np.testing.assert_allclose(session.joint_velocities("rotor"), [-rate], rtol=1e-9)
    # the rotor's world angle: the mount's angle plus the shaft's, still within the first step's lag
    world = session.joint_positions("spinner")[0] + session.joint_positions("rotor")[0]
    assert abs(world) <= rate * dt
