"""The exports on rigs the other export tests leave out: a motor standing in the world, a rotor too heavy for
what it turns in, a mimic joint, a capsule, a mesh not found, a shape of no known kind, a part drawn from its
triangles, one mesh file used twice, OBJ files sharing a material library, a lab kind with a magnet in the
world, names taken twice, a folder as the target; the Python export of a lab kind's parameters; and the
report of a rig without a chain."""

from __future__ import annotations

import hashlib
import json
import math
import runpy
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
import trimesh

from mime_gui.rig import (
    Apparatus,
    Arm,
    Box,
    Cylinder,
    LabSegment,
    Mesh,
    Motor,
    Part,
    PermanentMagnet,
    Probe,
    Ring,
    kg_m2,
    material,
    register_dynamics,
    unregister_dynamics,
)
from mime_gui.rig.bundle import BundleError, write_bundle
from mime_gui.rig.dynamics import frames
from mime_gui.rig.export import export_json, to_python
from mime_gui.rig.mjcf_export import export_mjcf
from mime_gui.rig.simulators import ExportError
from mime_gui.rig.urdf_export import export_urdf

mujoco = pytest.importorskip("mujoco")

MU0 = 4e-7 * math.pi
INERTIAL = ('<inertial><mass value="0.5"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/>'
            "</inertial>")
TURN = '<axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="1" velocity="1"/>'


def _arm_urdf(folder, body: str = "", extra: str = "", name: str = "a.urdf"):
    """One link turning about z on a base, ``body`` inside the link and ``extra`` after the joint."""
    (folder / name).write_text(f"""<robot name="r">
  <link name="base"/>
  <link name="arm">{INERTIAL}{body}</link>
  <joint name="turn" type="revolute"><parent link="base"/><child link="arm"/>{TURN}</joint>
  {extra}
</robot>""")
    return Apparatus("r", base=folder, chain={"arm": Arm.Dynamic(description=name)})


def _comments(root) -> list[str]:
    return [c.text.strip() for c in root.iter() if c.tag is ET.Comment]


def _read(path):
    return ET.parse(path, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))).getroot()


def _spinner():
    return frames("spinner", "base", [("spin", "revolute", "base", "table", (0, 0, 0.01), (0, 0, 1), None)])


@pytest.fixture
def spinner_kind():
    register_dynamics("spinner", _spinner)
    yield "spinner"
    unregister_dynamics("spinner")


# -- the Python export ------------------------------------------------------------------------------------

def test_a_lab_segment_s_text_boolean_null_and_list_parameters_export_to_python_that_gives_them_back(
        tmp_path, spinner_kind):
    params = {"label": " stage 'A' \u2013 \u00fc ", "flip": True, "home": None,
              "stops": [0.1, 2, "end", False, None]}
    rig = Apparatus("lab", base=tmp_path, chain={"t": LabSegment(kind=spinner_kind, params=params)})
    path = tmp_path / "lab.py"
    source = to_python(rig, tmp_path)
    assert source.isascii()  # every text as an ASCII literal
    path.write_text(source, encoding="utf-8")
    back = runpy.run_path(str(path))["rig"].chain["t"].params
    assert back == params
    # the types, not only values that compare equal (True == 1)
    assert [type(v) for v in back["stops"]] == [float, int, str, bool, type(None)]
    assert type(back["flip"]) is bool


# -- MJCF: rotors, mimic joints --------------------------------------------------------------------------

def test_a_motor_standing_in_the_world_is_written_as_a_disc_that_no_other_body_pays_for(tmp_path):
    rig = Apparatus("wm", chain={"motor": Motor.Dynamic(inertia=kg_m2(3e-6, reason="datasheet"))},
                    parts={"hub": Part(Cylinder(radius=0.01, length=0.02), material="aluminium",
                                       mount="motor.rotor")})
    model = mujoco.MjModel.from_xml_path(str(export_mjcf(rig, tmp_path / "wm.xml")))
    half = 0.5 * 3e-6  # a disc's moment across its axis is half the one about it
    assert model.body("motor/rotor").inertia == pytest.approx([half, half, 3e-6], rel=1e-8)
    assert model.body("motor/stator").mass[0] == 0.0
    comments = _comments(_read(tmp_path / "wm.xml"))
    assert not any("less the transverse inertia" in c for c in comments)
    (note,) = [c for c in comments if "is written as a disc" in c]
    assert "which nothing takes off: it turns in the world" in note and "takes off again" not in note


def test_a_rotor_too_heavy_for_the_body_it_turns_in_is_refused_naming_that_body_and_nothing_is_written(
        tmp_path):
    _arm_urdf(tmp_path)
    rig = Apparatus("big", base=tmp_path, chain={
        "arm": Arm.Dynamic(description="a.urdf"),
        "motor": Motor.Dynamic(inertia=kg_m2(10.0, reason="a flywheel"), mount="arm.arm")},
        parts={"hub": Part(Cylinder(radius=0.01, length=0.02), material="aluminium", mount="motor.rotor")})
    with pytest.raises(ExportError) as info:
        export_mjcf(rig, tmp_path / "big.xml")
    error = info.value
    assert (error.code, error.file) == ("export.mjcf-inertia", "motor/rotor")
    assert "give motor/stator or what it is welded to more inertia, or export --urdf" in error.message
    assert not (tmp_path / "big.xml").exists()


def test_a_mimic_joint_is_written_as_an_equality_mujoco_reads_with_its_multiplier_and_offset(tmp_path):
    second = f'<link name="tip">{INERTIAL}</link><joint name="follow" type="revolute"><parent link="arm"/>' \
             f'<child link="tip"/>{TURN}<mimic joint="turn" multiplier="2" offset="0.1"/></joint>'
    rig = _arm_urdf(tmp_path, extra=second)
    model = mujoco.MjModel.from_xml_path(str(export_mjcf(rig, tmp_path / "m.xml")))
    assert model.neq == 1 and model.eq_type[0] == mujoco.mjtEq.mjEQ_JOINT
    follow, turn = model.joint("arm/follow").id, model.joint("arm/turn").id
    assert (model.eq_obj1id[0], model.eq_obj2id[0]) == (follow, turn)
    assert model.eq_data[0][:5].tolist() == [0.1, 2.0, 0.0, 0.0, 0.0]  # follow = 0.1 + 2 turn


# -- shapes ------------------------------------------------------------------------------------------------

def test_a_capsule_of_a_description_is_a_capsule_in_both_formats(tmp_path):
    rig = _arm_urdf(tmp_path, '<visual><geometry><capsule radius="0.01" length="0.1"/></geometry></visual>')
    model = mujoco.MjModel.from_xml_path(str(export_mjcf(rig, tmp_path / "c.xml")))
    assert model.ngeom == 1 and model.geom_type[0] == mujoco.mjtGeom.mjGEOM_CAPSULE
    assert model.geom_size[0][:2].tolist() == [0.01, 0.05]  # MuJoCo takes half the length
    capsule = ET.parse(export_urdf(rig, tmp_path / "c.urdf")).getroot().find("link[@name='arm/arm']//capsule")
    assert (capsule.get("radius"), capsule.get("length")) == ("0.01", "0.1")


def test_a_mesh_not_found_and_a_shape_of_no_known_kind_are_left_out_with_a_comment_naming_each(tmp_path):
    rig = _arm_urdf(tmp_path, '<visual><geometry><cone radius="0.01" length="0.1"/></geometry></visual>'
                              '<collision><geometry><mesh filename="missing.stl"/></geometry></collision>')
    assert rig.validate() == []
    mjcf = export_mjcf(rig, tmp_path / "s.xml")
    assert mujoco.MjModel.from_xml_path(str(mjcf)).ngeom == 0
    said = _comments(_read(mjcf))
    assert "a shape of a kind MuJoCo has no geom for (UnknownGeometry): not drawn" in said
    assert "a mesh not found (missing.stl): not drawn" in said
    urdf = _read(export_urdf(rig, tmp_path / "s.urdf"))
    link = urdf.find("link[@name='arm/arm']")
    assert link.find("visual") is None and link.find("collision") is None
    notes = [c.text for c in link if c.tag is ET.Comment]
    assert any(n.startswith(" a visual not written: UnknownGeometry") for n in notes)
    assert any(n.startswith(" a collision not written: Mesh missing.stl was not found") for n in notes)


def test_a_ring_is_written_as_a_mesh_of_its_triangles_holding_its_volume(tmp_path):
    ring = Ring(inner_radius=0.01, outer_radius=0.02, length=0.005)
    rig = Apparatus("ring", chain={"motor": Motor.Kinematic()},
                    parts={"ring": Part(ring, material="aluminium", mount="motor.rotor")})
    volume = math.pi * (0.02**2 - 0.01**2) * 0.005
    (tmp_path / "mj").mkdir()  # an export writes into a folder that exists
    mjcf = export_mjcf(rig, tmp_path / "mj" / "r.xml")
    model = mujoco.MjModel.from_xml_path(str(mjcf))
    assert model.ngeom == 1 and model.geom_type[0] == mujoco.mjtGeom.mjGEOM_MESH
    # its farthest corner, however MuJoCo turns the mesh to its principal axes: the outer rim at either face
    reach = max(math.dist(v, (0, 0, 0)) for v in model.mesh_vert)
    assert reach == pytest.approx(math.hypot(0.02, 0.0025), rel=1e-6)
    [asset] = _read(mjcf).iter("mesh")
    (tmp_path / "ur").mkdir()
    urdf = export_urdf(rig, tmp_path / "ur" / "r.urdf")
    [drawn] = _read(urdf).iter("mesh")
    for written in (mjcf.parent / asset.get("file"), urdf.parent / drawn.get("filename")):
        mesh = trimesh.load(written)
        # a polygon for each circle: a little less than the ring's volume
        assert mesh.is_watertight and 0.97 * volume < mesh.volume <= volume


def test_two_parts_of_one_mesh_file_share_one_asset_and_one_copy(tmp_path):
    trimesh.creation.icosphere(radius=0.01).export(tmp_path / "ball.stl")
    rig = Apparatus("two", base=tmp_path, parts={
        "p1": Part(Mesh("ball.stl"), material="aluminium"),
        "p2": Part(Mesh("ball.stl"), material="aluminium", at=(0.1, 0, 0))})
    (tmp_path / "out").mkdir()  # an export writes into a folder that exists
    path = export_mjcf(rig, tmp_path / "out" / "two.xml")
    root = _read(path)
    [asset] = root.find("asset").iter("mesh")
    assert [g.get("mesh") for g in root.find("worldbody").iter("geom")] == [asset.get("name")] * 2
    assert [p.name for p in (tmp_path / "out" / "two_meshes").iterdir()] == ["ball.stl"]
    assert mujoco.MjModel.from_xml_path(str(path)).nmesh == 1


def _obj_parts(tmp_path):
    (tmp_path / "shared.mtl").write_text("newmtl grey\nKd 0.5 0.5 0.5\n")
    box = trimesh.creation.box((0.01, 0.01, 0.01)).export(file_type="obj")
    (tmp_path / "a.obj").write_text("mtllib shared.mtl\nmtllib gone.mtl\n" + box)
    (tmp_path / "b.obj").write_text("mtllib shared.mtl\n" + box)
    return Apparatus("objs", base=tmp_path, parts={
        "a": Part(Mesh("a.obj"), material="aluminium"), "b": Part(Mesh("b.obj"), material="aluminium",
                                                                  at=(0.1, 0, 0))})


def test_two_obj_parts_naming_one_material_library_copy_it_once(tmp_path):
    rig = _obj_parts(tmp_path)
    (tmp_path / "out").mkdir()  # an export writes into a folder that exists
    export_mjcf(rig, tmp_path / "out" / "objs.xml")
    copies = tmp_path / "out" / "objs_meshes"
    assert sorted(p.name for p in copies.iterdir()) == ["a.obj", "b.obj", "shared.mtl"]
    assert (copies / "shared.mtl").read_bytes() == (tmp_path / "shared.mtl").read_bytes()


def test_a_part_s_obj_material_library_is_recorded_with_its_hash_and_a_missing_one_is_not(tmp_path):
    rig = _obj_parts(tmp_path)
    files = json.loads(export_json(rig, tmp_path / "objs.rig.json").read_text())["provenance"]["files"]
    assert sorted(files) == ["a.obj", "b.obj", "shared.mtl"]
    digest = hashlib.sha256((tmp_path / "shared.mtl").read_bytes()).hexdigest()
    assert files["shared.mtl"] == {"sha256": digest, "used_by": "parts.a.geometry"}


def test_a_bundle_carries_an_obj_s_material_library_and_leaves_out_one_that_is_not_there(tmp_path):
    with zipfile.ZipFile(write_bundle(_obj_parts(tmp_path), tmp_path / "objs.zip")) as z:
        names = sorted(Path(n).name for n in z.namelist() if not n.endswith(".rig.json"))
    assert names == ["a.obj", "b.obj", "shared.mtl"]


def test_a_bundle_of_a_part_whose_obj_is_missing_is_refused_naming_the_part_and_the_file(tmp_path):
    rig = Apparatus("gone", base=tmp_path, parts={"a": Part(Mesh("gone.obj"), material="aluminium")})
    with pytest.raises(BundleError) as info:
        write_bundle(rig, tmp_path / "gone.zip")
    error = info.value
    assert (error.code, error.file) == ("bundle.missing", str(tmp_path / "gone.obj"))
    assert error.message.startswith("parts.a.geometry needs this file and it is not there")
    assert not (tmp_path / "gone.zip").exists()


# -- a lab kind, a magnet in the world -------------------------------------------------------------------

def test_a_lab_kind_with_parts_and_a_magnet_in_the_world_is_written_with_each_mass_and_moment(
        tmp_path, spinner_kind):
    rig = Apparatus("lab", chain={"t": LabSegment(kind=spinner_kind)},
                    parts={"puck": Part(Box((0.02, 0.02, 0.01)), material="aluminium", mount="t.table"),
                           "tag": Part(Box((0.01, 0.01, 0.01)), mount="t.table")},  # no material: massless
                    magnets={"m": PermanentMagnet(Box((0.01, 0.01, 0.01)), material="NdFeB-N42",
                                                  at=(0.1, 0, 0))})
    model = mujoco.MjModel.from_xml_path(str(export_mjcf(rig, tmp_path / "lab.xml")))
    aluminium, magnet = material("aluminium"), material("NdFeB-N42")
    assert model.body("t/part:puck").mass[0] == pytest.approx(aluminium.density * 4e-6, rel=1e-12)
    assert model.body("t/part:tag").mass[0] == 0.0
    moment = magnet.remanence * 1e-6 / MU0  # B_r V / mu_0
    data = model.numeric("magnet:part:m").data
    assert data[0] == pytest.approx(moment, rel=1e-8) and data[1:].tolist() == [0.0, 0.0, 1.0,
                                                                                 magnet.remanence]
    urdf = ET.parse(export_urdf(rig, tmp_path / "lab.urdf")).getroot()
    spin = urdf.find("joint[@name='t/spin']")
    assert spin.get("type") == "continuous" and spin.find("limit") is None  # a revolute joint without bounds
    assert urdf.find("link[@name='t/part:tag']/inertial") is None
    written = urdf.find("link[@name='part:m']/mime_magnet")
    assert float(written.get("moment")) == pytest.approx(moment, rel=1e-8)


def test_a_transmission_whose_reduction_is_not_a_number_is_left_out_of_the_urdf(tmp_path):
    bad = '<transmission name="t1"><joint name="turn"/><actuator name="m1">' \
          "<mechanicalReduction>abc</mechanicalReduction></actuator></transmission>"
    rig = _arm_urdf(tmp_path, extra=bad)
    rig.chain["arm"] = Arm.Kinematic(description="a.urdf")  # it reflects no armature, so the rig is valid
    assert rig.validate() == []
    root = ET.parse(export_urdf(rig, tmp_path / "t.urdf")).getroot()
    assert root.find("transmission") is None
    assert root.find("joint[@name='arm/turn']").get("type") == "revolute"


# -- names taken twice, a folder as the target -----------------------------------------------------------

def test_a_probe_whose_link_the_description_already_has_is_refused_naming_the_probe(tmp_path):
    rig = _arm_urdf(tmp_path, extra='<link name="probe:tip"/><joint name="weld" type="fixed"><parent '
                                    'link="arm"/><child link="probe:tip"/></joint>')
    rig.probes["tip"] = Probe((0, 0, 0), mount="arm.arm")
    assert rig.validate() == []
    for export, name in ((export_mjcf, "p.xml"), (export_urdf, "p.urdf")):
        with pytest.raises(ExportError) as info:
            export(rig, tmp_path / name)
        assert (info.value.code, info.value.file) == ("export.name", "probes.tip")
        assert "the link 'arm/probe:tip'" in info.value.message and "rename one of them" in info.value.message
        assert not (tmp_path / name).exists()


def test_a_description_joint_named_like_the_segment_s_mount_joint_is_refused_naming_the_joint(tmp_path):
    rig = _arm_urdf(tmp_path, extra='<link name="tip"/><joint name="mount:base" type="fixed"><parent '
                                    'link="arm"/><child link="tip"/></joint>')
    with pytest.raises(ExportError) as info:
        export_urdf(rig, tmp_path / "j.urdf")
    assert (info.value.code, info.value.file) == ("export.name", "arm/mount:base")
    assert "the joint 'arm/mount:base'" in info.value.message and "rename one of them" in info.value.message


@pytest.mark.parametrize("export", [export_mjcf, export_urdf], ids=["mjcf", "urdf"])
def test_a_folder_given_as_the_file_to_write_is_refused_naming_it(tmp_path, export):
    rig = Apparatus("r", parts={"p": Part(Box((0.01, 0.01, 0.01)), material="aluminium")})
    with pytest.raises(ExportError) as info:
        export(rig, tmp_path)
    assert (info.value.code, info.value.file) == ("export.io", str(tmp_path))
    assert "this is a folder; give the file to write" in info.value.message
    assert list(tmp_path.iterdir()) == []


# -- the report --------------------------------------------------------------------------------------------

def test_the_report_of_a_rig_without_a_chain_says_so_as_text_and_reads_back_as_json():
    rig = Apparatus("bare", parts={"plate": Part(Box((0.1, 0.1, 0.01)), material="aluminium")})
    report = rig.build().report
    text = str(report)
    assert text.startswith("rig 'bare'\n\nchain\n  (empty)\n\nparts\n  plate: ")
    data = json.loads(report.to_json())
    assert data["segments"] == [] and [p["name"] for p in data["parts"]] == ["plate"]
    assert data["totals"]["parts_mass"] == pytest.approx(material("aluminium").density * 1e-4, rel=1e-12)


def test_a_segment_without_joints_lists_no_armature_in_the_report():
    register_dynamics("plate-kind", lambda: frames("plate", "base", []))
    try:
        text = Apparatus("r", chain={"plate": LabSegment(kind="plate-kind")}).build().report.to_text()
    finally:
        unregister_dynamics("plate-kind")
    lines = text.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.startswith("  plate: plate-kind")]
    assert lines[at + 1].startswith("    mass: own 0 kg")
    assert "armature per joint" not in text


@pytest.mark.parametrize("export", [export_mjcf, export_urdf], ids=["mjcf", "urdf"])
def test_two_obj_meshes_whose_material_libraries_share_a_name_keep_each_its_own_colours(tmp_path, export):
    """``a/model.obj`` and ``b/model.obj`` each name ``material.mtl`` beside them, red and blue: the copies
    must not both read the first folder's library."""
    box = trimesh.creation.box((0.01, 0.01, 0.01)).export(file_type="obj")
    for folder, kd in (("a", "1 0 0"), ("b", "0 0 1")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "material.mtl").write_text(f"newmtl paint\nKd {kd}\n")
        (tmp_path / folder / "model.obj").write_text("mtllib material.mtl\nusemtl paint\n" + box)
    rig = Apparatus("two", base=tmp_path, parts={
        "red": Part(Mesh("a/model.obj"), material="aluminium"),
        "blue": Part(Mesh("b/model.obj"), material="aluminium", at=(0.1, 0.0, 0.0))})
    (tmp_path / "out").mkdir()  # an export writes into a folder that exists
    out = tmp_path / "out" / ("two.xml" if export is export_mjcf else "two.urdf")
    export(rig, out)
    copies = tmp_path / "out" / "two_meshes"
    colours = {}
    for obj in sorted(copies.glob("*.obj")):
        loaded = trimesh.load(obj, force="mesh")  # trimesh reads the mtllib line of the copy, in its folder
        colours[obj.name] = tuple(int(c) for c in loaded.visual.material.main_color[:3])
    assert colours == {"model.obj": (255, 0, 0), "model_2.obj": (0, 0, 255)}
    assert sorted(p.name for p in copies.glob("*.mtl")) == ["material.mtl", "material_2.mtl"]


@pytest.mark.parametrize("export", [export_mjcf, export_urdf], ids=["mjcf", "urdf"])
def test_the_header_names_a_lab_kind_registered_in_python_and_its_rung_in_plain_words(tmp_path, spinner_kind,
                                                                                      export):
    # the puck gives the spin a body to move (MuJoCo refuses a massless moving body)
    rig = Apparatus("lab", chain={"t": LabSegment(kind=spinner_kind)},
                    parts={"puck": Part(Box((0.02, 0.02, 0.01)), material="aluminium", mount="t.table")})
    text = export(rig, tmp_path / ("lab.xml" if export is export_mjcf else "lab.urdf")).read_text()
    (line,) = [line for line in text.splitlines() if "segment t:" in line]  # an XML comment
    assert f"segment t: {spinner_kind} (registered in Python, rung kinematic)" in line
