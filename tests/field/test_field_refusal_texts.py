"""The words of the field's refusals: each names the probe it refuses and says how to write one."""

from __future__ import annotations

import pytest
from field_helpers import demo

from mime_gui.field import FieldError, probe_points


@pytest.mark.parametrize("given", [(1.0, 2.0), "abc", 5], ids=["two-numbers", "text", "one-number"])
def test_a_probe_that_is_not_three_numbers_is_refused_naming_it_and_how_to_give_one(given):
    built = demo().build()
    with pytest.raises(FieldError) as info:
        probe_points(built, {"tip": given})
    assert (info.value.code, info.value.file) == ("field.probe", "probes.tip")
    assert "give a probe as three numbers in metres" in info.value.message
    assert "at must be 3 numbers" in info.value.message
