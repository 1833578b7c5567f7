"""Rig contracts pinned down: reaching a target past a joint's upper limit leaves that joint on it and names
it among the joints at their upper limit, and a sample shaped as a mesh is refused with the hint listing
the solid kinds and naming the declared moment's spelling."""

from __future__ import annotations

import numpy as np
import pytest
from oracle import demo_poses

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Sample
from mime_gui.rig.build import build
from mime_gui.rig.geometries import Mesh
from mime_gui.rig.rigfile import load
from mime_gui.rig.sample_rules import sample_moment

MESH_HINT = (
    "a sample's shape is one of the solid kinds (box, cylinder, ring, sphere, arc); for a mesh, declare its "
    "moment a_m2(value, reason=...)"
)


@pytest.fixture(scope="module")
def demo():
    built = build(load(RESOURCES / "demo" / "demo.rig.json"))
    return built, built.chain_node()


def test_a_target_past_a_joint_s_upper_limit_leaves_that_joint_on_it_and_named(demo):
    built, chain = demo
    upper = built.segments["arm"].articulation.upper[1]
    assert upper == 1.8  # joint_2's, in the demo's arm.urdf
    arm = np.array([0.3, 1.8, -1.0, 0.2, 0.5, 0.1])
    beyond = arm.copy()
    beyond[1] = upper + 0.4
    target = demo_poses(beyond, 0.4)["rotor"]  # Pinocchio's pose with joint_2 0.4 rad past its limit
    found = chain.reach(chain.initial_state({"arm": arm, "motor": [0.4]}), "motor", "rotor", target)
    assert not found.result.converged
    assert found.positions["arm"][1] == upper
    # the caller (the app's posing) reads which joints stopped it, named segment.joint
    assert found.result.at_upper == ("arm.joint_2",) and found.result.at_lower == ()


def test_a_sample_shaped_as_a_mesh_is_refused_with_the_solid_kinds_and_the_moment_s_spelling(tmp_path):
    bead = Sample(geometry=Mesh(str(tmp_path / "bead.stl")), material="NdFeB-N42")
    assert sample_moment(bead) == (None, None, [("sample.geometry", "geometry", MESH_HINT)])
    # the rig's rules report it where the sample's geometry is, with the same hint
    found = [f for f in Apparatus("s", samples={"bead": bead}).validate() if f.code == "sample.geometry"]
    assert [(f.where, f.message) for f in found] == [("samples.bead.geometry", MESH_HINT)]
