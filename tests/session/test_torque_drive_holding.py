"""The holding torques of a segment driven by torques while it moves: with them its joint accelerations are
zero at its positions and velocities, so they hold the gravity and bias torques plus what the joints'
damping and friction take off (``joint_forces(u, v) = c``: ``u = c + d·v + μ·tanh(v / v_s)``), and the
segment held by them keeps its velocities over the next step."""

from __future__ import annotations

import numpy as np

from mime_gui.multibody.moving_base import bias_on_moving_base
from mime_gui.nodes.dynamic import DynamicArmNode

DT = 0.01


def test_the_holding_torques_of_a_moving_arm_make_up_for_its_damping_and_friction(demo):
    session, transport = demo
    session.set_drive("arm", "torques")
    for _ in range(5):  # the unpowered arm falls: its damped joints move
        transport.tick(DT)
    q, v = session.joint_positions("arm"), session.joint_velocities("arm")
    j2 = session.segment("arm").articulation.joint_index("joint_2")
    assert abs(v[j2]) > 0.05  # joint_2: damping 0.5 N·m·s/rad, friction 0.2 N·m in the demo's URDF
    held = session.holding_torques("arm")
    # the same node the session drives, on the same base (the arm stands on the world: gravity in its axes)
    built = session.document.built.segments["arm"]
    node = DynamicArmNode(built.dynamics_articulation, placement=built.placement)
    g = np.asarray(built.placement)[:3, :3].T @ node.gravity
    art = built.dynamics_articulation
    c = bias_on_moving_base(art, q, v, None, None, g)
    dissipated = np.asarray(art.damping) * v + np.asarray(art.friction) * np.tanh(v / node.friction_velocity)
    assert abs(dissipated[j2]) > 0.1
    np.testing.assert_allclose(held, c + dissipated, rtol=0, atol=1e-12)
    # with them, no joint accelerates at this state
    np.testing.assert_allclose(node.acceleration(q, v, held, gravity=g), 0.0, atol=1e-9)
    # and over one 1 ms step the arm held by them keeps its velocities (unheld, joint_2's changes by ~6e-3)
    session.set_torques("arm", held)
    transport.tick(0.001)
    np.testing.assert_allclose(session.joint_velocities("arm"), v, rtol=0, atol=1e-9)
