"""Session contracts pinned against mutation survivors:

* undoing and redoing an edit of a named pose reports the pose's own path (``poses.<name>``), as the edit did;
* a rig refused for one finding says where and what, and nothing about others;
* an edit of one keep-out zone draws that zone anew only: the other zones keep their drawing;
* a sliding joint's live effort excess is given in newtons;
* the mass table leaves out a link whose inertial has no mass, and names its whole total ``apparatus``;
* with nothing open, a measure end is refused telling the user to open a robot or a rig;
* a reload whose new limits hold the joints where the file puts them announces no moved pose;
* the torques held on a new torque drive are zeros that cannot be written in place (only replaced whole).
"""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.rig import Apparatus, Arm
from mime_gui.rig.poses import Pose
from mime_gui.rig.rules import analyse
from mime_gui.rig.samples import Sample
from mime_gui.rig.units import a_m2
from mime_gui.rig.zones import Zone
from mime_gui.session import AddItem, FakeRenderer, ItemRef, ReplaceItem, Session, SessionError, SetValue
from mime_gui.session.mass_properties import mass_table
from mime_gui.session.torque_drive import TorqueDrive
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo" / "demo.rig.json"
REASON = "the bench where people stand"
_INERTIA = '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'


def _one_joint(mass: float, upper: float, effort: float = 10.0) -> str:
    """A base and one revolute link (about z) of ``mass`` kg, limits [-1, upper] rad."""
    return f"""<robot name="r"><link name="base"/>
<link name="l1"><inertial><mass value="{mass}"/>{_INERTIA}</inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="{upper}" effort="{effort}" velocity="2"/></joint></robot>"""


def test_the_undo_and_redo_of_a_pose_edit_touch_the_poses_own_path():
    session = Session()
    session.open(DEMO)
    edit = session.apply(AddItem("poses", "up", Pose({"arm": {"joint_2": 10}}, "deg|m")))
    assert edit.paths == frozenset({"poses.up"})
    # the view and the forms update the pose named, not the whole collection: undo and redo say the same
    assert session.undo().paths == frozenset({"poses.up"})
    assert session.redo().paths == frozenset({"poses.up"})
    replaced = session.apply(ReplaceItem("poses", "home", Pose({"arm": {"joint_2": 20}}, "deg|m")))
    assert replaced.paths == session.undo().paths == frozenset({"poses.home"})


def test_a_rig_refused_for_one_finding_says_where_and_what_and_counts_no_others():
    rig = Apparatus("lab", chain={"near": Arm.Kinematic(description="nowhere/near.urdf")})
    (finding,) = analyse(rig).findings
    with pytest.raises(SessionError) as err:
        Session().open_apparatus(rig)
    assert err.value.code == "chain.description"
    # one finding: its place and message, no "(and 0 more: )"
    assert err.value.message == f"chain.near.description: {finding.message}"


def test_an_edit_of_one_zone_leaves_the_other_zones_drawing_as_it_is():
    session = Session()
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.open(DEMO)
    keep, chair = ItemRef("", "zone", "keep"), ItemRef("", "zone", "chair")
    session.apply(AddItem("zones", "keep", Zone(mount="arm.link_2", sphere=0.1, reason=REASON)))
    session.apply(AddItem("zones", "chair", Zone((1.0, 0.0, 0.5), box=(0.2, 0.1, 0.3), reason=REASON)))
    session.apply(AddItem("samples", "bead", Sample((0.0, 0.0, 0.04), mount="motor.stator",
                                                    moment=a_m2(1e-6, reason="VSM"))))
    assert not session.findings
    drawn_chair = renderer.items[chair]
    renderer.item_changes.clear()
    session.apply(SetValue("zones.keep.sphere", 0.2))
    # the edited zone only is drawn anew: the other one keeps its drawing (the same object)
    assert set(renderer.item_changes[-1].changed) == {keep}
    assert renderer.items[chair] is drawn_chair
    session.apply(SetValue("samples.bead.at", (0.0, 0.0, 0.05)))
    assert set(renderer.item_changes[-1].changed) == {ItemRef("", "sample", "bead")}
    assert renderer.items[chair] is drawn_chair


#: a 0.5 kg slider lifted along z by a joint whose effort limit (1 N) is below its weight (4.905 N)
WEAK_LIFT = f"""<robot name="lift"><link name="base"/>
<link name="slide"><inertial><mass value="0.5"/>{_INERTIA}</inertial></link>
<joint name="lift" type="prismatic"><parent link="base"/><child link="slide"/><axis xyz="0 0 1"/>
<limit lower="0" upper="0.5" effort="1" velocity="0.3"/></joint></robot>"""


def test_a_sliding_joints_live_effort_excess_is_given_in_newtons(tmp_path):
    urdf = tmp_path / "lift.urdf"
    urdf.write_text(WEAK_LIFT)
    session = Session()
    session.open_apparatus(Apparatus("lift", chain={"arm": Arm.Dynamic(description=str(urdf))}))
    transport = Transport(session)
    for _ in range(3):
        transport.tick(0.01)
    live = transport.live_torques
    assert live.effort_units == ("N",)
    (excess,) = [e for e in live.data().excesses if e.code == "torque.effort"]
    assert excess.joint == "arm.lift" and excess.value == pytest.approx(0.5 * 9.81, abs=1e-9)
    # a force on a sliding joint, as the plot's column says: not N·m
    assert excess.unit == "N"


def test_the_mass_table_leaves_out_a_link_without_mass_and_names_its_total_apparatus(tmp_path):
    (tmp_path / "r.urdf").write_text(_one_joint(0, 1.0))
    session = Session()
    session.open(tmp_path / "r.urdf")
    table = mass_table(session)
    assert table.rows == []  # l1's inertial has no mass; base has none at all
    assert [t.name for t in table.segments] == ["r"]
    assert (table.total.name, table.total.mass, table.total.com) == ("apparatus", 0.0, None)
    session.open(DEMO)  # a rig of several segments: the whole is still "apparatus"
    table = mass_table(session)
    assert [t.name for t in table.segments] == list(session.segments)
    assert table.total.name == "apparatus" and table.total.mass > 0


def test_a_measure_end_with_nothing_open_is_refused_saying_what_to_open():
    session = Session()
    shown = []
    session.error.connect(shown.append)
    with pytest.raises(SessionError) as err:
        session.measure_end(ItemRef("arm", "link", "link_1"))
    assert (err.value.code, err.value.message, err.value.file) == (
        "measure.end", "nothing is open; open a robot or a rig first", "measure")
    assert shown == [err.value]


def test_a_reload_whose_limits_hold_the_joint_where_the_file_puts_it_announces_no_moved_pose(tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(_one_joint(1, 1.0))
    session = Session()
    session.open(urdf)
    session.set_joint_positions("r", [0.9])
    urdf.write_text(_one_joint(1, -0.5))  # 0.9 is past the new upper limit, where the file's pose is
    fresh = Session()
    fresh.open(urdf)
    assert fresh.joint_positions("r").tolist() == [-0.5]  # the file's pose: its initial 0 held within limits
    moved = []
    session.poses_changed.connect(moved.append)
    session.reload()
    # the kept 0.9 is held within the new limits: -0.5, where the file puts the joint, so nothing moved
    assert session.joint_positions("r").tolist() == [-0.5]
    assert moved == []


def test_the_torques_held_on_a_new_torque_drive_are_zeros_replaced_whole_never_written_in_place():
    session = Session()
    session.open(DEMO)
    built = session.document.built
    seg = built.segments["motor"]
    node = DynamicArmNode(seg.dynamics_articulation, placement=seg.placement)
    drive = TorqueDrive(node, built.node("motor"), True, np.asarray(seg.placement, dtype=float))
    np.testing.assert_array_equal(drive.u, np.zeros(node.art.nq))
    # read-only, as every torque Session.set_torques holds: a reader's reference never changes under it
    assert not drive.u.flags.writeable
    with pytest.raises(ValueError):
        drive.u[0] = 1.0
