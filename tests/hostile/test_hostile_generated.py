"""Generated input: URDFs, rig files and command files, valid and mutated, by hypothesis.

A valid file reads back to exactly what was generated (names, tree, origins, limits, mimics, masses; a rig
file saves and loads equal; a command file's samples come back bit for bit). A mutated one — any attribute
replaced by an extreme, broken or hostile value, an element dropped or doubled, the text cut or prefixed with
a declaration — is read, or refused with a documented code; nothing else ever escapes. Whatever is read
compiles to finite arrays and prints as strict JSON.
"""

from __future__ import annotations

import copy
import json
import math
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np
import pytest
from hostile_corpus import DEMO_URDF, URDF_CODES, cli, demo_copy, demo_data, error_lines, write
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mime_gui.multibody import UrdfError, frame_poses, read_urdf
from mime_gui.nodes import read_commands
from mime_gui.rig import RULES, load

pytestmark = pytest.mark.timeout(600)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                           HealthCheck.function_scoped_fixture])

# text XML 1.0 can hold (no C0 controls but tab, newline, return; no surrogates or non-characters)
XML_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",),
                                 exclude_characters="".join(map(chr, [*range(0, 9), 11, 12, *range(14, 32)]))
                                 + "\ufffe\uffff"), min_size=1, max_size=8)
LENGTH = st.floats(-10, 10, allow_nan=False)
ANGLE = st.floats(-4, 4, allow_nan=False)


@dataclass
class Spec:
    """What a generated URDF says, to compare the reader's tree with."""

    links: list
    joints: list  # (name, type, parent, child, xyz, rpy, axis, (lower, upper) or None, mimic or None)
    masses: dict


@st.composite
def urdf_specs(draw) -> Spec:
    n = draw(st.integers(1, 7))
    names = draw(st.lists(XML_TEXT, min_size=2 * n + 1, max_size=2 * n + 1, unique=True))
    links, joint_names = names[: n + 1], names[n + 1:]
    joints, movable = [], []
    for i in range(1, n + 1):
        parent = links[draw(st.integers(0, i - 1))]
        jtype = draw(st.sampled_from(["revolute", "continuous", "prismatic", "fixed"]))
        xyz = tuple(draw(LENGTH) for _ in range(3))
        rpy = tuple(draw(ANGLE) for _ in range(3))
        axis = [draw(LENGTH) for _ in range(3)]
        axis[draw(st.integers(0, 2))] = draw(st.sampled_from([-1, 1])) * draw(st.floats(0.5, 10))  # not zero
        axis = tuple(axis)
        limit = None
        if jtype in ("revolute", "prismatic"):
            lower, upper = sorted((draw(ANGLE), draw(ANGLE)))
            limit = (lower, upper)
        mimic = None
        if jtype != "fixed" and movable and draw(st.booleans()):
            mimic = (draw(st.sampled_from(movable)), draw(st.floats(-3, 3)), draw(st.floats(-1, 1)))
        joints.append((joint_names[i - 1], jtype, parent, links[i], xyz, rpy, axis, limit, mimic))
        if jtype != "fixed":
            movable.append(joint_names[i - 1])
    masses = {name: draw(st.floats(0, 100)) for name in links if draw(st.booleans())}
    return Spec(links, joints, masses)


def to_element(spec: Spec) -> ET.Element:
    root = ET.Element("robot", name="generated")
    for name in spec.links:
        link = ET.SubElement(root, "link", name=name)
        if name in spec.masses:
            inertial = ET.SubElement(link, "inertial")
            ET.SubElement(inertial, "mass", value=repr(spec.masses[name]))
            ET.SubElement(inertial, "inertia", ixx="1", iyy="1", izz="1", ixy="0", ixz="0", iyz="0")
    for name, jtype, parent, child, xyz, rpy, axis, limit, mimic in spec.joints:
        joint = ET.SubElement(root, "joint", name=name, type=jtype)
        ET.SubElement(joint, "parent", link=parent)
        ET.SubElement(joint, "child", link=child)
        ET.SubElement(joint, "origin", xyz=" ".join(map(repr, xyz)), rpy=" ".join(map(repr, rpy)))
        ET.SubElement(joint, "axis", xyz=" ".join(map(repr, axis)))
        if limit is not None:
            ET.SubElement(joint, "limit", lower=repr(limit[0]), upper=repr(limit[1]), effort="1",
                          velocity="1")
        if mimic is not None:
            ET.SubElement(joint, "mimic", joint=mimic[0], multiplier=repr(mimic[1]), offset=repr(mimic[2]))
    return root


def _text(root: ET.Element) -> str:
    return ET.tostring(root, encoding="unicode")


def _strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _usable(tree, folder) -> None:
    """What the reader accepted compiles to finite arrays and prints as strict JSON."""
    art = tree.compile()
    for name in ("parent_X_joint", "axis", "mass_of_body", "com", "inertia_com", "body_X_frame",
                 "mimic_multiplier", "mimic_offset"):
        assert np.all(np.isfinite(getattr(art, name))), name
    q = np.clip(np.zeros(art.nq), np.maximum(art.lower, -1e6), np.minimum(art.upper, 1e6))
    assert np.all(np.isfinite(frame_poses(art, q)))
    path = write(folder, "read.urdf", _text_of(tree))
    status, out, err = cli("inspect", path, "--json")
    assert status == 0 and err == "", err
    _strict_json(out)


def _text_of(tree) -> str:
    return tree.source_text  # set by the tests below before _usable is called


@SETTINGS
@given(spec=urdf_specs())
def test_a_generated_urdf_reads_back_to_what_was_written(tmp_path_factory, spec):
    text = _text(to_element(spec))
    tree = read_urdf(text)
    assert list(tree.links) == spec.links and tree.root == spec.links[0]
    for name, jtype, parent, child, xyz, _, axis, limit, mimic in spec.joints:
        j = tree.joints[name]
        assert (j.type, j.parent, j.child) == (jtype, parent, child)
        assert tuple(j.parent_X_joint[:3, 3]) == xyz
        if jtype != "fixed":
            a = np.array(axis) / np.linalg.norm(axis)
            assert np.allclose(j.axis, a, rtol=0, atol=1e-15)
        if limit is not None:
            assert (j.limit.lower, j.limit.upper) == limit
        if mimic is not None:
            assert (j.mimic.joint, j.mimic.multiplier, j.mimic.offset) == mimic
    assert {n: tree.links[n].inertial.mass for n in spec.masses} == spec.masses
    tree.source_text = text
    _usable(tree, tmp_path_factory.mktemp("urdf"))


HOSTILE_VALUES = ["1e308", "-1e308", "1e400", "nan", "-inf", "1_0", "", " ", "\n", "0x10", "1e-320",
                  "1 2 3 4", "$(arg x)", "${x}", "\u00e9", "1,2,3", "2e6", "-2e9 0 0", "1e200 1e200 1e200",
                  "0 0 0", "\x85", "x\ny", "1e154 1e154 1e154"]
RAW = ['<!DOCTYPE robot [<!ENTITY x "y">]>', '<!DOCTYPE robot SYSTEM "r.dtd">', "<?xml version='1.0'?>",
       "<!-- &x; -->", "\ufeff", "<!DOCTYPE robot>", "<xacro:macro name='m'/>"]


@st.composite
def mutated_urdfs(draw) -> str:
    root = to_element(draw(urdf_specs()))
    elements = list(root.iter())
    for _ in range(draw(st.integers(1, 3))):
        element = draw(st.sampled_from(elements))
        action = draw(st.sampled_from(["value", "value", "value", "drop", "double", "rename"]))
        if action == "value" and element.attrib:
            key = draw(st.sampled_from(sorted(element.attrib)))
            element.set(key, draw(st.sampled_from(HOSTILE_VALUES) | XML_TEXT))
        elif action == "drop" and element is not root:
            parent = next(p for p in root.iter() if element in list(p))
            parent.remove(element)
            elements = list(root.iter())
        elif action == "double" and element is not root:
            parent = next(p for p in root.iter() if element in list(p))
            parent.append(copy.deepcopy(element))
            elements = list(root.iter())
        elif action == "rename":
            element.tag = draw(st.sampled_from(["link", "joint", "mimic", "origin", "inertia", "gazebo",
                                                "robot"]))
    text = _text(root)
    raw = draw(st.sampled_from(["none", "none", "prefix", "cut", "reference"]))
    if raw == "prefix":
        text = draw(st.sampled_from(RAW)) + text
    elif raw == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif raw == "reference":
        at = text.find('name="')
        reference = draw(st.sampled_from(["&x;", "&#10;", "&#0;", "&amp;", "&#x1b;"]))
        text = text[: at + 6] + reference + text[at + 6:]
    return text


@SETTINGS
@given(text=mutated_urdfs())
def test_a_mutated_urdf_is_read_or_refused_with_a_documented_code(tmp_path_factory, text):
    try:
        tree = read_urdf(text)
    except UrdfError as exc:
        event(exc.code)
        assert exc.code in URDF_CODES, exc
        assert str(exc) and exc.one_line().isprintable()
        return
    event("read")
    tree.source_text = text
    _usable(tree, tmp_path_factory.mktemp("urdf"))


# -- rig files -----------------------------------------------------------------------------------------
EXTREME = st.sampled_from([0.0, -0.0, 1e-300, 5e-324, 1e6, 1e6 * (1 + 1e-15), 2e6, 1e9, 1e21, 1e154, 1e300,
                           1e308, -1e308, 0.5, 3.0])


def _numbers(value, keys=()):
    """The JSON pointers (as key lists) of every number in ``value``."""
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        yield keys
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, (*keys, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _numbers(v, (*keys, i))


@st.composite
def extreme_rigs(draw):
    data = demo_data()
    places = list(_numbers(data))
    for keys in draw(st.lists(st.sampled_from(places), min_size=1, max_size=3, unique=True)):
        if keys[:1] == ("version",):
            continue
        target = data
        for k in keys[:-1]:
            target = target[k]
        target[keys[-1]] = draw(EXTREME)
    return data


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=extreme_rigs())
def test_a_rig_with_extreme_numbers_is_valid_and_round_trips_or_has_coded_findings(tmp_path_factory, data):
    folder = demo_copy(tmp_path_factory.mktemp("rig"))
    path = write(folder, "extreme.rig.json", json.dumps(data))
    status, out, err = cli("validate", path)
    assert err == "" and "Traceback" not in out
    if status == 1:
        codes = [m["code"] for m in error_lines(out)]
        event(codes[0])
        assert set(codes) <= set(RULES), codes
        for command in (("report", path), ("export", path, "--json", folder / "o.rig.json")):
            assert cli(*command)[0] == 1
        return
    event("valid")
    assert status == 0
    status, out, _ = cli("report", path, "--json")
    assert status == 0
    _strict_json(out)
    status, _, _ = cli("export", path, "--json", folder / "again.rig.json")
    assert status == 0 and load(folder / "again.rig.json") == load(path)


# -- command files -------------------------------------------------------------------------------------
@SETTINGS
@given(times=st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=12, unique=True),
       columns=st.integers(1, 4), data=st.data())
def test_a_command_file_reads_back_bit_for_bit(tmp_path_factory, times, columns, data):
    time = np.array(sorted(times))
    values = np.array([[data.draw(st.floats(-1e300, 1e300)) for _ in range(columns)] for _ in time])
    names = [f"joint_{c + 1}" for c in range(columns)]
    lines = ["time," + ",".join(names)] + [",".join(repr(float(x)) for x in (t, *row))
                                           for t, row in zip(time, values, strict=True)]
    folder = tmp_path_factory.mktemp("cmd")
    recorded = read_commands(write(folder, "c.csv", "\n".join(lines) + "\n"))
    assert recorded.joint_names == tuple(names)
    assert np.array_equal(recorded.time, time) and np.array_equal(recorded.joint_positions, values)
    np.savez(folder / "c.npz", time=time, joint_positions=values, joint_names=np.array(names))
    again = read_commands(folder / "c.npz")
    assert np.array_equal(again.time, time) and np.array_equal(again.joint_positions, values)


@SETTINGS
@given(cell=st.sampled_from(["1_000", "1__0", "_1", "1_", "0_0", "1e_3", "inf", "nan", "1e400", "0x1",
                             "\u0661", "\u00bd", " 1 ", "+1", "1.", ".5", "1e-400"]),
       row=st.integers(0, 2), column=st.integers(0, 1))
def test_a_hostile_cell_plays_or_is_refused_with_its_line(tmp_path_factory, cell, row, column):
    rows = [["0", "0"], ["0.1", "0.5"], ["0.2", "1"]]
    rows[row][column] = cell
    folder = tmp_path_factory.mktemp("cell")
    path = write(folder, "c.csv", "time,joint_1\n" + "\n".join(",".join(r) for r in rows) + "\n")
    status, out, err = cli("play", DEMO_URDF, "--commands", path, "--out", folder / "o.npz", "--quiet")
    if status == 0:
        event("played")
        assert "_" not in cell and math.isfinite(float(cell))
        return
    m = error_lines(err)[0]
    event(m["code"])
    assert status == 2 and m["code"].startswith(("commands.", "play."))
    if "_" in cell:
        assert m["code"] == "commands.format" and m["where"] == f"{path}:{row + 2}"
