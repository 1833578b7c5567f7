"""Session contracts pinned against mutation survivors:

* the mass table lists every link of a description that has mass, also those that come after a grafted
  part's link (depth first, a part grafted on one branch comes before the next branch);
* a rig without magnets has no field to draw, and says so;
* switching a segment of a lab's registered kind to Arm/Motor Kinematic/Dynamic is refused at its ``kind``,
  saying that such a segment switches to nothing.
"""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui.rig import Apparatus, Arm, Box, LabSegment, Part
from mime_gui.session import Session, SetKind
from mime_gui.session.edits import EditError
from mime_gui.session.items import field_source
from mime_gui.session.mass_properties import mass_table

_INERTIA = '<inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/>'
_LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'
# A palm with two fingers, finger_a written first: depth first, a part on finger_a is listed before finger_b.
FORK = f"""<robot name="fork">
  <link name="palm"><inertial><mass value="1"/>{_INERTIA}</inertial></link>
  <link name="finger_a"><inertial><origin xyz="0 0 0.05"/><mass value="0.25"/>{_INERTIA}</inertial></link>
  <link name="finger_b"><inertial><origin xyz="0 0 0.05"/><mass value="0.5"/>{_INERTIA}</inertial></link>
  <joint name="a" type="revolute"><parent link="palm"/><child link="finger_a"/><origin xyz="0.1 0 0"/>
    <axis xyz="0 0 1"/>{_LIMIT}</joint>
  <joint name="b" type="revolute"><parent link="palm"/><child link="finger_b"/><origin xyz="-0.1 0 0"/>
    <axis xyz="0 0 1"/>{_LIMIT}</joint>
</robot>"""


def _fork(tmp_path, **items) -> Apparatus:
    (tmp_path / "fork.urdf").write_text(FORK)
    return Apparatus("fork", chain={"fork": Arm.Kinematic(description=str(tmp_path / "fork.urdf"))},
                     base=tmp_path, **items)


def test_the_mass_table_lists_the_links_after_a_grafted_part(tmp_path):
    clamp = Part(Box((0.01, 0.01, 0.01)), material="aluminium", mount="fork.finger_a", at=(0.0, 0.0, 0.2))
    session = Session()
    doc = session.open_apparatus(_fork(tmp_path, parts={"clamp": clamp}))
    assert doc.findings == ()
    # the grafted part's link sits between the fingers: the table must not stop at it
    assert doc.segments["fork"].tree.link_order() == ["palm", "finger_a", "part:clamp", "finger_b"]
    table = mass_table(session)
    links = [(r.name, r.mass) for r in table.rows if r.kind == "link"]
    assert links == [("palm", 1.0), ("finger_a", 0.25), ("finger_b", 0.5)]
    (finger_b,) = [r for r in table.rows if r.name == "finger_b"]
    np.testing.assert_allclose(finger_b.com, [-0.1, 0.0, 0.05], rtol=0, atol=1e-15)  # at q = 0
    assert table.total.own == 1.75
    (clamp_row,) = [r for r in table.rows if r.kind == "part"]
    assert clamp_row.mass == pytest.approx(2700.0 * 1e-6, rel=1e-12)  # aluminium, 1 cm³


def test_a_rig_without_magnets_has_no_field_and_says_so(tmp_path):
    session = Session()
    doc = session.open_apparatus(_fork(tmp_path))
    assert doc.findings == () and doc.built is not None  # a sound rig: only the magnets are missing
    source = field_source(doc)
    assert (source.built, source.why) == (None, "the rig has no magnets")


def test_a_segment_of_a_lab_kind_switches_to_nothing():
    rig = Apparatus("lab", chain={"stage": LabSegment(kind="Stage")})
    with pytest.raises(EditError) as err:
        SetKind("stage", "Arm.Dynamic").apply(rig)
    assert (err.value.code, err.value.where, err.value.message) == (
        "edit.value", "chain.stage.kind", "a Stage switches to nothing, not 'Arm.Dynamic'")
