"""What the session answers the window with, checked without it: which rig item a drawn link stands for,
each joint's own inertia and the torques that hold a torque-driven segment (against a hand computation on a
bench motor), segments kept across edits of a rig that breaks a rule, the player's count of rows shown, and
the words of a few refusals."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Cylinder, Motor, Part, kg, kg_m2, save
from mime_gui.session import Session, SessionError, SetValue
from mime_gui.session.errors import rig_error
from mime_gui.session.events import Event
from mime_gui.session.player import Player, PlayerError
from mime_gui.session.reading import file_kind
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo"
G = 9.81
# a bench motor turning about the world's x axis, a weighed cylinder on its rotor off the axis
MASS, RADIUS, LENGTH, OFFSET, ROTOR = 0.2, 0.01, 0.02, 0.03, 2e-5


def _bench(tmp_path, segment=Motor.Dynamic, **motor) -> Session:
    if segment is Motor.Dynamic:
        motor.setdefault("inertia", kg_m2(ROTOR, reason="catalogue"))
    weight = Part(Cylinder(radius=RADIUS, length=LENGTH), mass=kg(MASS, reason="weighed"),
                  at=(0.0, OFFSET, 0.0), mount="spin.rotor")
    rig = Apparatus("bench", chain={"spin": segment(axis=(1.0, 0.0, 0.0), **motor)}, parts={"weight": weight})
    session = Session()
    session.open(save(rig, tmp_path / "bench.rig.json"))
    assert session.findings == ()
    return session


def test_a_drawn_link_names_the_part_or_magnet_grafted_for_it():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    motor = session.segment("motor")
    assert motor.item_of("part:holder") == ("parts", "holder")
    assert motor.item_of("part:m1") == ("magnets", "m1")
    assert motor.item_of("rotor") is None and session.segment("arm").item_of("link_6") is None


def test_each_joint_s_own_inertia_is_the_rotor_s_and_the_weight_s_about_the_axis(tmp_path):
    session = _bench(tmp_path)
    # by hand: the rotor, the cylinder about a diameter through its centre, and the parallel axes' m d²
    by_hand = ROTOR + MASS * (3 * RADIUS ** 2 + LENGTH ** 2) / 12 + MASS * OFFSET ** 2
    np.testing.assert_allclose(session.motion.joint_inertias("spin"), [by_hand], rtol=1e-12)
    session.set_drive("spin", "torques")
    np.testing.assert_allclose(session.motion.joint_inertias("spin"), [by_hand], rtol=1e-12)


def test_a_kinematic_segment_has_no_joint_inertia(tmp_path):
    session = _bench(tmp_path, Motor.Kinematic)
    inertias = session.motion.joint_inertias("spin")
    assert inertias.shape == (1,) and np.isnan(inertias).all()


def test_the_holding_torque_of_a_weight_off_the_axis_is_its_weight_times_the_offset_and_holds_it(tmp_path):
    session = _bench(tmp_path)
    transport = Transport(session)
    session.set_drive("spin", "torques")
    holding = session.motion.holding_torques("spin")
    np.testing.assert_allclose(holding, [MASS * G * OFFSET], rtol=1e-9)  # r × F about x, by hand
    session.set_torques("spin", holding)
    for _ in range(20):
        transport.tick(0.01)
    np.testing.assert_allclose(session.joint_positions("spin"), [0.0], atol=1e-12)
    session.set_torques("spin", [0.0])  # unheld, the weight falls
    transport.tick(0.01)
    assert session.joint_positions("spin")[0] < -1e-4


def test_segments_a_rule_breaking_edit_does_not_touch_keep_their_drawing():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    session.apply(SetValue("probes.sample.mount", "motor.nowhere"))  # a finding on a probe, no part
    assert session.findings
    before = {n: session.segment(n).articulation for n in ("arm", "motor")}
    change = session.apply(SetValue("probes.sample.at", (0.0, 0.01, 0.05)))
    assert session.findings and change.changed == frozenset() and change.added == frozenset()
    assert all(session.segment(n).articulation is art for n, art in before.items())


def test_every_row_the_playhead_moves_on_by_one_is_shown_and_none_is_dropped():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    now = [50.0]
    player = Player.for_document(session.document, DEMO / "chain.csv", now=lambda: now[0])
    player.play()
    for row in range(1, 6):
        now[0] += player.dt
        assert player.update() == row
    assert (player.shown, player.dropped) == (5, 0)


def test_a_file_of_another_kind_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a rig\n")
    with pytest.raises(SessionError) as err:
        file_kind(str(path))
    assert (err.value.code, err.value.file) == ("file.kind", str(path))
    with pytest.raises(SessionError) as err:
        Session().open(path)
    assert (err.value.code, err.value.file) == ("file.kind", str(path))


@pytest.mark.parametrize("error", [ValueError("the rig holds a bad value"), OSError(5, "Input/output error")],
                         ids=["value", "os"])
def test_a_refusal_without_a_diagnostic_is_coded_on_the_file_at_line_0(error):
    coded = rig_error(error, "lab.rig.json")
    assert (coded.code, coded.file, coded.line) == ("rig.invalid", "lab.rig.json", 0)
    assert coded.message == str(error)


def test_disconnecting_what_was_never_connected_names_the_event():
    def listener():
        pass

    with pytest.raises(ValueError, match=r"is not connected to poses_changed$"):
        Event("poses_changed").disconnect(listener)
    with pytest.raises(ValueError, match=r"is not connected to this event$"):
        Event().disconnect(listener)


def test_a_recording_refused_while_driving_by_torques_says_where_to_switch_back():
    session = Session()
    session.open(DEMO / "demo.rig.json")
    transport = Transport(session)
    session.set_drive("arm", "torques")
    with pytest.raises(PlayerError) as err:
        transport.start_recording()
    # the words of the Joint sliders dock and its Drive choice, as the window shows them
    assert err.value.message == ("arm is driven by torques, which a recording does not hold; switch back to "
                                 "positions (Joint sliders ▸ Drive) to record")
