"""The chain's frame Jacobian over its commands with a mimic follower: a planar fold of two 10 cm links, the
second joint following the first (multiplier 1, offset 0) within ±0.5 rad, so the tip turns at twice the
command's rate while the follower is free and at the command's rate once it is held at a limit — the tip's
velocity by hand from its closed-form position."""

from __future__ import annotations

import numpy as np
import pytest
from robot_data import fold_urdf

from mime_gui.field.jacobian import ChainJacobian
from mime_gui.rig import Apparatus, Arm

FOLD_URDF = fold_urdf(1)


@pytest.mark.parametrize("command, free", [(-0.8, False), (-0.2, True), (0.2, True), (0.8, False)],
                         ids=["held-at-lower", "free-below-zero", "free-above-zero", "held-at-upper"])
def test_a_mimic_follower_turns_the_tip_with_its_master_only_while_within_its_limits(tmp_path, command, free):
    urdf = tmp_path / "fold.urdf"
    urdf.write_text(FOLD_URDF)
    rig = Apparatus("fold", chain={"arm": Arm.Kinematic(description=str(urdf))})
    assert rig.validate() == []
    built = rig.build()
    assert built.command_names == ("arm.j1",)
    chain = ChainJacobian(built)
    J = chain.twists(built.play({"arm.j1": [command]}, 0.01), [chain.frame_index("arm.tip")])[0, 0, :, 0]
    # by hand: tip = 0.1 (cos θ, sin θ) + 0.1 (cos(θ + φ), sin(θ + φ)), φ = clip(θ, ±0.5); dφ/dθ = 1 or 0
    follower = float(np.clip(command, -0.5, 0.5))
    rate = 2.0 if free else 1.0
    turned = command + follower
    velocity = [-0.1 * np.sin(command) - 0.1 * rate * np.sin(turned),
                0.1 * np.cos(command) + 0.1 * rate * np.cos(turned), 0.0]
    np.testing.assert_allclose(J[:3], [0.0, 0.0, rate], atol=1e-12)
    np.testing.assert_allclose(J[3:], velocity, atol=1e-12)
