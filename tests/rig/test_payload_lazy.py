"""A carrier's dynamics articulations (its riders welded on, and hung on it moving) are made on first use,
not at every build: an edit is drawn without waiting for them, and what is made later equals what the
payload functions give for that build."""

from __future__ import annotations

import numpy as np
from rig_helpers import DEMO_RIG

from mime_gui.multibody import mass_matrix
from mime_gui.rig import load
from mime_gui.rig.coupled import Coupled
from mime_gui.rig.payload import carrying


def test_the_carriers_articulations_wait_for_first_use_and_equal_the_payloads():
    built = load(DEMO_RIG).build()
    arm = built.segments["arm"]
    assert arm.riders  # the motor rides on the arm's flange
    assert "carrying" not in vars(arm) and "coupled" not in vars(arm)  # not made by the build
    q = np.linspace(-0.3, 0.4, arm.articulation.nq)
    welded = carrying(arm.articulation, list(arm.riders))
    np.testing.assert_array_equal(mass_matrix(arm.dynamics_articulation, q), mass_matrix(welded, q))
    assert arm.carrying is arm.carrying  # made once
    assert isinstance(arm.coupled, Coupled) and arm.coupled is arm.coupled  # made once, on first use
    # the motor carries nothing: neither is made
    motor = built.segments["motor"]
    assert motor.carrying is None and motor.coupled is None
    assert not np.allclose(mass_matrix(arm.articulation, q), mass_matrix(arm.dynamics_articulation, q))
