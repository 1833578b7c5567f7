"""Extreme numbers: every value a reader accepts is one every later stage can use.

Finite values that overflow further on (origins of 1e308 m added, a radius of 1e300 m cubed, mimic
multipliers folded past 1e308, masses summed) are refused at the reader (``urdf.magnitude``) or by the rig
rules (``part.*``, ``chain.*``) — never an ``inf``, a ``NaN`` or a traceback later. What is accepted compiles
to finite arrays and prints as strict JSON.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hostile_corpus import LIMIT, cli, error_lines, one_error, rig_with, robot, two_links, write

from mime_gui.multibody import UrdfError, frame_poses, read_urdf
from mime_gui.multibody.magnitudes import MAX_INERTIA, MAX_LENGTH, MAX_MASS, parse_float
from mime_gui.rig import load

pytestmark = pytest.mark.timeout(60)


def inertial(mass="1", inertia='ixx="1" iyy="1" izz="1"', origin=""):
    return f'<inertial>{origin}<mass value="{mass}"/><inertia {inertia}/></inertial>'


def visual(geometry: str, origin: str = "") -> str:
    return f"<visual>{origin}<geometry>{geometry}</geometry></visual>"


def mimic_chain(multipliers, offsets=None) -> str:
    """Joint j0 independent, each j(i) mimicking j(i-1) with the given multipliers and offsets."""
    offsets = offsets or [0.0] * len(multipliers)
    links = "".join(f'<link name="l{i}"/>' for i in range(len(multipliers) + 2))
    joints = [f'<joint name="j0" type="revolute"><parent link="l0"/><child link="l1"/>{LIMIT}</joint>']
    for i, (m, o) in enumerate(zip(multipliers, offsets, strict=True), start=1):
        joints.append(f'<joint name="j{i}" type="revolute"><parent link="l{i}"/><child link="l{i + 1}"/>'
                      f'{LIMIT}<mimic joint="j{i - 1}" multiplier="{m}" offset="{o}"/></joint>')
    return robot(links + "".join(joints))


REFUSED = {  # id -> (URDF text, code)
    "joint_origin_1e308": (two_links('<origin xyz="1e308 0 0"/>'), "urdf.magnitude"),
    "joint_origin_just_past": (two_links(f'<origin xyz="0 0 -{MAX_LENGTH * 1.000001!r}"/>'),
                               "urdf.magnitude"),
    "inertial_origin_1e300": (two_links(link_b=inertial(origin='<origin xyz="0 1e300 0"/>')),
                              "urdf.magnitude"),
    "visual_origin_1e300": (two_links(link_b=visual('<box size="1 1 1"/>', '<origin xyz="0 0 1e300"/>')),
                            "urdf.magnitude"),
    "mass_1e308": (two_links(link_b=inertial(mass="1e308")), "urdf.magnitude"),
    "mass_just_past": (two_links(link_b=inertial(mass=repr(MAX_MASS * 1.001))), "urdf.magnitude"),
    "inertia_1e300": (two_links(link_b=inertial(inertia='ixx="1e300" iyy="1e300" izz="1e300"')),
                      "urdf.magnitude"),
    "inertia_product_1e200": (two_links(link_b=inertial(inertia='ixx="1" iyy="1" izz="1" ixy="1e200"')),
                              "urdf.magnitude"),
    "box_1e300": (two_links(link_b=visual('<box size="1e300 1 1"/>')), "urdf.magnitude"),
    "cylinder_length_past": (two_links(link_b=visual('<cylinder radius="1" length="2e6"/>')),
                             "urdf.magnitude"),
    "sphere_1e300": (two_links(link_b=visual('<sphere radius="1e300"/>')), "urdf.magnitude"),
    "collision_sphere_1e300": (two_links(link_b='<collision><geometry><sphere radius="1e300"/></geometry>'
                                                '</collision>'), "urdf.magnitude"),
    "mesh_scale_1e300": (two_links(link_b=visual('<mesh filename="m.stl" scale="1e300 1 1"/>')),
                         "urdf.magnitude"),
    "mesh_uniform_scale_past": (two_links(link_b=visual('<mesh filename="m.stl" scale="-2e6"/>')),
                                "urdf.magnitude"),
    "mimic_multiplier_past": (mimic_chain([2e6]), "urdf.magnitude"),
    "mimic_fold_overflow": (mimic_chain([1e200, 1e200]), "urdf.magnitude"),  # folds to inf
    "mimic_fold_past": (mimic_chain([1e3, 1e3, 10]), "urdf.magnitude"),  # each small, folded 1e7
    "mimic_offset_fold_past": (mimic_chain([1e3, 1e3], [2e3, 0]), "urdf.magnitude"),  # offset 1e3 * 2e3
    "axis_subnormal": (two_links('<axis xyz="1e-320 0 0"/>'), "urdf.axis"),
    "axis_all_zero": (two_links('<axis xyz="0 0 0"/>'), "urdf.axis"),
    "origin_underscore": (two_links('<origin xyz="1_0 0 0"/>'), "urdf.value"),
    "rpy_underscore": (two_links('<origin xyz="0 0 0" rpy="0 0 1_0"/>'), "urdf.value"),
    "mass_underscore": (two_links(link_b=inertial(mass="1_000")), "urdf.value"),
    "limit_underscore": (robot('<link name="a"/><link name="b"/><joint name="j" type="revolute"><parent '
                               'link="a"/><child link="b"/><limit lower="-1" upper="1_0" effort="1" '
                               'velocity="1"/></joint>'), "urdf.value"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_values_that_would_overflow_later_are_refused_by_the_reader(tmp_path, case):
    text, code = REFUSED[case]
    with pytest.raises(UrdfError) as info:
        read_urdf(text)
    assert info.value.code == code, info.value
    assert info.value.line > 0
    path = write(tmp_path, f"{case}.urdf", text)
    status, out, err = cli("inspect", path, "--json")
    assert status == 2 and out == ""
    m = one_error(err)
    assert m["code"] == code and m["where"].startswith(f"{path}:")


ACCEPTED = {  # id -> (URDF text, check on the tree)
    "axis_1e308": (two_links('<axis xyz="1e308 1e308 0"/>'),
                   lambda t: np.allclose(t.joints["j"].axis, [2 ** -0.5, 2 ** -0.5, 0], atol=0, rtol=1e-15)),
    "axis_1e200": (two_links('<axis xyz="0 -1e200 0"/>'), lambda t: list(t.joints["j"].axis) == [0, -1, 0]),
    "rpy_1e308": (two_links('<origin xyz="0 0 0" rpy="1e308 -1e308 1e308"/>'),
                  lambda t: np.all(np.isfinite(t.joints["j"].parent_X_joint))),
    "origin_at_the_bound": (two_links(f'<origin xyz="{MAX_LENGTH!r} {-MAX_LENGTH!r} 0"/>'),
                            lambda t: t.joints["j"].parent_X_joint[0, 3] == MAX_LENGTH),
    "mass_at_the_bound": (two_links(link_b=inertial(mass=repr(MAX_MASS))),
                          lambda t: t.links["b"].inertial.mass == MAX_MASS),
    "inertia_at_the_bound": (two_links(link_b=inertial(inertia=f'ixx="{MAX_INERTIA!r}" iyy="{MAX_INERTIA!r}" '
                                                              f'izz="{MAX_INERTIA!r}"')),
                             lambda t: t.links["b"].inertial.inertia[0, 0] == MAX_INERTIA),
    "effort_velocity_1e308": (robot('<link name="a"/><link name="b"/><joint name="j" type="revolute"><parent '
                                    'link="a"/><child link="b"/><limit lower="-1" upper="1" effort="1e308" '
                                    'velocity="1e308"/></joint>'),
                              lambda t: t.joints["j"].limit.effort == 1e308),
    "mimic_fold_at_the_bound": (mimic_chain([1e3, 1e3]), lambda t: t.joints["j2"].mimic.multiplier == 1e3),
    "limits_1e300": (robot('<link name="a"/><link name="b"/><joint name="j" type="revolute"><parent '
                           'link="a"/><child link="b"/><limit lower="-1e300" upper="1e300" effort="1" '
                           'velocity="1"/></joint>'), lambda t: t.joints["j"].limit.upper == 1e300),
}


def _strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_extreme_values_within_the_bounds_compile_to_finite_arrays_and_strict_json(tmp_path, case):
    text, check = ACCEPTED[case]
    tree = read_urdf(text)
    assert check(tree)
    art = tree.compile()
    for name in ("parent_X_joint", "axis", "mass_of_body", "com", "inertia_com", "spatial_inertia",
                 "body_X_frame", "mimic_multiplier", "mimic_offset"):
        assert np.all(np.isfinite(getattr(art, name))), name
    assert np.all(np.isfinite(frame_poses(art, np.zeros(art.nq))))
    path = write(tmp_path, f"{case}.urdf", text)
    status, out, err = cli("inspect", path, "--json")
    assert status == 0 and err == ""
    summary = _strict_json(out)
    assert math.isfinite(summary["total_mass"]["kg"])
    status, out, _ = cli("inspect", path)
    assert status == 0 and out.startswith("robot r")


def test_the_mimic_fold_is_the_product_of_the_chain():
    """Folded at compile as the reader checked it: j3 = 2 (3 (4 j0 + 1) + 0.5) - 1."""
    art = read_urdf(mimic_chain([4, 3, 2], [1, 0.5, -1])).compile()
    j3 = art.joint_index("j3")
    assert art.mimic_master[j3] == art.joint_index("j0")
    assert art.mimic_multiplier[j3] == 24.0 and art.mimic_offset[j3] == 2 * (3 * 1 + 0.5) - 1


def test_inspect_json_never_prints_infinity_or_nan(tmp_path):
    """Unlimited effort and velocity (absent in the file) are infinite in the model and null in the JSON."""
    path = write(tmp_path, "free.urdf", robot('<link name="a"/><link name="b"/><joint name="j" '
                                              'type="continuous"><parent link="a"/><child link="b"/>'
                                              "</joint>"))
    status, out, _ = cli("inspect", path, "--json")
    assert status == 0 and "Infinity" not in out and "NaN" not in out
    (row,) = _strict_json(out)["tree"]
    assert row["lower"] is None and row["upper"] is None and row["effort"] is None


def test_parse_float_refuses_only_grouped_digits():
    assert parse_float("1e3") == 1000.0 and parse_float(" -0.5 ") == -0.5 and math.isinf(parse_float("inf"))
    for text in ("1_000", "1_0.5", "0_1e3", "1e1_0"):
        with pytest.raises(ValueError):
            parse_float(text)


# -- the rig rules ----------------------------------------------------------------------------------------
def _set(path_keys, value):
    def edit(data):
        target = data
        for key in path_keys[:-1]:
            target = target[key]
        target[path_keys[-1]] = value
    return edit


def _quantity(value, unit):
    return {"value": value, "unit": unit, "reason": "a hostile test"}


RIG_REFUSED = {  # id -> (edit, code, where)
    "sphere_1e300": (_set(["magnets", "m1", "geometry"], {"type": "sphere", "unit": "m", "radius": 1e300}),
                     "part.geometry", "magnets.m1.geometry"),
    "box_1e200_by_1e-200": (_set(["parts", "holder", "geometry"],
                                 {"type": "box", "unit": "m", "size": [1e200, 1e-200, 1.0]}),
                            "part.geometry", "parts.holder.geometry"),
    "cylinder_past": (_set(["parts", "holder", "geometry", "length"], 2e6), "part.geometry",
                      "parts.holder.geometry"),
    "part_at_1e308": (_set(["parts", "holder", "at", "value"], [1e308, 0.0, 0.0]), "part.placement",
                      "parts.holder.at"),
    "segment_at_past": (_set(["chain", 0, "at", "value"], [0.0, 0.0, -1.5e6]), "chain.placement",
                        "chain.arm.at"),
    "mass_1e308": (_set(["parts", "holder", "mass"], _quantity(1e308, "kg")), "part.mass",
                   "parts.holder.mass"),
    "mass_past": (_set(["parts", "holder", "mass"], _quantity(2e9, "kg")), "part.mass", "parts.holder.mass"),
    "density_1e308": (_set(["parts", "holder", "density"], _quantity(1e308, "kg/m3")), "part.mass",
                      "parts.holder.density"),
    "remanence_1e308": (_set(["magnets", "m1", "remanence"], _quantity(1e308, "T")), "magnet.remanence",
                        "magnets.m1.remanence"),
    "rotor_inertia_1e308": (_set(["chain", 1, "inertia"], _quantity(1e308, "kg m2")), "chain.motor",
                            "chain.motor.inertia"),
    "armature_1e308": (_set(["chain", 0, "armature", "joint_6"], _quantity(1e308, "kg m2")),
                       "chain.armature", "chain.arm.armature.joint_6"),
    "mesh_scale_1e300": (_set(["parts", "holder", "geometry"], {"type": "mesh", "path": "meshes/base.stl",
                                                                "scale": [1e300, 1.0, 1.0]}),
                         "part.geometry", "parts.holder.geometry"),
    "orientation_1e308": (_set(["chain", 0, "orientation", "wxyz"], [1e308, 0.0, 0.0, 0.0]),
                          "chain.placement", "chain.arm.orientation"),
}


@pytest.mark.parametrize("case", sorted(RIG_REFUSED))
def test_rig_values_that_would_overflow_are_findings_in_validate_report_and_export(tmp_path, case):
    edit, code, where = RIG_REFUSED[case]
    path = rig_with(tmp_path, edit)
    findings = [(f.code, f.where) for f in load(path).validate()]
    assert (code, where) in findings, findings
    for argv in (("validate", path), ("report", path), ("report", path, "--json"),
                 ("export", path, "--python", tmp_path / "o.py"),
                 ("export", path, "--json", tmp_path / "o.json")):
        status, out, err = cli(*argv)
        assert status == 1 and "Traceback" not in err, (argv, err)
        assert (code, where) in [(m["code"], m["where"]) for m in error_lines(out)]
    assert not (tmp_path / "o.py").exists() and not (tmp_path / "o.json").exists()


def test_an_extreme_motor_position_is_accepted_and_reports_finite_json(tmp_path):
    """A continuous joint has no limits: 1e308 rad is a finite angle, its sine and cosine are too."""
    path = rig_with(tmp_path, _set(["chain", 1, "initial_position", "value"], 1e308))
    status, out, _ = cli("validate", path)
    assert status == 0, out
    status, out, _ = cli("report", path, "--json")
    assert status == 0 and _strict_json(out)["totals"]
