"""Rig paths (:mod:`mime_gui.rig.paths`): a renamed rig keeps every table, a path naming no entry of a
mapping is refused naming the whole path and the entries there."""

from __future__ import annotations

import pytest
from rig_helpers import snippet_rig

from mime_gui.rig import DeclaredFrame
from mime_gui.rig.paths import RigPathError, get, replace


def test_renaming_a_rig_keeps_its_declared_frames_and_every_other_table():
    rig = snippet_rig(frames={"tip": DeclaredFrame("arm.tool0", at=(0.0, 0.0, 0.05))})
    renamed = replace(rig, "name", "bench")
    assert renamed.name == "bench" and rig.name == "rig"
    assert renamed.frames == {"tip": DeclaredFrame("arm.tool0", at=(0.0, 0.0, 0.05))}
    for table in ("chain", "parts", "magnets", "probes", "samples", "zones", "poses", "trajectories",
                  "targets"):
        assert getattr(renamed, table) == getattr(rig, table), table


def test_a_path_to_a_missing_entry_of_a_mapping_names_the_path_and_the_entries():
    with pytest.raises(RigPathError) as info:
        get(snippet_rig(), "chain.arm.armature.joint_9")
    assert info.value.path == "chain.arm.armature.joint_9"
    assert str(info.value).startswith("chain.arm.armature.joint_9: ")  # the place, then what is there
    assert "no entry 'joint_9'" in info.value.message and "entries: joint_6" in info.value.message
