"""A number typed into a form: a bare number is in the field's unit, another unit of the same dimension is
converted, anything else is no value. Expected values are the units' definitions (1 in = 25.4 mm exactly,
1° = π/180 rad, 1 g/cm³ = 1000 kg/m³)."""

from __future__ import annotations

import math

import pytest
from plain_ids import plain_id

from mime_gui.rig.typed_units import parse_typed


@pytest.mark.parametrize("text, unit, expected", [
    ("5", "", 5.0), ("  -2.5e3 ", "mm", -2500.0), (".5", "kg", 0.5), ("7.", "m", 7.0), ("+3", "deg", 3.0),
])
def test_a_bare_number_is_in_the_fields_own_unit(text, unit, expected):
    assert parse_typed(text, unit) == expected


@pytest.mark.parametrize("text, unit, expected", [
    ("5 mm", "mm", 5.0),  # the field's own unit: unchanged, not multiplied and divided back
    ("5 in", "mm", 127.0),
    ("3 cm", "m", 0.03),
    ("90 deg", "rad", math.pi / 2),
    ("180°", "rad", math.pi),
    ("1 rad", "deg", 180 / math.pi),
    ("250 g", "kg", 0.25),
    ("2 mT", "T", 0.002),
    ("1 g/cm3", "kg/m3", 1000.0),
    ("1 min", "s", 60.0),
    ("3 kg  m2", "g cm2", 3e7),  # the unit's spaces are folded
], ids=plain_id)
def test_another_unit_of_the_same_dimension_is_converted(text, unit, expected):
    assert parse_typed(text, unit) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize("text, unit", [
    ("7,5", "m"), ("5 apples", "m"), ("5 kg", "m"), ("5 in", ""), ("5 in", "furlong"), ("1e400", ""),
    ("1_000", ""), ("", "m"), ("in", "mm"), ("1.2.3", ""), ("- 5", ""),
])
def test_anything_but_one_number_and_a_unit_of_its_dimension_is_no_value(text, unit):
    assert parse_typed(text, unit) is None
