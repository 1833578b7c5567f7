"""Every field of the rig's item classes, given a value of the wrong type from Python, is refused on the spot
with a message that names the field and shows the value given, or is left to the rules, whose finding
names the field (a declaration without its unit). A field added to a class is covered here at once: the
test walks the dataclass fields, and a field neither refused nor listed fails."""

from __future__ import annotations

import dataclasses
import math

import pytest
from rig_helpers import DEMO_RIG

from mime_gui.rig import (
    Allowed,
    Apparatus,
    Clearance,
    Cylinder,
    FieldTarget,
    Keyframe,
    Part,
    PermanentMagnet,
    Pose,
    Probe,
    Sample,
    Sphere,
    TargetError,
    Trajectory,
    Zone,
    load,
    register_dynamics,
    tesla,
    unregister_dynamics,
)
from mime_gui.rig.dynamics import DynamicsError, LabSegment
from mime_gui.rig.geometries.registry import KindTemplate


class Odd:
    """A value no field takes, which says what it is."""

    def __repr__(self) -> str:
        return "<odd value>"


# class → (its valid keyword arguments, per field the others that make that field the one checked)
ITEMS = {
    Part: (dict(geometry=Cylinder(0.01, 0.02)), {}),
    PermanentMagnet: (dict(geometry=Cylinder(0.005, 0.01), magnetisation=(0.0, 0.0, 1.0),
                           remanence=tesla(1.3, reason="a datasheet")), {}),
    Probe: (dict(at=(0.0, 0.0, 0.0)), {}),
    Zone: (dict(at=(0.0, 0.0, 0.0), box=(0.1, 0.1, 0.1), limit=1e-3, reason="a sensor"), {}),
    Sample: (dict(at=(0.0, 0.0, 0.0)), {"material": dict(geometry=Sphere(5e-4)),
                                        "remanence": dict(geometry=Sphere(5e-4))}),
    FieldTarget: (dict(at="probes.p", direction=(0.0, 0.0, 1.0)),
                  {"axis": dict(direction=None, frequency=5.0), "frequency": dict(direction=None,
                                                                                    axis=(0.0, 0.0, 1.0))}),
    Keyframe: (dict(time=1.0, values={"joint_1": 0.0}), {}),
    Clearance: (dict(), {}),
    Pose: (dict(values={"arm": {"joint_1": 0.0}}), {}),
    Allowed: (dict(first="parts.holder", second="arm.link_6"), {}),
}
#: fields whose declaration the rules check (with its unit): (class, field) → where the finding is, on the
#: demo rig with the item set under that name
BY_THE_RULES = {
    (Part, "mass"): "parts.holder.mass", (Part, "density"): "parts.holder.density",
    (PermanentMagnet, "mass"): "magnets.m1.mass", (PermanentMagnet, "density"): "magnets.m1.density",
    (PermanentMagnet, "remanence"): "magnets.m1.remanence", (Sample, "moment"): "samples.s.moment",
    (Sample, "remanence"): "samples.s.remanence",
}
CASES = [(cls, f.name) for cls in ITEMS for f in dataclasses.fields(cls)]


@pytest.mark.parametrize(("cls", "field"), CASES, ids=[f"{c.__name__}.{f}" for c, f in CASES])
def test_a_field_given_a_value_of_the_wrong_type_is_named_with_the_value(cls, field):
    valid, others = ITEMS[cls]
    kwargs = {**valid, **others.get(field, {}), field: Odd()}
    if (cls, field) in BY_THE_RULES:
        item = cls(**kwargs)  # taken: the rules say what is wrong with it, at its place
        rig = load(DEMO_RIG)
        collection, name = BY_THE_RULES[(cls, field)].split(".")[:2]
        getattr(rig, collection)[name] = dataclasses.replace(item, mount=None)
        found = [f for f in rig.validate() if f.where == BY_THE_RULES[(cls, field)]]
        assert found and "<odd value>" in found[0].message, rig.validate()
        return
    with pytest.raises((TypeError, ValueError)) as refused:
        cls(**kwargs)
    message = str(refused.value)
    assert field in message and "<odd value>" in message, message
    if isinstance(refused.value, TargetError):
        assert refused.value.file == field  # the place a dock shows it at


def test_every_field_left_to_the_rules_is_a_field_of_its_class():
    assert set(BY_THE_RULES) <= set(CASES)


def test_an_apparatus_names_a_trajectory_of_the_wrong_type_by_name_and_type():
    with pytest.raises(TypeError) as refused:
        Apparatus("rig", trajectories={"reach": {"arm": []}})
    assert str(refused.value) == "trajectories maps names to Trajectory values, got 'reach': dict"
    Apparatus("rig", trajectories={"reach": Trajectory({})})  # the right type is taken


def test_a_lab_kind_whose_factory_returns_no_tree_is_refused_with_what_it_returned():
    register_dynamics("plate", lambda: "a plate")
    try:
        with pytest.raises(DynamicsError) as refused:
            LabSegment(kind="plate").tree()
    finally:
        unregister_dynamics("plate")
    assert refused.value.code == "dynamics.factory"
    assert refused.value.message.endswith("must return a MultibodyTree (its frames and channels), got str")


@pytest.mark.parametrize("role", ["part", "magnet"])
def test_a_palette_template_is_a_part_or_a_magnet(role):
    template = KindTemplate(role, "Plate", "a plate", Cylinder(0.01, 0.002))
    assert template.role == role
    with pytest.raises(ValueError) as refused:
        dataclasses.replace(template, role=role.upper())
    assert str(refused.value) == f"a template's role is 'part' or 'magnet', got {role.upper()!r}"


def test_the_tolerance_s_bounds_are_half_a_turn():
    target = FieldTarget("probes.p", direction=(0.0, 0.0, 1.0), tolerance=math.pi)
    assert target.tolerance == math.pi
    with pytest.raises(TargetError) as refused:
        FieldTarget("probes.p", direction=(0.0, 0.0, 1.0), tolerance=math.pi + 1e-9)
    assert (refused.value.code, refused.value.file) == ("target.tolerance", "tolerance")
