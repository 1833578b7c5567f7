"""Rig contracts pinned at their edges: a part too small to have an inertia of its own still carries its
declared mass (a point mass on its link); an entry that a link planted in the extraction folder would lead
out of it is refused with ``bundle.path``, naming the entry; the chain node's ``chunk`` sets how often each
segment reports its progress; a ``frames`` tree is named as its factory says (the rules' findings name it);
a geometry field of more than one number is written as a vector; a spin clause is read up to its last
space; a torque-driven segment stands where the rig places it; a magnet's moment in the report carries its
unit."""

from __future__ import annotations

import os
import tempfile
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, snippet_rig, spinner_urdf

from mime_gui.rig import (
    Apparatus,
    Arm,
    LabSegment,
    Part,
    Sphere,
    kg,
    load,
    register_dynamics,
    unregister_dynamics,
)
from mime_gui.rig import bundle as bundle_module
from mime_gui.rig.bundle import BundleError, open_bundle
from mime_gui.rig.driven import play_driven
from mime_gui.rig.dynamics import frames
from mime_gui.rig.geometries.registry import Field, GeometryKind
from mime_gui.rig.keyframe_text import parse_keyframe_text
from mime_gui.rig.trajectories import Keyframe


# -- a part's mass without an inertia of its own ---------------------------------------------------------
def test_a_part_too_small_for_an_inertia_of_its_own_still_carries_its_declared_mass():
    rig = snippet_rig()
    bare = rig.build().articulation("motor")
    # a grain of 1e-65 m: its inertia about its centroid (~m r²) is below the smallest float, its mass is not
    rig.parts["grain"] = Part(Sphere(1e-65), mass=kg(0.01, reason="weighed"), at=(0.1, 0.0, 0.0),
                              mount="motor.rotor")
    built = rig.build()
    assert built.report.part("grain")["inertia_about_centroid"] == [[0.0] * 3] * 3
    inertial = built.segments["motor"].tree.links["part:grain"].inertial
    assert inertial is not None and inertial.mass == 0.01
    # a point mass 0.1 m off the rotor's axis: the rotor's inertia about its axis grows by m·d²
    S = np.array([0, 0, 1, 0, 0, 0.0])  # [angular; linear]
    art = built.articulation("motor")
    about_axis = sum(S @ art.spatial_inertia[b] @ S for b in range(1, art.nbodies))
    before = sum(S @ bare.spatial_inertia[b] @ S for b in range(1, bare.nbodies))
    assert about_axis - before == pytest.approx(0.01 * 0.1 ** 2, rel=1e-12)


# -- a bundle entry led out of the extraction folder -----------------------------------------------------
def test_an_entry_a_planted_link_would_lead_out_of_the_folder_is_refused_naming_it(tmp_path, monkeypatch):
    rig = b'{"format": "mime-rig", "version": 1, "name": "r", "chain": []}'
    path = tmp_path / "planted.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("rig.rig.json", rig)
        z.writestr("files/a.stl", b"solid a\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    made = tempfile.mkdtemp

    def planting(*args, **kwargs):
        # another process plants a link to a folder outside as soon as the extraction folder exists
        folder = made(*args, **kwargs)
        os.symlink(outside, os.path.join(folder, "files"), target_is_directory=True)
        return folder

    monkeypatch.setattr(bundle_module.tempfile, "mkdtemp", planting)
    with pytest.raises(BundleError) as refused:
        open_bundle(path, folder=tmp_path / "cache")
    assert refused.value.code == "bundle.path"
    assert refused.value.message == ("the entry 'files/a.stl' leads out of the bundle's folder; the bundle "
                                     "is refused and nothing of it is written")
    assert list(outside.iterdir()) == []  # nothing was written through the link
    assert list((tmp_path / "cache").iterdir()) == []  # and the extraction is gone


# -- the chain node's chunk ------------------------------------------------------------------------------
def test_the_chain_nodes_chunk_sets_how_often_each_segment_reports_progress():
    built = load(DEMO_RIG).build()
    node = built.chain_node()
    T, dt = 10, 0.01
    commands = {n: np.zeros((T, len(node.command_names(n)))) for n in built.segments}
    calls = []
    played = node.play(commands, dt, progress=lambda done, total: calls.append((done, total)), chunk=4)
    count = len(node.order)
    # after each chunk of 4 steps of each segment, counted over the whole chain
    assert calls == [(i * T + done, count * T) for i in range(count) for done in (4, 8, 10)]
    whole = node.play(commands, dt)  # the chunk changes when progress is told, not what is played
    for n in built.segments:
        np.testing.assert_array_equal(played[n].frame_poses, whole[n].frame_poses)


# -- a frames tree's name --------------------------------------------------------------------------------
def test_a_frames_tree_is_named_as_its_factory_says_and_findings_name_it():
    slide = ("slide", "prismatic", "base", "carriage", (0, 0, 0.02), (1, 0, 0), (-0.05, 0.05))
    tree = frames("stage21a", "base", [slide])
    assert tree.name == "stage21a"
    register_dynamics("stage-21a", lambda: frames("stage21a", "base", [slide]))
    try:
        rig = Apparatus("lab", chain={"stage": LabSegment(kind="stage-21a",
                                                          initial_positions={"carriage": 0.01})})
        [finding] = rig.validate()
    finally:
        unregister_dynamics("stage-21a")
    assert finding.code == "chain.initial-positions"
    assert finding.message == "'carriage' is not a movable joint of 'stage21a'; movable joints: slide"


# -- a geometry field of two numbers ---------------------------------------------------------------------
@dataclass(frozen=True)
class Slot:
    size: tuple
    kind = "slot21a"


def test_a_geometry_field_of_two_numbers_is_written_as_a_vector():
    kind = GeometryKind("slot21a", Slot, (Field("size", "Size", size=2), Field("depth", "Depth")),
                        text="slot {size} m, {depth} m deep", summary="a slot",
                        mesh=lambda g, base=None: None, inside=lambda g, p: None,
                        source=lambda g, J, base=None: None)
    text = kind.describe({"size": [0.01, 0.02], "depth": 0.005}, num=lambda v: f"{float(v):g}",
                         vec=lambda v: "(" + ", ".join(f"{float(x):g}" for x in v) + ")")
    assert text == "slot (0.01, 0.02) m, 0.005 m deep"


# -- a spin clause ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("clause, frequency, unit", [("spin 300  rpm", 300.0, "rpm"),
                                                     ("spin 5  Hz", 5.0, "Hz"),
                                                     ("spin 5 Hz", 5.0, "Hz")])
def test_a_spin_clause_takes_its_unit_after_the_last_space(clause, frequency, unit):
    # a doubled space typed before the unit is still the number then the unit
    key = parse_keyframe_text(f"{clause}, ramp 1 s, 20 turns", Keyframe(0.5), lambda joint: "rad")
    assert (key.spin.frequency, key.spin.unit, key.spin.ramp, key.spin.turns) == (frequency, unit, 1.0, 20.0)


# -- a torque-driven segment's placement -----------------------------------------------------------------
def test_a_torque_driven_segment_stands_where_the_rig_places_it(tmp_path):
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1))
    half = np.sqrt(0.5)  # a quarter turn about x: the joint's axis lies along -y
    rig = Apparatus("placed", chain={"arm": Arm.Dynamic(description=str(tmp_path / "spinner.urdf"),
                                                        at=(0.1, 0.2, 0.3), orientation=(half, half, 0, 0))})
    built = rig.build()
    T = 5
    hold = np.zeros((T, 1))
    # no torque and its mass on its axis: it stays at rest, and stands as when played by positions
    driven = play_driven(built, hold, {"arm.joint_torques": np.zeros((T, 1))}, 0.01)
    played = built.play(hold, 0.01)
    link = built.articulation("arm").frame_index("arm")
    poses = driven.segments["arm"].frame_poses[:, link]
    np.testing.assert_allclose(poses[:, :3, 3], np.tile([0.1, 0.2, 0.3], (T, 1)), atol=1e-12)
    np.testing.assert_allclose(poses[:, :3, 2], np.tile([0.0, -1.0, 0.0], (T, 1)), atol=1e-12)
    np.testing.assert_allclose(poses, played.segments["arm"].frame_poses[:, link], atol=1e-12)


# -- a magnet's moment in the report ---------------------------------------------------------------------
def test_a_magnets_moment_in_the_report_carries_its_unit():
    magnet = snippet_rig().build().report.part("m1")["magnet"]
    assert magnet["unit"] == "A m2"
    assert sorted(magnet) == ["direction", "moment", "remanence", "remanence_source", "unit"]
