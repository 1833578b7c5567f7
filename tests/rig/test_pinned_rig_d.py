"""Small rig answers pinned down: the operating system's words for an unreadable description, the case
finding of two targets, the hint for a bare field tolerance, a trajectory's repr without acceleration limits,
the URDF header of an export given no source, and a zone with no shape."""

from __future__ import annotations

import errno
import os

from rig_helpers import snippet_rig

from mime_gui import __version__
from mime_gui.rig import Apparatus, Arm, Motor, Probe, Zone
from mime_gui.rig.targets import FieldTarget
from mime_gui.rig.trajectories import Keyframe, Trajectory
from mime_gui.rig.urdf_export import export_urdf
from mime_gui.rig.zone_rules import zone_problems


def test_an_unreadable_description_gives_the_system_s_reason_in_plain_words(tmp_path, monkeypatch):
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()  # the relative path cannot be resolved: the working folder is gone
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description="arm.urdf")})
    (finding,) = rig.validate()
    # the reason alone, as the system words it, not the exception's "[Errno 2] ..." text
    assert f"({os.strerror(errno.ENOENT)}); check the path" in finding.message
    assert "Errno" not in finding.message


def test_two_targets_named_alike_but_for_case_are_told_to_rename_one():
    rig = snippet_rig()
    rig.probes = {"dish": Probe((0.3, 0.0, 0.1))}
    for n in ("spin", "Spin"):
        rig.targets[n] = FieldTarget("probes.dish", direction=(0, 0, 1))
    (finding,) = [f for f in rig.validate() if f.code == "target.name"]
    assert finding.where == "targets.Spin"
    assert "'Spin' differs from the target 'spin' only in case; rename one of them" in finding.message


def test_a_bare_field_tolerance_is_told_to_write_tesla_with_a_reason():
    rig = Apparatus("r", chain={"motor": Motor.Kinematic(field_tolerance=0.005)})
    (finding,) = rig.validate()
    assert (finding.code, finding.where) == ("unit", "chain.motor.field_tolerance")
    assert finding.message.endswith("a unit is required: write tesla(value, reason=...)")


def test_a_trajectory_without_acceleration_limits_has_a_repr_that_rebuilds_it():
    trajectory = Trajectory({"arm": (Keyframe(1.0, values={"joint_1": 0.0}),)})
    text = repr(trajectory)
    assert text.endswith("unit='rad|m')") and "acceleration_limits" not in text
    assert eval(text, {"Trajectory": Trajectory, "Keyframe": Keyframe}) == trajectory


def test_a_urdf_exported_without_a_source_names_no_source_in_its_header(tmp_path):
    text = export_urdf(snippet_rig(), tmp_path / "rig.urdf").read_text()
    assert f"<!-- A MIME rig as URDF, exported by mime-gui {__version__} -->" in text
    assert " from " not in text.splitlines()[1]


def test_a_zone_with_neither_box_nor_sphere_is_told_to_give_one():
    shape = [m for code, _w, m in zone_problems(Zone((0, 0, 0), reason="people")) if code == "zone.shape"]
    assert shape == ["the zone has neither a box nor a sphere; give box=(sx, sy, sz) (full sizes, m) or "
                     "sphere=radius (m), one of them"]
