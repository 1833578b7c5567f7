"""Pins small behaviours of the rig: an apparatus's repr without optional collections, the registrant of a
lab segment whose kind is not registered, a single-step trajectory's demands, and the base name a lab kind's
template gives new segments."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mime_gui.rig import Apparatus, LabSegment, dynamics, register_dynamics, unregister_dynamics
from mime_gui.rig.limits import demands
from mime_gui.rig.templates import template


def _tilt():
    return dynamics.frames("tilt", "base", [("tip", "revolute", "base", "top", (0, 0, 0.01), (1, 0, 0),
                                             (-1, 1))])


def test_the_repr_of_an_apparatus_with_no_optional_collections_lists_only_the_required_ones():
    assert repr(Apparatus("bench")) == "Apparatus('bench', chain={}, parts={}, magnets={})"


def test_a_lab_segment_of_an_unregistered_kind_has_an_empty_package_and_version():
    assert LabSegment(kind="no such kind here").registrant() == ("", "")


def test_a_lab_segment_of_a_registered_kind_names_its_package_and_version():
    register_dynamics("pinned tilt", _tilt, package="lab-stages", version="2.1.0")
    try:
        assert LabSegment(kind="pinned tilt").registrant() == ("lab-stages", "2.1.0")
    finally:
        unregister_dynamics("pinned tilt")


def test_a_trajectory_of_one_step_weighs_that_step_fully():
    t = np.array([2.5])  # not starting at 0
    tau = np.array([[-3.0, 0.0]])
    v = np.array([[0.5, -2.0]])
    a, b = demands(("s.a", "s.b"), t, tau, v, [6.0, 1.0], [1.0, 4.0])
    assert (a.joint, a.peak, a.peak_time, a.rms, a.speed) == ("s.a", 3.0, 2.5, 3.0, 0.5)
    assert (b.joint, b.peak, b.peak_time, b.rms, b.speed) == ("s.b", 0.0, 2.5, 0.0, 2.0)
    assert (a.effort_share, b.velocity_share) == (0.5, 0.5)


@pytest.mark.parametrize("name, base", [
    ("tilt table!", "tilt_table"),
    ("(tilt) table", "tilt_table"),
    ("_Tilt_", "Tilt"),
    ("!!", "segment"),
], ids=["trailing-mark", "leading-mark", "underscores", "only-marks"])
def test_a_lab_template_s_base_name_drops_leading_and_trailing_underscores(name, base):
    register_dynamics(name, _tilt)
    try:
        t = dataclasses.replace(template("segment.lab." + name), unavailable="")
        assert t.base_name == base
    finally:
        unregister_dynamics(name)
