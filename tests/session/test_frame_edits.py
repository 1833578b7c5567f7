"""Declared frames edited through the session: renaming one renames every mount that names it (a part, a
probe, another declared frame), the rig stays valid, the change set names what moved, and one undo puts it
all back; renaming a segment carries the frames declared on it."""

from __future__ import annotations

import numpy as np

from mime_gui import RESOURCES
from mime_gui.rig.frames import DeclaredFrame
from mime_gui.session import AddItem, RenameItem, Session

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def tilted_session() -> Session:
    session = Session()
    session.open(DEMO_RIG)
    turned = (np.cos(0.3), np.sin(0.3), 0.0, 0.0)
    tilted = DeclaredFrame("arm.tool0", at=(0.0, 0.0, 0.04), orientation=turned)
    session.apply(AddItem("frames", "tilted", tilted))
    session.apply(AddItem("frames", "tip", DeclaredFrame("arm.tilted", at=(0.01, 0.0, 0.0))))
    from mime_gui.session import SetValue

    session.apply(SetValue("parts.holder.mount", "arm.tilted"))
    session.apply(SetValue("probes.sample.mount", "arm.tip"))
    assert session.findings == ()
    return session


def test_renaming_a_declared_frame_renames_every_mount_on_it_in_one_step():
    session = tilted_session()
    before = session.rig
    holder_world = session.frame_world_pose("arm", "tilted").copy()
    change = session.apply(RenameItem("frames", "tilted", "turned"))
    rig = session.rig
    assert list(rig.frames) == ["turned", "tip"]
    assert rig.parts["holder"].mount == "arm.turned"
    assert rig.frames["tip"].mount == "arm.turned"
    assert rig.probes["sample"].mount == "arm.tip"  # on the other frame: untouched
    assert rig.magnets["m1"].mount == before.magnets["m1"].mount
    assert session.findings == ()
    assert {"frames.tilted", "frames.turned", "parts.holder", "frames.tip"} <= change.paths
    assert "probes.sample" not in change.paths
    np.testing.assert_allclose(session.frame_world_pose("arm", "turned"), holder_world, atol=1e-12)
    session.undo()
    assert session.rig == before


def test_a_mount_that_only_starts_with_the_old_name_is_not_renamed():
    session = tilted_session()
    session.apply(AddItem("frames", "tilted2", DeclaredFrame("arm.tool0", at=(0.0, 0.0, 0.02))))
    session.apply(RenameItem("frames", "tilted", "turned"))
    assert session.rig.frames["tilted2"].mount == "arm.tool0"
    from mime_gui.session import SetValue

    session.apply(SetValue("parts.holder.mount", "arm.tilted2"))
    session.apply(RenameItem("frames", "turned", "tilted"))
    assert session.rig.parts["holder"].mount == "arm.tilted2"  # 'arm.tilted2' is not 'arm.tilted'


def test_renaming_the_segment_carries_its_declared_frames():
    session = tilted_session()
    session.apply(RenameItem("chain", "arm", "robot"))
    rig = session.rig
    assert rig.frames["tilted"].mount == "robot.tool0" and rig.frames["tip"].mount == "robot.tilted"
    assert rig.parts["holder"].mount == "robot.tilted" and rig.probes["sample"].mount == "robot.tip"
    assert session.findings == ()
