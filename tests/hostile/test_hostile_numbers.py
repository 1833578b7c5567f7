"""Extreme numbers: every value a reader accepts is one every later stage can use.

Finite values that overflow further on (origins of 1e308 m added, a radius of 1e300 m cubed, mimic
multipliers folded past 1e308, masses summed) are refused at the reader (``urdf.magnitude``) or by the rig
rules (``part.*``, ``chain.*``) — never an ``inf``, a ``NaN`` or a traceback later. What is accepted compiles
to finite arrays and prints as strict JSON.

Command files and command-line options read their numbers through the same parser (plain ASCII digits, no
``_``) and bound them: times and steps within ``MAX_TIME``, sub-steps within ``MAX_SUBSTEPS``, a ``--probe``
point within the bound a rig file's probe has.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hostile_corpus import DEMO, LIMIT, cli, error_lines, one_error, rig_with, robot, two_links, write

from mime_gui.cli.main import SUBCOMMANDS
from mime_gui.cli.play import count, number
from mime_gui.field import FieldError, probe_points
from mime_gui.multibody import UrdfError, frame_poses, read_urdf
from mime_gui.multibody.magnitudes import MAX_INERTIA, MAX_LENGTH, MAX_MASS, parse_float, parse_int
from mime_gui.nodes.commands import MAX_TIME, CommandFileError, read_commands
from mime_gui.nodes.dynamic import MAX_SUBSTEPS
from mime_gui.rig import Probe, load

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
    "mass_arabic_indic": (two_links(link_b=inertial(mass="\u0663")), "urdf.value"),
    "origin_fullwidth": (two_links('<origin xyz="\uff11 0 0" rpy="0 0 0"/>'), "urdf.value"),
    "rpy_devanagari": (two_links('<origin xyz="0 0 0" rpy="0 0 \u0967"/>'), "urdf.value"),
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


# -- command files and options: the one parser --------------------------------------------------------------
#: numbers Python's float() reads although a file or an option should not hold them: Arabic-Indic, fullwidth,
#: Devanagari and mathematical bold digits, and a number ending in a no-break space
ARM = DEMO / "arm.urdf"
OTHER_SCRIPTS = ["\u0663", "\uff13", "\u0967\u0968", "1.\u0665", "\U0001d7d1", "-\uff12e\uff11", "2\u00a0"]


def code_points(value) -> str:
    """A test id naming each character outside printable ASCII by its code point (``1.U+0665``). Not
    ``ascii``: its backslashes are escaped once more at each collection in one process, so such an id is not
    found on the command line after a first collection."""
    return "".join(c if c.isascii() and c.isprintable() else f"U+{ord(c):04X}" for c in str(value))


@pytest.mark.parametrize("text", OTHER_SCRIPTS, ids=code_points)
def test_the_one_parser_refuses_what_is_not_plain_ascii(text):
    float(text)  # Python takes it: the parser is what refuses
    with pytest.raises(ValueError, match="ASCII"):
        parse_float(text)
    with pytest.raises(ValueError):
        parse_int(text)
    assert parse_int("12") == 12 and parse_int(" -3 ") == -3 and parse_float("-2e1") == -20.0
    with pytest.raises(ValueError):
        parse_int("1_0")


@pytest.mark.parametrize("row, column", [("\u0663,0", 1), ("1,\uff13", 2), ("1,-0.\u0665", 2),
                                         ("\U0001d7d1,1", 1), ("1_0,0", 1), ("1,1_0", 2)], ids=code_points)
def test_a_command_file_number_in_another_script_is_refused_as_grouped_digits_are(tmp_path, row, column):
    path = write(tmp_path, "c.csv", f"time,joint_1\n0,0\n{row}\n")
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert (info.value.code, info.value.line) == ("commands.format", 3)
    assert info.value.message.startswith(f"column {column} (") and "is not a number (" in info.value.message
    status, out, err = cli("play", ARM, "--commands", path, "--out", tmp_path / "o.npz")
    assert status == 2 and out == "" and not (tmp_path / "o.npz").exists()
    m = one_error(err)
    assert (m["code"], m["where"]) == ("commands.format", f"{path}:3")


def test_an_option_in_another_script_is_a_usage_error(tmp_path):
    for option, text in (("--dt", "\uff10.1"), ("--servo-tau", "\u0660"), ("--substeps", "\u0662")):
        status, out, err = cli("play", ARM, "--commands", DEMO / "wave.csv", option, text,
                               "--out", tmp_path / "o.npz")
        assert status == 2 and f"argument {option}: invalid" in err and "Traceback" not in err, (option, err)
    assert not (tmp_path / "o.npz").exists()


# -- times: bounded, so no step time overflows -----------------------------------------------------------
TIME_REFUSED = {  # id -> (text, line)
    "1e308_last": ("time,joint_1\n0,0\n1e308,1\n", 3),
    "just_past_the_bound": ("time,joint_1\n0,0\n1000000000.000001,1\n", 3),
    "just_below_minus_the_bound": ("# t\ntime,joint_1\n-1000000000.000001,0\n0,1\n", 3),
    "one_sample_far": ("time,joint_1\n-1e300,0\n", 2),
}


@pytest.mark.parametrize("case", sorted(TIME_REFUSED))
def test_a_time_beyond_the_bound_is_refused_at_its_line(tmp_path, case):
    text, line = TIME_REFUSED[case]
    path = write(tmp_path, "t.csv", text)
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert (info.value.code, info.value.line) == ("commands.time-range", line)
    assert f"±{MAX_TIME:g} s" in info.value.message
    status, _, err = cli("play", ARM, "--commands", path, "--dt", "0.5", "--out", tmp_path / "o.npz")
    assert status == 2 and not (tmp_path / "o.npz").exists()
    assert (one_error(err)["code"], one_error(err)["where"]) == ("commands.time-range", f"{path}:{line}")


@pytest.mark.parametrize("time, row", [([0.0, 1e308], 1), ([-2e9, 0.0], 0), ([0.0, 1.0, 1.5e9], 2)])
def test_an_npz_time_beyond_the_bound_is_refused_with_its_row(tmp_path, time, row):
    path = tmp_path / "t.npz"
    np.savez(path, time=np.array(time), joint_positions=np.zeros((len(time), 1)),
             joint_names=np.array(["joint_1"]))
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    assert info.value.code == "commands.time-range" and info.value.message.startswith(f"row {row}: ")


@pytest.mark.parametrize("start", [MAX_TIME - 1.0, -MAX_TIME])
def test_times_at_the_bound_play_to_finite_step_times(tmp_path, start):
    path = write(tmp_path, "edge.csv", f"time,joint_1\n{start!r},0\n{start + 1.0!r},1\n")
    out = tmp_path / "o.npz"
    status, _, err = cli("play", ARM, "--commands", path, "--out", out, "--quiet")
    assert status == 0, err
    # two samples 1 s apart: two steps of 1 s, each row at the end of its step
    assert np.load(out)["time"].tolist() == [start + 1.0, start + 2.0]


def test_the_step_is_bounded_too(tmp_path):
    path = write(tmp_path, "two.csv", "time,joint_1\n0,0\n1,1\n")
    out = tmp_path / "o.npz"
    status, _, err = cli("play", ARM, "--commands", path, "--dt", repr(MAX_TIME), "--out", out,
                         "--quiet")
    assert status == 0, err
    assert np.load(out)["time"].tolist() == [MAX_TIME]  # one step, ending one step after the start
    recorded = read_commands(path)
    for dt in (MAX_TIME * (1 + 1e-15), 1e300):
        with pytest.raises(CommandFileError) as info:
            recorded.step_count(dt)
        assert info.value.code == "commands.dt" and f"{MAX_TIME:g}" in info.value.message


# -- every number option of every subcommand: a value too large is one coded line, exit 2 ------------------
HUGE = "99999999999999999999999"
#: (subcommand, option) -> (value, code); every option typed as a number must be here
OPTION_REFUSED = {
    ("play", "--dt"): (HUGE, "play.dt"),
    ("play", "--servo-tau"): (HUGE, "play.servo-tau"),
    ("play", "--substeps"): (HUGE, "play.substeps"),
    ("field", "--dt"): (HUGE, "field.dt"),
    ("field", "--servo-tau"): (HUGE, "field.servo-tau"),
    ("export", "--hold"): (HUGE, "export.hold"),
    ("export", "--dt"): (HUGE, "export.dt"),
    ("trajectory", "--dt"): (HUGE, "trajectory.dt"),
    ("plan", "--frequency"): (HUGE, "plan.option"),
    ("plan", "--tolerance"): (HUGE, "plan.option"),
    ("plan", "--low"): (HUGE, "plan.option"),
    ("plan", "--high"): (HUGE, "plan.option"),
    ("plan", "--ellipticity"): (HUGE, "plan.option"),
    ("plan", "--max-gradient"): (HUGE, "plan.option"),
    ("plan", "--max-force"): (HUGE, "plan.option"),
    ("plan", "--starts"): (HUGE, "plan.option"),
    ("plan", "--seed"): (HUGE, "plan.option"),
    ("plan", "--dt"): (HUGE, "plan.option"),
    ("plan", "--workers"): (HUGE, "sweep.workers"),
    ("sweep", "--dt"): (HUGE, "sweep.dt"),
    ("sweep", "--servo-tau"): (HUGE, "sweep.servo-tau"),
    ("sweep", "--workers"): (HUGE, "sweep.workers"),
}
MORE_REFUSED = [("play", "--substeps", "-" + HUGE, "play.substeps"),
                ("play", "--substeps", repr(MAX_SUBSTEPS + 1), "play.substeps"),
                ("play", "--dt", "1e400", "play.dt"),
                ("field", "--probe", f"{HUGE},0,0", "field.probe"),
                ("field", "--probe", "0,-1e300,0", "field.probe"),
                ("plan", "--starts", "0", "plan.option"),
                ("plan", "--seed", "-1", "plan.option"),
                ("plan", "--tolerance", "nan", "plan.option"),
                ("plan", "--max-gradient", "0", "plan.option"),
                ("plan", "--max-gradient", "-1", "plan.option"),
                ("plan", "--max-force", "inf", "plan.option"),
                ("plan", "--direction", "0,0,1e400", "target.direction"),
                ("plan", "--direction", "0,0,0", "target.direction"),
                ("sweep", "--workers", "-" + HUGE, "sweep.workers")]


def _typed_options():
    """(subcommand, option, type) of every option the parsers type, read from the parsers themselves."""
    import argparse
    import importlib

    for name, (module, _) in SUBCOMMANDS.items():
        parser = argparse.ArgumentParser()
        importlib.import_module(f"mime_gui.cli.{module}").add_arguments(parser, name)
        for action in parser._actions:
            if action.type is not None:
                yield name, action.option_strings[0], action.type


def test_every_number_option_reads_through_the_one_parser_and_has_a_hostile_case():
    typed = list(_typed_options())
    assert {t for _, _, t in typed} <= {number, count}, typed  # never int or float: they take 1_0 and ٣
    assert {(n, o) for n, o, _ in typed} == set(OPTION_REFUSED)


@pytest.mark.parametrize("command, option, value, code",
                         [(*key, *value) for key, value in OPTION_REFUSED.items()] + MORE_REFUSED)
def test_a_number_option_too_large_is_one_coded_line_at_the_option(tmp_path, command, option, value, code):
    target = ARM if command == "play" else DEMO / "demo.rig.json"
    if command == "export":  # export refuses on its output with exit status 1, as it refuses a rig
        out = tmp_path / "o.csv"
        status, stdout, err = cli(command, target, "--commands", out, f"{option}={value}")
        assert status == 1 and err == "" and not out.exists()
        m = one_error(stdout)
        assert (m["code"], m["where"]) == (code, option), stdout
        return
    if command == "trajectory":  # refused on its option as export is: exit status 1, nothing written
        out = tmp_path / "o.npz"
        status, stdout, err = cli(command, target, "spin 5 Hz", f"{option}={value}", "--out", out)
        assert status == 1 and err == "" and not out.exists()
        m = one_error(stdout)
        assert (m["code"], m["where"]) == (code, option), stdout
        return
    if command == "plan":  # a usage error as play's: exit status 2, one line on stderr, nothing written
        out = tmp_path / "o.csv"
        kind = [] if option == "--direction" else \
            ["--axis", "0,0,1"] + (["--frequency", "5"] if option != "--frequency" else [])
        status, stdout, err = cli(command, target, "--at", "probes.sample", *kind, f"{option}={value}",
                                  "--out", out)
        assert status == 2 and stdout == "" and not out.exists(), (stdout, err)
        m = one_error(err)
        assert (m["code"], m["where"]) == (code, "direction" if code.startswith("target.") else option), err
        return
    out = tmp_path / ("o.csv" if command == "sweep" else "o.npz")
    varied = ("--vary", "parts.holder.geometry.radius=0.01") if command == "sweep" else ()
    status, stdout, err = cli(command, target, *varied, "--commands", DEMO / "wave.csv", f"{option}={value}",
                              "--out", out)
    assert status == 2 and stdout == "" and not out.exists()
    m = one_error(err)
    assert (m["code"], m["where"]) == (code, option), err


def test_the_largest_substeps_option_is_taken(tmp_path):
    """At the bound the option passes; a kinematic arm has no sub-steps to make, so it plays."""
    out = tmp_path / "o.npz"
    status, _, err = cli("play", ARM, "--commands", DEMO / "wave.csv", "--substeps", str(MAX_SUBSTEPS),
                         "--out", out, "--quiet")
    assert status == 0 and out.exists(), err


# -- a --probe point: the bound of a rig file's probe ------------------------------------------------------
@pytest.mark.parametrize("value", [MAX_LENGTH, -MAX_LENGTH, MAX_LENGTH + 1e-9, -1e7, 1e154, 1e300])
def test_a_probe_point_is_refused_exactly_where_a_rig_file_probe_is(tmp_path, value):
    rig = load(DEMO / "demo.rig.json")
    rig.probes = {"far": Probe((0.1, value, 0.0))}
    rule_refuses = "probe.placement" in {f.code for f in rig.validate()}
    assert rule_refuses == (abs(value) > MAX_LENGTH)  # the rig file's bound, as documented
    out = tmp_path / "f.npz"
    status, _, err = cli("field", DEMO / "demo.rig.json", "--commands", DEMO / "wave.csv",
                         "--probe", f"0.1,{value!r},0", "--out", out, "--quiet")
    if rule_refuses:
        assert status == 2 and not out.exists()
        assert (one_error(err)["code"], one_error(err)["where"]) == ("field.probe", "--probe")
    else:
        assert status == 0, err
        assert np.all(np.isfinite(np.load(out)["B"]))
    built = load(DEMO / "demo.rig.json").build()
    if rule_refuses:
        with pytest.raises(FieldError) as info:
            probe_points(built, {"far": (0.1, value, 0.0)})
        assert (info.value.code, info.value.file) == ("field.probe", "probes.far.at")
    else:
        assert list(probe_points(built, {"far": (0.1, value, 0.0)})) == ["far"]
