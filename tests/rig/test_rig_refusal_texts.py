"""The words of refusals no other test reads: each refusal is triggered through the route a user takes
(register_actuator, a bundle, register_dynamics, a torque channel) and its message is checked for the place
it names (the file, the record, the entry, the kind, the channel) and the fix it gives."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui.cli import main
from mime_gui.multibody.errors import CodedError
from mime_gui.rig import (
    Apparatus,
    LabSegment,
    dynamics,
    kg_m2,
    register_actuator,
    unregister_actuator,
    unregister_dynamics,
)
from mime_gui.rig.bundle import BundleError, open_bundle
from mime_gui.rig.driven import torque_arrays
from mime_gui.rig.dynamics import DynamicsError, register_dynamics


# -- actuators registered in Python ----------------------------------------------------------------------
def test_registering_an_actuator_twice_says_how_to_replace_it():
    register_actuator("lab-motor-twice", rotor_inertia=kg_m2(2e-5, reason="x"), source="Lab datasheet")
    try:
        with pytest.raises(ValueError) as info:
            register_actuator("lab-motor-twice", rotor_inertia=1e-5, source="again")
        assert "actuator 'lab-motor-twice' is already registered" in str(info.value)
        assert "pass replace=True to replace it" in str(info.value)
        # and replace=True does
        assert register_actuator("lab-motor-twice", rotor_inertia=1e-5, source="again",
                                 replace=True).rotor_inertia == 1e-5
    finally:
        unregister_actuator("lab-motor-twice")


# -- bundles: entries refused when opened ------------------------------------------------------------------
RIG = b'{"format": "mime-rig", "version": 1, "name": "r"}'


def _zip(path, entries):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


@pytest.mark.filterwarnings("ignore:Duplicate name")
@pytest.mark.parametrize(("entries", "code", "words"), [
    ([("rig.rig.json", RIG), ("../escaped.txt", b"x")], "bundle.path",
     ["the entry '../escaped.txt' holds '..', '.' or an empty folder name"]),
    ([("rig.rig.json", RIG), ("files//a.stl", b"x")], "bundle.path",
     ["the entry 'files//a.stl' holds '..', '.' or an empty folder name"]),
    ([("rig.rig.json", RIG), ("a.stl", b"1"), ("A.STL", b"2")], "bundle.duplicate",
     ["the entry 'A.STL' appears twice (as 'a.stl')"]),
    ([("rig.rig.json", RIG), ("a", b"1"), ("a/b.stl", b"2")], "bundle.duplicate",
     ["'a' is both a file and a folder"]),
    ([("files/a.stl", b"1")], "bundle.no-rig", ["a bundle holds one .rig.json at its root, this one 0"]),
    ([("a.rig.json", RIG), ("b.rig.json", RIG)], "bundle.no-rig",
     ["a bundle holds one .rig.json at its root, this one 2"]),
    ([("rig.rig.json", RIG), ("zeros.stl", bytes(4 * 1024 * 1024))], "bundle.ratio",
     ["the entry 'zeros.stl' expands 4194304 bytes from ", ", more than 200 times (a zip bomb)"]),
], ids=["dot-dot", "empty folder name", "twice in another case", "file and folder", "no rig", "two rigs",
        "zip bomb"])
def test_a_refused_bundle_entry_is_named_and_nothing_is_written(tmp_path, cache, entries, code, words):
    path = _zip(tmp_path / "hostile.zip", entries)
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert (info.value.code, info.value.file) == (code, str(path))
    for w in words:
        assert w in info.value.message
    assert info.value.message.endswith("; the bundle is refused and nothing of it is written")


def test_a_bundle_past_the_size_limit_names_the_limit_and_the_variable_that_raises_it(tmp_path, cache,
                                                                                       monkeypatch, capsys):
    monkeypatch.setenv("MIME_GUI_MAX_BUNDLE_MB", "1")
    path = _zip(tmp_path / "big.zip", [("rig.rig.json", RIG), ("a.stl", b"1" * (1024 * 1024))])
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert (info.value.code, info.value.file) == ("bundle.too-large", str(path))
    assert info.value.message.startswith("it unpacks to more than 1.0 MB; set MIME_GUI_MAX_BUNDLE_MB "
                                         "(megabytes) to raise the limit")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"error[bundle.too-large] {path}: it unpacks to more than 1.0 MB")


def test_a_fractional_bundle_limit_is_printed_as_set_not_rounded_to_nothing(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("MIME_GUI_MAX_BUNDLE_MB", "0.5")
    path = _zip(tmp_path / "big.zip", [("rig.rig.json", RIG), ("a.stl", b"1" * (1024 * 1024))])
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.message.startswith("it unpacks to more than 0.5 MB;")

# -- a lab's segment kinds ---------------------------------------------------------------------------------
@pytest.fixture
def fresh_kinds(monkeypatch):
    """No installed kinds but those a test gives; read afresh before and after."""
    monkeypatch.setattr(dynamics, "_entry_points", lambda: [])
    dynamics.refresh()
    yield monkeypatch
    monkeypatch.undo()
    dynamics.refresh()


def _turntable(radius=0.1):
    if radius <= 0:
        raise ValueError(f"radius must be positive, got {radius}")
    return dynamics.frames("turntable", "base", [("spin", "continuous", "base", "table", (0, 0, 0.01),
                                                  (0, 0, 1), None)])


def test_a_factory_that_is_not_callable_is_refused_naming_the_kind(fresh_kinds):
    with pytest.raises(DynamicsError) as info:
        register_dynamics("turntable", "not a function")
    assert info.value.code == "dynamics.factory"
    assert info.value.message == "the factory of 'turntable' must be callable, got str"
    assert "turntable" not in dynamics.kinds()


def test_a_kind_registered_twice_names_who_registered_it_and_how_to_replace_it(fresh_kinds):
    register_dynamics("turntable", _turntable)
    try:
        with pytest.raises(DynamicsError) as info:
            register_dynamics("turntable", _turntable)
        assert info.value.code == "dynamics.duplicate"
        assert "the kind 'turntable' is already registered (by register_dynamics)" in info.value.message
        assert info.value.message.endswith("; pass replace=True to replace it")
    finally:
        unregister_dynamics("turntable")


class _EntryPoint:
    """An installed entry point of the dynamics group: ``load`` gives ``target`` or raises it."""

    module, dist = "lab_tables", None

    def __init__(self, name, value, target):
        self.name, self.value, self.target = name, value, target

    def load(self):
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


@pytest.mark.parametrize(("target", "code", "words"), [
    (ImportError("no module named lab_tables"), "dynamics.entry-point",
     "the mime_gui.dynamics entry point rotary-table = lab_tables:table of lab_tables cannot be loaded: "
     "ImportError: no module named lab_tables"),
    (42, "dynamics.factory", "the mime_gui.dynamics entry point rotary-table = lab_tables:table is not "
     "callable"),
], ids=["fails to load", "not callable"])
def test_a_broken_installed_kind_is_refused_at_the_rig_file_s_kind(fresh_kinds, tmp_path, capsys, target,
                                                                   code, words):
    fresh_kinds.setattr(dynamics, "_entry_points",
                        lambda: [_EntryPoint("rotary-table", "lab_tables:table", target)])
    dynamics.refresh()
    with pytest.raises(DynamicsError) as info:
        dynamics.kinds()
    assert (info.value.code, info.value.message) == (code, words)
    # the rig file that names a lab kind is refused with the same words at its kind
    path = tmp_path / "lab.rig.json"
    path.write_text(json.dumps({"format": "mime-rig", "version": 1, "name": "lab", "chain": [
        {"name": "table", "kind": "rotary-table", "params": {}}]}))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.strip()
    assert out.startswith(f"error[{code}] {path}:") and f"#/chain/0/kind: {words}" in out


def test_params_that_are_no_mapping_are_refused_naming_params():
    with pytest.raises(TypeError) as info:
        LabSegment(kind="turntable", params=[("radius", 0.2)])
    assert str(info.value) == "params must map names to values, got [('radius', 0.2)]"
    with pytest.raises(TypeError) as info:
        LabSegment(kind="turntable", params={1: 0.2})
    assert str(info.value).startswith("params must map names to values, got {1: 0.2}")


def test_a_factory_that_refuses_its_params_is_a_finding_at_the_params_naming_the_kind(fresh_kinds):
    register_dynamics("turntable", _turntable)
    try:
        segment = LabSegment(kind="turntable", params={"radius": -1})
        with pytest.raises(DynamicsError) as info:
            segment.tree()
        assert info.value.code == "dynamics.factory"
        assert info.value.message == ("the kind 'turntable' (register_dynamics) refused its params: "
                                      "ValueError: radius must be positive, got -1")
        [finding] = Apparatus("t", chain={"table": segment}).validate()
        assert (finding.code, finding.where) == ("chain.description", "chain.table.params")
        assert "'turntable' (register_dynamics) refused its params" in finding.message
    finally:
        unregister_dynamics("turntable")


# -- torque channels -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def built():
    return snippet_rig().build()


def test_a_torque_channel_of_a_joint_the_segment_lacks_names_the_channel_and_its_joints(built):
    with pytest.raises(CodedError) as info:
        torque_arrays(built, {"arm.joint_torques.elbow": np.ones(3)}, 3)
    assert info.value.code == "commands.torque"
    assert info.value.message == ("'arm.joint_torques.elbow': no joint 'elbow' in 'arm'; joints: joint_1, "
                                  "joint_2, joint_3, joint_4, joint_5, joint_6")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_a_torque_channel_with_a_non_finite_value_names_the_channel(built, bad):
    with pytest.raises(CodedError) as info:
        torque_arrays(built, {"arm.joint_torques.joint_2": np.ones(3),
                              "motor.torque": np.array([1.0, bad, 0.0])}, 3)
    assert info.value.code == "commands.torque"
    assert info.value.message == "'motor.torque' holds non-finite values"
