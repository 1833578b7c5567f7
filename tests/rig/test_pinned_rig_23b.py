"""Contracts pinned here:

- the magnets' pull at one instant (``PullModel.at``, what forward dynamics ask at each sub-step) is the row
  of the pull along a trajectory: a pair whose centres meet adds nothing, and the pairs after it still pull;
- a part's or magnet's centre end names its kind ("magnet m1"); a centre of a collection the table of kinds
  does not know is named by the collection itself (its label, and the refusal when the rig has no such item),
  never "None";
- the MJCF file's mesh assets carry a ``scale`` only when the mesh is scaled: a mesh at its own size is
  written without one.
"""

from __future__ import annotations

import numpy as np
import pytest
from magnet_rigs import ball, compass_rig
from rig_helpers import DEMO_RIG

from mime_gui.rig import load
from mime_gui.rig.magnet_pull import PullModel
from mime_gui.rig.measures import CentreEnd, MeasureError, anchor
from mime_gui.rig.mjcf_export import to_mjcf


# -- the pull at one instant when a pair's centres meet ----------------------------------------------------
def test_the_pull_at_one_instant_skips_a_pair_at_one_point_and_still_adds_the_pairs_after_it():
    rig = compass_rig()
    rig.magnets["far"] = ball((0.1, 0.0, 0.0), None, (0.0, 0.0, 1.0))  # a second ball in the world
    model = PullModel(rig.build())
    # the rotor's ball pairs with each world ball (the two world balls are one body): the first pair is
    # the one whose centres meet here
    assert model.names == ("m1", "world", "far") and model.pairs == ((0, 1), (0, 2))
    X = np.tile(np.eye(4), (3, 1, 1))
    X[2, :3, 3] = (0.03, 0.0, 0.0)  # "m1" and "world" at the origin, "far" 3 cm along x
    force, torque = model.at(X)
    row = model(X[None])
    np.testing.assert_allclose(force, row.force[0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(torque, row.torque[0], rtol=1e-12, atol=0)
    # the meeting pair adds nothing to "world"; "far" feels the rotor's ball, equal and opposite
    assert np.array_equal(force[1], np.zeros(3)) and np.array_equal(torque[1], np.zeros(3))
    assert np.abs(force[2]).max() > 0
    np.testing.assert_allclose(force[0], -force[2], rtol=1e-12, atol=0)


# -- the names of centre ends ------------------------------------------------------------------------------
def test_a_centre_end_is_labelled_by_its_kind_and_an_unknown_collection_by_its_own_name():
    assert CentreEnd("magnets", "m1").label() == "magnet m1"
    assert CentreEnd("parts", "holder").label() == "part holder"
    # a collection the table does not know (measure() refuses it, the dataclass does not) reads as itself
    assert CentreEnd("zones", "chair").label() == "zones chair"


def test_the_refusal_of_a_missing_centre_of_an_unknown_collection_names_the_collection():
    rig = load(DEMO_RIG)
    with pytest.raises(MeasureError) as refused:
        anchor(CentreEnd("zones", "chair"), rig, {}, "measure.a")
    assert (refused.value.code, refused.value.file) == ("measure.end", "measure.a")
    assert refused.value.message.startswith("the rig has no zones 'chair' (renamed or removed)")
    with pytest.raises(MeasureError) as refused:
        anchor(CentreEnd("magnets", "gone"), rig, {})
    assert refused.value.message.startswith("the rig has no magnet 'gone' (renamed or removed)")


# -- the scale of mesh assets in MJCF ----------------------------------------------------------------------
def test_the_mjcf_mesh_assets_of_meshes_at_their_own_size_carry_no_scale(tmp_path):
    # the demo arm's base mesh has no scale and its wrist mesh scale="1 1 1": both are at their own size
    text = to_mjcf(load(DEMO_RIG), tmp_path / "rig.xml")
    assert [line.strip() for line in text.splitlines() if line.strip().startswith("<mesh ")] == [
        '<mesh name="mesh1" file="rig_meshes/base.stl"/>',
        '<mesh name="mesh2" file="rig_meshes/wrist.obj"/>',
    ]
