"""A rotating target on an arm whose description names a joint ``shaft``: the planner spins that joint when a
magnet rides on a link it moves, however far down the chain, and not when the magnet rides on a branch beside
it (a link listed after the shaft's, moved by another joint)."""

from __future__ import annotations

import pytest
from field_helpers import magnet

from mime_gui.field.errors import FieldError
from mime_gui.field.planner import plan
from mime_gui.rig import Apparatus, Arm, Probe, Sphere
from mime_gui.rig.targets import FieldTarget

# base -j1- l1 -shaft- l2 -j3- l3 -j4- l4, and a branch on l1: -side- l5 (listed last)
SHAFT_ARM_URDF = """<robot name="spindle">
  <link name="base"/><link name="l1"/><link name="l2"/><link name="l3"/><link name="l4"/><link name="l5"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="shaft" type="continuous"><parent link="l1"/><child link="l2"/><origin xyz="0 0 0.05"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/><origin xyz="0.02 0 0"/>
    <axis xyz="0 1 0"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/></joint>
  <joint name="j4" type="revolute"><parent link="l3"/><child link="l4"/><origin xyz="0.02 0 0"/>
    <axis xyz="1 0 0"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/></joint>
  <joint name="side" type="revolute"><parent link="l1"/><child link="l5"/><origin xyz="0 0.05 0"/>
    <axis xyz="1 0 0"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/></joint>
</robot>
"""

SPIN = FieldTarget("probes.p", axis=(0.0, 0.0, 1.0), frequency=5.0)


def _built(tmp_path, link: str):
    urdf = tmp_path / "spindle.urdf"
    urdf.write_text(SHAFT_ARM_URDF)
    rig = Apparatus("spindle", chain={"arm": Arm.Kinematic(description=str(urdf))},
                    magnets={"m": magnet(Sphere(0.004), (1.0, 0.0, 0.0), at=(0.01, 0.0, 0.0),
                                         mount=f"arm.{link}")},
                    probes={"p": Probe((0.06, 0.0, 0.2))})
    assert rig.validate() == []
    return rig.build()


def test_a_magnet_two_links_below_the_shaft_is_turned_by_it(tmp_path):
    found = plan(_built(tmp_path, "l4"), SPIN, starts=1)
    assert found.spinner == ("arm", "shaft")


def test_a_magnet_on_a_branch_beside_the_shaft_is_not_turned_by_it_and_the_target_is_refused(tmp_path):
    with pytest.raises(FieldError) as err:
        plan(_built(tmp_path, "l5"), SPIN, starts=1)
    assert (err.value.code, err.value.file) == ("plan.spin", "magnets")
    assert "needs a motor turning a magnet" in err.value.message
