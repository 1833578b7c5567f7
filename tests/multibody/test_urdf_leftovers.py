"""What processed URDFs written by others carry: a leftover xacro substitution in a joint's ``<origin>`` (the
joint and the links it places are left out, with a coded error; elsewhere it still refuses the file), and
vectors written with commas (read, with a coded warning; refused when strict).

The independent route is Pinocchio (urdfdom): on the file with the left-out joint and links deleted by hand,
and on the file with spaces for commas. Pinocchio refuses both original files, which the tests check too."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mime_gui.cli import main
from mime_gui.multibody import DynamicsError, UrdfError, frame_poses, mass_matrix, read_urdf

pin = pytest.importorskip("pinocchio")

INERTIA = '<inertia ixx="{i}" ixy="0" ixz="0" iyy="{i}" iyz="0" izz="{i}"/>'


def _link(name: str, mass: float = 0.0) -> str:
    if not mass:
        return f'  <link name="{name}"/>\n'
    return (f'  <link name="{name}"><inertial><origin xyz="0.01 0.02 -0.05"/><mass value="{mass}"/>'
            f'{INERTIA.format(i=0.01 * mass)}</inertial></link>\n')


def _revolute(name: str, parent: str, child: str, xyz: str, axis: str = "0 1 0") -> str:
    return (f'  <joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>\n'
            f'    <origin xyz="{xyz}" rpy="0.1 0 0.2"/><axis xyz="{axis}"/>'
            '<limit lower="-2" upper="2" effort="30" velocity="10"/></joint>\n')


def _fixed(name: str, parent: str, child: str, xyz: str, rpy: str = "0 0 0") -> str:
    return (f'  <joint name="{name}" type="fixed"><parent link="{parent}"/><child link="{child}"/>\n'
            f'    <origin xyz="{xyz}" rpy="{rpy}"/></joint>\n')


def quadruped_leg(imu_xyz: str = "-0.02 0 0.05", imu_mass: float = 0.0, knee_xyz: str = "0 0 -0.2",
                  knee_axis: str = "0 1 0") -> str:
    """A trunk with one leg (hip, knee: thigh, calf, foot) and an IMU link on a leaf fixed joint."""
    return ('<?xml version="1.0"?>\n<robot name="quadruped">\n'
            + _link("trunk", 4.0) + _link("thigh", 1.0) + _link("calf", 0.5) + _link("foot", 0.1)
            + _link("imu_link", imu_mass)
            + _revolute("hip", "trunk", "thigh", "0.18 -0.05 0")
            + _revolute("knee", "thigh", "calf", knee_xyz, knee_axis)
            + _fixed("foot_fixed", "calf", "foot", "0 0 -0.2")
            + _fixed("imu_joint", "trunk", "imu_link", imu_xyz)
            + "</robot>\n")


def _line_of(text: str, needle: str) -> int:
    (line,) = [n for n, row in enumerate(text.splitlines(), 1) if needle in row]
    return line


def _without(text: str, joints: set[str], links: set[str]) -> str:
    """The URDF with these joints and links deleted (the independent description of what should load)."""
    root = ET.fromstring(text.split("?>", 1)[1])
    for element in list(root):
        if (element.tag == "joint" and element.get("name") in joints) or \
                (element.tag == "link" and element.get("name") in links):
            root.remove(element)
    return ET.tostring(root, encoding="unicode")


def _assert_same_as_pinocchio(tree, reference_urdf: str) -> None:
    """Every frame's pose (and, when the dynamics are not blocked, the mass matrix) at random
    configurations, against Pinocchio reading ``reference_urdf``."""
    model = pin.buildModelFromXML(reference_urdf)
    data = model.createData()
    art = tree.compile()
    assert model.nq == art.nq and sorted(art.frame_names) == sorted(
        f.name for f in model.frames if f.type == pin.FrameType.BODY)
    fids = [model.getFrameId(name, pin.FrameType.BODY) for name in art.frame_names]
    order = [model.getJointId(name) - 1 for name in art.joint_names]  # our joint order in Pinocchio's q
    for q in np.random.default_rng(3).uniform(-2, 2, (4, art.nq)):
        pq = np.zeros(model.nq)
        pq[order] = q
        pin.framesForwardKinematics(model, data, pq)
        ref = np.array([data.oMf[f].homogeneous for f in fids])
        np.testing.assert_allclose(frame_poses(art, q), ref, atol=1e-12)
        if not art.dynamics_errors:
            M = pin.crba(model, data, pq)
            M = np.triu(M) + np.triu(M, 1).T
            np.testing.assert_allclose(mass_matrix(art, q), M[np.ix_(order, order)], atol=1e-12)


# -- a leftover xacro substitution in a joint's <origin> --------------------------------------------------

@pytest.mark.parametrize("value", ["$(optenv IMU_XYZ -0.02 0 0.05)", "${imu_x} 0 0.05",
                                   "-0.02 $(arg y) 0.05"])
def test_a_leaf_fixed_joint_with_a_substitution_leaves_out_only_itself_and_its_link(value):
    text = quadruped_leg(imu_xyz=value)
    with pytest.raises(ValueError):
        pin.buildModelFromXML(text)  # urdfdom refuses the whole file
    tree = read_urdf(text)
    assert "imu_link" not in tree.links and "imu_joint" not in tree.joints
    assert list(tree.links) == ["trunk", "thigh", "calf", "foot"]
    (error,) = tree.report.errors
    assert (error.code, error.line, error.blocks) == ("urdf.xacro", _line_of(text, value), "frames")
    assert f"xyz={value!r}" in error.message and "'imu_joint'" in error.message
    assert "'imu_link'" in error.message and "left out" in error.message
    assert "Write the numbers" in error.message
    assert "run xacro on the source with its arguments or environment variables set" in error.message
    assert str(error).startswith(f"urdf.xacro <string>:{error.line}: ")
    assert tree.report.blocked("frames") == [error] and not tree.report.blocked("dynamics")
    # the rest of the robot is the robot without the IMU, kinematics and dynamics alike
    _assert_same_as_pinocchio(tree, _without(text, {"imu_joint"}, {"imu_link"}))
    with pytest.raises(UrdfError) as refused:
        read_urdf(text, strict=True)
    assert (refused.value.code, refused.value.line) == ("urdf.xacro", error.line)


def test_a_substitution_in_an_origins_rpy_is_confined_the_same_way():
    text = quadruped_leg().replace('<child link="imu_link"/>\n    <origin xyz="-0.02 0 0.05" rpy="0 0 0"/>',
                                   '<child link="imu_link"/>\n    <origin xyz="-0.02 0 0.05" '
                                   'rpy="0 0 $(arg imu_yaw)"/>')
    tree = read_urdf(text)
    (error,) = tree.report.errors
    assert (error.code, error.line) == ("urdf.xacro", _line_of(text, "$(arg imu_yaw)"))
    assert "rpy='0 0 $(arg imu_yaw)'" in error.message
    assert "imu_link" not in tree.links


def test_links_left_out_with_mass_block_the_dynamics_and_not_the_kinematics():
    text = quadruped_leg(imu_xyz="$(optenv IMU_XYZ 0 0 0)", imu_mass=0.25)
    tree = read_urdf(text)
    placed, mass = tree.report.errors
    line = _line_of(text, "$(optenv")
    assert (placed.code, placed.line, placed.blocks) == ("urdf.xacro", line, "frames")
    assert (mass.code, mass.line, mass.blocks) == ("urdf.xacro", line, "dynamics")
    assert "0.25 kg" in mass.message and "'trunk'" in mass.message
    art = tree.compile()
    assert len(art.dynamics_errors) == 1 and f"<string>:{line}" in art.dynamics_errors[0]
    with pytest.raises(DynamicsError):
        mass_matrix(art, np.zeros(art.nq))
    _assert_same_as_pinocchio(tree, _without(text, {"imu_joint"}, {"imu_link"}))  # kinematics only
    # the trunk's own mass properties are kept as written, only marked
    assert tree.links["trunk"].inertial.mass == 4.0


def test_a_movable_joints_origin_leaves_out_the_chain_below_it():
    text = quadruped_leg(knee_xyz="0 0 ${-thigh_length}")
    tree = read_urdf(text)
    error, mass = tree.report.errors
    line = _line_of(text, "${-thigh_length}")
    assert (error.code, error.line, error.blocks) == ("urdf.xacro", line, "frames")
    assert "revolute joint 'knee'" in error.message and "('calf', 'foot')" in error.message
    assert list(tree.joints) == ["hip", "imu_joint"] and list(tree.links) == ["trunk", "thigh", "imu_link"]
    # the calf and foot carried 0.6 kg: the articulation's dynamics are blocked, its kinematics not
    assert (mass.code, mass.line, mass.blocks) == ("urdf.xacro", line, "dynamics")
    assert "0.6 kg" in mass.message and "'thigh'" in mass.message
    _assert_same_as_pinocchio(tree, _without(text, {"knee", "foot_fixed"}, {"calf", "foot"}))


def test_a_substitution_below_a_joint_already_left_out_is_reported_too():
    text = quadruped_leg(knee_xyz="0 0 $(arg l)").replace('<origin xyz="0 0 -0.2" rpy="0 0 0"/>',
                                                           '<origin xyz="0 0 $(arg f)" rpy="0 0 0"/>')
    tree = read_urdf(text)
    frames = tree.report.blocked("frames")
    assert [e.line for e in frames] == [_line_of(text, "$(arg l)"), _line_of(text, "$(arg f)")]
    assert "foot_fixed" in frames[1].message
    assert list(tree.links) == ["trunk", "thigh", "imu_link"]


def test_a_mimic_of_a_joint_left_out_moves_on_its_own():
    text = quadruped_leg(knee_xyz="0 0 $(arg l)").replace(
        "</robot>", '  <link name="toe"/>\n  <joint name="toe_joint" type="revolute"><parent link="trunk"/>'
        '<child link="toe"/><axis xyz="1 0 0"/><limit lower="-1" upper="1"/><mimic joint="knee"/></joint>\n'
        "</robot>")
    tree = read_urdf(text)
    assert tree.joints["toe_joint"].mimic is None
    assert [e.blocks for e in tree.report.errors] == ["frames", "dynamics", "mimic"]


@pytest.mark.parametrize(("where", "needle"), [
    ("axis", '<axis xyz="0 $(arg dir) 0"/>'),  # a movable joint's axis in the middle of the chain
    ("limit", '<limit lower="${-pi}" upper="2" effort="30" velocity="10"/>'),
    ("inertial", '<mass value="$(arg m)"/>'),
    ("name", '<joint name="$(arg prefix)knee"'),
])
def test_a_substitution_anywhere_else_still_refuses_the_file(where, needle):
    text = quadruped_leg()
    original = {"axis": '<axis xyz="0 1 0"/>', "inertial": '<mass value="1.0"/>',
                "name": '<joint name="knee"',
                "limit": '<limit lower="-2" upper="2" effort="30" velocity="10"/>'}[where]
    text = text.replace(original, needle, 1) if where != "axis" else \
        text.replace('<child link="calf"/>\n    <origin xyz="0 0 -0.2" rpy="0.1 0 0.2"/><axis xyz="0 1 0"/>',
                     f'<child link="calf"/>\n    <origin xyz="0 0 -0.2" rpy="0.1 0 0.2"/>{needle}')
    assert needle in text
    with pytest.raises(UrdfError) as refused:
        read_urdf(text)
    assert (refused.value.code, refused.value.line) == ("urdf.xacro", _line_of(text, needle))


def test_a_joints_second_origin_with_a_substitution_is_refused():
    text = quadruped_leg().replace('"-0.02 0 0.05" rpy="0 0 0"/>',
                                   '"-0.02 0 0.05" rpy="0 0 0"/><origin xyz="$(arg x) 0 0"/>')
    with pytest.raises(UrdfError) as refused:
        read_urdf(text)
    assert (refused.value.code, refused.value.line) == ("urdf.xacro", _line_of(text, "$(arg x)"))


def test_inspect_lists_the_joint_left_out_and_strict_refuses_it(tmp_path, capsys):
    path = tmp_path / "quadruped.urdf"
    path.write_text(quadruped_leg(imu_xyz="$(optenv IMU_XYZ 0 0 0)"))
    line = _line_of(path.read_text(), "$(optenv")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    (row,) = [r for r in out.splitlines() if r.strip().startswith("error[urdf.xacro]")]
    assert f"{path}:{line}:" in row and row.endswith("[blocks frames]") and "imu_joint" in row
    assert "imu_link" not in out.split("tree\n", 1)[1].split("\n\n", 1)[0]  # not in the outline
    assert main(["inspect", str(path), "--strict"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error[urdf.xacro] {path}:{line}: ")


# -- vectors written with commas ---------------------------------------------------------------------------

COMMAS = quadruped_leg().replace('<origin xyz="0.18 -0.05 0" rpy="0.1 0 0.2"/>',
                                 '<origin xyz="0.07, 0, -0.69" rpy="0.1,0,0.2"/>') \
    .replace('<origin xyz="0 0 -0.2" rpy="0.1 0 0.2"/><axis xyz="0 1 0"/>',
             '<origin xyz="0,0,-0.2" rpy="0.1 0 0.2"/><axis xyz="0, 1, 0"/>')


def test_vectors_written_with_commas_are_read_with_a_coded_warning():
    with pytest.raises(ValueError):
        pin.buildModelFromXML(COMMAS)  # urdfdom refuses them
    tree = read_urdf(COMMAS)
    assert not tree.report.errors
    commas = [w for w in tree.report.warnings if w.code == "urdf.comma"]
    hip, knee = _line_of(COMMAS, "0.07, 0, -0.69"), _line_of(COMMAS, "0,0,-0.2")
    # one warning per element and attribute kind, at its first line, naming the others and the fix
    assert [(w.line, w.message.split(" separates")[0]) for w in commas] == [
        (hip, "xyz='0.07, 0, -0.69' of <origin>"), (hip, "rpy='0.1,0,0.2' of <origin>"),
        (knee, "xyz='0, 1, 0' of <axis>")]
    xyz = commas[0].message
    assert f"1 more <origin xyz=...> so written, line {knee}" in xyz
    assert 'separate them with spaces (xyz="0.07 0 -0.69")' in xyz and "Pinocchio" in xyz
    assert "more" not in commas[1].message and 'xyz="0 1 0"' in commas[2].message
    # read as the numbers they separate: the same robot as with spaces, by Pinocchio
    spaced = COMMAS.replace(", ", " ").replace(",", " ")
    _assert_same_as_pinocchio(tree, spaced)
    assert tree.joints["hip"].parent_X_joint[:3, 3] == pytest.approx([0.07, 0, -0.69])


def test_commas_in_sizes_scales_and_colours_are_read_too():
    text = ('<robot name="r"><material name="red"><color rgba="1, 0, 0, 1"/></material>\n'
            '<link name="a"><visual><geometry><box size="0.1,0.2,0.3"/></geometry>\n'
            '<material name="blue"><color rgba="0,0,1,1"/></material></visual>\n'
            '<visual><geometry><mesh filename="m.stl" scale="0.001,0.001,0.001"/></geometry>\n'
            '<material name="red"/></visual></link>\n'
            '<link name="b"><visual><geometry><sphere radius="0.1"/></geometry><material name="blue"/>'
            '</visual></link>\n'
            '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
    tree = read_urdf(text)
    box, mesh = tree.links["a"].visuals
    assert box.geometry.size == (0.1, 0.2, 0.3) and mesh.geometry.scale == (0.001, 0.001, 0.001)
    assert box.rgba == (0.0, 0.0, 1.0, 1.0) and mesh.rgba == (1.0, 0.0, 0.0, 1.0)
    assert tree.links["b"].visuals[0].rgba == (0.0, 0.0, 1.0, 1.0)  # a named colour declared with commas
    lines = {w.message.split("=")[0]: w.line for w in tree.report.warnings if w.code == "urdf.comma"}
    assert lines == {"rgba": 1, "size": 2, "scale": 4}
    with pytest.raises(UrdfError) as refused:
        read_urdf(text, strict=True)
    assert refused.value.code == "urdf.comma" and "spaces" in refused.value.message


@pytest.mark.parametrize("others, listed", [(1, "line 4)"), (5, "lines 4, 5, 6, 7, 8)"),
                                             (6, "lines 4, 5, 6, 7, 8 …)")], ids=["one", "five", "six"])
def test_the_comma_warning_lists_five_other_lines_at_most_and_marks_the_rest(others, listed):
    # line 1 <robot>, 2 the links, 3 the first joint written with commas, 4 on the others
    n = others + 1
    text = ('<robot name="r">\n' + "".join(f'<link name="l{i}"/>' for i in range(n + 1)) + "\n"
            + "".join(f'<joint name="j{i}" type="fixed"><parent link="l{i}"/><child link="l{i + 1}"/>'
                      f'<origin xyz="0,0,{i}"/></joint>\n' for i in range(n)) + "</robot>")
    (w,) = [w for w in read_urdf(text).report.warnings if w.code == "urdf.comma"]
    assert w.line == 3
    assert f"(and {others} more <origin xyz=...> so written, {listed};" in w.message


def test_inspect_shows_the_comma_warning_and_strict_refuses_it(tmp_path, capsys):
    path = tmp_path / "commas.urdf"
    path.write_text(COMMAS)
    line = _line_of(COMMAS, "0.07, 0, -0.69")
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"  warning[urdf.comma] {path}:{line}: xyz='0.07, 0, -0.69' of <origin>" in out
    assert main(["inspect", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert {(w["code"], w["line"]) for w in summary["warnings"]} >= {("urdf.comma", line)}
    assert not summary["errors"]
    assert main(["inspect", str(path), "--strict"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error[urdf.comma] {path}:{line}: ") and 'xyz="0.07 0 -0.69"' in err
