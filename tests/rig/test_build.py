"""The build: armature sources, mass sources, grafts against Pinocchio, magnet moments, the report."""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from rig_helpers import DEMO_URDF, SLIDER_URDF, snippet_rig

from mime_gui.multibody import mass_matrix, read_urdf
from mime_gui.rig import (
    Apparatus,
    Arm,
    Box,
    Cylinder,
    Mesh,
    Motor,
    Part,
    PermanentMagnet,
    Sphere,
    actuator,
    kg,
    kg_m2,
    kg_per_m3,
    register_actuator,
    tesla,
    unregister_actuator,
)

MU0 = 1.25663706212e-6  # CODATA 2018 vacuum permeability, N/A²


# -- armature ---------------------------------------------------------------------------------------
def test_armature_from_the_three_places():
    rig = snippet_rig()
    arm = rig.chain["arm"]
    arm.armature = {"joint_1": kg_m2(0.3, reason="identified on the bench")}
    arm.actuators = {"motor_4": kg_m2(1e-5, reason="datasheet"),
                     "motor_6": kg_m2(1.25e-5, reason="datasheet"), "motor_2": "example-bldc-60mm"}
    built = rig.build()
    art = built.articulation("arm")
    expected = {"joint_1": 0.3, "joint_2": actuator("example-bldc-60mm").rotor_inertia * 100 ** 2,
                # joint_4: an old-style transmission, its reduction beside the actuator
                "joint_3": 0.0, "joint_4": 1e-5 * 50 ** 2,
                "joint_5": 0.0, "joint_6": 1.25e-5 * 4 ** 2}
    for joint, value in expected.items():
        assert art.armature[art.joint_index(joint)] == pytest.approx(value, rel=1e-12)
    sources = {j: built.report.armature("arm", j)["source"] for j in expected}
    assert sources == {"joint_1": "declared", "joint_2": "reflected", "joint_3": "none",
                       "joint_4": "reflected", "joint_5": "none", "joint_6": "reflected"}
    j4 = built.report.armature("arm", "joint_4")
    assert "transmission_4" in j4["detail"] and "50²" in j4["detail"] and j4["reason"] == "datasheet"
    assert "example entry" in built.report.armature("arm", "joint_2")["detail"]
    assert "bench" in built.report.armature("arm", "joint_1")["reason"]
    # the motor's shaft counts too: its rotor is a body, not an armature
    assert built.report["totals"]["armature"] == {"declared": 1, "reflected": 3, "none": 3}


def test_registered_actuator_is_reflected_and_cited():
    register_actuator("lab-motor-x", rotor_inertia=kg_m2(2e-5, reason="x"), source="Lab X datasheet rev 3")
    try:
        with pytest.raises(ValueError):
            register_actuator("lab-motor-x", rotor_inertia=1e-5, source="again")
        with pytest.raises(ValueError):
            register_actuator("lab-motor-y", rotor_inertia=1e-5, source="")
        with pytest.raises(ValueError):
            register_actuator("lab-motor-y", rotor_inertia=kg(1e-5), source="datasheet")
        rig = snippet_rig()
        rig.chain["arm"].actuators = {"motor_3": "lab-motor-x"}
        built = rig.build()
        art = built.articulation("arm")
        assert art.armature[art.joint_index("joint_3")] == pytest.approx(2e-5 * 80 ** 2)
        assert "Lab X datasheet rev 3" in built.report.armature("arm", "joint_3")["detail"]
    finally:
        unregister_actuator("lab-motor-x")


def test_a_rotor_inertia_in_another_unit_is_refused_naming_the_motor_and_the_unit_it_needs():
    with pytest.raises(ValueError) as err:
        register_actuator("lab-motor-y", rotor_inertia=kg(1e-5), source="datasheet")
    text = str(err.value)
    assert text.startswith("rotor inertia of 'lab-motor-y' must be in kg m2") and text.endswith("got kg")
    assert actuator("lab-motor-y") is None


def test_reflected_armature_on_a_prismatic_joint_is_a_mass(tmp_path):
    path = tmp_path / "slider.urdf"
    path.write_text(SLIDER_URDF)
    rig = Apparatus("s", chain={"slider": Arm.Dynamic(description=str(path),
                                                      actuators={"linear_motor": kg_m2(1e-6, reason="x")})})
    built = rig.build()
    entry = built.report.armature("slider", "slide")
    assert entry["unit"] == "kg" and entry["value"] == pytest.approx(1e-6 * 1000 ** 2)


def test_armature_lands_on_the_mass_matrix_diagonal():
    rig = snippet_rig()
    rig.chain["arm"].actuators = {"motor_4": kg_m2(1e-5, reason="datasheet")}
    art = rig.build().articulation("arm")
    bare = read_urdf(DEMO_URDF).compile()
    q = np.array([0.1, -0.4, 0.9, 0.3, 0.6, 1.0])
    difference = mass_matrix(art, q) - mass_matrix(bare, q)
    expected = np.zeros(6)
    expected[3], expected[5] = 1e-5 * 50 ** 2, 2e-4
    np.testing.assert_allclose(difference, np.diag(expected), atol=1e-14)


# -- grafting ---------------------------------------------------------------------------------------
def _pinocchio_with(parts_on: dict[str, list], armature: np.ndarray):
    """The demo arm in Pinocchio with each (frame, mass, centroid-in-frame, inertia) appended to its joint."""
    model = pin.buildModelFromUrdf(str(DEMO_URDF))
    for frame, bodies in parts_on.items():
        f = model.frames[model.getFrameId(frame)]
        for mass, centroid, inertia in bodies:
            placement = f.placement * pin.SE3(np.eye(3), np.asarray(centroid, float))
            model.appendBodyToJoint(f.parentJoint, pin.Inertia(mass, np.zeros(3), inertia), placement)
    model.armature[:] = armature
    return model


def _pin_q(model, q):
    out = pin.neutral(model)
    for i, name in enumerate(f"joint_{k}" for k in range(1, 7)):
        j = model.joints[model.getJointId(name)]
        if j.nq == 2:  # continuous: (cos, sin)
            out[j.idx_q:j.idx_q + 2] = np.cos(q[i]), np.sin(q[i])
        else:
            out[j.idx_q] = q[i]
    return out


def test_grafted_mass_matrix_matches_pinocchio_with_the_same_bodies():
    rig = Apparatus("g", chain={"arm": Arm.Dynamic(
        description=str(DEMO_URDF), armature={"joint_2": kg_m2(0.05, reason="x")})},
        parts={"clamp": Part(Box((0.04, 0.02, 0.03)), material="steel", at=(0.05, -0.01, 0.2),
                             mount="arm.link_3"),
               "weight": Part(Sphere(radius=0.02), material="brass", at=(0, 0.03, 0.01), mount="arm.tool0"),
               "sleeve": Part(Cylinder(radius=0.03, length=0.05), density=kg_per_m3(1500, reason="print"),
                              at=(0, 0, 0.02), mount="arm.link_6")},
        magnets={"m": PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42",
                                      at=(0.01, 0, 0.035), mount="arm.link_6")})
    built = rig.build()
    art = built.articulation("arm")
    parts = {p["name"]: p for p in built.report["parts"]}

    def body(name):
        p = parts[name]
        return p["mass"], p["at"], np.array(p["inertia_about_centroid"])

    # independent figures: mass from density x volume
    assert parts["clamp"]["mass"] == pytest.approx(7870 * 0.04 * 0.02 * 0.03)
    assert parts["weight"]["mass"] == pytest.approx(8500 * 4 / 3 * math.pi * 0.02 ** 3)
    np.testing.assert_allclose(np.diag(body("weight")[2]), 0.4 * parts["weight"]["mass"] * 0.02 ** 2)
    model = _pinocchio_with({"link_3": [body("clamp")], "tool0": [body("weight")],
                             "link_6": [body("sleeve"), body("m")]}, armature=art.armature)
    data = model.createData()
    rng = np.random.default_rng(7)
    for _ in range(5):
        q = rng.uniform(-1.5, 1.5, 6)
        M_pin = pin.crba(model, data, _pin_q(model, q))
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        np.testing.assert_allclose(mass_matrix(art, q), M_pin, atol=1e-12)
    # the composite inertia of every body equals Pinocchio's
    for b in range(1, art.nbodies):
        inertia = model.inertias[b]
        assert art.mass_of_body[b] == pytest.approx(inertia.mass, rel=1e-12)
        np.testing.assert_allclose(art.com[b], inertia.lever, atol=1e-12)
        np.testing.assert_allclose(art.inertia_com[b], inertia.inertia, atol=1e-12)


def test_the_link_keeps_its_own_inertial():
    built = snippet_rig().build()
    tree = built.segments["motor"].tree
    assert tree.links["rotor"].inertial.mass == 0.0
    assert tree.links["part:holder"].inertial.mass == pytest.approx(2700 * math.pi * 0.01 ** 2 * 0.02)
    own = {link["link"]: link["mass"] for link in built.report.segment("arm")["links"]}
    assert own["link_6"] == 0.3 and "part:holder" not in own


def test_motor_mass_matrix_is_rotor_plus_parts_about_the_axis():
    built = snippet_rig().build()
    art = built.articulation("motor")
    r1, l1, m1 = 0.01, 0.02, 2700 * math.pi * 0.01 ** 2 * 0.02
    r2, m2 = 0.005, 7500 * math.pi * 0.005 ** 2 * 0.01
    expected = 3e-6 + m1 * r1 ** 2 / 2 + m2 * r2 ** 2 / 2  # on the axis: no parallel-axis term
    S = np.array([0, 0, 1, 0, 0, 0.0])  # [angular; linear]
    about_axis = sum(S @ art.spatial_inertia[b] @ S for b in range(1, art.nbodies))
    assert about_axis == pytest.approx(expected, rel=1e-12)
    assert mass_matrix(art, np.array([0.7]))[0, 0] == pytest.approx(expected, rel=1e-12)
    assert l1 > 0


def test_a_kinematic_segment_carries_no_mass():
    rig = Apparatus("k", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))},
                    parts={"p": Part(Box((0.05, 0.05, 0.05)), material="steel", mount="arm.link_6")})
    built = rig.build()
    bare = read_urdf(DEMO_URDF).compile()
    art = built.articulation("arm")
    np.testing.assert_array_equal(art.spatial_inertia, bare.spatial_inertia)
    assert "part:p" in art.frame_names  # the part still rides along
    assert built.report["grafts"] == []
    assert "kinematic" in built.report.part("p")["carried"]
    assert built.report["totals"]["kinematic_mass"] == pytest.approx(7870 * 0.05 ** 3)


# -- mass sources -----------------------------------------------------------------------------------
def test_mass_sources_and_massless_parts(tmp_path):
    import trimesh

    trimesh.creation.box((0.02, 0.04, 0.01)).export(tmp_path / "block.stl")
    rig = Apparatus("m", parts={
        "declared_mass": Part(Box((0.01, 0.02, 0.03)), material="steel", mass=kg(0.25, reason="weighed")),
        "declared_density": Part(Sphere(radius=0.01), density=kg_per_m3(1100, reason="print at 90 % infill")),
        "material": Part(Cylinder(radius=0.01, length=0.1), material="PLA"),
        "massless": Part(Box((0.1, 0.1, 0.1))),
        "mesh": Part(Mesh(str(tmp_path / "block.stl"), scale=2.0), material="aluminium"),
    })
    report = rig.build().report
    p = {name: report.part(name) for name in rig.parts}
    assert p["declared_mass"]["mass"] == 0.25 and p["declared_mass"]["mass_source"] == "declared mass"
    assert "weighed" in p["declared_mass"]["mass_detail"]
    box_izz = 0.25 * (0.01 ** 2 + 0.02 ** 2) / 12
    assert np.array(p["declared_mass"]["inertia_about_centroid"])[2, 2] == pytest.approx(box_izz)
    assert p["declared_density"]["mass"] == pytest.approx(1100 * 4 / 3 * math.pi * 1e-6)
    assert p["material"]["mass"] == pytest.approx(1240 * math.pi * 1e-4 * 0.1)
    assert "NatureWorks" in p["material"]["mass_detail"]
    assert p["massless"]["mass"] == 0 and p["massless"]["mass_source"] == "none"
    assert report["totals"]["massless"] == ["massless"]
    assert p["mesh"]["mass"] == pytest.approx(2700 * 0.04 * 0.08 * 0.02)
    assert p["mesh"]["carried"].startswith("fixed in the world")
    assert report["totals"]["world_mass"] == pytest.approx(sum(x["mass"] for x in p.values()))


# -- magnets ----------------------------------------------------------------------------------------
def test_magnetic_moment_is_remanence_times_volume_over_mu0():
    report = snippet_rig().build().report
    m1 = report.part("m1")["magnet"]
    volume = math.pi * 0.005 ** 2 * 0.01
    assert m1["remanence"] == 1.30
    assert m1["moment"] == pytest.approx(1.30 * volume / MU0, rel=1e-9)
    assert m1["direction"] == [0.0, 0.0, 1.0]
    assert "MMPA" in m1["remanence_source"]


def test_declared_remanence_and_direction_are_normalised():
    rig = snippet_rig()
    rig.magnets["m1"].magnetisation = (3.0, 0.0, 4.0)
    rig.magnets["m1"].remanence = tesla(1.0, reason="measured")
    m1 = rig.build().report.part("m1")["magnet"]
    assert m1["direction"] == pytest.approx([0.6, 0.0, 0.8])
    assert m1["moment"] == pytest.approx(math.pi * 0.005 ** 2 * 0.01 / MU0, rel=1e-9)
    assert "measured" in m1["remanence_source"]


# -- the report -------------------------------------------------------------------------------------
def test_report_names_every_joint_part_graft_and_total():
    built = snippet_rig().build()
    d = built.report.to_dict()
    assert [s["name"] for s in d["segments"]] == ["arm", "motor"]
    assert [j["joint"] for j in d["segments"][0]["joints"]] == [f"joint_{k}" for k in range(1, 7)]
    assert d["segments"][1]["mount"] == "arm.link_6" and d["segments"][0]["mount"] is None
    assert d["segments"][1]["rotor_inertia"]["reason"] == "catalogue value"
    assert d["segments"][0]["mass"]["own"] == pytest.approx(4 + 2 + 3 + 2 + 1 + 0.8 + 0.3)
    parts_mass = 2700 * math.pi * 1e-4 * 0.02 + 7500 * math.pi * 0.005 ** 2 * 0.01
    assert d["segments"][1]["mass"]["mounted"] == pytest.approx(parts_mass)
    assert d["totals"]["parts_mass"] == pytest.approx(parts_mass)
    assert d["totals"]["carried_mass"] == pytest.approx(parts_mass)
    assert [(g["part"], g["segment"], g["link"]) for g in d["grafts"]] == [("holder", "motor", "rotor"),
                                                                          ("m1", "motor", "rotor")]
    text = built.report.to_text()
    for needle in ("joint_6", "declared", "none", "holder", "aluminium", "grafts", "Br·V/μ0", "totals"):
        assert needle in text


def test_report_text_sets_each_section_title_after_a_blank_line():
    lines = snippet_rig().build().report.to_text().splitlines()
    titles = [lines[i + 1] for i, line in enumerate(lines[:-1]) if line == ""]
    assert titles == ["chain", "parts", "magnets", "grafts", "totals"]


def test_building_twice_does_not_change_the_description():
    rig = snippet_rig()
    first = rig.build().articulation("arm")
    second = rig.build().articulation("arm")
    np.testing.assert_array_equal(first.spatial_inertia, second.spatial_inertia)
    assert first.frame_names == second.frame_names


def test_motor_segment_publishes_stator_and_rotor():
    rig = Apparatus("m", chain={"spin": Motor.Dynamic(axis=(1, 1, 0), inertia=kg_m2(1e-6, reason="x"))})
    art = rig.build().articulation("spin")
    assert art.frame_names == ("stator", "rotor") and art.joint_names == ("shaft",)
    np.testing.assert_allclose(art.axis[0], np.array([1, 1, 0]) / math.sqrt(2))
    assert art.continuous[0]


def test_the_report_names_each_part_s_shape_with_its_sizes_in_its_data_and_its_text():
    from mime_gui.rig import Mesh

    mesh = str(DEMO_URDF.parent / "meshes" / "base.stl")
    rig = Apparatus("shapes", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF))},
                    parts={"clamp": Part(Box((0.04, 0.02, 0.03)), material="steel", mount="arm.link_3"),
                           "ball": Part(Sphere(radius=0.02), material="brass", at=(0, 0.03, 0.01),
                                        mount="arm.tool0"),
                           "sleeve": Part(Cylinder(radius=0.03, length=0.05), material="steel",
                                          mount="arm.link_6"),
                           "shell": Part(Mesh(mesh, scale=(0.5, 0.5, 2.0)), material="steel",
                                         mount="arm.link_2")})
    built = rig.build()
    geometry = {p["name"]: p["geometry"] for p in built.report["parts"]}
    assert geometry == {"clamp": {"type": "box", "size": [0.04, 0.02, 0.03]},
                        "ball": {"type": "sphere", "radius": 0.02},
                        "sleeve": {"type": "cylinder", "radius": 0.03, "length": 0.05},
                        "shell": {"type": "mesh", "path": mesh, "scale": [0.5, 0.5, 2.0]}}
    lines = built.report.to_text().splitlines()
    assert "  clamp: box (0.04, 0.02, 0.03) m, on arm.link_3, centroid at (0, 0, 0) m" in lines
    assert "  ball: sphere r=0.02 m, on arm.tool0, centroid at (0, 0.03, 0.01) m" in lines
    assert "  sleeve: cylinder r=0.03 m, length 0.05 m, on arm.link_6, centroid at (0, 0, 0) m" in lines
    assert any(line.startswith(f"  shell: mesh {mesh} scaled (0.5, 0.5, 2), on arm.link_2") for line in lines)


def test_the_report_text_gives_each_joint_s_armature_with_its_unit():
    rig = snippet_rig()
    rig.chain["arm"].actuators = {"motor_4": kg_m2(1e-5, reason="datasheet")}
    lines = rig.build().report.to_text().splitlines()
    rows = {line.split()[0]: line.split()[1:4] for line in lines if line.startswith("      joint_")}
    value, unit, source = rows["joint_4"]
    assert float(value) == pytest.approx(1e-5 * 50**2) and unit == "kg·m²" and source == "reflected:"
    assert rows["joint_6"] == ["0.0002", "kg·m²", "declared:"] and rows["joint_1"] == ["0", "kg·m²", "none:"]


def test_the_report_text_gives_a_sliding_joint_s_armature_in_kg(tmp_path):
    path = tmp_path / "slider.urdf"
    path.write_text(SLIDER_URDF)
    rig = Apparatus("s", chain={"slider": Arm.Dynamic(description=str(path),
                                                      actuators={"linear_motor": kg_m2(1e-6, reason="x")})})
    (row,) = [line.split() for line in rig.build().report.to_text().splitlines()
              if line.startswith("      slide ")]
    assert float(row[1]) == pytest.approx(1e-6 * 1000**2) and row[2:4] == ["kg", "reflected:"]
