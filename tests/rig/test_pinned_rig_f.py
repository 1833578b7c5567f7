"""Export and dynamics answers pinned down: MJCF bodies at the identity rotation carry no ``quat``, a URDF
inertia's ``ixz`` and a continuous joint's effort-only limit, a provenance file entry with no user, a link
mass given as a ``Decimal``, and a dynamic node's own gravity when none is passed."""

from __future__ import annotations

import dataclasses
import math
import xml.etree.ElementTree as ET
from decimal import Decimal

import numpy as np

from mime_gui.multibody import read_urdf
from mime_gui.multibody.articulation import compile_tree
from mime_gui.multibody.tree import MultibodyTree
from mime_gui.nodes.dynamic import DynamicArmNode
from mime_gui.rig import Apparatus, Arm
from mime_gui.rig.mjcf_export import to_mjcf
from mime_gui.rig.simulators import Whole, header_lines
from mime_gui.rig.urdf_export import to_urdf


def _rig(tmp_path, urdf: str) -> Apparatus:
    (tmp_path / "a.urdf").write_text(urdf)
    return Apparatus("r", base=tmp_path, chain={"arm": Arm.Dynamic(description="a.urdf")})


def _one_joint(joint: str, inertia: str = 'ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"') -> str:
    return (
        '<robot name="r"><link name="base"/><link name="arm"><inertial><mass value="0.5"/>'
        f"<inertia {inertia}/></inertial></link>{joint}</robot>"
    )


def _exported_body(tmp_path, yaw: str):
    """The MJCF body of a link placed 0.25 m up its joint's origin, turned ``yaw`` about z."""
    joint = ('<joint name="turn" type="revolute"><parent link="base"/><child link="arm"/>'
             f'<origin xyz="0 0 0.25" rpy="0 0 {yaw}"/><axis xyz="0 0 1"/>'
             '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')
    text = to_mjcf(_rig(tmp_path, _one_joint(joint)), tmp_path / "m.xml")
    body = ET.fromstring(text).find(".//body[@name='arm/arm']")
    assert body is not None
    return body


def test_an_mjcf_body_placed_without_rotation_has_a_position_and_no_quaternion(tmp_path):
    body = _exported_body(tmp_path, "0")
    assert body.get("pos") == "0.0 0.0 0.25"
    assert "quat" not in body.attrib


def test_an_mjcf_body_turned_a_quarter_about_z_has_the_half_angle_quaternion(tmp_path):
    body = _exported_body(tmp_path, "1.5707963267948966")
    w, x, y, z = (float(v) for v in body.get("quat").split())
    half = math.sqrt(0.5)  # cos and sin of 45°
    sign = math.copysign(1.0, w)  # q and -q are the same rotation
    np.testing.assert_allclose(sign * np.array([w, x, y, z]), [half, 0.0, 0.0, half], atol=1e-15)


def test_a_urdf_inertia_keeps_ixz_apart_from_iyz(tmp_path):
    joint = ('<joint name="turn" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>'
             '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>')
    inertia = 'ixx="1e-3" ixy="1e-6" ixz="2e-5" iyy="2e-3" iyz="-3e-5" izz="3e-3"'
    text = to_urdf(_rig(tmp_path, _one_joint(joint, inertia)), tmp_path / "r.urdf")
    element = ET.fromstring(text).find("link[@name='arm/arm']/inertial/inertia")
    assert {k: float(v) for k, v in element.attrib.items()} == {
        "ixx": 1e-3, "ixy": 1e-6, "ixz": 2e-5, "iyy": 2e-3, "iyz": -3e-5, "izz": 3e-3}


def test_a_continuous_joint_with_an_effort_and_no_velocity_keeps_its_effort_limit(tmp_path):
    joint = ('<joint name="turn" type="continuous"><parent link="base"/><child link="arm"/>'
             '<axis xyz="0 0 1"/><limit effort="5"/></joint>')
    text = to_urdf(_rig(tmp_path, _one_joint(joint)), tmp_path / "r.urdf")
    limit = ET.fromstring(text).find("joint[@name='arm/turn']/limit")
    assert limit is not None
    # no velocity bound is written as 0 beside the effort, and no position bounds for a continuous joint
    assert limit.attrib == {"effort": "5.0", "velocity": "0.0"}


def test_a_continuous_joint_with_a_velocity_and_no_effort_keeps_its_velocity_limit(tmp_path):
    joint = ('<joint name="turn" type="continuous"><parent link="base"/><child link="arm"/>'
             '<axis xyz="0 0 1"/><limit velocity="2.5"/></joint>')
    text = to_urdf(_rig(tmp_path, _one_joint(joint)), tmp_path / "r.urdf")
    limit = ET.fromstring(text).find("joint[@name='arm/turn']/limit")
    assert limit is not None and limit.attrib == {"effort": "0.0", "velocity": "2.5"}


def test_a_provenance_file_with_no_user_is_said_to_be_used_by_a_question_mark():
    tree = MultibodyTree("r", {}, {}, "world")
    digest = "0123456789abcdef" * 4
    whole = Whole(tree, provenance={"mime_gui": "1", "files": {"meshes/a.stl": {"sha256": digest}}})
    assert header_lines(whole, "URDF")[-1] == f"file meshes/a.stl: sha256 {digest} (used by ?)"


PENDULUM = """<robot name="p"><link name="base"/>
  <link name="bob"><inertial><origin xyz="0.2 0 0"/><mass value="0.5"/>
    <inertia ixx="1e-3" ixy="0" ixz="0" iyy="2e-3" iyz="0" izz="1e-3"/></inertial></link>
  <joint name="swing" type="continuous"><parent link="base"/><child link="bob"/><axis xyz="0 1 0"/></joint>
</robot>"""


def test_a_link_mass_given_as_a_decimal_is_taken_as_its_value():
    tree = read_urdf(PENDULUM)
    bob = tree.links["bob"]
    inertial = dataclasses.replace(bob.inertial, mass=Decimal("0.5"))
    tree.links["bob"] = dataclasses.replace(bob, inertial=inertial)
    art = compile_tree(tree)
    body = art.body_names.index("bob")
    assert art.mass_of_body[body] == 0.5
    np.testing.assert_allclose(art.com[body], [0.2, 0.0, 0.0], atol=1e-15)


def test_a_dynamic_node_uses_its_own_gravity_when_none_is_passed():
    # a horizontal pendulum at rest: v̇ = m g l / (I_yy + m l²) about +y, the COM 0.2 m along x, g down z
    node = DynamicArmNode(compile_tree(read_urdf(PENDULUM)), gravity=(0.0, 0.0, -3.7))
    expected = 0.5 * 3.7 * 0.2 / (2e-3 + 0.5 * 0.2**2)
    q, v, u = np.zeros(1), np.zeros(1), np.zeros(1)
    np.testing.assert_allclose(node.acceleration(q, v, u), [expected], rtol=1e-12)
    # a gravity passed in place of the node's is the one used
    np.testing.assert_allclose(node.acceleration(q, v, u, gravity=np.array([0.0, 0.0, -9.81])),
                               [0.5 * 9.81 * 0.2 / (2e-3 + 0.5 * 0.2**2)], rtol=1e-12)
