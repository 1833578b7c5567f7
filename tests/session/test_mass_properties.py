"""The mass table's edges: nothing open gives an empty table, and a part on a frame the rig lacks (a mount
being fixed) is listed on no segment, weighed but placed nowhere."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Box, Part
from mime_gui.session import AddItem, Session
from mime_gui.session.mass_properties import document_mass_table, mass_table

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
ALUMINIUM = 2700.0  # kg/m³, the material table's aluminium 6061-T6


def test_nothing_open_has_an_empty_mass_table():
    for table in (document_mass_table(None), mass_table(Session())):
        assert table.rows == [] and table.segments == []
        assert (table.total.own, table.total.parts, table.total.com) == (0.0, 0.0, None)


def test_a_part_on_a_frame_the_rig_lacks_is_weighed_on_no_segment_and_placed_nowhere():
    session = Session()
    session.open(DEMO_RIG)
    before = mass_table(session)
    session.apply(AddItem("parts", "lost", Part(Box((0.02, 0.04, 0.06)), material="aluminium",
                                                mount="arm.no_such_frame")))
    table = mass_table(session)
    (row,) = [r for r in table.rows if r.name == "lost"]
    assert (row.segment, row.link, row.kind, row.com, row.carried) == ("", "arm.no_such_frame", "part", None,
                                                                         False)
    assert row.mass == pytest.approx(ALUMINIUM * 0.02 * 0.04 * 0.06, rel=1e-12)
    assert row.source.startswith("material: aluminium")
    assert table.total.parts == pytest.approx(before.total.parts + row.mass, rel=1e-12)
    np.testing.assert_allclose(table.total.com, before.total.com, rtol=0, atol=1e-15)  # placed nowhere
    assert [t.name for t in table.segments] == ["arm", "motor"]
    assert [r.name for r in table.rows_of("arm")] == [r.name for r in before.rows_of("arm")]  # on none


def test_a_segment_lighter_than_a_kilogram_has_its_centre_of_mass_between_its_bodies():
    """The demo's motor carries only a 17 g aluminium holder (centroid 10 mm up the rotor) and a 6 g
    NdFeB magnet (25 mm up): its centre of mass is their mass-weighted mean on the rotor's axis."""
    session = Session()
    session.open(DEMO_RIG)
    holder = ALUMINIUM * np.pi * 0.01 ** 2 * 0.02
    magnet = 7500.0 * np.pi * 0.005 ** 2 * 0.01  # kg/m³ of NdFeB-N42 in the material table
    height = (holder * 0.01 + magnet * 0.025) / (holder + magnet)
    rotor = session.frame_world_pose("motor", "rotor")
    (motor,) = [t for t in mass_table(session).segments if t.name == "motor"]
    assert motor.parts == pytest.approx(holder + magnet, rel=1e-12) and motor.mass < 1.0
    expected = rotor[:3, :3] @ [0.0, 0.0, height] + rotor[:3, 3]
    np.testing.assert_allclose(motor.com, expected, rtol=0, atol=1e-12)
