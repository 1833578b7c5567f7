"""Contracts pinned here:

- a sliding joint's effort unit ``N`` gives its speeds in m/s (a turning joint's ``N·m`` in rad/s), in the
  unit pairs and in each joint's demand (:func:`mime_gui.rig.limits.unit_pairs`, ``RigTorques.demands``);
- rule ``part.geometry`` writes "an" before a kind whose type starts with a vowel and "a" before any other,
  a kind registered by a caller included;
- the magnets' pull along a trajectory is zero, never a made-up finite number, where its closed form
  overflows (two centres a hair apart: magnets passing through each other).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from magnet_rigs import compass_rig

from mime_gui.rig.geometries import KINDS, Field, GeometryKind
from mime_gui.rig.geometries.registry import register
from mime_gui.rig.geometries.tables import geometry_rule
from mime_gui.rig.limits import unit_pairs
from mime_gui.rig.magnet_pull import PullModel
from mime_gui.rig.torques import RigTorques


# -- units of a sliding joint ------------------------------------------------------------------------------
def test_the_speed_unit_of_a_sliding_joint_is_m_per_s_and_of_a_turning_joint_rad_per_s():
    assert unit_pairs(("N·m", "N", "N·m")) == [("N·m", "rad/s"), ("N", "m/s"), ("N·m", "rad/s")]
    assert unit_pairs(()) == []


def test_the_demand_of_a_sliding_joint_gives_its_speed_in_m_per_s():
    t = np.array([0.0, 0.1, 0.2])
    force = np.array([[1.0, 2.0], [3.0, -4.0], [2.0, 1.0]])
    speed = np.array([[0.5, 0.1], [-0.25, 0.2], [0.0, 0.3]])
    torques = RigTorques(("slider.slide", "arm.turn"), t, force, np.zeros_like(force), speed,
                         np.array([10.0, 10.0]), np.array([1.0, 1.0]), (), effort_units=("N", "N·m"))
    slide, turn = torques.demands()
    assert (slide.unit, slide.velocity_unit) == ("N", "m/s")
    assert (turn.unit, turn.velocity_unit) == ("N·m", "rad/s")
    assert "peak |v| 0.5 m/s (50 % of 1 m/s)" in str(slide)


# -- the article in rule part.geometry ---------------------------------------------------------------------
@dataclass(frozen=True)
class Xtal:
    """A kind whose type starts with a capital consonant (a crystal, written "Xtal") and has an angle."""

    tilt: float
    kind = "Xtal"


@dataclass(frozen=True)
class Orb:
    """A kind whose type starts with a vowel and has an angle."""

    tilt: float
    kind = "orb"


@pytest.fixture
def consonant_and_vowel_kinds():
    """The kinds :class:`Xtal` and :class:`Orb`, registered for one test."""
    made = []
    for cls in (Xtal, Orb):
        made.append(register(GeometryKind(
            cls.kind, cls, (Field("tilt", "Tilt", unit="deg", low=-30.0, high=30.0),), text="{tilt}",
            summary="a test kind", mesh=lambda g, base=None: None, inside=lambda g, p: None,
            source=lambda g, J, base=None: None)))
    yield made
    for kind in made:
        del KINDS[kind.type]


def test_rule_part_geometry_writes_a_before_a_consonant_and_an_before_a_vowel(consonant_and_vowel_kinds):
    text = geometry_rule()
    assert "a Xtal's tilt within ±30°" in text and "an Xtal's" not in text
    assert "an orb's tilt within ±30°" in text
    assert "an arc's" in text  # the built-in kind with angles


# -- the pull where its closed form overflows --------------------------------------------------------------
def test_the_pull_of_two_balls_a_hair_apart_is_zero_where_the_closed_form_overflows():
    built = compass_rig().build()
    model = PullModel(built)
    assert len(model.pairs) == 1  # the rotor's ball and the world's, on different bodies
    # six steps: the second ball 1e-120 m from the first along ±x, ±y, ±z; 1/d⁴ and 1/d³ overflow, so the
    # closed forms give ±inf (and inf·0 = nan) in force and torque
    offsets = 1e-120 * np.vstack([np.eye(3), -np.eye(3)])
    X = np.tile(np.eye(4), (6, 2, 1, 1))  # the first ball at the origin (a hair from 0.1 m rounds away)
    X[:, 1, :3, 3] = offsets
    pull = model(X)
    assert [route for *_, route in pull.pairs] == ["dipole"]  # two balls: the closed forms
    assert np.array_equal(pull.force, np.zeros((6, 2, 3)))
    assert np.array_equal(pull.torque, np.zeros((6, 2, 3)))


def test_the_pull_at_one_instant_of_two_balls_a_hair_apart_is_zero_as_along_a_trajectory():
    # what forward dynamics ask at each sub-step (PullModel.at) agrees with the row of the trajectory's pull
    # where 1/d⁴ no longer fits a double, instead of dividing by a distance rounded to zero
    built = compass_rig().build()
    model = PullModel(built)
    for offset in (1e-82, 1e-120):
        X = np.tile(np.eye(4), (2, 1, 1))
        X[1, :3, 3] = (offset, 0.0, 0.0)
        force, torque = model.at(X)
        assert np.array_equal(force, np.zeros((2, 3)))  # 1/d⁴ beyond a double either way
        row = model(X[None])
        assert np.allclose(row.force[0], force, rtol=1e-12, atol=0)
        assert np.allclose(row.torque[0], torque, rtol=1e-12, atol=0) and np.isfinite(torque).all()
    X[1, :3, 3] = (0.03, 0.0, 0.0)  # a real distance: a real pull, equal and opposite
    force, _ = model.at(X)
    assert np.abs(force).max() > 0 and np.allclose(force[0], -force[1], rtol=1e-12, atol=0)
