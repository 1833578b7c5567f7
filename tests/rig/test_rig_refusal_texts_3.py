"""The words of refusals no other test reads (continued again): a collection of the rig that is no mapping, a
box size of the wrong length, a rotor inertia or a lab segment's parameter that is not finite, a declared
mass, density or armature without its unit, and a measure on a segment the rig lacks; each message is checked
for the thing it names and the fix it gives."""

from __future__ import annotations

import math

import pytest
from rig_helpers import snippet_rig

from mime_gui.rig import Apparatus, Box, Part, kg_m2, register_actuator
from mime_gui.rig.dynamics import LabSegment
from mime_gui.rig.measures import FrameEnd, MeasureError, anchor

COLLECTIONS = ["chain", "parts", "magnets", "probes", "poses", "frames", "trajectories", "samples", "zones",
               "targets"]


@pytest.mark.parametrize("what", COLLECTIONS)
def test_a_collection_of_the_rig_that_is_no_mapping_is_refused_by_its_own_name(what):
    with pytest.raises(TypeError) as info:
        Apparatus("r", **{what: [("a", None)]})
    assert str(info.value).startswith(f"{what} maps names to {what}, got list")


def test_a_box_size_of_two_numbers_is_refused_naming_the_box_size():
    with pytest.raises(TypeError) as info:
        Box((0.1, 0.2))
    assert str(info.value).startswith("box size must be 3 numbers")


@pytest.mark.parametrize("inertia", [math.inf, math.nan, -1e-5, kg_m2(-1e-5, reason="typo")],
                         ids=["infinite", "nan", "negative", "negative quantity"])
def test_a_rotor_inertia_that_is_not_finite_or_negative_names_the_motor_and_the_rule(inertia):
    with pytest.raises(ValueError) as info:
        register_actuator("lab-motor-bad", inertia, source="Lab datasheet")
    message = str(info.value)
    assert "'lab-motor-bad'" in message and "must be finite and not negative" in message


@pytest.mark.parametrize(("params", "name"), [({"travel": math.nan}, "params.travel"),
                                              ({"stops": [0.1, math.inf]}, "params.stops")],
                         ids=["a number", "in a list"])
def test_a_lab_segment_parameter_that_is_not_finite_names_the_parameter(params, name):
    with pytest.raises(ValueError) as info:
        LabSegment(kind="linear-stage", params=params)
    assert str(info.value).startswith(f"{name} must be finite")


def test_an_armature_without_its_unit_names_the_joint_and_how_to_write_it():
    rig = snippet_rig()
    rig.chain["arm"].armature = {"joint_6": 2e-4}
    [finding] = rig.validate()
    assert (finding.code, finding.where) == ("unit", "chain.arm.armature.joint_6")
    assert finding.message.startswith("the armature of 'joint_6' is a bare float")
    assert finding.message.endswith("write kg_m2(value, reason=...)")


def test_a_declared_mass_or_density_without_its_unit_names_which_and_how_to_write_it():
    rig = snippet_rig()
    rig.parts = {"a": Part(Box((0.01, 0.01, 0.01)), mass=0.1),
                 "b": Part(Box((0.01, 0.01, 0.01)), density=kg_m2(2700.0, reason="handbook"))}
    found = {f.where: f.message for f in rig.validate()}
    assert found["parts.a.mass"].startswith("the declared mass is a bare float")
    assert found["parts.a.mass"].endswith("write kg(value, reason=...)")
    assert found["parts.b.density"].startswith("the declared density is in ")


def test_a_measure_on_a_segment_the_rig_lacks_names_it_and_says_remove_or_undo():
    with pytest.raises(MeasureError) as info:
        anchor(FrameEnd("stage", "top"), snippet_rig(), {}, where="measures.0")
    assert (info.value.code, info.value.file) == ("measure.end", "measures.0")
    message = info.value.message
    assert "no segment 'stage'" in message and message.endswith("remove this measure, or undo the edit")
