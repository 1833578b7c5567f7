"""The armature problems on a description with nothing to list say "(none)" rather than an empty list."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from mime_gui.multibody.tree import Joint, Link, MultibodyTree
from mime_gui.rig import kg_m2
from mime_gui.rig.armature import armature_sources


def _welded() -> MultibodyTree:
    """Two links welded by one fixed joint: no movable joint, no transmission."""
    links = {n: Link(n) for n in ("base", "tool")}
    joints = {"weld": Joint("weld", "fixed", "base", "tool", np.eye(4))}
    return MultibodyTree(name="welded", links=links, joints=joints, root="base", source="<test>")


def test_an_armature_on_a_description_without_movable_joints_says_there_are_none():
    segment = SimpleNamespace(armature={"joint_1": kg_m2(1e-4, reason="x")}, actuators={})
    _, problems = armature_sources(segment, _welded())
    assert [(code, where) for code, where, _ in problems] == [("chain.armature", "armature.joint_1")]
    assert problems[0][2].endswith("movable joints: (none)")


def test_an_actuator_on_a_description_without_transmissions_says_there_are_none():
    segment = SimpleNamespace(armature={}, actuators={"motor_1": kg_m2(1e-5, reason="x")})
    _, problems = armature_sources(segment, _welded())
    assert [(code, where) for code, where, _ in problems] == [("chain.armature", "actuators.motor_1")]
    assert problems[0][2].endswith("transmissions: (none)")
