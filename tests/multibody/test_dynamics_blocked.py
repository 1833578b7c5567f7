"""An articulation whose description has a non-physical inertia: kinematics as usual, every computation
that reads mass properties refuses with a coded DynamicsError naming the link."""

from __future__ import annotations

import numpy as np
import pytest

import mime_gui.multibody as mb

ARM = """<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>
  <link name="antenna"><inertial><mass value="1e-9"/>
    <inertia ixx="1e-8" ixy="5e-8" ixz="0" iyy="1e-8" iyz="0" izz="1e-8"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="antenna_joint" type="fixed"><parent link="upper"/><child link="antenna"/></joint>
</robot>"""


@pytest.fixture
def art():
    return mb.read_urdf(ARM).compile()


def test_kinematics_are_computed(art):
    q = np.array([0.3])
    assert mb.frame_poses(art, q).shape == (3, 4, 4)
    assert mb.geometric_jacobian(art, q, "antenna").shape == (6, 1)
    assert mb.point_jacobian(art, q, "antenna").shape == (3, 1)
    assert mb.frame_angular_velocities(art, q, np.array([1.0])).shape == (3, 3)


@pytest.mark.parametrize("call", [
    lambda a, q, v: mb.mass_matrix(a, q),
    lambda a, q, v: mb.inverse_dynamics(a, q, v, v),
    lambda a, q, v: mb.dynamics_bias(a, q, v),
    lambda a, q, v: mb.dynamics(a, q, v, v),
    lambda a, q, v: mb.mass(a),
    lambda a, q, v: mb.subtree_mass(a, "upper"),
    lambda a, q, v: mb.center_of_mass(a, q),
    lambda a, q, v: mb.momentum_matrix(a, q),
    lambda a, q, v: mb.momentum(a, q, v),
    lambda a, q, v: mb.kinetic_energy(a, q, v),
], ids=["mass_matrix", "inverse_dynamics", "dynamics_bias", "dynamics", "mass", "subtree_mass",
        "center_of_mass", "momentum_matrix", "momentum", "kinetic_energy"])
def test_every_mass_property_computation_refuses(art, call):
    with pytest.raises(mb.DynamicsError) as info:
        call(art, np.array([0.3]), np.array([1.0]))
    err = info.value
    assert isinstance(err, ValueError) and err.code == "dynamics.nonphysical"
    assert "link 'antenna'" in err.message and "<string>:6" in err.message  # the <inertia> element
    assert err.one_line().startswith("error[dynamics.nonphysical] ")


def test_the_block_survives_a_new_armature_and_lifts_with_the_defect(art):
    assert art.with_armature([0.1]).dynamics_errors == art.dynamics_errors != ()
    sound = mb.read_urdf(ARM.replace('ixy="5e-8"', 'ixy="0"')).compile()
    assert sound.dynamics_errors == ()
    assert mb.mass_matrix(sound, np.array([0.3])).shape == (1, 1)


def test_the_refusal_names_the_first_defect_and_counts_the_others():
    one = mb.read_urdf(ARM).compile()
    two = mb.read_urdf(ARM.replace('iyz="0" izz="0.01"', 'iyz="0" izz="-0.01"')).compile()  # upper too
    assert len(one.dynamics_errors) == 1 and len(two.dynamics_errors) == 2
    for art, more in ((one, ""), (two, " (and 1 more)")):
        with pytest.raises(mb.DynamicsError) as info:
            mb.mass(art)
        assert info.value.message == (f"the mass properties of 'arm' are not physical, so its mass, momentum "
                                      f"and dynamics are not computed: {art.dynamics_errors[0]}{more}; fix "
                                      "the description (its kinematics are available)")
