"""The mass table row by row (mime_gui.session.mass_properties):

- every link of a description that has a mass is listed, also after a massless link (a URDF's bare root);
- a part's mass is read with the rig's folder as ``base``: a mesh named relative to the rig file weighs its
  volume times its density whatever the working folder is;
- a part fixed in the world is on no segment and no link, placed at its ``at`` and carried by nothing;
- a magnet is listed as kind ``magnet``, a part as kind ``part``;
- a part whose mass cannot be known says so: ``not known: see the findings``;
- a chain entry of no known segment class (a rules finding, not drawn) does not stop the table, and is never
  taken for a segment that carries anything.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
import trimesh

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Mesh, Part, PermanentMagnet
from mime_gui.session import AddItem, Session
from mime_gui.session.mass_properties import mass_table

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
ALUMINIUM = 2700.0  # kg/m³, the material table's aluminium 6061-T6

# a bench whose root link is a bare 'world' (no inertial), as many URDFs have, then two links with mass
BENCH_URDF = """<?xml version="1.0"?>
<robot name="bench">
  <link name="world"/>
  <link name="column">
    <inertial><origin xyz="0 0 0.1"/><mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="beam">
    <inertial><origin xyz="0.3 0 0"/><mass value="1.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <joint name="fix" type="fixed">
    <parent link="world"/><child link="column"/><origin xyz="0 0 0.5"/>
  </joint>
  <joint name="swing" type="revolute">
    <parent link="column"/><child link="beam"/><origin xyz="0 0 0.2"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/>
  </joint>
</robot>
"""


def _bench(tmp_path, **solids) -> Session:
    """The bench opened from its own folder, the working folder elsewhere (so only ``base`` finds files)."""
    folder = tmp_path / "rig"
    folder.mkdir()
    (folder / "bench.urdf").write_text(BENCH_URDF)
    # sides exact in the STL's float32: 1/64 m³, centred on its origin
    trimesh.creation.box((0.125, 0.25, 0.5)).export(folder / "block.stl")
    rig = Apparatus("bench", chain={"bench": Arm.Dynamic(description="bench.urdf")}, base=folder, **solids)
    session = Session()
    session.open_apparatus(rig)
    return session


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    away = tmp_path / "elsewhere"
    away.mkdir()
    monkeypatch.chdir(away)


def test_the_links_after_a_massless_root_are_each_listed_with_their_mass_and_place(tmp_path, elsewhere):
    session = _bench(tmp_path)
    assert session.findings == ()
    table = mass_table(session)
    rows = table.rows_of("bench")
    assert [(r.link, r.kind, r.name, r.mass, r.source) for r in rows] == [
        ("column", "link", "column", 2.0, "the description's inertial"),
        ("beam", "link", "beam", 1.0, "the description's inertial")]
    # at zero joint positions: the column's centre 0.5 + 0.1 m up, the beam's 0.3 m out at 0.5 + 0.2 m
    np.testing.assert_allclose(rows[0].com, [0.0, 0.0, 0.6], rtol=0, atol=1e-15)
    np.testing.assert_allclose(rows[1].com, [0.3, 0.0, 0.7], rtol=0, atol=1e-15)
    (bench,) = table.segments
    assert (bench.name, bench.own, bench.parts) == ("bench", 3.0, 0.0)
    np.testing.assert_allclose(bench.com, [0.1, 0.0, 0.6 * 2 / 3 + 0.7 / 3], rtol=0, atol=1e-15)


def test_a_mesh_part_fixed_in_the_world_is_weighed_from_the_rig_folder_and_placed_at_its_at(tmp_path,
                                                                                           elsewhere):
    block = Part(Mesh("block.stl"), material="aluminium", at=(1.0, 2.0, 3.0))
    session = _bench(tmp_path, parts={"block": block})
    assert session.findings == ()
    table = mass_table(session)
    (row,) = [r for r in table.rows if r.name == "block"]
    # in the world: no segment, no link (the dock then names no mount), and nothing carries it
    assert (row.segment, row.link, row.kind, row.carried) == ("", "", "part", False)
    np.testing.assert_array_equal(row.com, [1.0, 2.0, 3.0])
    # the file is read beside the rig, not in the working folder
    assert row.mass == pytest.approx(ALUMINIUM / 64, rel=1e-12)
    assert row.source.startswith("material: aluminium (6061-T6) 2700 kg/m³")
    assert table.total.parts == pytest.approx(row.mass, rel=1e-12)
    assert table.total.own == 3.0


def test_a_part_of_unknown_material_is_listed_unweighed_and_points_to_the_findings(tmp_path, elsewhere):
    odd = Part(Box((0.1, 0.1, 0.1)), material="unobtainium", at=(0.0, 0.0, 1.0))
    session = _bench(tmp_path, parts={"odd": odd})
    assert [f.code for f in session.findings] == ["part.material"]
    table = mass_table(session)
    (row,) = [r for r in table.rows if r.name == "odd"]
    assert (row.mass, row.source) == (None, "not known: see the findings")
    assert table.total.parts == 0.0  # weighs nothing in the totals


def test_a_magnet_is_listed_as_a_magnet_and_a_part_as_a_part(tmp_path, elsewhere):
    magnet = PermanentMagnet(Box((0.01, 0.01, 0.01)), material="NdFeB-N42", at=(0.0, 0.0, 1.0))
    plate = Part(Box((0.1, 0.1, 0.01)), material="aluminium", at=(0.0, 0.0, 2.0))
    session = _bench(tmp_path, parts={"plate": plate}, magnets={"pole": magnet})
    rows = [r for r in mass_table(session).rows if r.kind != "link"]
    assert [(r.name, r.kind) for r in rows] == [("plate", "part"), ("pole", "magnet")]
    # the demo's own: its holder and its magnet on the motor's rotor
    demo = Session()
    demo.open(DEMO_RIG)
    assert [(r.name, r.kind) for r in mass_table(demo).rows_of("motor")] == [("holder", "part"),
                                                                             ("m1", "magnet")]


@dataclass
class _Stray:
    """Looks like a segment to the placement rules but is of no known class: no ``dynamic``, no tree."""

    at: tuple = (0.0, 0.0, 0.0)
    orientation: tuple = (1.0, 0.0, 0.0, 0.0)
    mount: object = None
    servo_time_constant: float = 0.0
    field_tolerance: object = None


@pytest.mark.parametrize("stray", ["stray", ""], ids=["named", "empty_name"])
def test_a_chain_entry_of_no_known_class_leaves_the_table_whole_and_carries_nothing(stray):
    """Added by an edit, it is a finding and is not drawn; the table still lists every body, and a part fixed
    in the world stays carried by nothing, even when the stray entry has the empty name (the world's)."""
    session = Session()
    session.open(DEMO_RIG)
    session.apply(AddItem("parts", "plate", Part(Box((0.1, 0.1, 0.01)), material="aluminium",
                                                 at=(0.3, 0.0, 0.0))))
    before = [(r.segment, r.name, r.carried) for r in mass_table(session).rows]
    session.apply(AddItem("chain", stray, _Stray(mount="motor.rotor")))
    assert "chain.description" in {f.code for f in session.findings}
    assert list(session.segments) == ["arm", "motor"]
    table = mass_table(session)
    assert [(r.segment, r.name, r.carried) for r in table.rows] == before
    (plate,) = [r for r in table.rows if r.name == "plate"]
    assert (plate.segment, plate.carried) == ("", False)
