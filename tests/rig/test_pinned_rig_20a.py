"""Rig contracts pinned at their edges: registering an actuator without a source says what is missing; the
build report counts the magnets (not the parts); a bundle's extraction folder is named by its stem (without
``.zip``) and a hash of its name; an extraction exactly ``MAX_AGE_DAYS`` old is not yet pruned;
``initial_clearance`` uses the analysis its caller gives instead of analysing again; a torque-driven play
names its commands as a plain play does; a mesh's refused scale names the mesh scale; and a closed mesh of
zero volume is a finding."""

from __future__ import annotations

import hashlib
import os
import warnings

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, snippet_rig

import mime_gui.rig.rules as rules
from mime_gui.rig import Apparatus, Part, PermanentMagnet, Sphere, load
from mime_gui.rig.actuators import actuator, register_actuator, unregister_actuator
from mime_gui.rig.bundle import MAX_AGE_DAYS, SUFFIX, open_bundle, prune_cache, write_bundle
from mime_gui.rig.clearance_check import initial_clearance
from mime_gui.rig.driven import play_driven
from mime_gui.rig.geometries.mesh import Mesh


# -- actuators -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("source", ["", "   ", None])
def test_registering_an_actuator_without_a_source_says_it_needs_one(source):
    with pytest.raises(ValueError) as refused:
        register_actuator("lab_motor_20a", 1e-6, source)
    assert str(refused.value) == ("actuator 'lab_motor_20a' needs a source (the datasheet its rotor inertia "
                                  "comes from)")
    assert actuator("lab_motor_20a") is None  # nothing was registered
    unregister_actuator("lab_motor_20a")


# -- the build report's magnet count -------------------------------------------------------------------------
def test_the_report_counts_the_magnets_not_the_parts():
    rig = snippet_rig()  # one part (the holder) and one magnet (m1)
    rig.magnets["m2"] = PermanentMagnet(Sphere(radius=0.003), material="NdFeB-N42", magnetisation=(1, 0, 0),
                                        at=(0, 0, 0.5))
    report = rig.build().report
    assert report.data["totals"]["magnets"] == 2
    assert any(line.startswith("  magnets: 2, moments summed ") for line in report.to_text().splitlines())


# -- a bundle's extraction folder ----------------------------------------------------------------------------
def test_an_extraction_folder_is_named_by_the_bundles_stem_and_a_hash_of_its_name(tmp_path):
    bundle = write_bundle(load(DEMO_RIG), tmp_path / "Demo.ZIP")
    folder = open_bundle(bundle, folder=tmp_path / "cache").parent
    # the stem drops the .zip (in any case); the hash is of the whole name, so two spellings never share one
    digest = hashlib.sha256(os.fsencode("Demo.ZIP")).hexdigest()[:8]
    assert folder.name.startswith(f"Demo-{digest}-") and folder.name.endswith(SUFFIX)


def test_an_extraction_exactly_the_age_limit_old_stays(tmp_path):
    now = 2_000_000_000.0
    cache = tmp_path / "cache"
    for name, age in (("limit", MAX_AGE_DAYS * 86400), ("older", MAX_AGE_DAYS * 86400 + 1)):
        folder = cache / f"{name}{SUFFIX}"
        folder.mkdir(parents=True)
        os.utime(folder, (now - age, now - age))  # whole seconds: the age is exact
    # "older than MAX_AGE_DAYS days goes": one exactly that old is not older
    removed = prune_cache(cache, now=now)
    assert [p.name for p in removed] == [f"older{SUFFIX}"]
    assert [p.name for p in cache.iterdir()] == [f"limit{SUFFIX}"]


# -- the initial clearance with the caller's analysis --------------------------------------------------------
def test_initial_clearance_uses_the_analysis_it_is_given_and_does_not_analyse_again(monkeypatch):
    rig = snippet_rig()
    analysis = rules.analyse(rig)
    expected = [(f.code, f.where, f.message) for f in initial_clearance(rig)]
    assert expected  # the snippet's magnet sits close to its holder: there is something to find
    calls = []
    original = rules.analyse

    def counted(apparatus, *args, **kwargs):
        calls.append(apparatus)
        return original(apparatus, *args, **kwargs)

    monkeypatch.setattr(rules, "analyse", counted)
    found = [(f.code, f.where, f.message) for f in initial_clearance(rig, analysis)]
    assert found == expected
    assert calls == []  # the caller had it: the rules are not run a second time


# -- a torque-driven play's names ----------------------------------------------------------------------------
def test_a_torque_driven_play_names_its_commands_as_a_plain_play_does():
    built = snippet_rig().build()
    T, dt = 3, 0.01
    hold = np.tile(built.initial_commands(), (T, 1))
    driven = play_driven(built, hold, {"motor.torque": np.zeros(T)}, dt)
    plain = built.play(hold, dt)
    assert driven.command_names == plain.command_names == built.command_names
    assert driven.command_names == ("arm.joint_1", "arm.joint_2", "arm.joint_3", "arm.joint_4", "arm.joint_5",
                                    "arm.joint_6", "motor.shaft")


# -- meshes --------------------------------------------------------------------------------------------------
def test_a_mesh_scale_of_the_wrong_length_is_refused_naming_the_mesh_scale():
    with pytest.raises(TypeError) as refused:
        Mesh("part.stl", scale=(1.0, 2.0))
    assert str(refused.value) == "mesh scale must be 3 numbers, got (1.0, 2.0)"


def test_a_closed_mesh_of_zero_volume_is_a_finding(tmp_path):
    # a tetrahedron folded flat into z = 0: every edge has two faces (watertight), its volume is exactly 0
    path = tmp_path / "flat.obj"
    path.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0.2 0.2 0\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 3 1 4\n")
    rig = Apparatus("flat", parts={"p": Part(Mesh(str(path)), material="aluminium")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # trimesh's centre of mass divides by the 0 volume
        found = [(f.code, f.where, f.message) for f in rig.validate()]
    assert found == [("part.geometry", "parts.p.geometry",
                      f"mesh {str(path)!r} has no positive volume (inside out?)")]
