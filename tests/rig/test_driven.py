"""Torque-driven dynamic segments in whole-chain playback: channels, payload, riders, the command line."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, DEMO_URDF, snippet_rig, spinner_urdf

from mime_gui.cli import main
from mime_gui.multibody import dynamics_bias
from mime_gui.multibody.errors import CodedError
from mime_gui.nodes import read_commands
from mime_gui.rig import Apparatus, Arm, PermanentMagnet, Sphere, load
from mime_gui.rig.driven import is_torque_channel, play_driven, torque_arrays
from mime_gui.rig.playback import RigPlayable
from mime_gui.rig.pulled import segment_pulls


@pytest.fixture(scope="module")
def built():
    return snippet_rig().build()


def test_torque_channel_names():
    assert is_torque_channel("arm.joint_torques") and is_torque_channel("arm.joint_torques.joint_1")
    assert is_torque_channel("motor.torque")
    assert not is_torque_channel("arm.joint_1") and not is_torque_channel("motor.torque.x")
    assert not is_torque_channel("torque")


def test_a_motor_spins_up_under_its_torque_and_what_rides_on_it_follows(built):
    T, dt, tau = 100, 0.01, 2e-6
    hold = np.tile(built.initial_commands(), (T, 1))
    traj = play_driven(built, hold, {"motor.torque": np.full(T, tau)}, dt)
    motor = traj.segments["motor"]
    art = built.articulation("motor")
    rotor = 3e-6 + sum(p["inertia_about_centroid"][2][2] for p in built.report["parts"])
    # semi-implicit Euler on a rotor whose mount stands still: ω_n = (n + 1)·dt·τ/I, θ_n = Σ ω_k·dt
    omega = (np.arange(T) + 1) * dt * tau / rotor
    np.testing.assert_allclose(motor.joint_velocities[:, 0], omega, rtol=1e-9)
    np.testing.assert_allclose(motor.joint_positions[:, 0], np.cumsum(omega) * dt, rtol=1e-9)
    # the magnet rides on the rotor: its frame turns with the shaft
    rotor_pose = motor.frame_poses[:, art.frame_index("rotor")]
    magnet = motor.frame_poses[:, art.frame_index("part:m1")]
    np.testing.assert_allclose(magnet[:, :3, :3], rotor_pose[:, :3, :3], atol=1e-12)
    on_axis = rotor_pose[:, :3, 3] + rotor_pose[:, :3, 2] * 0.025
    np.testing.assert_allclose(magnet[:, :3, 3], on_axis, atol=1e-12)
    # the arm held its commands: it played kinematically
    np.testing.assert_allclose(traj.segments["arm"].joint_positions, np.tile(
        traj.initial["arm"].joint_positions, (T, 1)), atol=1e-12)


def test_an_arm_given_its_gravity_torques_with_its_payload_stays_at_rest():
    built = load(DEMO_RIG).build()  # the arm bent, so the payload weighs on its joints
    art = built.dynamics_articulation("arm")
    T = 50
    q0 = built.play(np.tile(built.initial_commands(), (1, 1)), 0.01).initial["arm"].joint_positions
    hold = dynamics_bias(art, q0, np.zeros(art.nq))
    traj = play_driven(built, np.tile(built.initial_commands(), (T, 1)),
                       {"arm.joint_torques": np.tile(hold, (T, 1))}, 0.01, integrator="rk4", substeps=2)
    np.testing.assert_allclose(traj.segments["arm"].joint_positions, np.tile(q0, (T, 1)), atol=1e-9)
    # without the payload's share it sags
    bare = dynamics_bias(built.articulation("arm"), q0, np.zeros(art.nq))
    sag = play_driven(built, np.tile(built.initial_commands(), (T, 1)),
                      {"arm.joint_torques": np.tile(bare, (T, 1))}, 0.01)
    assert np.abs(sag.segments["arm"].joint_positions - q0).max() > 1e-6


def test_joint_columns_fill_one_joint_and_the_rest_get_zero(built):
    out = torque_arrays(built, {"arm.joint_torques.joint_2": np.ones(4), "motor.torque": np.full(4, 2.0)})
    assert out["arm"].shape == (4, 6) and out["arm"][:, 1].tolist() == [1.0] * 4
    assert not out["arm"][:, [0, 2, 3, 4, 5]].any()
    assert out["motor"].tolist() == [[2.0]] * 4


@pytest.mark.parametrize("channels, match", [
    ({"arm.torque": np.ones(3)}, "is not a motor"),
    ({"arm.joint_torques.elbow": np.ones(3)}, "no joint 'elbow'"),
    ({"arm.joint_torques": np.ones((3, 2))}, "must have shape"),
    ({"table.torque": np.ones(3)}, "not a torque channel"),
    ({"motor.torque": np.ones(2)}, "has 2 steps"),
    ({"motor.torque": np.array([1.0, np.inf, 0.0])}, "non-finite"),
])
def test_bad_torque_channels_are_refused_with_a_code(built, channels, match):
    with pytest.raises(CodedError, match=match) as e:
        torque_arrays(built, channels, 3)
    assert e.value.code == "commands.torque"


def test_a_channel_of_no_segment_is_refused_listing_the_dynamic_segments_or_saying_there_are_none(built):
    with pytest.raises(CodedError) as e:
        torque_arrays(built, {"table.torque": np.ones(3)}, 3)
    assert "'table.torque'" in e.value.message and "<segment>.joint_torques" in e.value.message
    assert e.value.message.endswith("of the dynamic segments: arm, motor")
    kinematic = Apparatus("k", chain={"arm": Arm.Kinematic(description=str(DEMO_URDF))}).build()
    with pytest.raises(CodedError) as e:
        torque_arrays(kinematic, {"table.torque": np.ones(3)}, 3)
    assert e.value.message.endswith("of the dynamic segments: none")


def test_a_kinematic_segment_takes_no_torque():
    rig = snippet_rig()
    rig.chain["arm"] = Arm.Kinematic(description=rig.chain["arm"].description)
    with pytest.raises(CodedError, match="kinematic"):
        torque_arrays(rig.build(), {"arm.joint_torques.joint_1": np.ones(3)}, 3)


def test_mime_gui_play_drives_a_segment_by_its_torque_columns(tmp_path, capsys):
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,arm.joint_2,motor.torque\n0,-0.4,1e-5\n0.1,-0.4,0\n0.3,-0.4,0\n")
    out = tmp_path / "out.npz"
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--dt", "0.01", "--out", str(out),
                 "--integrator", "rk4", "--substeps", "2"]) == 0
    data = np.load(out)
    shaft = list(data["joint_names"]).index("motor.shaft")
    assert data["joint_positions"][-1, shaft] > 0.0  # it spun up, then coasts
    rate = np.diff(data["joint_positions"][-5:, shaft])
    np.testing.assert_allclose(rate, rate[0], rtol=1e-6)
    commands.write_text("time,motor.torque [deg]\n0,1\n0.2,0\n")
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(out)]) == 2
    assert "error[commands.units]" in capsys.readouterr().err
    commands.write_text("time,arm.torque\n0,1\n0.2,0\n")
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(out)]) == 2
    assert "error[commands.torque]" in capsys.readouterr().err
    assert main(["play", str(DEMO_RIG), "--commands", str(commands), "--out", str(out),
                 "--substeps", "0"]) == 2
    assert "error[play.substeps]" in capsys.readouterr().err


def test_a_player_s_own_servo_time_constant_lags_the_arm_while_the_motor_is_torque_driven(tmp_path, built):
    # the snippet's segments have no lag of their own (0 s); the player is given 0.05 s for every segment
    dt, tau = 0.01, 0.05
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,arm.joint_2,motor.torque\n0,0,0\n" +
                        "".join(f"{k * dt!r},-0.4,0\n" for k in range(1, 6)))
    playable = RigPlayable(built, servo_time_constant=tau)
    schedule = playable.schedule(read_commands(commands), None)
    assert playable.torque_schedule is not None  # the motor is played by its torque
    trajectory = playable.play(schedule)
    # the exact first-order lag from 0 toward -0.4 (held from the second row on): θ_k = -0.4 + 0.4·e^(-k·dt/τ)
    want = -0.4 + 0.4 * np.exp(-np.arange(6) * dt / tau)
    played = trajectory.joint_positions[:, list(built.joint_names).index("arm.joint_2")]
    np.testing.assert_allclose(played, want, rtol=1e-12, atol=1e-15)


def test_the_app_player_plays_torque_channels_and_gives_the_torques(tmp_path):
    from mime_gui.session import Session
    from mime_gui.session.player import Player

    session = Session()
    session.open(str(DEMO_RIG))
    commands = tmp_path / "cmd.csv"
    commands.write_text("time,arm.joint_2,motor.torque\n0,-0.4,1e-5\n0.1,-0.4,0\n0.3,-0.4,0\n")
    player = Player.for_document(session.document, commands, dt=0.01)
    shaft = list(player.joint_names).index("motor.shaft")
    assert player.trajectory.joint_positions[-1, shaft] > 0.0
    torques = player.torques()
    assert torques is player.torques()  # computed once
    assert torques.joint_torques.shape == (player.rows, 7)


def test_a_divergence_while_the_pull_steps_the_chain_names_the_step(tmp_path):
    # a magnet on the torque-driven arm and one fixed beside it: the chain is stepped one step at a time;
    # the spinner turns without stops here (a stop would hold a runaway joint at its end)
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1).replace('type="revolute"', 'type="continuous"'))
    ball = {"geometry": Sphere(radius=0.005), "material": "NdFeB-N42", "magnetisation": (0, 1, 0)}
    rig = Apparatus("spinner", chain={"arm": Arm.Dynamic(description=str(tmp_path / "spinner.urdf"))},
                    magnets={"on_arm": PermanentMagnet(at=(0.05, 0, 0), mount="arm.arm", **ball),
                             "fixed": PermanentMagnet(at=(0.04, 0.03, 0.02), **ball)})
    built = rig.build()
    assert segment_pulls(built, ["arm"])  # the pull is felt: the stepped path
    torques = np.array([[0.0], [0.0], [1e308], [0.0]])  # finite, but no velocity stays finite under it
    with pytest.raises(CodedError) as err:
        play_driven(built, np.zeros((4, 1)), {"arm.joint_torques": torques}, 0.01)
    assert err.value.code == "dynamics.diverged"
    # the third step (index 2) is where it leaves the finite numbers, at its end: t = 3 × 0.01 s
    assert "diverged at step 2 (t = 0.03 s)" in err.value.message


def test_a_pulled_play_of_too_many_sub_steps_in_all_is_refused_before_it_steps(tmp_path, monkeypatch):
    # the pulled path steps one step at a time, where each step's sub-steps are within the bound alone; a
    # bound of 10 keeps the play short should the refusal be missing
    import mime_gui.nodes.dynamic as dynamic

    monkeypatch.setattr(dynamic, "MAX_SUBSTEPS", 10)
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1))
    ball = {"geometry": Sphere(radius=0.005), "material": "NdFeB-N42", "magnetisation": (0, 1, 0)}
    rig = Apparatus("spinner", chain={"arm": Arm.Dynamic(description=str(tmp_path / "spinner.urdf"))},
                    magnets={"on_arm": PermanentMagnet(at=(0.05, 0, 0), mount="arm.arm", **ball),
                             "fixed": PermanentMagnet(at=(0.04, 0.03, 0.02), **ball)})
    built = rig.build()
    assert segment_pulls(built, ["arm"])
    torques = {"arm.joint_torques": np.zeros((4, 1))}
    with pytest.raises(CodedError) as err:  # 4 steps of 3: 12 sub-steps in all
        play_driven(built, np.zeros((4, 1)), torques, 0.01, substeps=3)
    assert err.value.code == "dynamics.substeps"
    assert "at most 2 sub-step(s) per step" in err.value.message
    # 4 steps of 2, 8 in all, play
    played = play_driven(built, np.zeros((4, 1)), torques, 0.01, substeps=2)
    assert played.segments["arm"].joint_positions.shape == (4, 1)
