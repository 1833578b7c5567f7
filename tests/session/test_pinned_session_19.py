"""Session contracts pinned against mutation survivors:

* a description link's row in the mass table names the link it belongs to (the link itself);
* the fake renderer records the dimming of stand-ins by its name, in its place among an edit's calls;
* an edit that takes a segment away (a removal, a rename) reports the segment's old name as removed;
* the state a torque-driven step leaves has read-only joint velocities, as its positions are;
* a new transport drives live: taking over changes no mode and announces none;
* a probe mounted on a link whose name has a dot in it belongs to the segment named before the first dot.
"""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Box, Part
from mime_gui.rig.probes import Probe
from mime_gui.session import AddItem, FakeRenderer, ItemRef, RemoveItem, RenameItem, Session
from mime_gui.session.mass_properties import mass_table
from mime_gui.session.transport import Transport

DEMO = RESOURCES / "demo" / "demo.rig.json"
DT = 0.01
_INERTIA = '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'


def test_the_mass_table_s_link_rows_belong_to_the_link_they_weigh():
    session = Session()
    session.open(DEMO)
    links = [r for r in mass_table(session).rows if r.kind == "link"]
    # the demo arm's description: every link with a mass, in the tree's order (kg from arm.urdf)
    assert [(r.segment, r.link, r.name, r.mass) for r in links] == [
        ("arm", "base_link", "base_link", 4.0), ("arm", "link_1", "link_1", 2.0),
        ("arm", "link_2", "link_2", 3.0), ("arm", "link_3", "link_3", 2.0), ("arm", "link_4", "link_4", 1.0),
        ("arm", "link_5", "link_5", 0.8), ("arm", "link_6", "link_6", 0.3)]
    assert {r.source for r in links} == {"the description's inertial"}


def test_the_fake_renderer_records_the_dimming_of_stand_ins_among_an_edit_s_calls():
    session = Session()
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.open(DEMO)
    renderer.calls.clear()
    session.apply(AddItem("parts", "extra", Part(Box((0.01, 0.01, 0.01)), material="aluminium",
                                                 mount="arm.link_3")))
    # a drawn edit: the segments updated, the stand-ins dimmed (none here), both segments placed, the items
    assert renderer.calls == ["update_segments", "set_dimmed", "set_frame_poses", "set_frame_poses",
                              "update_items"]
    assert renderer.dimmed == frozenset()


def test_an_edit_taking_a_segment_away_reports_it_removed():
    session = Session()
    session.open(DEMO)
    removal = session.apply(RemoveItem("chain", "motor"))
    assert (removal.added, removal.changed, removal.removed) == (frozenset(), {"arm"}, {"motor"})
    undone = session.undo()  # the motor back: added, none removed
    assert (undone.added, undone.removed) == ({"motor"}, frozenset())
    rename = session.apply(RenameItem("chain", "motor", "rotor"))
    # the view drops the old name's drawing and draws the new one
    assert (rename.added, rename.changed, rename.removed) == ({"rotor"}, frozenset(), {"motor"})
    assert list(session.segments) == ["arm", "rotor"]


def test_a_torque_driven_step_leaves_read_only_joint_velocities():
    session = Session()
    session.open(DEMO)
    transport = Transport(session)
    session.set_drive("arm", "torques")
    transport.tick(DT)
    state = session.state("arm")
    assert np.any(state.joint_velocities != 0.0)  # gravity pulls the unpowered arm
    # the state is shared with every reader: its arrays are replaced whole, never written in place
    assert not state.joint_positions.flags.writeable
    assert not state.joint_velocities.flags.writeable
    with pytest.raises(ValueError):
        state.joint_velocities[0] = 1.0


def test_a_new_transport_drives_live_and_taking_over_announces_no_mode():
    session = Session()
    session.open(DEMO)
    transport = Transport(session)
    assert transport.mode == "live" and transport.player is None
    modes = []
    transport.mode_changed.connect(modes.append)
    transport.take_over()  # already live: nothing changes, nothing is announced
    assert transport.mode == "live" and modes == []


def test_a_probe_on_a_link_named_with_a_dot_belongs_to_the_segment_before_the_first_dot(tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text(f"""<robot name="r"><link name="base"/>
<link name="tip.pad"><inertial><mass value="1"/>{_INERTIA}</inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="tip.pad"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="2"/></joint></robot>""")
    session = Session()
    session.open_apparatus(Apparatus("lab", chain={"arm": Arm.Kinematic(description=str(urdf))}))
    session.apply(AddItem("probes", "p", Probe((0.0, 0.0, 0.01), mount="arm.tip.pad")))
    assert not session.findings
    # a mount is ``segment.frame``: the segment is what comes before the first dot, the frame the rest
    assert session.has_item(ItemRef("arm", "probe", "p")) and session.has_item(ItemRef("", "probe", "p"))
    assert not session.has_item(ItemRef("arm.tip", "probe", "p"))
    session.select(ItemRef("arm", "probe", "p"))
    assert session.selection == ItemRef("arm", "probe", "p")
