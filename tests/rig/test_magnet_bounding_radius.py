"""The bounding radius of a magnet: the farthest of its triangles' corners from its centroid, and zero for a
kind whose solid has no triangles."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from mime_gui.rig.geometries import KINDS, Box, Field, GeometryKind
from mime_gui.rig.geometries.registry import register
from mime_gui.rig.magnet_sources import MagnetSource, bounding_radius


def _magnet(geometry, centroid=(0.0, 0.0, 0.0)) -> MagnetSource:
    return MagnetSource("m", geometry, np.array([0.0, 0.0, 1.2]), None, np.eye(4), np.array(centroid))


def test_a_box_magnet_s_radius_is_its_half_diagonal_from_its_centroid():
    box = Box((0.02, 0.01, 0.04))
    assert bounding_radius(_magnet(box)) == pytest.approx(np.sqrt(0.01**2 + 0.005**2 + 0.02**2), rel=1e-12)
    # measured from the centroid: with it moved to a face's centre, the far corners are a full length away
    assert bounding_radius(_magnet(box, (0.0, 0.0, 0.02))) == pytest.approx(
        np.sqrt(0.01**2 + 0.005**2 + 0.04**2), rel=1e-12)


@dataclass(frozen=True)
class Void:
    """A kind whose solid has no triangles."""

    size: float
    kind = "void"


@pytest.fixture
def void():
    """The kind :class:`Void`, registered for one test."""
    register(GeometryKind("void", Void, (Field("size", "Size"),), text="void {size}", summary="nothing",
                          mesh=lambda g, base=None: (np.zeros((0, 3)), np.zeros((0, 3), dtype=int)),
                          inside=lambda g, p: None, source=lambda g, J, base=None: None))
    yield
    del KINDS["void"]


def test_a_magnet_without_triangles_has_a_radius_of_zero(void):
    assert bounding_radius(_magnet(Void(0.01))) == 0.0
