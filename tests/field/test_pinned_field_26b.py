"""A sample's ``field.step-out`` finding says what asked the frequency it could not follow: ``(the spin)``
when a rig trajectory's spin profiles ask it, ``(the field at the sample)`` when no trajectory is given and
the rotating-field summary at the sample asks it (a command file, ``mime-gui field``): the reader is told
whether to slow the spin or look at the field the magnets make there."""

from __future__ import annotations

import math

import magpylib as magpy
import numpy as np
import pytest
from field_helpers import BR, magnet, spin

from mime_gui.field import step_out
from mime_gui.field.checks import field_findings
from mime_gui.rig import Apparatus, Keyframe, Motor, Sample, Sphere, Spin, Trajectory, a_m2, n_m_s
from mime_gui.rig.trajectories import render

R_BALL, Z_SAMPLE, M_SAMPLE, DRAG = 0.004, 0.03, 2e-4, 5e-9


def _field_on_axis() -> float:
    """|B| (T) of the rotor's ball (on the axis, magnetised across it) at the sample, by Magpylib."""
    ball = magpy.magnet.Sphere(diameter=2 * R_BALL, polarization=(BR, 0.0, 0.0))
    return float(np.linalg.norm(ball.getB((0.0, 0.0, Z_SAMPLE))))


F_STEP_OUT = M_SAMPLE * _field_on_axis() / (2 * math.pi * DRAG)  # the test's own |m||B|/(2π ζ)


def _rig(frequency: float):
    """A motor turning a ball magnetised across its axis, a following sample with a drag on the axis above
    it, and a rig trajectory ``spin`` at ``frequency``."""
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), mount="motor.rotor")
    sample = Sample((0.0, 0.0, Z_SAMPLE), mount="motor.stator", moment=a_m2(M_SAMPLE, reason="VSM"),
                    orientation="follows", drag=n_m_s(DRAG, reason="Stokes, 8πηr³"))
    keys = [Keyframe(2.0, interpolation="spin", spin=Spin(frequency, "Hz", ramp=0.5, hold=1.0))]
    rig = Apparatus("bench", chain={"motor": Motor.Kinematic()}, magnets={"m": ball},
                    samples={"bead": sample}, trajectories={"spin": Trajectory({"motor": keys})})
    assert rig.validate() == []
    return rig.build()


def test_the_step_out_finding_without_spins_says_the_field_at_the_sample_asked_it():
    f = 2 * F_STEP_OUT
    built = _rig(f)
    result = step_out(built, spin(built, f, 400, 0.001))  # no rig trajectory: the field's own frequency
    assert result.asked_by == ("field",)
    assert np.allclose(result.needed[:, 0], f, rtol=1e-6)
    [finding] = result.findings
    assert (finding.code, finding.where) == ("field.step-out", "samples.bead")
    # needed is the same at every step: the worst step's value is any step's
    words = f"{result.needed[0, 0]:.4g} Hz needed (the field at the sample), "
    assert words in finding.message, finding.message
    assert "(the spin)" not in finding.message


@pytest.mark.parametrize("spins, by", [(None, "the field at the sample"), ("spin", "the spin")])
def test_the_field_checks_name_what_asked_the_frequency_the_sample_could_not_follow(spins, by):
    """The same played spin through the validation's ``field_findings``: with the rig trajectory it plays the
    spin asks, without it the rotating-field summary at the sample asks."""
    built = _rig(2 * F_STEP_OUT)
    dt = 0.002
    _, commands = render(built, "spin", dt)
    [finding] = field_findings(built, built.play(commands, dt), spins=spins)
    assert (finding.code, finding.where) == ("field.step-out", "samples.bead")
    assert f" Hz needed ({by}), " in finding.message, finding.message
