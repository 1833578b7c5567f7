"""Field contracts, pinned: a joint over its segment's tolerance is named by a finding whose message
reads, word for word, where and how far it is over and what to do about it, and a URDF joint whose name
holds a dot is named whole (only the segment, which never holds a dot, is cut off); the seeds of the field
lines of a magnet magnetised along world x go round its north pole right-handed like those of any other; a
shaped sample that follows the field, through getFT over several steps of a spin, is turned at each step
to lie along B there (the two dipoles' force and no torque at every step, not only the first)."""

from __future__ import annotations

import math

import numpy as np
from field_helpers import BR, magnet, motor_rig, spin

from mime_gui.field import joint_field, rest_poses
from mime_gui.field.forces import dipole_dipole
from mime_gui.field.lines import field_lines
from mime_gui.field.samples import forces_along
from mime_gui.rig import Apparatus, Arm, Cylinder, Motor, Sample, Sphere, material, tesla
from mime_gui.rig.mass import MU0

R_BALL = 0.004
M_BALL = BR * 4 / 3 * math.pi * R_BALL**3 / MU0  # the rotor's ball magnet's moment, A m2
HINT = "keep the magnets farther from the joint, or check the tolerance against its motor's and encoder's " \
    "datasheets"


def _message(joint, tolerance, hits, T, first, last, worst, when, reason):
    """The finding's message as the module's contract spells it (times and fields as %g / %.4g)."""
    return (f"|B| at joint {joint!r} exceeds the segment's field tolerance {tolerance * 1e3:g} mT at "
            f"{hits} of {T} steps, from t = {first:g} s to {last:g} s; worst {worst * 1e3:.4g} mT at "
            f"t = {when:g} s ({reason}); {HINT}")


def _expected(result, j, tolerance, reason):
    over = result.B[:, j] > tolerance
    hit = np.flatnonzero(over)
    worst = hit[np.argmax(result.B[hit, j])]
    name = result.joint_names[j].split(".", 1)[1]
    return _message(name, tolerance, len(hit), len(result.time), result.time[hit[0]], result.time[hit[-1]],
                    result.B[worst, j], result.time[worst], reason)


def test_the_joint_finding_s_message_ends_with_its_advice_word_for_word():
    """A motor turning a ball magnet 3 cm off its axis past a second motor's joint 6 cm out: the finding
    names the joint, its steps and worst field, and ends with the advice in lower case, as written."""
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    tolerance = 2e-3
    limit = tesla(tolerance, reason="its Hall encoder's datasheet")
    chain = {"motor": Motor.Kinematic(),
             "encoder": Motor.Kinematic(mount="stator", at=(0.06, 0.0, 0.0), field_tolerance=limit)}
    rig = Apparatus("bench", chain=chain, magnets={"m": ball})
    assert rig.validate() == []
    built = rig.build()
    result = joint_field(built, spin(built, 1.0, 100, 0.01))
    assert result.over.any() and not result.over.all()
    [finding] = result.findings
    assert (finding.code, finding.where) == ("field.joint", "chain.encoder")
    assert finding.message == _expected(result, 0, tolerance, "its Hall encoder's datasheet")
    assert finding.message.endswith("; " + HINT)


DOTTED_URDF = """<robot name="wristy">
  <link name="base"/><link name="hand"/>
  <joint name="wrist.pitch" type="revolute"><parent link="base"/><child link="hand"/>
    <origin xyz="0 0 0.05"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def test_a_joint_whose_name_holds_a_dot_is_named_whole_in_its_finding(tmp_path):
    """A URDF joint ``wrist.pitch`` (a joint's name may hold dots; a segment's never does): its row is
    ``arm.wrist.pitch`` and its finding, on ``chain.arm``, names the joint ``'wrist.pitch'`` whole."""
    path = tmp_path / "wristy.urdf"
    path.write_text(DOTTED_URDF)
    limit = tesla(1e-3, reason="the wrist's encoder")
    arm = Arm.Kinematic(description=str(path), field_tolerance=limit)
    # a magnet 2 cm above the joint's frame (its child link's, 5 cm up): far over 1 mT there
    m = magnet(Sphere(R_BALL), (0.0, 0.0, 1.0), at=(0.0, 0.0, 0.07))
    rig = Apparatus("bench", chain={"arm": arm}, magnets={"m": m})
    assert rig.validate() == []
    built = rig.build()
    result = joint_field(built, built.play({"arm.wrist.pitch": np.linspace(0.0, 0.5, 5)}, 0.01))
    assert result.joint_names == ("arm.wrist.pitch",)
    assert result.over.all()
    [finding] = result.findings
    assert (finding.code, finding.where) == ("field.joint", "chain.arm")
    assert finding.message.startswith("|B| at joint 'wrist.pitch' exceeds")
    assert finding.message == _expected(result, 0, 1e-3, "the wrist's encoder")


def test_the_seeds_of_a_magnet_magnetised_along_x_go_round_its_north_pole_right_handed():
    """Four seeds of a 10 mm cylinder magnetised along +x (its north along world x, where the ring's helper
    axis must not be x itself): 6 mm out along x on a 3 mm ring square to it, each the one before it
    turned a quarter turn about +x, (y, z) → (−z, y)."""
    built = motor_rig({"m": magnet(Cylinder(0.005, 0.01), (1.0, 0.0, 0.0))}, {}).build()
    seeds = np.array([line[0] for line in field_lines(built, rest_poses(built), "m", seeds=4, steps=1)])
    np.testing.assert_allclose(seeds[:, 0], 0.006, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(seeds[:, 1:], axis=1), 0.003, rtol=1e-12)
    for before, after in zip(seeds[:, 1:], np.roll(seeds[:, 1:], -1, axis=0), strict=True):
        np.testing.assert_allclose(after, [-before[1], before[0]], rtol=0, atol=1e-15)
    # and the lines leave the north side and come back to the magnet, as any magnet's do
    for line in field_lines(built, rest_poses(built), "m", seeds=4):
        assert line[0][0] > 0 and np.linalg.norm(line[-1]) < 0.55 * 0.01 + 1e-9


def test_a_shaped_sample_following_a_turning_field_lies_along_b_at_every_step_of_the_spin():
    """A 1 mm ball sample of N42 magnetised along +x in the stator's frame, following the field of a ball
    magnet turning 3 cm off the motor's axis: at each of five steps B at the sample points a different
    way, neither along nor against +x, so getFT's shape is turned step by step; at every step it feels
    the two dipoles' force with its moment along that step's B, and no torque."""
    at = np.array([-0.01, 0.0, 0.012])
    ball = magnet(Sphere(R_BALL), (1.0, 0.0, 0.0), at=(0.03, 0.0, 0.0), mount="motor.rotor")
    rig = motor_rig({"m": ball}, {})
    rig.samples = {"bead": Sample(tuple(at), mount="motor.stator", geometry=Sphere(0.001),
                                  material="NdFeB-N42", magnetisation=(1.0, 0.0, 0.0), orientation="follows")}
    assert rig.validate() == []
    built = rig.build()
    result = forces_along(built, spin(built, 2.0, 5, 0.02), method="magnet")
    assert result.routes == ("magnet",)
    m2 = material("NdFeB-N42").remanence * 4 / 3 * math.pi * 0.001**3 / MU0
    for t in range(5):
        angle = 2 * math.pi * 2.0 * 0.02 * (t + 1)
        centre = np.array([0.03 * math.cos(angle), 0.03 * math.sin(angle), 0.0])
        m1 = M_BALL * np.array([math.cos(angle), math.sin(angle), 0.0])
        # the ball magnet's field at the sample is its dipole's (exact outside a uniformly magnetised ball)
        r = at - centre
        d = np.linalg.norm(r)
        u = r / d
        B = MU0 / (4 * math.pi) * (3 * u * (m1 @ u) - m1) / d**3
        assert abs(B[0] / np.linalg.norm(B)) < 0.9  # a turn of neither nothing nor half round
        F, _ = dipole_dipole(m1, m2 * B / np.linalg.norm(B), r)
        assert np.linalg.norm(result.force[t, 0] - F) <= 1e-5 * np.linalg.norm(F), t
        assert np.linalg.norm(result.torque[t, 0]) <= 1e-5 * np.linalg.norm(F) * d, t
