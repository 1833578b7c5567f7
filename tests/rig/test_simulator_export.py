"""The whole rig as MJCF and URDF, checked by the simulators themselves.

MuJoCo loads the MJCF and its mass matrix (armature included), its bias at rest and its total mass are held
to the rig engine's; Pinocchio and our own reader load the URDF, and its frames and mass matrix are held to
the rig's. The engine's side is the coupled articulation of each carrier (``BuiltSegment.coupled``: the
carrier's tree with every segment riding on it hung from its mount, each with its armature), the very tree
the exports write, so the two are compared whole, cross terms between an arm and the motor on it included.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from rig_helpers import DEMO_RIG
from robot_data import robot_urdf

from mime_gui.multibody import dynamics_bias, frame_poses, mass_matrix
from mime_gui.rig import Box, Part, PermanentMagnet, load, material
from mime_gui.rig.findings import RigError
from mime_gui.rig.mjcf_export import export_mjcf

mujoco = pytest.importorskip("mujoco")

N = 20
GRAVITY = np.array([0.0, 0.0, -9.81])


def _demo():
    return load(DEMO_RIG)


def _ur5():
    from test_coupled_torques import _riders_rig  # UR5 carrying a motor, parts, a spindle on the rotor

    rig = _riders_rig(robot_urdf("ur_description/urdf/ur5_robot.urdf"), "tool0")
    rig.chain["arm"].at = (0.1, -0.2, 0.3)
    rig.chain["arm"].orientation = (math.cos(0.2), math.sin(0.2), 0.0, 0.0)  # tilted: gravity across the base
    rig.parts["bracket"] = Part(
        Box(size=(0.04, 0.02, 0.01)), material="aluminium", at=(0.03, 0.01, 0.02), mount="arm.wrist_2_link"
    )
    rig.magnets["tip"] = PermanentMagnet(
        Box(size=(0.01, 0.01, 0.01)),
        material="NdFeB-N42",
        at=(0.0, 0.02, 0.0),
        mount="spindle.rotor",
        magnetisation=(1, 0, 0),
    )
    rig.parts["plate"] = Part(Box(size=(0.2, 0.2, 0.01)), material="aluminium", at=(0.5, 0.0, 0.0))
    return rig


RIGS = {"demo": _demo, "ur5": _ur5}


def _random_q(art, rng):
    lo = np.where(np.isfinite(art.lower), art.lower, -math.pi)
    hi = np.where(np.isfinite(art.upper), art.upper, math.pi)
    return lo + (hi - lo) * rng.random(art.nq)


def _carriers(built):
    """Each segment standing in the world with the articulation of everything riding on it, and each
    articulation joint's name in the exported tree."""
    for name, s in built.segments.items():
        if s.mount is not None:
            continue
        c = s.coupled
        art = s.dynamics_articulation if c is None else c.articulation
        names = [j if "/" in j else f"{name}/{j}" for j in art.joint_names]
        yield name, s, art, names


@pytest.fixture(params=sorted(RIGS))
def exported(request, tmp_path):
    rig = RIGS[request.param]()
    path = export_mjcf(rig, tmp_path / "rig.xml")
    return rig, mujoco.MjModel.from_xml_path(str(path))


def test_mjcf_loads_and_its_mass_matrix_bias_and_mass_are_the_rigs(exported):
    rig, model = exported
    built = rig.build()
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    seen = 0
    for _name, s, art, names in _carriers(built):
        dofs = np.array([model.jnt_dofadr[model.joint(n).id] for n in names])
        qadr = np.array([model.jnt_qposadr[model.joint(n).id] for n in names])
        R = s.placement[:3, :3]
        for _ in range(N):
            q = _random_q(art, rng)
            data.qpos[:] = 0.0
            data.qvel[:] = 0.0
            data.qpos[qadr] = q
            mujoco.mj_forward(model, data)
            full = np.zeros((model.nv, model.nv))
            mujoco.mj_fullM(model, full, data.qM) if hasattr(data, "qM") else mujoco.mj_fullM(
                model, data, full
            )
            ours = mass_matrix(art, q)
            theirs = full[np.ix_(dofs, dofs)]
            assert np.abs(theirs - ours).max() <= 1e-9 * np.abs(ours).max()
            gravity = dynamics_bias(art, q, np.zeros(art.nv), gravity=R.T @ GRAVITY)
            assert np.abs(data.qfrc_bias[dofs] - gravity).max() <= 1e-9 * max(np.abs(gravity).max(), 1.0)
        seen += len(names)
    assert seen == model.nv  # every degree of freedom compared
    totals = built.report.data["totals"]
    ours = totals["segments_mass"] + totals["parts_mass"]
    assert model.body_mass.sum() == pytest.approx(ours, rel=1e-12)


def test_armature_and_its_reason_are_written(tmp_path):
    text = export_mjcf(_demo(), tmp_path / "rig.xml").read_text()
    assert 'name="arm/joint_6" type="hinge" axis="0.0 0.0 1.0" armature="0.0002"' in text
    assert "wrist rotor 1.25e-5 kg m2 through the 4:1 belt" in text
    model = mujoco.MjModel.from_xml_path(str(tmp_path / "rig.xml"))
    assert model.dof_armature[model.joint("arm/joint_6").dofadr[0]] == 0.0002
    m1 = model.numeric("magnet:motor/part:m1").data
    assert m1[1:4].tolist() == [1.0, 0.0, 0.0]  # diametric


def test_each_magnet_s_numbers_are_what_the_comment_before_them_says_in_its_order(tmp_path):
    text = export_mjcf(_demo(), tmp_path / "rig.xml").read_text()
    said = re.search(r"<custom>\s*<!-- (.*?) -->", text).group(1)
    assert said.startswith("each magnet: moment (A m2), ") and said.endswith(", remanence (T)")
    assert "direction (unit, in its body's axes)" in said
    data = mujoco.MjModel.from_xml_path(str(tmp_path / "rig.xml")).numeric("magnet:motor/part:m1").data
    remanence = material("NdFeB-N42").remanence  # the demo's m1: N42, a cylinder 5 mm in radius, 10 mm long
    volume = math.pi * 0.005**2 * 0.01
    assert data[0] == pytest.approx(remanence * volume / 1.25663706212e-6, rel=1e-9)  # B_r V / mu_0
    assert data[1:4].tolist() == [1.0, 0.0, 0.0] and data[4] == pytest.approx(remanence, rel=1e-12)


def test_a_rig_that_breaks_a_rule_is_refused_and_nothing_is_written(tmp_path):
    rig = _demo()
    rig.parts["holder"].mount = "motor.nowhere"
    with pytest.raises(RigError) as caught:
        export_mjcf(rig, tmp_path / "rig.xml")
    assert any(f.code == "part.mount" for f in caught.value.findings)
    assert not (tmp_path / "rig.xml").exists()


# -- URDF ------------------------------------------------------------------------------------------------

pin = pytest.importorskip("pinocchio")


def _rig_poses(built, qs):
    """world_X_frame of every rig frame ``<segment>/<frame>`` at the segments' positions ``qs``, composed
    from each segment's own frame poses on its mount (the rig's built poses)."""
    out = {}
    for name, s in built.segments.items():
        art = s.articulation
        base = s.placement if s.mount is None else out[f"{s.mount[0]}/{s.mount[1]}"] @ s.placement
        for f, X in zip(art.frame_names, frame_poses(art, qs[name]), strict=True):
            out[f"{name}/{f}"] = base @ X
    return out


def _pin_q(model, per_joint):
    q = pin.neutral(model)
    for name, value in per_joint.items():
        j = model.joints[model.getJointId(name)]
        if j.nq == 2:
            q[j.idx_q : j.idx_q + 2] = math.cos(value), math.sin(value)
        else:
            q[j.idx_q] = value
    return q


@pytest.mark.parametrize("which", sorted(RIGS))
def test_urdf_frames_and_mass_matrix_are_the_rigs_in_pinocchio_and_our_reader(which, tmp_path):
    from mime_gui.multibody import read_urdf
    from mime_gui.rig.urdf_export import export_urdf

    rig = RIGS[which]()
    built = rig.build()
    path = export_urdf(rig, tmp_path / "rig.urdf")
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    ours_read = read_urdf(str(path)).compile()
    rng = np.random.default_rng(11)
    for _ in range(N):
        qs = {n: _random_q(s.articulation, rng) for n, s in built.segments.items()}
        per_joint = {
            f"{n}/{j}": v
            for n, s in built.segments.items()
            for j, v in zip(s.articulation.joint_names, qs[n], strict=True)
        }
        poses = _rig_poses(built, qs)
        q = _pin_q(model, per_joint)
        pin.framesForwardKinematics(model, data, q)
        read_q = np.array([per_joint[j] for j in ours_read.joint_names])
        read_poses = frame_poses(ours_read, read_q)
        for frame, X in poses.items():
            assert (
                np.abs(data.oMf[model.getFrameId(frame, pin.FrameType.BODY)].homogeneous - X).max() <= 1e-12
            ), frame
            assert np.abs(read_poses[ours_read.frame_index(frame)] - X).max() <= 1e-12, frame
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        for _name, _s, art, names in _carriers(built):
            sub = [model.joints[model.getJointId(n)].idx_v for n in names]
            ours = mass_matrix(art.with_armature(np.zeros(art.nv)), np.array([per_joint[n] for n in names]))
            assert np.abs(M[np.ix_(sub, sub)] - ours).max() <= 1e-9 * np.abs(ours).max()


def test_urdf_holds_the_armature_its_reason_and_the_magnets_moment(tmp_path):
    from mime_gui.rig.urdf_export import export_urdf

    text = export_urdf(_demo(), tmp_path / "rig.urdf").read_text()
    assert "armature of arm/joint_6: 0.0002 kg m2 (declared: wrist rotor 1.25e-5 kg m2" in text
    assert '<mime_magnet moment="' in text and 'direction="1.0 0.0 0.0"' in text
    assert "sha256" in text
    copied = sorted(p.name for p in (tmp_path / "rig_meshes").iterdir())
    assert "base.stl" in copied and "wrist.obj" in copied


# -- refusals and the command line ----------------------------------------------------------------------


def test_a_lab_kind_is_written_as_urdf_and_refused_as_mjcf_with_a_code(tmp_path):
    from mime_gui.rig import Apparatus, LabSegment, register_dynamics, unregister_dynamics
    from mime_gui.rig.dynamics import frames
    from mime_gui.rig.simulators import ExportError
    from mime_gui.rig.urdf_export import export_urdf

    register_dynamics(
        "export-stage",
        lambda travel=0.1: frames(
            "stage",
            "base",
            [("slide", "prismatic", "base", "carriage", (0, 0, 0.02), (1, 0, 0), (-travel, travel))],
        ),
    )
    try:
        rig = Apparatus("lab", chain={"stage": LabSegment(kind="export-stage", params={"travel": 0.2})})
        with pytest.raises(ExportError) as caught:
            export_mjcf(rig, tmp_path / "lab.xml")
        assert caught.value.code == "export.mjcf-massless"
        assert "lab's own kind" in caught.value.message and "--urdf" in caught.value.message
        assert not (tmp_path / "lab.xml").exists()
        model = pin.buildModelFromUrdf(str(export_urdf(rig, tmp_path / "lab.urdf")))
        assert model.names[1] == "stage/slide" and model.upperPositionLimit[0] == 0.2
    finally:
        unregister_dynamics("export-stage")


def test_the_command_line_writes_both_and_refuses_an_invalid_rig(tmp_path, capsys):
    import json

    from mime_gui.cli import main

    assert main(["export", str(DEMO_RIG), "--mjcf", str(tmp_path / "demo.xml")]) == 0
    assert main(["export", str(DEMO_RIG), "--urdf", str(tmp_path / "demo.urdf")]) == 0
    assert mujoco.MjModel.from_xml_path(str(tmp_path / "demo.xml")).nv == 7
    assert pin.buildModelFromUrdf(str(tmp_path / "demo.urdf")).nv == 7
    data = json.loads(DEMO_RIG.read_text())
    data["parts"]["holder"]["mount"] = "motor.nowhere"
    data["chain"][0]["description"] = str(DEMO_RIG.parent / "arm.urdf")
    bad = tmp_path / "bad.rig.json"
    bad.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["export", str(bad), "--mjcf", str(tmp_path / "bad.xml")]) == 1
    assert main(["export", str(bad), "--urdf", str(tmp_path / "bad.urdf")]) == 1
    assert "error[part.mount] parts.holder.mount" in capsys.readouterr().out
    assert not (tmp_path / "bad.xml").exists() and not (tmp_path / "bad.urdf").exists()


def test_samples_are_written_as_sites_at_their_points(tmp_path):
    """A sample on the motor's stator and one in the world: a site (MJCF) and a massless link (URDF) at the
    sample's point, where the rig's frame poses put it."""
    import mujoco
    import pinocchio as pin

    from mime_gui.rig import a_m2
    from mime_gui.rig.mjcf_export import export_mjcf
    from mime_gui.rig.samples import Sample
    from mime_gui.rig.urdf_export import export_urdf

    rig = load(DEMO_RIG)
    moment = a_m2(1e-4, reason="a bead's datasheet moment")
    rig.samples = {"bead": Sample((0.0, 0.0, 0.03), mount="motor.stator", moment=moment),
                   "dish": Sample((0.3, 0.1, 0.0), moment=moment)}
    assert rig.validate() == []
    built = rig.build()
    xml, urdf = tmp_path / "rig.xml", tmp_path / "rig.urdf"
    export_mjcf(rig, xml)
    export_urdf(rig, urdf)
    model = mujoco.MjModel.from_xml_path(str(xml))
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)  # at zero: the built rig's frames at zero joint positions
    zeros = {n: np.zeros(s.articulation.nq) for n, s in built.segments.items()}
    world_X_stator = _rig_poses(built, zeros)["motor/stator"]
    want = {"motor/sample:bead": world_X_stator[:3, :3] @ (0.0, 0.0, 0.03) + world_X_stator[:3, 3],
            "sample:dish": np.array([0.3, 0.1, 0.0])}
    for name, point in want.items():
        site = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, name)
        assert site >= 0, name
        np.testing.assert_allclose(data.site_xpos[site], point, atol=1e-12)
    pmodel = pin.buildModelFromUrdf(str(urdf))
    pdata = pmodel.createData()
    pin.framesForwardKinematics(pmodel, pdata, pin.neutral(pmodel))
    for name, point in want.items():
        frame = pmodel.getFrameId(name, pin.FrameType.BODY)
        np.testing.assert_allclose(pdata.oMf[frame].translation, point, atol=1e-12)


# -- comments: notes on their own lines, "--" kept out, material libraries, reflected armature -----------


def _xml_with_comments(path):
    """The written file read back by an XML parser that keeps the comments."""
    import xml.etree.ElementTree as ET

    return ET.parse(path, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))).getroot()


def test_a_disc_rotor_s_note_is_a_comment_of_its_own_in_its_body(tmp_path):
    import xml.etree.ElementTree as ET

    path = export_mjcf(_demo(), tmp_path / "rig.xml")
    root = _xml_with_comments(path)
    (rotor,) = [b for b in root.iter("body") if b.get("name") == "motor/rotor"]
    notes = [c.text.strip() for c in rotor if c.tag is ET.Comment]
    (note,) = [n for n in notes if n.startswith("motor/rotor is written as a disc: its inertia about "
                                                "motor/shaft's axis")]
    assert note.endswith("which the body it turns in takes off again")  # the motor stands on the arm
    # nothing but elements and comments: no stray text before or after a note
    for element in root.iter():
        assert not (element.text or "").strip() or element.tag is ET.Comment, element.tag
        assert not (element.tail or "").strip(), element.tag
    note_lines = [line for line in path.read_text().splitlines() if "is written as a disc" in line]
    assert note_lines and all(re.fullmatch(r"\s*<!-- [^\n]* -->", line) for line in note_lines)


def test_a_source_name_holding_double_hyphens_is_written_in_a_comment_xml_and_mujoco_read(tmp_path):
    import xml.etree.ElementTree as ET

    from mime_gui import __version__

    path = export_mjcf(_demo(), tmp_path / "rig.xml", source="runs/a--b---c.rig.json")
    said = [c.text for c in _xml_with_comments(path).iter() if c.tag is ET.Comment and "A MIME rig" in c.text]
    # each "--" split by a space, again until none is left: "---" is "- --" and then "- - -"
    assert said == [f" A MIME rig as MJCF, exported by mime-gui {__version__} "
                    "from runs/a- -b- - -c.rig.json "]
    assert mujoco.MjModel.from_xml_path(str(path)).nv == 7


def test_without_a_source_the_head_comment_names_only_the_exporter(tmp_path):
    from mime_gui import __version__

    first = export_mjcf(_demo(), tmp_path / "rig.xml").read_text().splitlines()[1]
    assert first == f"  <!-- A MIME rig as MJCF, exported by mime-gui {__version__} -->"  # no "from ..."


def test_each_joint_s_effort_and_velocity_limits_are_said_before_it_for_the_user_s_actuators(tmp_path):
    import xml.etree.ElementTree as ET

    from rig_helpers import DEMO_URDF

    text = export_mjcf(_demo(), tmp_path / "rig.xml").read_text()
    said = {joint: (float(effort), float(velocity)) for effort, velocity, joint in re.findall(
        r"<!-- effort limit (\S+); velocity limit (\S+): for the actuators the user adds -->\n\s*"
        r'<joint name="arm/(\w+)"', text)}
    declared = {j.get("name"): (float(j.find("limit").get("effort")), float(j.find("limit").get("velocity")))
                for j in ET.parse(DEMO_URDF).getroot().iter("joint") if j.find("limit") is not None}
    assert said == declared and len(said) == 6  # joint_1 (150 N m, 2 rad/s) to joint_6 (12 N m, 4 rad/s)


def test_an_obj_mesh_s_material_library_is_copied_beside_it(tmp_path):
    import shutil

    source = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, source)
    library = source / "meshes" / "wrist.mtl"
    library.write_text("newmtl red\nKd 1 0 0\n")
    obj = source / "meshes" / "wrist.obj"
    obj.write_bytes(b"mtllib wrist.mtl\nusemtl red\n" + obj.read_bytes())
    (tmp_path / "out").mkdir()  # an export writes into a folder that exists
    path = export_mjcf(load(source / "demo.rig.json"), tmp_path / "out" / "rig.xml")
    copies = tmp_path / "out" / "rig_meshes"
    assert sorted(p.name for p in copies.iterdir()) == ["base.stl", "wrist.mtl", "wrist.obj"]
    assert (copies / "wrist.mtl").read_bytes() == library.read_bytes()
    assert (copies / "wrist.obj").read_bytes() == obj.read_bytes()  # which names the library by its name
    assert mujoco.MjModel.from_xml_path(str(path)).nv == 7


def test_urdf_says_a_reflected_armature_before_the_transmission_that_reflects_it(tmp_path):
    import xml.etree.ElementTree as ET

    from rig_helpers import snippet_rig

    from mime_gui.rig import kg_m2
    from mime_gui.rig.urdf_export import export_urdf

    rig = snippet_rig()
    rig.chain["arm"].actuators = {"motor_4": kg_m2(1e-5, reason="datasheet")}
    children = list(_xml_with_comments(export_urdf(rig, tmp_path / "rig.urdf")))
    (i,) = [n for n, c in enumerate(children) if c.tag == "transmission" and
            c.find("joint").get("name") == "arm/joint_4"]
    before = children[i - 1]
    assert before.tag is ET.Comment
    said = re.fullmatch(r" armature of arm/joint_4: (\S+) kg m2 \(reflected: (.*)\) ", before.text)
    assert said, before.text
    assert float(said.group(1)) == pytest.approx(1e-5 * 50**2, rel=1e-12)  # the rotor times 50², squared
    assert "transmission_4" in said.group(2)
    # a declared armature has no transmission of its own to stand before
    (j,) = [n for n, c in enumerate(children) if c.tag == "transmission" and
            c.find("joint").get("name") == "arm/joint_6"]
    assert not (children[j - 1].tag is ET.Comment and "arm/joint_6" in children[j - 1].text)


def test_a_part_whose_mass_underflows_to_zero_still_writes_its_inertia(tmp_path):
    import xml.etree.ElementTree as ET

    from mime_gui.rig import Apparatus, kg_per_m3
    from mime_gui.rig.urdf_export import export_urdf

    rho, w, length = 1e-321, 0.01, 10.0  # a 10 m thread of a density near the smallest float
    volume = w * w * length
    assert rho * volume == 0.0  # its mass underflows ...
    ixx = rho * (volume * (w**2 + length**2) / 12)  # ... not its inertia across the thread (a box's)
    assert ixx > 0.0
    rod = Part(Box(size=(w, w, length)), density=kg_per_m3(rho, reason="a gas"))
    root = ET.parse(export_urdf(Apparatus("thread", parts={"rod": rod}), tmp_path / "rig.urdf")).getroot()
    (inertial,) = [link.find("inertial") for link in root.iter("link") if link.get("name") == "part:rod"]
    assert inertial is not None and float(inertial.find("mass").get("value")) == 0.0
    inertia = inertial.find("inertia")
    assert float(inertia.get("ixx")) == pytest.approx(ixx, rel=0.5)  # a subnormal: a few bits of precision
    assert float(inertia.get("iyy")) == pytest.approx(ixx, rel=0.5)
