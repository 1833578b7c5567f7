"""The clock advances the Session by the real elapsed time: a commanded joint lags and settles."""

from __future__ import annotations

import math

import pytest

from mime_gui import RESOURCES
from mime_gui.app.clock import MAX_STEP, Clock
from mime_gui.session import Session


def test_the_clock_steps_by_the_elapsed_time_and_caps_a_stall(qtbot):
    session = Session()
    session.open(RESOURCES / "demo" / "demo.rig.json")
    t = [100.0]
    clock = Clock(session, now=lambda: t[0])
    steps = []
    clock.ticked.connect(steps.append)
    j1 = session.segment("arm").articulation.joint_index("joint_1")
    start = session.joint_positions("arm")[j1]
    session.set_command("arm", {"joint_1": start + 0.4})
    clock.start()
    t[0] += 0.02
    clock._tick()
    t[0] += 5.0  # the window was stalled
    clock._tick()
    assert steps == [pytest.approx(0.02), MAX_STEP]
    tau = session.rig.chain["arm"].servo_time_constant
    expected = start + 0.4 * (1 - math.exp(-(0.02 + MAX_STEP) / tau))
    assert session.joint_positions("arm")[j1] == pytest.approx(expected, rel=1e-12)


def test_the_running_clock_moves_the_arm(qtbot):
    session = Session()
    session.open(RESOURCES / "demo" / "demo.rig.json")
    clock = Clock(session)
    j1 = session.segment("arm").articulation.joint_index("joint_1")
    target = session.joint_positions("arm")[j1] + 0.3
    session.set_command("arm", {"joint_1": target})
    clock.start()
    qtbot.waitUntil(lambda: abs(session.joint_positions("arm")[j1] - target) < 1e-3, timeout=5000)
    clock.stop()
    assert not clock.running
