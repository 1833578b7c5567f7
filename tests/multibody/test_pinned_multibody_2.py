"""The cross products the engine writes as gathers and one matrix product, against the components written
out by hand."""

from __future__ import annotations

import numpy as np

from mime_gui.multibody._world import _Bilinear, cross, force_cross, motion_cross


def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


A = np.array([1.0, 2.0, 3.0, -0.5, 4.0, 1.5])
B = np.array([-2.0, 0.5, 1.0, 3.0, -1.0, 2.0])


def test_the_bilinear_cross_product_is_the_cross_product_written_by_hand():
    np.testing.assert_allclose(_Bilinear([(0, 0, 0)], 3)(A[:3], B[:3]), _cross(A[:3], B[:3]))
    np.testing.assert_allclose(cross(A[:3], B[:3]), _cross(A[:3], B[:3]))
    # a vector crossed with itself is zero
    np.testing.assert_allclose(cross(A[:3], A[:3]), np.zeros(3))


def test_the_spatial_cross_products_are_their_blocks_written_by_hand():
    """``[w; v] x [w'; v'] = [w x w'; w x v' + v x w']`` and ``[w; v] x* [n; f] = [w x n + v x f; w x f]``."""
    w, v, w2, v2 = A[:3], A[3:], B[:3], B[3:]
    motion = np.concatenate([_cross(w, w2), _cross(w, v2) + _cross(v, w2)])
    force = np.concatenate([_cross(w, w2) + _cross(v, v2), _cross(w, v2)])
    np.testing.assert_allclose(motion_cross(A, B), motion)
    np.testing.assert_allclose(force_cross(A, B), force)
