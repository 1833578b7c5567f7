"""The issue's snippet, as written, and what it promises."""
# ruff: noqa: E501, B018, F401, I001

import numpy as np

from rig_helpers import REPO


def test_issue_snippet_runs_as_written(monkeypatch):
    monkeypatch.chdir(REPO)  # the snippet names the description relative to the repository
    from mime_gui.rig import Apparatus, Arm, Motor, Part, PermanentMagnet, Box, Cylinder, Sphere, kg, kg_m2, kg_per_m3
    rig = Apparatus("rig",
        chain={"arm": Arm.Dynamic(description="resources/demo/arm.urdf", at=(0, 0, 0), orientation=(1, 0, 0, 0),
                                  initial_positions={"joint_1": 0.1},
                                  armature={"joint_6": kg_m2(2e-4, reason="rotor 1.25e-5 kg m2 through 4:1, datasheet")}),
               "motor": Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(3e-6, reason="catalogue value"), mount="link_6")},
        parts={"holder": Part(Cylinder(radius=0.01, length=0.02), material="aluminium", at=(0, 0, 0.01), mount="motor.rotor")},
        magnets={"m1": PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                                       magnetisation=(0, 0, 1), at=(0, 0, 0.025), mount="motor.rotor")})
    findings = rig.validate()      # [] when valid, else Finding(code, where, message) items
    built = rig.build()            # raises RigError carrying the findings when invalid
    built.report                   # armature source of every joint, mass source of every part, grafts, totals
    built.articulation("arm")      # the arm's Articulation with armature and grafted parts

    assert findings == []
    art = built.articulation("arm")
    assert art.armature[art.joint_index("joint_6")] == 2e-4
    assert np.count_nonzero(art.armature) == 1
    joint_6 = built.report.armature("arm", "joint_6")
    assert joint_6["source"] == "declared" and "datasheet" in joint_6["reason"]
    assert [p["name"] for p in built.report["parts"]] == ["holder", "m1"]
    assert {g["part"] for g in built.report["grafts"]} == {"holder", "m1"}
    motor = built.articulation("motor")
    assert {"stator", "rotor", "part:holder", "part:m1"} <= set(motor.frame_names)
