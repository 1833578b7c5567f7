"""The words of the field's refusals: each names the probe it refuses and says how to write one."""

from __future__ import annotations

import pytest
from field_helpers import demo

from mime_gui.field import FieldError, probe_points
from mime_gui.rig.probes import Probe


@pytest.mark.parametrize("given", [(1.0, 2.0), "abc", 5], ids=["two-numbers", "text", "one-number"])
def test_a_probe_that_is_not_three_numbers_is_refused_naming_it_and_how_to_give_one(given):
    built = demo().build()
    with pytest.raises(FieldError) as info:
        probe_points(built, {"tip": given})
    assert (info.value.code, info.value.file) == ("field.probe", "probes.tip")
    assert "give a probe as three numbers in metres" in info.value.message
    assert "at must be 3 numbers" in info.value.message


def test_a_probe_on_a_frame_the_rig_lacks_is_refused_naming_the_frame_and_how_to_mount_it():
    built = demo().build()
    with pytest.raises(FieldError) as info:
        probe_points(built, {"tip": Probe((0.0, 0.0, 0.0), mount="arm.no_such_frame")})
    assert (info.value.code, info.value.file) == ("field.probe", "probes.tip.mount")
    assert "'arm.no_such_frame' is not a frame of the rig" in info.value.message
    assert "'<segment>.<frame>'" in info.value.message and "leave it in the world" in info.value.message
