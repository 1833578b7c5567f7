"""A length near the largest double (the rules refuse it, the form still shows it to be fixed) is shown in
millimetres as its value, 1e+311 mm, not as ``inf``: a user sees what the file holds and where to fix it."""

from __future__ import annotations

import pytest
from gestures import click_row
from test_assembly import field, open_ready, settle

from mime_gui.app.docks.fields import format_scaled, format_scaled_vector
from mime_gui.session import ItemRef, SetValue


@pytest.mark.parametrize("value, factor, text", [
    (1e308, 1000.0, "1e+311"), (-1.7976931348623157e308, 1000.0, "-1.79769e+311"),
    (1.5e308, 1000.0, "1.5e+311"), (0.005, 1000.0, "5"), (1e308, 1.0, "1e+308"),
    (float("inf"), 1000.0, "inf"), (float("nan"), 1000.0, "nan"),
], ids=["largest-round", "largest-double", "one-and-a-half", "small", "metres", "inf", "nan"])
def test_a_length_is_shown_in_the_form_s_unit_even_past_the_largest_double(value, factor, text):
    assert format_scaled(value, factor) == text


def test_a_vector_with_one_huge_component_shows_every_component_as_its_value():
    assert format_scaled_vector((1e308, 0.002, -0.5), 1000.0) == "1e+311, 2, -500"
    assert format_scaled_vector((0.001, 0.002, 0.0), 1000.0) == "1, 2, 0"


def test_the_holder_s_huge_length_and_place_read_as_millimetres_in_its_form(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    session.apply(SetValue("parts.holder.geometry.length", 1e308))
    session.apply(SetValue("parts.holder.at", (1e308, 0.0, 0.01)))
    settle(qtbot)
    assert {f.where for f in session.findings} >= {"parts.holder.geometry", "parts.holder.at"}
    click_row(window, ItemRef("motor", "link", "part:holder"))
    settle(qtbot)
    assert field(window, "parts.holder.geometry.length").edit.text() == "1e+311"
    assert [e.text() for e in field(window, "parts.holder.at").edits] == ["1e+311", "0", "10"]
