"""Rules at their edges: listings with nothing to list, a description that cannot be read, a probe on a
segment that did not load, a sample's moment beside a material, trajectory names and values, a spin at the
start, and the clearance of a rig that breaks a rule."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest
from rig_helpers import DEMO_URDF, snippet_rig

from mime_gui.rig import Apparatus, Arm, Keyframe, Probe, Sample, Spin, Trajectory, a_m2
from mime_gui.rig.clearance_check import initial_clearance

STILL_URDF = """<robot name="still">
  <link name="a"/><link name="b"/>
  <joint name="weld" type="fixed"><parent link="a"/><child link="b"/></joint>
</robot>
"""


def test_an_initial_position_on_a_description_without_movable_joints_lists_none(tmp_path):
    (tmp_path / "still.urdf").write_text(STILL_URDF)
    rig = Apparatus("r", chain={"s": Arm.Kinematic(description=str(tmp_path / "still.urdf"),
                                                   initial_positions={"weld": 0.1})})
    (finding,) = rig.validate()
    assert (finding.code, finding.where) == ("chain.initial-positions", "chain.s.initial_positions.weld")
    assert "'weld' is not a movable joint of 'still'; movable joints: (none)" in finding.message


def test_a_relative_description_read_from_a_removed_working_folder_is_a_finding(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()  # a terminal left in a folder another program removed
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description="arm.urdf")})
    (finding,) = rig.validate()
    assert (finding.code, finding.where) == ("chain.description", "chain.arm.description")
    assert "cannot read 'arm.urdf'" in finding.message and "check the path" in finding.message


def test_a_probe_on_a_segment_whose_description_failed_adds_no_finding_of_its_own(tmp_path):
    rig = Apparatus("r", chain={"s": Arm.Kinematic(description=str(tmp_path / "missing.urdf"))},
                    probes={"p": Probe(at=(0, 0, 0), mount="s.a")})
    assert [(f.code, f.where) for f in rig.validate()] == [("chain.description", "chain.s.description")]


@pytest.mark.parametrize("attr", ["material", "remanence"])
def test_a_sample_with_a_declared_moment_takes_no_material_or_remanence(attr):
    value = {"material": "NdFeB-N42", "remanence": a_m2(1.0, reason="x")}[attr]
    sample = Sample(at=(0, 0, 0.05), moment=a_m2(1e-3, reason="datasheet"), **{attr: value})
    findings = [f for f in Apparatus("r", samples={"s": sample}).validate() if f.where == f"samples.s.{attr}"]
    assert [f.code for f in findings] == [f"sample.{attr}"]
    assert f"takes no {attr}" in findings[0].message and "leave it out" in findings[0].message


def _arm_trajectory(*keys) -> Trajectory:
    return Trajectory({"arm": tuple(keys)}, unit="deg|m")


def test_a_trajectory_name_that_is_not_text_a_file_can_hold_is_refused():
    rig = snippet_rig(trajectories={"\ud800": _arm_trajectory(Keyframe(1.0, values={"joint_1": 0.0}))})
    found = [f for f in rig.validate() if f.code == "trajectory.name"]
    assert [f.where for f in found] == ["trajectories.\ud800"]
    assert "is not a valid trajectory name" in found[0].message


def test_a_keyframe_below_a_joints_lower_limit_says_by_how_much_and_the_range():
    limit = next(j for j in ET.parse(DEMO_URDF).getroot().iter("joint") if j.get("name") == "joint_1") \
        .find("limit")
    lo, hi = math.degrees(float(limit.get("lower"))), math.degrees(float(limit.get("upper")))
    value = lo - 10.0
    rig = snippet_rig(trajectories={"t": _arm_trajectory(Keyframe(1.0, values={"joint_1": value}))})
    (finding,) = [f for f in rig.validate() if f.code == "trajectory.value"]
    assert finding.where == "trajectories.t.segments.arm.0.values.joint_1"
    assert f"10 deg below its lower limit {lo:.6g} deg" in finding.message
    assert f"bring it within [{lo:.6g}, {hi:.6g}] deg" in finding.message


def test_a_spin_from_time_zero_has_nothing_before_it_to_overlap():
    spin = Spin(5.0, hold=1.0)
    first = snippet_rig(trajectories={"t": Trajectory({"motor": (Keyframe(0.0, interpolation="spin",
                                                                           spin=spin),)})})
    assert first.validate() == []
    # the same spin keyed half a second in starts at zero and ends after its keyframe
    later = snippet_rig(trajectories={"t": Trajectory({"motor": (Keyframe(0.5, interpolation="spin",
                                                                           spin=spin),)})})
    assert [f.code for f in later.validate()] == ["trajectory.spin"]


def test_the_clearance_of_a_rig_that_breaks_a_rule_is_empty_not_a_build_error():
    rig = snippet_rig()
    rig.parts["holder"].mount = "motor.spindle"
    assert [f.code for f in rig.validate()] == ["part.mount"]
    assert initial_clearance(rig) == []
