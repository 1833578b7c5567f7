"""Contracts of the rig pinned at their edges: the build report says why a kinematic segment's joints carry no
armature; a moving pair's contact names what to do about it; a kinematic rider's parts keep their exact mass
properties in its carrier's coupled articulation; a torque-driven rider stepped beside the pull starts at
rest on its mount; the keyframe text names the turns clause it cannot read; the magnets' pull takes the
dipole route from exactly DIPOLE_SIZES sizes apart; an unplaced probe's measure says how it reads again;
``export_mjcf`` writes the gravity it is given; a rig's command file takes metres on a prismatic joint
only."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF, SLIDER_URDF, snippet_rig

from mime_gui.nodes.commands import CommandFileError, read_commands
from mime_gui.rig import (
    Apparatus,
    Arm,
    Box,
    Motor,
    Part,
    PermanentMagnet,
    Probe,
    Sphere,
    kg_m2,
    kg_per_m3,
    load,
)
from mime_gui.rig.build import display_segments
from mime_gui.rig.clearance_check import initial_clearance
from mime_gui.rig.driven import play_driven
from mime_gui.rig.keyframe_text import KeyframeTextError, parse_keyframe_text
from mime_gui.rig.magnet_pull import DIPOLE_SIZES, magnet_pull
from mime_gui.rig.measures import MeasureError, ProbeEnd, anchor
from mime_gui.rig.mjcf_export import export_mjcf
from mime_gui.rig.playback import RigPlayable
from mime_gui.rig.pulled import segment_pulls
from mime_gui.rig.trajectories import Keyframe

KINEMATIC_WHY = "kinematic segment: prescribed motion, no armature"
ROTOR_WHY = "a motor's rotor is its own body; no armature"


# -- the build report's armature of a segment without one ---------------------------------------------------
@pytest.mark.parametrize(("segment", "why"), [
    (Arm.Kinematic(description=str(DEMO_URDF)), KINEMATIC_WHY),
    (Motor.Kinematic(), KINEMATIC_WHY),
    (Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(3e-6, reason="catalogue value")), ROTOR_WHY),
], ids=["kinematic-arm", "kinematic-motor", "dynamic-motor"])
def test_the_report_says_why_a_segment_without_armature_lists_none(segment, why):
    report = Apparatus("r", chain={"s": segment}).build().report
    joints = report.segment("s")["joints"]
    assert joints  # every movable joint is listed, each with nothing reflected and the reason
    assert {(j["value"], j["source"], j["detail"]) for j in joints} == {(0.0, "none", why)}


# -- a moving pair's contact ---------------------------------------------------------------------------------
def test_the_contact_of_a_moving_pair_in_the_initial_pose_names_the_three_ways_out():
    # a ball on the rotor and one in the world, 15 mm apart for radii of 10 mm: 5 mm deep
    rig = Apparatus("w", chain={"motor": Motor.Kinematic()},
                    parts={"a": Part(Sphere(radius=0.01), material="aluminium", at=(0, 0, 0),
                                     mount="motor.rotor"),
                           "b": Part(Sphere(radius=0.01), material="aluminium", at=(0, 0, 0.015))})
    (found,) = initial_clearance(rig)
    assert (found.code, found.where) == ("clearance.contact", "parts.a")
    assert found.message == ("parts.a and parts.b overlap by 5 mm in the initial pose; move one of them, "
                             "change the trajectory, or allow the pair with a reason (clearance.allow)")


# -- a kinematic rider's parts in the coupled articulation ---------------------------------------------------
@pytest.mark.parametrize("density", [2700.0, 1e-322], ids=["aluminium", "vanishing"])
def test_a_kinematic_riders_part_has_its_own_mass_properties_in_the_coupled_articulation(density):
    # the vanishing density makes a mass that underflows to zero while the plate's inertia does not: the
    # carrier still holds the inertia it has, as a dynamic segment's graft does (mass > 0 or any inertia)
    plate = Part(Box((10.0, 10.0, 1e-4)), density=kg_per_m3(density, reason="a test figure"), at=(0, 0, 0),
                 mount="motor.rotor")
    rig = Apparatus("u", chain={"arm": Arm.Dynamic(description=str(DEMO_URDF)),
                                "motor": Motor.Kinematic(mount="arm.link_6")}, parts={"plate": plate})
    built = rig.build()
    entry = built.report.part("plate")
    inertia = np.array(entry["inertia_about_centroid"])
    assert np.any(inertia) and (entry["mass"] > 0) == (density > 1.0)
    coupled = built.segments["arm"].coupled
    art = coupled.articulation
    rotor = art.body_names.index(coupled.link_name("motor", "rotor"))
    # the kinematic motor's rotor holds no mass of its own: the body is the plate alone
    np.testing.assert_array_equal(art.inertia_com[rotor], inertia)
    assert art.mass_of_body[rotor] == entry["mass"]


# -- a torque-driven rider stepped one step at a time --------------------------------------------------------
def _magnetised_ball(at, mount):
    return PermanentMagnet(Sphere(radius=0.005), material="NdFeB-N42", magnetisation=(0, 0, 1), at=at,
                           mount=mount)


def test_a_torque_driven_rider_stepped_beside_the_pull_starts_at_rest_on_its_still_mount():
    # a motor on a still stage 0.3 m from the world's origin, its axis vertical (gravity turns nothing), a
    # ball 2 cm off its shaft; a ball on the shaft's line above it: both magnetised along the shaft, the
    # pull has no moment about it. Without torque the shaft stays where it starts, at rest: its base's
    # motion is differenced from where the mount holds it, not from the world's origin
    rig = Apparatus("r", chain={"stage": Motor.Kinematic(at=(0.3, 0.0, 0.0)),
                                "spin": Motor.Dynamic(axis=(0, 0, 1), mount="stage.rotor",
                                                      inertia=kg_m2(1e-6, reason="a test figure"))},
                    magnets={"off": _magnetised_ball((0.0, 0.02, 0.0), "spin.rotor"),
                             "above": _magnetised_ball((0.3, 0.0, 0.05), None)})
    built = rig.build()
    assert set(segment_pulls(built, ["spin"])) == {"spin"}  # the stepped path
    T, dt = 50, 1e-3
    traj = play_driven(built, np.tile(built.initial_commands(), (T, 1)), {"spin.torque": np.zeros(T)}, dt)
    shaft = traj.segments["spin"]
    np.testing.assert_allclose(shaft.joint_positions, 0.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(shaft.joint_velocities, 0.0, rtol=0, atol=1e-10)


# -- the keyframe text ---------------------------------------------------------------------------------------
def test_turns_that_are_no_number_are_refused_naming_the_turns_clause():
    with pytest.raises(KeyframeTextError) as err:
        parse_keyframe_text("spin 5 Hz, many turns", Keyframe(1.0), lambda joint: "deg")
    assert err.value.code == "trajectory.values"
    assert err.value.message == "turns: 'many' is not a number; type one, as 1.5"


# -- the magnets' pull: the route at the boundary ------------------------------------------------------------
def _block(at, mount=None):
    # half-extents 1/64, 1/32, 1/32 m: a bounding radius of exactly 3/64 m, 25 sizes exactly 2.34375 m
    return PermanentMagnet(Box((1 / 32, 1 / 16, 1 / 16)), material="NdFeB-N42", magnetisation=(0, 0, 1),
                           at=at, mount=mount)


@pytest.mark.parametrize(("apart", "route"), [
    (DIPOLE_SIZES * 2 * 3 / 64, "dipole"),  # exactly 25 sizes: "at least" DIPOLE_SIZES apart
    (DIPOLE_SIZES * 2 * 3 / 64 - 1 / 32, "magnet"),
], ids=["at-the-bound", "within"])
def test_two_blocks_at_least_dipole_sizes_apart_take_the_dipole_route(apart, route):
    assert DIPOLE_SIZES * 2 * 3 / 64 == 2.34375
    rig = Apparatus("p", chain={"motor": Motor.Kinematic()},
                    magnets={"turning": _block((0.0, 0.0, 0.0), "motor.rotor"),
                             "still": _block((apart, 0.0, 0.0))})
    built = rig.build()
    poses = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01).frame_poses
    pull = magnet_pull(built, poses)
    np.testing.assert_array_equal(pull.centre[0], [[0.0, 0.0, 0.0], [apart, 0.0, 0.0]])
    assert pull.pairs == (("turning", "still", route),)


# -- measures ------------------------------------------------------------------------------------------------
def test_a_probe_on_no_frame_is_not_placed_and_its_measure_says_how_it_reads_again():
    rig = snippet_rig(probes={"p": Probe(at=(0, 0, 0.05), mount="arm.link_9")})
    with pytest.raises(MeasureError) as info:
        anchor(ProbeEnd("p"), rig, display_segments(rig), where="measures.1")
    assert (info.value.code, info.value.file) == ("measure.end", "measures.1")
    assert info.value.message == ("probe 'p' is not placed: its mount 'arm.link_9' is not a frame of the rig "
                                  "(see Validation); fix it and the measure reads again")


# -- the MJCF export's gravity -------------------------------------------------------------------------------
def _gravity(path) -> list[float]:
    return [float(g) for g in ET.parse(path).getroot().find("option").get("gravity").split()]


def test_export_mjcf_writes_the_gravity_it_is_given(tmp_path):
    rig = load(DEMO_RIG)
    assert _gravity(export_mjcf(rig, tmp_path / "moon.xml", gravity=(0.0, 0.0, -1.62))) == [0.0, 0.0, -1.62]
    assert _gravity(export_mjcf(rig, tmp_path / "earth.xml")) == [0.0, 0.0, -9.81]  # the default


# -- a rig's command file: units of a prismatic joint --------------------------------------------------------
@pytest.fixture
def rail(tmp_path):
    (tmp_path / "slider.urdf").write_text(SLIDER_URDF)
    built = Apparatus("s", chain={"rail": Arm.Kinematic(description=str(tmp_path / "slider.urdf"))}).build()
    return RigPlayable(built)


def test_a_rigs_prismatic_joint_takes_metres_in_a_command_file(rail, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("time,rail.slide [m]\n0,0.01\n0.2,-0.025\n")
    schedule = rail.schedule(read_commands(path), 0.1)
    assert schedule.command_names == ("rail.slide",)
    np.testing.assert_array_equal(schedule.commands, [[0.01], [0.01], [-0.025]])


def test_a_rigs_prismatic_joint_refuses_degrees_in_a_command_file(rail, tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("time,rail.slide [deg]\n0,10\n")
    with pytest.raises(CommandFileError) as err:
        rail.schedule(read_commands(path), 0.1)
    assert (err.value.code, err.value.line) == ("commands.units", 1)
    assert err.value.message == "column 2: joint 'rail.slide' is prismatic; give it in metres, not degrees"
