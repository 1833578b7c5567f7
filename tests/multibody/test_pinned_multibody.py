"""A chain longer than the dense ancestor table (its angular velocities summed level by level), the name a
wrong gravity is refused by, a reader's error that blocks no use, and a link welded to a tree whose tables
were edited by hand."""

from __future__ import annotations

import numpy as np
import pytest

import mime_gui.multibody as mb
from mime_gui import RESOURCES
from mime_gui.multibody.kinematics import DENSE_BODIES
from mime_gui.multibody.moving_base import inverse_dynamics_on_moving_base
from mime_gui.multibody.report import BLOCKS, ReadReport

DEMO_URDF = RESOURCES / "demo" / "arm.urdf"


def _z_chain(n: int) -> str:
    """A URDF chain of ``n`` revolute joints, each about z and 1 cm along x from the last."""
    links = "".join(f'<link name="l{k}"/>' for k in range(n + 1))
    joints = "".join(f'<joint name="j{k}" type="revolute"><origin xyz="0.01 0 0"/><parent link="l{k}"/>'
                     f'<child link="l{k + 1}"/><axis xyz="0 0 1"/>'
                     '<limit lower="-3" upper="3" effort="1" velocity="1"/></joint>' for k in range(n))
    return f'<robot name="long">{links}{joints}</robot>'


def test_a_chain_longer_than_the_dense_table_turns_each_link_by_the_sum_of_the_rates_above_it():
    """Every joint about z: whatever the angles, link k turns about z at the sum of the first k joint rates
    (the root at rest). One configuration, no batch axis."""
    n = DENSE_BODIES + 8
    art = mb.read_urdf(_z_chain(n)).compile()
    rng = np.random.default_rng(5)
    q, v = rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n)
    omega = mb.frame_angular_velocities(art, q, v)
    assert omega.shape == (art.nframes, 3)
    rates = np.concatenate([[0.0], np.cumsum(v)])  # link k: v_0 + ... + v_(k-1)
    for k in range(n + 1):
        np.testing.assert_allclose(omega[art.frame_index(f"l{k}")], [0.0, 0.0, rates[k]], rtol=1e-12,
                                   atol=1e-12)


def test_a_gravity_of_two_components_is_refused_naming_gravity_and_the_shape_it_needs():
    art = mb.read_urdf(DEMO_URDF).compile()
    zero = np.zeros(art.nq)
    with pytest.raises(ValueError) as info:
        inverse_dynamics_on_moving_base(art, zero, zero, zero, gravity=(0.0, -9.81))
    assert str(info.value).startswith("gravity must be finite numbers of shape (..., 3)"), str(info.value)
    assert "got shape (2,)" in str(info.value)


def test_an_error_recorded_without_a_use_is_listed_and_blocks_no_use():
    report = ReadReport(file="robots/arm.urdf")
    defect = report.error("urdf.inertial", "the inertia is not physical", 7)
    assert (defect.code, defect.line, defect.blocks) == ("urdf.inertial", 7, "")
    assert report.errors == [defect]
    assert all(report.blocked(use) == [] for use in BLOCKS)


def test_a_link_welded_after_a_joint_was_taken_out_by_hand_is_found_below_its_parent():
    """The parent lookup was asked (its index made), a leaf joint and link taken out of the tables, then a
    link welded: as many joints as before, and the new link's parent joint is the weld."""
    tree = mb.read_urdf(_z_chain(3))
    assert tree.parent_joint("l3").name == "j2"
    del tree.joints["j2"], tree.links["l3"]
    tree.add_fixed_link("tool", "l2", np.eye(4))
    weld = tree.parent_joint("tool")
    assert weld is not None and (weld.type, weld.parent) == ("fixed", "l2")
    assert tree.parent_joint("l3") is None
