"""A rig contract pinned down: a sample shaped as a mesh is refused with the hint listing the solid kinds
and naming the declared moment's spelling (the reach past a joint's upper limit is in test_reach.py)."""

from __future__ import annotations

from mime_gui.rig import Apparatus, Sample
from mime_gui.rig.geometries import Mesh
from mime_gui.rig.sample_rules import sample_moment

MESH_HINT = (
    "a sample's shape is one of the solid kinds (box, cylinder, ring, sphere, arc); for a mesh, declare its "
    "moment a_m2(value, reason=...)"
)


def test_a_sample_shaped_as_a_mesh_is_refused_with_the_solid_kinds_and_the_moment_s_spelling(tmp_path):
    bead = Sample(geometry=Mesh(str(tmp_path / "bead.stl")), material="NdFeB-N42")
    assert sample_moment(bead) == (None, None, [("sample.geometry", "geometry", MESH_HINT)])
    # the rig's rules report it where the sample's geometry is, with the same hint
    found = [f for f in Apparatus("s", samples={"bead": bead}).validate() if f.code == "sample.geometry"]
    assert [(f.where, f.message) for f in found] == [("samples.bead.geometry", MESH_HINT)]
