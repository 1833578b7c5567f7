"""Bad input to the engine raises a clear ValueError or KeyError naming the argument."""

from __future__ import annotations

import numpy as np
import pytest

import mime_gui.multibody as mb

from .engine_robots import load_articulation


@pytest.fixture
def art():
    return load_articulation("panda")


def test_wrong_shapes_name_the_argument(art):
    q = np.zeros(art.nq)
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 9\)"):
        mb.frame_poses(art, np.zeros(8))
    with pytest.raises(ValueError, match=r"^v must have shape"):
        mb.inverse_dynamics(art, q, np.zeros(3), q)
    with pytest.raises(ValueError, match=r"^vdot must have shape"):
        mb.inverse_dynamics(art, q, q, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"^tau must have shape"):
        mb.dynamics(art, q, q, np.zeros(10))
    with pytest.raises(ValueError, match="do not broadcast"):
        mb.inverse_dynamics(art, np.zeros((2, 9)), np.zeros((3, 9)), q)
    with pytest.raises(ValueError, match="^out must be"):
        mb.frame_poses(art, q, out=np.zeros((art.nframes, 4, 3)))
    with pytest.raises(ValueError, match="^point must be"):
        mb.point_jacobian(art, q, art.frame_names[-1], point=(1.0, 2.0))
    with pytest.raises(ValueError, match="^gravity must be"):
        mb.dynamics_bias(art, q, q, gravity=(0.0, -9.81))
    with pytest.raises(ValueError, match="q must"):
        mb.mass_matrix(art, "not numbers")


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_refused(art, bad):
    q = np.zeros(art.nq)
    x = q.copy()
    x[3] = bad
    with pytest.raises(ValueError, match="^q holds non-finite"):
        mb.frame_poses(art, x)
    with pytest.raises(ValueError, match="^v holds non-finite"):
        mb.dynamics_bias(art, q, x)
    with pytest.raises(ValueError, match="^q holds non-finite"):
        mb.frame_poses(art, np.tile(x, (100, 1)))
    with pytest.raises(ValueError, match="non-finite"):
        mb.inverse_dynamics(art, q, q, q, external_wrenches={art.frame_names[-1]: (x[2:5], q[:3])})


def test_unknown_names_raise_key_error(art):
    q = np.zeros(art.nq)
    with pytest.raises(KeyError, match="unknown frame 'nope'"):
        mb.geometric_jacobian(art, q, "nope")
    with pytest.raises(KeyError, match="unknown frame"):
        mb.point_jacobian(art, q, "nope")
    with pytest.raises(KeyError, match="external_wrenches"):
        mb.inverse_dynamics(art, q, q, q, external_wrenches={"nope": ((0, 0, 0), (0, 0, 1))})
    with pytest.raises(KeyError):
        mb.subtree_mass(art, "nope")
    with pytest.raises(KeyError, match="out of range"):
        mb.geometric_jacobian(art, q, art.nframes)



@pytest.mark.parametrize("frame, kind", [(2.0, "float"), (True, "bool"), (None, "NoneType")],
                         ids=["float", "bool", "none"])
def test_a_frame_that_is_neither_name_nor_index_is_refused_naming_its_type(art, frame, kind):
    q = np.zeros(art.nq)
    for jacobian in (mb.geometric_jacobian, mb.point_jacobian):
        with pytest.raises(KeyError) as info:
            jacobian(art, q, frame)
        message = info.value.args[0]
        assert "frame name (str) or index" in message and message.endswith(f"got {kind}")

def test_malformed_wrenches(art):
    q = np.zeros(art.nq)
    link = art.frame_names[-1]
    with pytest.raises(ValueError, match="external_wrenches must be a mapping"):
        mb.inverse_dynamics(art, q, q, q, external_wrenches=[(link, (0, 0, 0), (0, 0, 1))])
    with pytest.raises(ValueError, match=r"external_wrenches\[.*\] must be a pair"):
        mb.inverse_dynamics(art, q, q, q, external_wrenches={link: (0.0, 0.0, 1.0)})
    with pytest.raises(ValueError, match=r"external_wrenches\[.*\] must be a pair"):
        mb.inverse_dynamics(art, q, q, q, external_wrenches={link: ((0, 0), (0, 0, 1))})


def test_wrench_names_accept_any_link_of_a_body(art):
    """A wrench on a link welded to a body acts on that body; wrenches on the same body add up."""
    rng = np.random.default_rng(2)
    q, v, vdot = rng.standard_normal((3, art.nq))
    welded = [f for f, b in zip(art.frame_names, art.frame_body, strict=True)
              if b > 0 and f != art.body_names[b]]
    assert welded, "panda has links welded to moving bodies (link8, hand)"
    body = art.body_names[art.body_index(welded[0])]
    w1 = (rng.standard_normal(3), rng.standard_normal(3))
    w2 = (rng.standard_normal(3), rng.standard_normal(3))
    both = mb.inverse_dynamics(art, q, v, vdot, external_wrenches={body: w1, welded[0]: w2})
    summed = mb.inverse_dynamics(art, q, v, vdot, external_wrenches={body: (w1[0] + w2[0], w1[1] + w2[1])})
    np.testing.assert_allclose(both, summed, rtol=1e-12, atol=1e-12)
