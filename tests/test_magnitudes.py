"""The bound check of the magnitudes and what the one parser says when it refuses grouped digits."""

from __future__ import annotations

import math

import pytest

from mime_gui.magnitudes import MAX_LENGTH, parse_float, parse_int, within


@pytest.mark.parametrize("value, bound, inside", [
    (-2.0, 2.0, True), (2.0, 2.0, True), (0.0, 0.0, True), (-MAX_LENGTH, MAX_LENGTH, True),
    (math.nextafter(-2.0, -math.inf), 2.0, False), (math.nextafter(2.0, math.inf), 2.0, False),
    (math.inf, math.inf, False), (-math.inf, math.inf, False), (math.nan, 1.0, False),
], ids=["lower-end", "upper-end", "zero-bound", "max-length", "below", "above", "inf", "minus-inf", "nan"])
def test_within_holds_both_ends_of_the_bound_and_nothing_non_finite(value, bound, inside):
    assert within(value, bound) is inside


@pytest.mark.parametrize("parse", [parse_float, parse_int], ids=["float", "int"])
def test_grouped_digits_are_refused_with_the_text_and_the_reason(parse):
    with pytest.raises(ValueError) as err:
        parse("1_000")
    assert str(err.value) == "could not convert string to a number: '1_000' (digits grouped with '_')"
