"""How far a step may be off by the rounding of large times and still reach the last sample, and what a play
of too many sub-steps is told when one sub-step per step still fits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui.errors import CodedError
from mime_gui.nodes import dynamic
from mime_gui.nodes.commands import RecordedCommands


def _by_hand(time) -> RecordedCommands:
    time = np.asarray(time, dtype=float)
    return RecordedCommands("by hand", time, ("joint_1",), np.zeros((len(time), 1)), ("",),
                            np.zeros(len(time), int))


@pytest.mark.parametrize(("ulps", "steps"), [(3.5, 11), (4.5, 10)], ids=["3.5-ulps", "4.5-ulps"])
def test_a_step_a_few_ulps_of_the_times_too_long_reaches_the_last_sample_up_to_four_ulps(ulps, steps):
    """Times 1e7 to 1e7 + 1 s (an ulp of 1.86e-9 s) at a step of 0.1 s plus ``ulps`` of their ulps: up to
    4 ulps the step counts as 0.1 s and the 10 steps reach the last sample (11 rows with the first); at 4.5
    ulps ten steps fall short of it by 10 x 4.5 ulps, more than the allowance, so only 10 rows."""
    recorded = _by_hand([1e7, 1e7 + 0.5, 1e7 + 1.0])
    ulp = math.ulp(1e7 + 1.0)
    assert ulp == 2.0**-29
    dt = 0.1 + ulps * ulp
    assert recorded.step_count(dt) == (steps, dt)


def test_a_play_where_one_sub_step_per_step_fits_is_told_to_use_at_most_one():
    """As many steps as the limit allows sub-steps, two sub-steps each: one sub-step per step fits."""
    steps = dynamic.MAX_SUBSTEPS
    with pytest.raises(CodedError) as info:
        dynamic.check_substeps(steps, 2, 0.01, "--substeps")
    assert (info.value.code, info.value.file) == ("dynamics.substeps", "--substeps")
    assert f"{steps:,} steps of 2 sub-steps each make more than the {steps:,}" in info.value.message
    message = info.value.message
    assert "use at most 1 sub-step(s) per step, or fewer steps (a larger step than 0.01 s" in message, message
