"""The force on the selected sample in the Plots dock, as a user would see it: shown while a sample is
selected, sampled live as the arm moves and over a loaded command file with the playhead; the force by an
independent route (Pinocchio's poses, Magpylib's field, F = ∇(m·B) by central differences: oracle.py)."""

from __future__ import annotations

import numpy as np
from oracle import DEMO_MAGNETISATION, chain_B_by_hand, demo_poses, magnet_B
from test_driving import open_ready

from mime_gui.rig import Sample, a_m2
from mime_gui.session import AddItem, ItemRef

MOMENT = 1e-3  # A m2, along world x (fixed in the world)
H = 1e-5  # m, the central differences' step


def force_by_hand(B_at, p) -> np.ndarray:
    """F_j = m · ∂B/∂x_j for m along x: the x row of the gradient times m."""
    F = np.zeros(3)
    for j in range(3):
        e = np.zeros(3)
        e[j] = H
        F[j] = MOMENT * (B_at(p + e)[0] - B_at(p - e)[0]) / (2 * H)
    return F


def test_the_force_on_the_selected_sample_live_and_along_a_command_file(window, qtbot, demo_copy):
    driving = open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session = window.session
    rotor = session.frame_world_pose("motor", "part:m1")
    p = rotor[:3, :3] @ np.array([0.0, 0.0, 0.025]) + rotor[:3, 3] + np.array([0.0, 0.03, 0.0])
    session.apply(AddItem("samples", "bead", Sample(tuple(p), moment=a_m2(MOMENT, reason="VSM"),
                                                    magnetisation=(1.0, 0.0, 0.0))))
    plots = driving.plots
    plots.show()
    plots.raise_()
    view = window.field_views.sample_plot
    assert not plots._extras[view.plot][1]  # hidden until a sample is selected
    session.select(ItemRef("", "sample", "bead"))
    qtbot.waitUntil(lambda: plots._extras[view.plot][1] and view.redraws > 0, timeout=5000)
    arm, motor = session.joint_positions("arm"), session.joint_positions("motor")[0]
    rot = demo_poses(arm, motor)["rotor"]
    expected = force_by_hand(lambda q: magnet_B(rot, [q], DEMO_MAGNETISATION)[0], p) * 1e3
    got = np.array([c.yData[-1] for c in view.curves[:3]])  # the data drawn (getData: what is in view)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-9 * np.abs(expected).max())
    assert "bead" in view.readout.text() and "mN" in view.readout.text()
    # along a command file: the force at three rows by hand, the playhead on its row
    driving.transport.open(demo_copy / "chain.csv")
    qtbot.waitUntil(lambda: view.series is not None, timeout=20000)
    forces, k = view.series[3]
    rows = [0, 80, len(forces.time) - 1]
    for row in rows:
        def B_at(q, row=row):
            return chain_B_by_hand(demo_copy / "chain.csv", [row], (), [q])[1][0, 0]
        F = force_by_hand(B_at, p) * 1e3
        data = np.array([c.yData[row] for c in view.curves[:3]])
        np.testing.assert_allclose(data, F, rtol=1e-4, atol=1e-9 * np.abs(F).max())
    driving.transport.seek(80)
    start = driving.transport.player.schedule.start
    qtbot.waitUntil(lambda: abs(view.playhead.value() - (forces.time[80] - start)) < 1e-9, timeout=3000)
    assert view.computed == 1
