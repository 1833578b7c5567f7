"""An edit of what the 3D view does not draw (a named pose, a trajectory) pushes nothing to the view and asks
for no frame, on apply, undo and redo; an edit of a part still does. The rig, the findings and the events
follow either way."""

from __future__ import annotations

from mime_gui import RESOURCES
from mime_gui.rig.poses import Pose
from mime_gui.session import AddItem, FakeRenderer, RenameItem, Session, SetValue

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def opened():
    session = Session()
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.open(DEMO_RIG)
    return session, renderer


def test_pose_and_trajectory_edits_ask_nothing_of_the_view():
    session, renderer = opened()
    changes = []
    session.rig_changed.connect(changes.append)
    calls, renders = len(renderer.calls), renderer.renders
    session.apply(AddItem("poses", "up", Pose({"arm": {"joint_2": 10}}, "deg|m")))
    (name,) = session.rig.trajectories  # the demo's
    session.apply(RenameItem("trajectories", name, "spin"))
    session.undo()
    session.redo()
    assert (len(renderer.calls), renderer.renders) == (calls, renders)
    assert len(changes) == 4 and "spin" in session.rig.trajectories and "up" in session.rig.poses
    # a part's edit is drawn: pushed and rendered
    session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.012)))
    assert renderer.renders == renders + 1 and "update_items" in renderer.calls[calls:]
