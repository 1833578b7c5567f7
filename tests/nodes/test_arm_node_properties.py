"""Property tests of the node: the lag never overshoots, the clamp's invariants, play == repeated advance."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from node_helpers import BRANCH_URDF, DEMO_URDF, MIMIC_URDF

from mime_gui.multibody import read_urdf
from mime_gui.nodes import KinematicArmNode

DEMO = read_urdf(DEMO_URDF).compile()
MIMIC = read_urdf(MIMIC_URDF).compile()
BRANCH = read_urdf(BRANCH_URDF).compile()

finite = st.floats(-10, 10, allow_nan=False)
taus = st.one_of(st.just(0.0), st.floats(1e-3, 2.0))
dts = st.floats(5e-3, 0.5)


@settings(max_examples=60, deadline=None)
@given(theta=arrays(float, 6, elements=st.floats(-3, 3)), u=arrays(float, 6, elements=finite),
       tau=taus, dt=st.floats(1e-6, 10.0))
def test_theta_stays_between_its_previous_value_and_the_held_command(theta, u, tau, dt):
    node = KinematicArmNode(DEMO, servo_time_constant=tau)
    state = node.initial_state(theta)
    before = state.joint_positions
    after = node.advance(state, u, dt).joint_positions
    ubar = node.held(u)
    lo, hi = np.minimum(before, ubar), np.maximum(before, ubar)
    assert np.all(after >= lo) and np.all(after <= hi)
    # and it moves toward ū: the distance to ū never grows
    assert np.all(np.abs(after - ubar) <= np.abs(before - ubar))


@settings(max_examples=60, deadline=None)
@given(u=arrays(float, (3, 6), elements=st.floats(-1e6, 1e6)))
def test_clamp_invariants(u):
    node = KinematicArmNode(DEMO)
    held = node.held(u)
    assert np.all(held >= node.lower) and np.all(held <= node.upper)
    np.testing.assert_array_equal(node.held(held), held)  # idempotent
    inside = (u >= node.lower) & (u <= node.upper)
    np.testing.assert_array_equal(held[inside], u[inside])  # inside the limits: untouched
    np.testing.assert_array_equal(held[:, 5], u[:, 5])  # the continuous joint: never clamped
    outside = ~inside
    np.testing.assert_array_equal(np.isin(held[outside], np.concatenate([node.lower, node.upper])), True)
    # monotone: a larger command is never held lower
    np.testing.assert_array_equal(node.held(u + 1.0) >= held, True)


@st.composite
def runs(draw):
    art = draw(st.sampled_from([DEMO, MIMIC, BRANCH]))
    k = sum(1 for m in art.mimic_master if m < 0)
    steps = draw(st.integers(1, 25))
    commands = draw(arrays(float, (steps, k), elements=st.floats(-4, 4)))
    start = draw(arrays(float, k, elements=st.floats(-2, 2)))
    seed = draw(st.integers(0, 2**32 - 1))
    mount = draw(st.sampled_from(["none", "fixed", "moving"]))
    return art, commands, start, seed, mount


@settings(max_examples=40, deadline=None)
@given(run=runs(), tau=taus, dt=dts)
def test_play_equals_repeated_advance(run, tau, dt):
    art, commands, start, seed, mount = run
    rng = np.random.default_rng(seed)
    steps = len(commands)
    O = np.eye(4)
    O[:3, :3] = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    O[:3, 3] = rng.normal(size=3)
    node = KinematicArmNode(art, servo_time_constant=tau, placement=O)
    M = w = None
    if mount != "none":
        M = np.tile(np.eye(4), (steps, 1, 1))
        M[:, :3, :3] = np.linalg.qr(rng.normal(size=(steps, 3, 3)))[0]
        M[:, :3, 3] = rng.normal(size=(steps, 3))
        w = rng.normal(size=(steps, 3))
        if mount == "fixed":
            M, w = M[0], w[0]
    played = node.play(commands, dt, start, mount_poses=M, mount_rates=w, chunk=int(rng.integers(1, 8)))
    state = node.initial_state(start)
    for n in range(steps):
        Mn = None if M is None else (M if M.ndim == 2 else M[n])
        wn = None if w is None else (w if w.ndim == 1 else w[n])
        state = node.advance(state, commands[n], dt, mount_pose=Mn, mount_rate=wn)
        assert np.max(np.abs(state.joint_positions - played.joint_positions[n])) <= 1e-12
        assert np.max(np.abs(state.frame_poses - played.frame_poses[n])) <= 1e-12
        assert np.max(np.abs(state.frame_angular_velocities - played.frame_angular_velocities[n])) <= 1e-12
