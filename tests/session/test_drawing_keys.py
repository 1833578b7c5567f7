"""Drawing a document: a segment of a lab's kind keeps its tree when only its place changes, as an arm's does;
a build that fails although the rules passed is shown as a finding, and the rig is still drawn."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Motor, dynamics, register_dynamics, unregister_dynamics
from mime_gui.session import Session, SetValue
from mime_gui.session import drawing as drawing_module
from mime_gui.session.drawing import drawing_key

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


@pytest.fixture
def turntable():
    """A lab's kind registered in Python: a table turning about z, 1 cm above its base."""
    def factory(radius=0.1):
        return dynamics.frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0.01),
                                                      (0, 0, 1), None)])

    make = register_dynamics("turntable", factory)
    yield make
    unregister_dynamics("turntable")


def test_a_lab_segment_moved_keeps_its_tree_and_one_given_other_params_is_drawn_again(turntable):
    s = Session()
    s.open_apparatus(Apparatus("t", chain={"table": turntable(params={"radius": 0.2}),
                                           "motor": Motor.Kinematic(mount="table")}))
    tree = s.segment("table").tree
    change = s.apply(SetValue("chain.table.at", (0.1, 0.0, 0.0)))
    assert change.changed == set() and s.segment("table").tree is tree
    np.testing.assert_allclose(s.segment("table").placement[:3, 3], (0.1, 0.0, 0.0))
    key = drawing_key("table", s.rig)
    assert drawing_key("table", SetValue("chain.table.at", (0.5, 0.5, 0.5)).apply(s.rig)) == key
    # where it starts is not what it is: the tree holds (as an arm's does when its initial positions change)
    assert drawing_key("table", SetValue("chain.table.initial_positions", {"spin": 0.3}).apply(s.rig)) == key
    assert drawing_key("table", SetValue("chain.table.params", {"radius": 0.3}).apply(s.rig)) != key
    change = s.apply(SetValue("chain.table.initial_positions", {"spin": 0.3}))
    assert change.changed == set() and s.segment("table").tree is tree
    assert s.segment("table").initial == {"spin": 0.3}


@pytest.mark.parametrize("raised, code", [
    (ValueError("the rules missed this"), "rig.build"),
    (KeyError("link_9"), "rig.build"),
    (type("Coded", (ValueError,), {"code": "rig.odd"})("coded"), "rig.odd"),
], ids=["a value error", "a key error", "a coded error"])
def test_a_build_that_fails_past_the_rules_is_a_finding_and_the_rig_still_drawn(monkeypatch, raised, code):
    def build(*args, **kwargs):
        raise raised

    monkeypatch.setattr(drawing_module, "build", build)
    s = Session()
    doc = s.open(DEMO_RIG)
    (finding,) = doc.findings
    assert (finding.code, finding.where, finding.message) == (code, "", str(raised))
    assert not doc.valid and s.findings == doc.findings
    assert list(doc.segments) == ["arm", "motor"]  # drawn leniently, as a rig being fixed is
    assert doc.source is doc.rig


def test_a_document_that_breaks_no_rule_is_valid():
    doc = Session().open(DEMO_RIG)
    assert doc.valid and doc.findings == () and doc.source is doc.rig


def test_a_rig_being_fixed_runs_a_lab_factory_once_per_drawing():
    """The rules' analysis of a rig that breaks a rule is the one its lenient drawing uses: the lab's
    factory (its own code, maybe slow) is not run a second time for the view."""
    calls = []

    def factory():
        calls.append(1)
        return dynamics.frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0.01),
                                                      (0, 0, 1), None)])

    make = register_dynamics("turntable", factory)
    try:
        s = Session()
        motor = Motor.Kinematic(mount="table.nowhere")  # no such frame: a finding, the rig drawn leniently
        s.open_apparatus(Apparatus("t", chain={"table": make(), "motor": motor}))
        assert s.findings and list(s.document.segments) == ["table", "motor"]
        assert len(calls) == 1
        s.apply(SetValue("chain.table.at", (0.1, 0.0, 0.0)))
        assert s.findings and len(calls) == 2
    finally:
        unregister_dynamics("turntable")
