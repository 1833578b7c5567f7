"""Small rig answers pinned down: a rotor of no inertia, the rig's repr without probes, a bundle entry past
the unpacking budget, a shape of a class with no kind, a rider's mimic joint in the coupled articulation, a
mesh magnet relative to the rig file, the ring's facets, a spin that is no number, and a mass-less link that
holds an inertia in MJCF."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass

import numpy as np
import pytest
import trimesh
from rig_helpers import snippet_rig

from mime_gui.multibody import tree as description
from mime_gui.rig import Apparatus, Arm, Mesh, PermanentMagnet, Ring, register_actuator, unregister_actuator
from mime_gui.rig.bundle import BundleError, _extract
from mime_gui.rig.collision import shape_pieces
from mime_gui.rig.geometries import Cylinder, kind_of
from mime_gui.rig.keyframe_text import KeyframeTextError, parse_keyframe_text
from mime_gui.rig.magnet_sources import magnet_sources
from mime_gui.rig.mjcf_export import export_mjcf
from mime_gui.rig.trajectories import Keyframe

magpy = pytest.importorskip("magpylib")


def test_a_rotor_of_zero_inertia_is_registered_as_zero():
    # "finite and not negative": an ideal direct drive reflects nothing, and that is a value a lab may give
    record = register_actuator("lab-motor-ideal", rotor_inertia=0.0, source="Lab ideal drive")
    try:
        assert record.rotor_inertia == 0.0
    finally:
        unregister_actuator("lab-motor-ideal")


def test_the_rig_s_repr_leaves_out_probes_when_it_has_none():
    assert "probes=" not in repr(snippet_rig())


def test_an_entry_past_the_unpacking_budget_is_refused_as_too_large(tmp_path):
    # the running budget of the whole extraction: 100 bytes to write with 50 left
    with zipfile.ZipFile(tmp_path / "b.zip", "w") as z:
        z.writestr("a.stl", b"1" * 100)
    folder = tmp_path / "out"
    folder.mkdir()
    with zipfile.ZipFile(tmp_path / "b.zip") as z, pytest.raises(BundleError) as info:
        _extract(z, z.getinfo("a.stl"), ("a.stl",), folder, [50], "b.zip")
    assert info.value.code == "bundle.too-large"
    assert "'a.stl'" in info.value.message and "zip bomb" in info.value.message


@dataclass
class Torus:
    """A geometry class the collision code does not know, with no ``kind``."""

    radius: float


def test_a_shape_of_a_class_without_a_kind_is_named_by_its_class_with_no_collision_geometry():
    pieces, why = shape_pieces(description.Shape(Torus(0.01), np.eye(4)), np.eye(4), "s.torus")
    assert pieces == [] and why == "a Torus shape has no collision geometry"


GRIPPER = """<robot name="gripper">
  <link name="palm"/>
  <link name="left"><inertial><origin xyz="0.02 0 0"/><mass value="0.1"/>
    <inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="right"><inertial><origin xyz="-0.02 0 0"/><mass value="0.1"/>
    <inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="open" type="revolute"><parent link="palm"/><child link="left"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="mirror" type="revolute"><parent link="palm"/><child link="right"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="open" multiplier="-1"/></joint>
</robot>"""


def test_a_rider_s_mimic_joint_follows_the_rider_s_own_joint_in_the_coupled_articulation(tmp_path):
    (tmp_path / "gripper.urdf").write_text(GRIPPER)
    rig = snippet_rig()
    rig.chain["gripper"] = Arm.Dynamic(description=str(tmp_path / "gripper.urdf"), mount="arm.link_6")
    coupled = rig.build().segments["arm"].coupled
    art = coupled.articulation
    names = list(art.joint_names)
    mirror = names.index("gripper/mirror")
    # the file says: mirror = -1 × open, both the gripper's joints, renamed as they hang on the arm
    assert art.mimic_master[mirror] == names.index("gripper/open")
    assert art.mimic_multiplier[mirror] == -1.0


def test_a_mesh_magnet_relative_to_the_rig_file_gives_the_field_of_its_box(tmp_path):
    side = 0.01
    box = trimesh.creation.box((side, side, side))
    box.export(tmp_path / "cube.stl")
    rig = Apparatus("m", base=tmp_path, magnets={"cube": PermanentMagnet(
        Mesh("cube.stl"), material="NdFeB-N42", magnetisation=(0.0, 0.0, 1.0), at=(0.0, 0.0, 0.0))})
    [magnet] = magnet_sources(rig.build())
    # the working folder is not the rig's: the file is found through the rig's folder
    source = magnet.source()
    J = tuple(float(v) for v in magnet.polarization)
    cuboid = magpy.magnet.Cuboid(dimension=(side, side, side), polarization=J)
    point = (0.003, -0.002, 0.02)
    # Magpylib's triangle sums agree with its cuboid's closed form to about 1e-7
    np.testing.assert_allclose(source.getB(point), cuboid.getB(point), rtol=1e-6)


def test_a_ring_s_walls_have_the_corners_of_cylinders_of_its_two_radii():
    # a ring on a shaft of its bore's radius, or in a bore of its outer radius, is drawn touching it all round
    ring = Ring(0.01, 0.02, 0.006)
    vertices, _ = kind_of(ring).mesh(ring)
    for radius in (0.01, 0.02):
        cylinder = Cylinder(radius=radius, length=0.006)
        rim, _ = kind_of(cylinder).mesh(cylinder)
        rim = rim[np.isclose(np.hypot(rim[:, 0], rim[:, 1]), radius)]
        wall = vertices[np.isclose(np.hypot(vertices[:, 0], vertices[:, 1]), radius)]
        assert len(wall) == len(rim)
        np.testing.assert_allclose(np.sort(wall, axis=0), np.sort(rim, axis=0), atol=1e-15)


def test_a_spin_that_is_no_number_asks_for_a_plain_number_with_no_unit_after_it():
    with pytest.raises(KeyframeTextError) as err:
        parse_keyframe_text("spin fast Hz", Keyframe(0.0), lambda joint: "deg")
    message = err.value.message
    assert message.startswith("spin: 'fast' is not a number")
    # the frequency's number has no unit of its own (Hz comes after it): the example ends with the number
    assert message.endswith("type one, as 1.5") and " or 1.5" not in message


TAG = ('<link name="tag"><inertial><mass value="0"/>'
       '<inertia ixx="1e-6" ixy="0" ixz="0" iyy="2e-6" iyz="0" izz="3e-6"/></inertial></link>'
       '<joint name="fix" type="fixed"><parent link="arm"/><child link="tag"/><origin xyz="0 0 0.1"/>'
       '</joint>')


def test_a_fixed_leaf_link_with_no_mass_but_an_inertia_is_a_body_holding_that_inertia(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    (tmp_path / "a.urdf").write_text(
        '<robot name="r"><link name="base"/><link name="arm"><inertial><mass value="0.5"/>'
        '<inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial></link>'
        '<joint name="turn" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>'
        f'<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>{TAG}</robot>')
    rig = Apparatus("r", base=tmp_path, chain={"arm": Arm.Dynamic(description="a.urdf")})
    mjcf = export_mjcf(rig, tmp_path / "m.xml")
    root = ET.parse(mjcf).getroot()
    assert root.find(".//site[@name='arm/tag']") is None  # a site would drop the inertia
    model = mujoco.MjModel.from_xml_path(str(mjcf))
    np.testing.assert_allclose(model.body("arm/tag").inertia, [1e-6, 2e-6, 3e-6], rtol=1e-12)
    assert math.isclose(model.body("arm/tag").mass[0], 0.0, abs_tol=0.0)
