"""The warning line of a limit excess: the limit it exceeds is followed by why only for the kinds that have a
why (the magnets' pull), and straight by the worst step for the others."""

from __future__ import annotations

import pytest

from mime_gui.rig.limits import EFFORT, MAGNETS, VELOCITY, Excess


@pytest.mark.parametrize(("code", "unit", "after_the_limit"), [
    (EFFORT, "N·m", "exceeds the effort limit 10 N·m; worst at t=0.4 s: |τ| = 12 N·m"),
    (VELOCITY, "rad/s", "exceeds the velocity limit 10 rad/s; worst at t=0.4 s: |v| = 12 rad/s"),
    (MAGNETS, "N·m", "exceeds the effort limit 10 N·m with the magnets' pull on each other (within it "
                     "without); worst at t=0.4 s"),
], ids=["effort", "velocity", "magnets"])
def test_the_warning_says_why_only_for_an_excess_that_has_a_why(code, unit, after_the_limit):
    # over the limit of 10 from t=0.3 s for two steps, worst (12) at t=0.4 s
    excess = Excess(code, "arm.joint_2", step=2, time=0.3, peak_step=3, peak_time=0.4, value=12.0, limit=10.0,
                    margin=-2.0, steps=2, unit=unit)
    line = str(excess)
    assert line.startswith(f"warning[{code}] arm.joint_2: from t=0.3 s (step 2, 2 steps) ")
    assert after_the_limit in line and line.endswith("margin -2 " + unit)
    assert "None" not in line
