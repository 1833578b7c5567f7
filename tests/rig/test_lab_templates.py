"""The palette's templates of lab segment kinds, headless: the factory's JSON defaults, lookup by key, and a
broken entry point that leaves only the built-in templates."""

from __future__ import annotations

import dataclasses

import pytest

from mime_gui.rig import Apparatus, LabSegment, dynamics, register_dynamics, unregister_dynamics
from mime_gui.rig.templates import TEMPLATES, default_params, lab_templates, required_params, template

NOT_JSON = object()


def tilt(angle, radius=0.05, *rest, count=3, name="tilt", flags=(True, False), where=NOT_JSON, **more):
    return dynamics.frames("tilt", "base", [("tip", "revolute", "base", "top", (0, 0, 0.01), (1, 0, 0),
                                             (-1, 1))])


@pytest.fixture
def kind():
    register_dynamics("tilt table", tilt)
    yield "tilt table"
    unregister_dynamics("tilt table")


def test_defaults_are_the_json_ones_with_a_default(kind):
    # no default (angle), *rest, **more and a value no rig file holds (where) are left out
    assert default_params(tilt) == {"radius": 0.05, "count": 3, "name": "tilt", "flags": [True, False]}
    assert default_params(lambda *a, **k: None) == {}


def test_a_lab_template_makes_the_segment_on_the_frame(kind):
    key = "segment.lab.tilt table"
    assert list(lab_templates()) == [key]
    t = dataclasses.replace(template(key), unavailable="")  # angle aside: what it makes
    assert (t.group, t.collection, t.base_name, t.label) == ("Segments", "chain", "tilt_table", "tilt table")
    seg = t.make("tool0")
    params = {"radius": 0.05, "count": 3, "name": "tilt", "flags": [True, False]}
    assert seg == LabSegment(kind="tilt table", mount="tool0", params=params)
    assert template("segment.motor") is TEMPLATES["segment.motor"]
    assert template("segment.lab.nothing") is None and template("segment.lab.") is None


def test_a_lab_template_s_tip_names_the_kind_where_it_comes_from_and_its_defaults(kind):
    tip = template("segment.lab.tilt table").tip
    assert "'tilt table' (registered in Python)" in tip
    assert tip.endswith("with radius=0.05, count=3, name='tilt', flags=[True, False]")
    register_dynamics("still", lambda: tilt(0.0))
    try:
        assert template("segment.lab.still").tip.endswith("mounted on the frame, with no parameters")
    finally:
        unregister_dynamics("still")


def test_a_kind_with_a_parameter_without_a_default_makes_no_segment(kind):
    t = template("segment.lab.tilt table")
    assert required_params(tilt) == ["angle"]
    with pytest.raises(ValueError, match="its factory needs angle, with no default"):
        t.make("tool0")
    assert t.unavailable == ("its factory needs angle, with no default: give the segment in the rig file "
                             "(its params) or in Python")
    register_dynamics("flat", lambda radius=0.1: tilt(0.0, radius))
    try:
        assert template("segment.lab.flat").unavailable == ""
        seg = template("segment.lab.flat").make(None)
        assert Apparatus("t", chain={"t": seg}).validate() == []
    finally:
        unregister_dynamics("flat")


def test_a_broken_entry_point_leaves_the_built_in_templates(monkeypatch):
    class Broken:
        name, value, module, dist = "bad", "nowhere:f", "nowhere", None

        def load(self):
            raise ImportError("no module nowhere")

    monkeypatch.setattr(dynamics, "_entry_points", lambda: [Broken()])
    dynamics.refresh()
    try:
        assert lab_templates() == {}
        assert template("segment.lab.bad") is None and template("part.box") is TEMPLATES["part.box"]
    finally:
        monkeypatch.undo()
        dynamics.refresh()
