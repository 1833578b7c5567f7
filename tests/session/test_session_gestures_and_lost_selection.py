"""The session's own doors not taken elsewhere: a rig built in Python reloaded, a gesture's edits as one undo
step between two of their own, a selection an edit removes dropped from the view and announced after the
edit, and each joint's own inertia of a bench motor by hand."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Cylinder, Motor, Part, kg, kg_m2, load
from mime_gui.session import FakeRenderer, ItemRef, RemoveItem, Session, SetValue

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
SERVO = "chain.arm.servo_time_constant"


def test_a_rig_built_in_python_reloads_as_itself_keeping_its_positions():
    session = Session()
    first = session.open_apparatus(load(DEMO_RIG))
    session.set_joint_positions("arm", {"joint_2": 0.4})
    shown = []
    session.document_changed.connect(shown.append)
    again = session.reload()
    assert again is not first and session.document is again and shown == [again]
    assert again.path == "" and list(again.segments) == ["arm", "motor"]
    assert session.joint_positions("arm")[1] == pytest.approx(0.4)


def test_a_gestures_edits_are_one_undo_step_between_the_edits_before_and_after_it():
    session = Session()
    session.open(DEMO_RIG)
    original = session.rig.chain["arm"].servo_time_constant
    session.apply(SetValue(SERVO, 0.11))
    session.begin_gesture()  # the edit before stays a step of its own, though of the same field
    session.apply(SetValue(SERVO, 0.12))
    session.apply(SetValue(SERVO, 0.13))
    session.end_gesture()  # and the edit after starts another
    session.apply(SetValue(SERVO, 0.14))
    undone = []
    while session.can_undo:
        session.undo()
        undone.append(session.rig.chain["arm"].servo_time_constant)
    assert undone == [0.13, 0.11, original]


def _holder_selected() -> tuple[Session, FakeRenderer, ItemRef]:
    """The demo open in a session with a view, its holder part selected."""
    session = Session()
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.open(DEMO_RIG)
    holder = ItemRef("", "part", "holder")
    session.select(holder)
    return session, renderer, holder


def test_an_edit_removing_the_selection_clears_the_highlight_and_announces_it_after_the_edit():
    session, renderer, holder = _holder_selected()
    assert renderer.highlighted == holder
    events = []
    session.rig_changed.connect(lambda change: events.append(("rig_changed", change.name)))
    session.selection_changed.connect(lambda item: events.append(("selection_changed", item)))
    renderer.calls.clear()
    session.apply(RemoveItem("parts", "holder"))
    assert session.selection is None and renderer.highlighted is None
    assert renderer.calls.count("highlight") == 1
    assert [e[0] for e in events] == ["rig_changed", "selection_changed"] and events[1][1] is None
    session.undo()  # the part is back; the selection is not
    assert session.selection is None and renderer.highlighted is None


def test_an_edit_keeping_the_selection_leaves_the_highlight_and_announces_no_selection():
    session, renderer, holder = _holder_selected()
    selections = []
    session.selection_changed.connect(selections.append)
    renderer.calls.clear()
    session.apply(SetValue(SERVO, 0.2))
    assert session.selection == holder and renderer.highlighted == holder
    assert "highlight" not in renderer.calls and selections == []


def test_each_joint_s_own_inertia_through_the_session_is_the_rotor_s_and_the_weight_s(tmp_path):
    mass, radius, length, offset, rotor = 0.2, 0.01, 0.02, 0.03, 2e-5
    weight = Part(Cylinder(radius=radius, length=length), mass=kg(mass, reason="weighed"),
                  at=(0.0, offset, 0.0), mount="spin.rotor")
    rig = Apparatus("bench", chain={"spin": Motor.Dynamic(axis=(1.0, 0.0, 0.0),
                                                          inertia=kg_m2(rotor, reason="catalogue"))},
                    parts={"weight": weight})
    session = Session()
    session.open_apparatus(rig)
    # the rotor, the cylinder about a diameter through its centre, and the parallel axes' m d²
    by_hand = rotor + mass * (3 * radius ** 2 + length ** 2) / 12 + mass * offset ** 2
    np.testing.assert_allclose(session.joint_inertias("spin"), [by_hand], rtol=1e-12)
