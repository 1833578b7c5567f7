"""What the reader keeps from a valid description: joints, limits, mimic, geometry, materials, mesh URIs,
the accounting of every kind, and the tolerance for what real files carry."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from plain_ids import plain_id

from mime_gui.multibody import PRISMATIC, REVOLUTE, read_urdf
from mime_gui.multibody.report import IGNORED, REFUSED, USED
from mime_gui.multibody.tree import Box, Cylinder, Mesh, Sphere
from mime_gui.multibody.urdf import principal_moments

ARM = """<?xml version="1.0"?>
<robot name="arm">
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <visual><geometry><box size="0.1 0.2 0.3"/></geometry><material name="blue"/></visual>
    <collision><geometry><cylinder radius="0.05" length="0.4"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial>
      <origin xyz="0 0 0.2" rpy="0 0 0"/>
      <mass value="1.5"/>
      <inertia ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.001"/>
    </inertial>
    <visual>
      <origin xyz="0 0 0.2" rpy="0 1.5707963267948966 0"/>
      <geometry><sphere radius="0.05"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material>
    </visual>
  </link>
  <link name="tool"/>
  <link name="slider"/>
  <link name="wheel"/>
  <link name="follower"/>
  <joint name="shoulder" type="revolute">
    <origin xyz="0 0 0.1" rpy="0 0 0"/>
    <parent link="base"/><child link="upper"/>
    <axis xyz="0 0 2"/>
    <limit lower="-1.5" upper="2.0" effort="40" velocity="2.5"/>
    <dynamics damping="0.7" friction="0.3"/>
    <safety_controller k_velocity="10" soft_lower_limit="-1.4" soft_upper_limit="1.9"/>
  </joint>
  <joint name="flange" type="fixed">
    <origin xyz="0 0 0.4" rpy="0 0 0"/>
    <parent link="upper"/><child link="tool"/>
  </joint>
  <joint name="rail" type="prismatic">
    <origin xyz="0.1 0 0" rpy="0 0 0"/>
    <parent link="tool"/><child link="slider"/>
    <axis xyz="1 0 0"/>
    <limit lower="0" upper="0.3" effort="100" velocity="0.5"/>
  </joint>
  <joint name="spin" type="continuous">
    <parent link="slider"/><child link="wheel"/>
    <axis xyz="0 1 0"/>
    <limit effort="3" velocity="10"/>
  </joint>
  <joint name="copy" type="revolute">
    <parent link="slider"/><child link="follower"/>
    <axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>
    <mimic joint="shoulder" multiplier="-2" offset="0.1"/>
  </joint>
  <transmission name="shoulder_trans">
    <type>transmission_interface/SimpleTransmission</type>
    <joint name="shoulder"><hardwareInterface>EffortJointInterface</hardwareInterface></joint>
    <actuator name="shoulder_motor"><mechanicalReduction>100</mechanicalReduction></actuator>
  </transmission>
  <gazebo reference="base"><material>Gazebo/Blue</material></gazebo>
  <gazebo reference="upper"><material>Gazebo/Red</material></gazebo>
</robot>
"""


def _lines_of(text: str, needle: str) -> list[int]:
    return [i for i, line in enumerate(text.splitlines(), 1) if needle in line]


def test_joints_limits_dynamics_mimic():
    tree = read_urdf(ARM)
    assert tree.name == "arm" and tree.root == "base"
    j = tree.joints["shoulder"]
    assert j.type == "revolute"
    np.testing.assert_allclose(j.axis, [0, 0, 1])  # normalised
    assert (j.limit.lower, j.limit.upper, j.limit.effort, j.limit.velocity) == (-1.5, 2.0, 40, 2.5)
    assert (j.damping, j.friction, j.armature) == (0.7, 0.3, 0.0)
    assert [j.line] == _lines_of(ARM, '<joint name="shoulder" type')
    assert [tree.links["upper"].line] == _lines_of(ARM, '<link name="upper"')
    np.testing.assert_allclose(j.parent_X_joint[:3, 3], [0, 0, 0.1])
    spin = tree.joints["spin"]
    assert spin.limit.lower == -math.inf and spin.limit.upper == math.inf
    assert (spin.limit.effort, spin.limit.velocity) == (3, 10)
    copy = tree.joints["copy"]
    assert (copy.mimic.joint, copy.mimic.multiplier, copy.mimic.offset) == ("shoulder", -2, 0.1)
    t = tree.transmissions["shoulder_trans"]
    assert (t.joint, t.actuator, t.reduction) == ("shoulder", "shoulder_motor", 100.0)
    assert not tree.report.warnings or all(w.code == "urdf.not-used" for w in tree.report.warnings)


def test_compile_merges_fixed_joints_and_keeps_frames():
    tree = read_urdf(ARM)
    art = tree.compile()
    assert art.joint_names == ("shoulder", "rail", "spin", "copy")
    assert list(art.joint_type) == [REVOLUTE, PRISMATIC, REVOLUTE, REVOLUTE]
    assert list(art.continuous) == [False, False, True, False]
    assert art.body_names == ("base", "upper", "slider", "wheel", "follower")
    assert list(art.parent) == [-1, 0, 1, 2, 2]
    assert all(art.parent[i] < i for i in range(1, art.nbodies))
    assert set(art.frame_names) == set(tree.links)  # every link stays a frame
    tool = art.frame_index("tool")
    assert art.frame_body[tool] == art.body_index("upper")
    np.testing.assert_allclose(art.body_X_frame[tool][:3, 3], [0, 0, 0.4])
    # the rail's placement is expressed in the body it hangs from: upper, through the welded tool
    np.testing.assert_allclose(art.parent_X_joint[1][:3, 3], [0.1, 0, 0.4])
    np.testing.assert_array_equal(art.lower, [-1.5, 0, -np.inf, -3])
    np.testing.assert_array_equal(art.upper, [2.0, 0.3, np.inf, 3])
    np.testing.assert_array_equal(art.damping, [0.7, 0, 0, 0])
    np.testing.assert_array_equal(art.armature, np.zeros(4))
    assert list(art.mimic_master) == [-1, -1, -1, 0]
    assert (art.mimic_multiplier[3], art.mimic_offset[3]) == (-2, 0.1)
    assert art.mass_of_body[0] == 2 and art.mass_of_body[1] == 1.5
    np.testing.assert_allclose(art.com[1], [0, 0, 0.2])


def test_mimic_chain_is_folded_onto_the_independent_joint():
    text = """<robot name="g"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
      <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
      <joint name="j2" type="continuous"><parent link="b"/><child link="c"/>
        <mimic joint="j1" multiplier="2" offset="0.5"/></joint>
      <joint name="j3" type="continuous"><parent link="c"/><child link="d"/>
        <mimic joint="j2" multiplier="3" offset="0.25"/></joint></robot>"""
    art = read_urdf(text).compile()
    # j3 = 3 j2 + 0.25 = 3 (2 j1 + 0.5) + 0.25 = 6 j1 + 1.75
    assert list(art.mimic_master) == [-1, 0, 0]
    np.testing.assert_allclose(art.mimic_multiplier, [1, 2, 6])
    np.testing.assert_allclose(art.mimic_offset, [0, 0.5, 1.75])


def test_mimic_on_a_fixed_joint_is_recognised_and_not_used():
    text = """<robot name="g"><link name="a"/><link name="b"/><link name="c"/>
      <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
      <joint name="f" type="fixed"><parent link="b"/><child link="c"/><mimic joint="j1"/></joint>
      </robot>"""
    tree = read_urdf(text)
    assert tree.joints["f"].mimic is None
    assert [w.code for w in tree.report.warnings] == ["urdf.not-used"]
    assert "fixed joint" in tree.report.warnings[0].message


def test_revolute_without_limits_gets_the_default_and_a_warning():
    text = """<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
      <joint name="hinge" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
        <limit effort="1" velocity="1"/></joint>
      <joint name="slide" type="prismatic"><parent link="b"/><child link="c"/></joint></robot>"""
    tree = read_urdf(text)
    assert (tree.joints["hinge"].limit.lower, tree.joints["hinge"].limit.upper) == (0.0, 0.0)
    warnings = [w for w in tree.report.warnings if w.code == "urdf.limit-default"]
    assert len(warnings) == 2
    assert "continuous" in warnings[0].message and "'hinge'" in warnings[0].message
    assert "continuous" not in warnings[1].message and "'slide'" in warnings[1].message
    np.testing.assert_array_equal(tree.joints["slide"].axis, [1, 0, 0])  # the URDF default axis


def test_geometry_and_materials():
    text = """<robot name="g">
      <material name="green"><color rgba="0 1 0 1"/></material>
      <link name="a">
        <visual><geometry><mesh filename="m.stl" scale="-1 2 0.5"/></geometry>
          <material name="green"/></visual>
        <visual><geometry><mesh filename="m.stl" scale="0.001"/></geometry><material name="nowhere"/></visual>
        <visual><geometry><mesh filename="m.stl"/></geometry>
          <material name="tex"><texture filename="wood.png"/></material></visual>
        <collision><geometry><sphere radius="0.2"/></geometry></collision>
        <collision><geometry><box size="1 2 3"/></geometry></collision>
        <collision><geometry><cylinder radius="0.1" length="0.5"/></geometry></collision>
      </link></robot>"""
    tree = read_urdf(text)
    v = tree.links["a"].visuals
    assert isinstance(v[0].geometry, Mesh) and v[0].geometry.scale == (-1.0, 2.0, 0.5)
    assert v[0].rgba == (0.0, 1.0, 0.0, 1.0) and v[0].material == "green"
    assert v[1].geometry.scale == (0.001, 0.001, 0.001)
    assert v[1].rgba is None and v[2].rgba is None
    c = tree.links["a"].collisions
    assert isinstance(c[0].geometry, Sphere) and c[0].geometry.radius == 0.2
    assert isinstance(c[1].geometry, Box) and c[1].geometry.size == (1, 2, 3)
    assert isinstance(c[2].geometry, Cylinder) and (c[2].geometry.radius, c[2].geometry.length) == (0.1, 0.5)
    codes = [w.code for w in tree.report.warnings]
    assert codes.count("urdf.material") == 1  # 'nowhere'; 'tex' has a texture and no colour
    assert codes.count("urdf.mesh-unresolved") == 1  # one warning per URI, not per use
    assert "texture" in " ".join(w.message for w in tree.report.warnings if w.code == "urdf.not-used")


def test_visual_and_shape_placement():
    tree = read_urdf(ARM)
    X = tree.links["upper"].visuals[0].link_X_shape
    np.testing.assert_allclose(X[:3, 3], [0, 0, 0.2])
    np.testing.assert_allclose(X[:3, :3], [[0, 0, 1], [0, 1, 0], [-1, 0, 0]], atol=1e-15)


def test_accounting_three_groups_and_one_warning_per_kind():
    tree = read_urdf(ARM)
    report = tree.report
    used = {e.kind: e for e in report.used}
    ignored = {e.kind: e for e in report.ignored}
    assert report.refused == []
    assert used["robot/link"].count == 6
    assert used["robot/joint@type"].count == 5
    assert used["robot/link/inertial/inertia@ixx"].count == 2
    assert ignored["robot/gazebo"].count == 2
    assert "robot/joint/safety_controller" in ignored
    assert "robot/transmission/type" in ignored
    assert "robot/transmission/joint/hardwareInterface" in ignored
    not_used = [w for w in report.warnings if w.code == "urdf.not-used"]
    assert len(not_used) == len(ignored)  # exactly one per kind
    assert sum("gazebo" in w.message for w in not_used) == 1
    d = report.to_dict()
    assert set(d) == {"file", USED, IGNORED, REFUSED, "warnings"}
    assert ignored["robot/gazebo"].lines == _lines_of(ARM, "<gazebo")


def test_unknown_and_namespaced_elements_and_attributes():
    text = """<robot name="n" xmlns:ext="http://example.com/ext">
      <link name="a" ext:colour="red" extra="1"><ext:note>hi</ext:note></link>
      <fancy_thing/><fancy_thing/>
    </robot>"""
    tree = read_urdf(text)
    ignored = {e.kind: e for e in tree.report.ignored}
    assert set(ignored) == {"robot/link@colour", "robot/link@extra", "robot/link/note", "robot/fancy_thing"}
    assert ignored["robot/fancy_thing"].count == 2
    assert ignored["robot/link@colour"].note == "namespaced attribute"
    assert len(tree.report.warnings) == 4


def test_inertia_breaking_the_triangle_inequality_is_a_coded_warning():
    text = """<robot name="t"><link name="a"><inertial><mass value="1"/>
      <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/></inertial></link></robot>"""
    tree = read_urdf(text)
    assert [w.code for w in tree.report.warnings] == ["urdf.inertial-triangle"]
    assert "'a'" in tree.report.warnings[0].message
    assert tree.report.warnings[0].line == 2


def test_principal_moments_match_numpy():
    rng = np.random.default_rng(7)
    for _ in range(300):
        A = rng.normal(size=(3, 3))
        A = A @ A.T * 10.0 ** rng.uniform(-6, 2)
        expected = np.linalg.eigvalsh(A)
        got = principal_moments(A[0, 0], A[1, 1], A[2, 2], A[0, 1], A[0, 2], A[1, 2])
        np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12 * np.abs(expected).max())


@pytest.mark.parametrize("prefix, suffix, shift", [
    (b"", b"", 0),
    (b"\n\n  \n", b"", 3),  # blank lines before <?xml
    (b"\xef\xbb\xbf", b"", 0),  # byte-order mark
    (b"\xef\xbb\xbf\n", b"\x00\x00\x00", 1),  # BOM, a blank line, trailing NULs
    (b"", b"\n\x00\x00\n", 0),
], ids=plain_id)
def test_real_world_tolerance(prefix, suffix, shift):
    body = (b'<?xml version="1.0" encoding="UTF-8"?>\n<!-- a comment -->\n<robot name="t">\n'
            b'  <!-- <link name="commented_out"/> -->\n  <link name="a"/>\n</robot>\n')
    tree = read_urdf(prefix + body + suffix)
    assert list(tree.links) == ["a"]
    assert tree.links["a"].line == 5 + shift


def test_lines_agree_between_the_fast_and_the_defused_parser():
    """A DOCTYPE sends a file through defusedxml; the element lines must not depend on the path taken."""
    fast = read_urdf(ARM)
    slow = read_urdf(ARM.replace('<?xml version="1.0"?>\n', '<?xml version="1.0"?>\n<!DOCTYPE robot>', 1))
    for name, link in fast.links.items():
        assert slow.links[name].line == link.line
        assert [s.line for s in slow.links[name].visuals] == [s.line for s in link.visuals]
    for name, joint in fast.joints.items():
        assert slow.joints[name].line == joint.line
    assert fast.report.to_dict() == slow.report.to_dict()


# -- mesh URIs ---------------------------------------------------------------------------------------------

def _robot_with_mesh(uri: str) -> str:
    return (f'<robot name="m"><link name="a"><visual><geometry><mesh filename="{uri}"/></geometry></visual>'
            '</link></robot>')


@pytest.fixture()
def workspace(tmp_path, monkeypatch):
    """ws/src/my_pkg/{urdf/robot.urdf, meshes/part.stl} and elsewhere/other_pkg/meshes/part.stl."""
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    pkg = tmp_path / "ws" / "src" / "my_pkg"
    (pkg / "urdf").mkdir(parents=True)
    (pkg / "meshes").mkdir()
    (pkg / "meshes" / "part.stl").write_bytes(b"solid x\nendsolid x\n")
    other = tmp_path / "elsewhere" / "other_pkg" / "meshes"
    other.mkdir(parents=True)
    (other / "part.stl").write_bytes(b"solid y\nendsolid y\n")
    return tmp_path, pkg


def _mesh(tree):
    return tree.links["a"].visuals[0].geometry


def _read_at(path, uri, **kw):
    path.write_text(_robot_with_mesh(uri))
    return read_urdf(path, **kw)


def test_package_uri_in_a_parent_folder_named_like_the_package(workspace):
    tmp, pkg = workspace
    tree = _read_at(pkg / "urdf" / "robot.urdf", "package://my_pkg/meshes/part.stl")
    assert _mesh(tree).filename == str(pkg / "meshes" / "part.stl")
    assert not tree.report.warnings


def test_package_uri_through_package_dirs_and_ros_package_path(workspace, monkeypatch):
    tmp, pkg = workspace
    urdf = pkg / "urdf" / "robot.urdf"
    target = str(tmp / "elsewhere" / "other_pkg" / "meshes" / "part.stl")
    # a folder of packages, or the package folder itself
    for d in (tmp / "elsewhere", tmp / "elsewhere" / "other_pkg"):
        tree = _read_at(urdf, "package://other_pkg/meshes/part.stl", package_dirs=[d])
        assert _mesh(tree).filename == target
    monkeypatch.setenv("ROS_PACKAGE_PATH", os.pathsep.join(["/nonexistent", str(tmp / "elsewhere")]))
    tree = _read_at(urdf, "package://other_pkg/meshes/part.stl")
    assert _mesh(tree).filename == target


def test_package_uri_without_a_name(workspace):
    tmp, pkg = workspace
    urdf = pkg / "urdf" / "robot.urdf"
    tree = _read_at(urdf, "package:///my_pkg/meshes/part.stl")  # under a parent of the URDF's folder
    assert _mesh(tree).filename == str(pkg / "meshes" / "part.stl")
    tree = _read_at(urdf, "package:///other_pkg/meshes/part.stl", package_dirs=[tmp / "elsewhere"])
    assert _mesh(tree).filename == str(tmp / "elsewhere" / "other_pkg" / "meshes" / "part.stl")
    tree = _read_at(urdf, f"package://{pkg / 'meshes' / 'part.stl'}")  # package:// + an absolute path
    assert _mesh(tree).filename == str(pkg / "meshes" / "part.stl")


def test_file_and_relative_uris(workspace):
    tmp, pkg = workspace
    urdf = pkg / "urdf" / "robot.urdf"
    target = str(pkg / "meshes" / "part.stl")
    for uri in (f"file://{target}", "file://../meshes/part.stl", "../meshes/part.stl", target,
                "../meshes/part%2Estl".replace("%2E", ".")):
        assert _mesh(_read_at(urdf, uri)).filename == target, uri


def test_unresolved_mesh_lists_every_path_tried(workspace):
    tmp, pkg = workspace
    tree = _read_at(pkg / "urdf" / "robot.urdf", "package://ghost_pkg/meshes/none.dae",
                    package_dirs=[tmp / "elsewhere"])
    mesh = _mesh(tree)
    assert mesh.filename is None
    assert len(mesh.tried) >= 3
    assert str(tmp / "elsewhere" / "ghost_pkg" / "meshes" / "none.dae") in mesh.tried
    (warning,) = tree.report.warnings
    assert warning.code == "urdf.mesh-unresolved"
    assert warning.line == 1
    for path in mesh.tried:
        assert path in warning.message


def test_a_transmission_that_is_not_simple_is_not_used():
    """A differential (two joints, two actuators) has no single reduction to reflect armature through."""
    text = """<robot name="diff">
  <link name="a"/><link name="b"/><link name="c"/>
  <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
  <joint name="j2" type="continuous"><parent link="b"/><child link="c"/></joint>
  <transmission name="diff">
    <joint name="j1"/><joint name="j2"/>
    <actuator name="m1"><mechanicalReduction>10</mechanicalReduction></actuator>
    <actuator name="m2"><mechanicalReduction>10</mechanicalReduction></actuator>
  </transmission>
  <transmission name="simple">
    <joint name="j1"/><actuator name="m3"><mechanicalReduction>5</mechanicalReduction></actuator>
  </transmission>
</robot>"""
    tree = read_urdf(text)
    assert set(tree.transmissions) == {"simple"}
    assert tree.transmissions["simple"].reduction == 5.0
    ignored = {e.kind for e in tree.report.ignored}
    assert "robot/transmission (not simple)" in ignored
    (warning,) = [w for w in tree.report.warnings if w.code == "urdf.transmission"]
    assert "diff" in warning.message and warning.line == 5


def test_a_path_with_a_nul_byte_is_a_coded_refusal():
    from mime_gui.multibody import UrdfError

    with pytest.raises(UrdfError) as err:
        read_urdf("robot\x00.urdf")
    assert err.value.code == "urdf.io"
    assert "\\x00" in err.value.one_line()  # printed escaped, on one line
