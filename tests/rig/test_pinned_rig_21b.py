"""Rig contracts pinned at their edges: MJCF tells how to drive a kinematic segment; the build report's JSON
names a rider's inertia ``inertia_about_com``; a torque-driven segment feels a world magnet declared before
its own; reaching a rider's frame keeps the rider's joints off the path where they were, and passes the
solver's options on; the report's text says a part without a mount is fixed in the world; the whole tree
lists each segment's movable joints by their names in it; a sliding joint's demands are in N and m/s; and a
zone without a reason is refused saying what to give."""

from __future__ import annotations

import json
import math

import numpy as np
from magnet_rigs import BALL_RADIUS, ball
from rig_helpers import DEMO_RIG, DEMO_URDF, SLIDER_URDF, snippet_rig, spinner_urdf

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import Apparatus, Arm, Box, Cylinder, Motor, Part, kg_m2, load
from mime_gui.rig.driven import play_driven
from mime_gui.rig.mjcf_export import export_mjcf
from mime_gui.rig.simulators import named, whole
from mime_gui.rig.zones import Zone


# -- MJCF: a kinematic segment's comment says how its motion is applied --------------------------------------
def test_the_mjcf_says_a_kinematic_segments_motion_is_prescribed_and_how_to_drive_it(tmp_path):
    # docs: MuJoCo has no servo here; a kinematic segment's prescribed motion is the caller's to apply
    rig = Apparatus("rig", chain={
        "arm": Arm.Kinematic(description=str(DEMO_URDF)),
        "motor": Motor.Dynamic(inertia=kg_m2(3e-6, reason="catalogue value"), mount="link_6")},
        parts={"holder": Part(Cylinder(radius=0.01, length=0.02), material="aluminium", at=(0, 0, 0.01),
                              mount="motor.rotor")})
    assert rig.validate() == []
    text = export_mjcf(rig, tmp_path / "rig.xml").read_text()
    assert ("  <!-- segment arm (Arm.Kinematic, kinematic): servo time constant 0.0 s; its motion is "
            "prescribed: drive its joints with position actuators or set them each step -->\n") in text
    # a dynamic segment's line says no more than its servo
    assert "  <!-- segment motor (Motor.Dynamic, dynamic): servo time constant 0.0 s -->\n" in text


# -- the build report's JSON: a rider's inertia about its centre of mass ------------------------------------
def test_the_report_json_gives_each_riders_inertia_as_inertia_about_com(capsys):
    assert main(["report", str(DEMO_RIG), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    payload = next(s for s in data["segments"] if s["name"] == "arm")["payload"]
    (entry,) = payload["riders"]
    assert set(entry) == {"segment", "frame", "mass", "com", "inertia_about_com", "via"}
    rider = load(DEMO_RIG).build().segments["arm"].riders[0]
    assert (entry["segment"], entry["frame"], entry["via"]) == ("motor", "arm.tool0", [])
    assert entry["inertia_about_com"] == rider.inertia.tolist()
    assert np.asarray(entry["inertia_about_com"]).shape == (3, 3)


# -- the pull on a torque-driven segment, whatever order the magnets are declared in ------------------------
mu_0 = 1.25663706212e-6  # T·m/A, CODATA 2018
N42 = {m["name"]: m for m in json.loads((RESOURCES / "materials.json").read_text())["materials"]}["NdFeB-N42"]
MASS_BALL = N42["density"] * 4 / 3 * math.pi * BALL_RADIUS**3
MOMENT = N42["remanence"] * 4 / 3 * math.pi * BALL_RADIUS**3 / mu_0  # A·m², Br·V/μ0
ARM_AT = np.array([0.05, 0.0, 0.0])
FIXED_AT = np.array([0.05 * math.cos(0.7), 0.05 * math.sin(0.7), 0.02])
ALONG_Y = np.array([0.0, 1.0, 0.0])


def _dipole_pull(m1, m2, r):
    """Force on dipole m2 at r from dipole m1, and the torque on it about its centre (the test's own)."""
    d = np.linalg.norm(r)
    u = r / d
    k = mu_0 / (4 * math.pi)
    force = 3 * k / d**4 * ((m1 @ u) * m2 + (m2 @ u) * m1 + (m1 @ m2) * u - 5 * (m1 @ u) * (m2 @ u) * u)
    return force, np.cross(m2, k * (3 * u * (m1 @ u) - m1) / d**3)


def test_a_torque_driven_link_feels_a_world_magnet_declared_before_its_own(tmp_path):
    # the world's ball first in the rig's order: the link's ball after it is still the one the pull moves,
    # so the first step from rest is dt·τ_ext/I about the axis, toward the fixed ball
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1))
    magnets = {"fixed": ball(FIXED_AT, None, ALONG_Y), "on_arm": ball(ARM_AT, "arm.arm", ALONG_Y)}
    rig = Apparatus("spinner", chain={"arm": Arm.Dynamic(description=str(tmp_path / "spinner.urdf"))},
                    magnets=magnets)
    built = rig.build()
    dt = 1e-4
    traj = play_driven(built, np.zeros((3, 1)), {"arm.joint_torques": np.zeros((3, 1))}, dt).segments["arm"]
    F, tau = _dipole_pull(MOMENT * ALONG_Y, MOMENT * ALONG_Y, ARM_AT - FIXED_AT)
    axial = (np.cross(ARM_AT, F) + tau)[2]
    inertia = 1e-5 + MASS_BALL * ARM_AT @ ARM_AT + 0.4 * MASS_BALL * BALL_RADIUS**2
    assert axial > 0
    np.testing.assert_allclose(traj.joint_velocities[0, 0] / dt, axial / inertia, rtol=1e-9)


# -- reaching a rider's frame --------------------------------------------------------------------------------
def _demo_reach_start():
    built = load(DEMO_RIG).build()
    chain = built.chain_node()
    state = chain.initial_state({"arm": [0.1, -0.4, 0.9, 0.0, 0.6, 0.0], "motor": [0.7]})
    stator = built.segments["motor"].articulation.frame_index("stator")
    target = state["motor"].frame_poses[stator].copy()
    target[:3, 3] += [0.01, -0.01, 0.02]  # 2.4 cm away: more than one step of the solver
    return chain, state, target


def test_reaching_the_stator_keeps_the_motors_shaft_where_the_state_has_it():
    # docs: joints off the path keep their positions in state; the shaft does not move the stator
    chain, state, target = _demo_reach_start()
    found = chain.reach(state, "motor", "stator", target)
    assert found.result.converged
    assert found.result.joints == tuple(f"arm.joint_{i}" for i in range(1, 7))
    np.testing.assert_array_equal(found.positions["motor"], [0.7])


def test_reaching_passes_the_solvers_options_on():
    chain, state, target = _demo_reach_start()
    assert chain.reach(state, "motor", "stator", target).result.iterations > 1
    # one iteration asked: it stops after one, short of the target
    found = chain.reach(state, "motor", "stator", target, max_iterations=1)
    assert (found.result.iterations, found.result.converged) == (1, False)
    # a tolerance wider than the distance: the start is already there
    found = chain.reach(state, "motor", "stator", target, position_tolerance=0.5, angle_tolerance=4.0)
    assert (found.result.iterations, found.result.converged) == (0, True)


# -- the report's text: where a part is ---------------------------------------------------------------------
def test_the_report_text_says_a_part_without_a_mount_is_fixed_in_the_world():
    rig = snippet_rig()
    rig.parts["block"] = Part(Box(size=(0.02, 0.04, 0.01)), material="aluminium", at=(0.3, 0, 0.005))
    assert rig.validate() == []
    lines = rig.build().report.to_text().splitlines()
    assert "  block: box (0.02, 0.04, 0.01) m, fixed in the world, centroid at (0.3, 0, 0.005) m" in lines
    # a mounted one says its mount
    assert "  holder: cylinder r=0.01 m, length 0.02 m, on motor.rotor, centroid at (0, 0, 0.01) m" in lines


# -- the whole tree: each segment's joints -----------------------------------------------------------------
def test_the_whole_tree_names_each_segments_movable_joints_as_the_tree_holds_them(tmp_path):
    w = whole(load(DEMO_RIG), tmp_path)
    assert w.segments["arm"].joints == tuple(named("arm", f"joint_{i}") for i in range(1, 7))
    assert w.segments["motor"].joints == (named("motor", "shaft"),)
    for info in w.segments.values():
        assert all(w.tree.joints[j].movable for j in info.joints)


# -- a sliding joint's units ---------------------------------------------------------------------------------
def test_a_sliding_joints_torques_and_excesses_are_in_newtons_and_metres_per_second(tmp_path):
    (tmp_path / "slider.urdf").write_text(SLIDER_URDF)  # effort 10 N, velocity 1 m/s
    rig = Apparatus("s", chain={"slide": Arm.Dynamic(description=str(tmp_path / "slider.urdf"))})
    built = rig.build()
    commands = np.zeros((10, 1))
    commands[2:] = 0.05  # a 5 cm jump in one 10 ms step: 5 m/s, and the force to get there
    torques = built.torques(built.play(commands, 0.01))
    assert torques.effort_units == ("N",)
    found = [(e.code, e.unit) for e in torques.excesses]
    assert found == [("torque.effort", "N"), ("torque.velocity", "m/s")]
    assert "exceeds the velocity limit 1 m/s; worst at t=0.03 s: |v| = 5 m/s" in str(torques.excesses[1])


# -- a zone's reason -----------------------------------------------------------------------------------------
def test_a_zone_without_a_reason_is_refused_saying_what_to_give():
    rig = snippet_rig(zones={"z": Zone((0.3, 0.0, 0.1), sphere=0.02, reason="  ")})
    found = [(f.code, f.where, f.message) for f in rig.validate()]
    assert found == [("zone.reason", "zones.z.reason", "say why the zone is there (who or what stands in it) "
                                                       "and where its limit comes from")]
