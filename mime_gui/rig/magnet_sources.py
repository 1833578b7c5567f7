"""The rig's magnets as Magpylib sources: shape, polarisation, and where each one rides.

Each geometry kind gives its own source in its own frame (:mod:`mime_gui.rig.geometries`: a box is a
``Cuboid``, a cylinder a ``Cylinder``, a ring a whole turn of a ``CylinderSegment``, an arc a part of one, a
sphere a ``Sphere``, a closed mesh a ``TriangularMesh``); it is placed so its centroid lands on the graft
frame (a mesh's and an arc's own frame is not centred on it). The polarisation is ``Br·d`` in the magnet's
own frame, with the remanence and direction the build resolved (its report's ``magnet`` entry).

It lives with the rig because the rig's own dynamics need it (the magnets pulling on each other enter the
joint torques, :mod:`mime_gui.rig.magnet_pull`); the field (:mod:`mime_gui.field`) builds on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mime_gui.rig.geometries import kind_of


@dataclass(frozen=True, eq=False)
class MagnetSource:
    """One magnet: ``name``, its ``geometry``, polarisation ``J`` (T, magnet frame), and where it rides:
    ``frame`` the index of its graft frame in ``built.frame_names`` (None: fixed in the world at
    ``world_X_magnet``); ``centroid`` where its centroid lies in its geometry's own frame; ``base`` the
    folder its mesh path is relative to."""

    name: str
    geometry: object
    polarization: np.ndarray
    frame: int | None
    world_X_magnet: np.ndarray
    centroid: np.ndarray = field(default_factory=lambda: np.zeros(3))
    base: Path | None = None

    def source(self):
        """A fresh Magpylib source in its geometry's own frame, at the origin (its path is set by the
        caller, see :meth:`position`)."""
        J = tuple(float(v) for v in self.polarization)
        return kind_of(self.geometry).source(self.geometry, J, self.base)

    def position(self, world_X_magnets: np.ndarray) -> np.ndarray:
        """Where the source's origin goes ``(T, 3)`` when its centroid's frame is at ``world_X_magnets
        (T, 4, 4)``."""
        return world_X_magnets[:, :3, 3] - world_X_magnets[:, :3, :3] @ self.centroid

    def poses(self, frame_poses: np.ndarray) -> np.ndarray:
        """``world_X_magnet (T, 4, 4)`` from the trajectory's ``frame_poses (T, F, 4, 4)``."""
        if self.frame is None:
            return np.broadcast_to(self.world_X_magnet, (len(frame_poses), 4, 4))
        return frame_poses[:, self.frame]


def bounding_radius(magnet: MagnetSource) -> float:
    """The radius of the smallest sphere about the magnet's centroid that holds its triangles (its solid:
    a kind's triangles lie on its surface)."""
    vertices, _ = kind_of(magnet.geometry).mesh(magnet.geometry, magnet.base)
    vertices = np.asarray(vertices, dtype=float).reshape(-1, 3)
    if len(vertices) == 0:
        return 0.0
    return float(np.max(np.linalg.norm(vertices - magnet.centroid, axis=1)))


def magnet_sources(built) -> list[MagnetSource]:
    """Every magnet of a built rig, in the rig's order."""
    rig = built.apparatus
    a = built.analysis  # each magnet's moment and centroid, as the rules resolved them
    frames = {name: i for i, name in enumerate(built.frame_names)}
    out = []
    for name, magnet in rig.magnets.items():
        moment = a.moments[name]
        J = moment.remanence * np.asarray(moment.direction, dtype=float)
        centroid = np.asarray(a.masses[("magnets", name)].centroid, dtype=float)
        world_X_magnet = np.eye(4)
        frame = None
        if magnet.mount is None:
            world_X_magnet[:3, 3] = magnet.at
        else:
            segment = magnet.mount.split(".", 1)[0]
            link = built.segments[segment].link_of(("magnets", name))
            frame = frames[f"{segment}.{link}"]  # placed at the centroid, mount frame's axes
        out.append(MagnetSource(name, magnet.geometry, J, frame, world_X_magnet, centroid,
                                None if rig.base is None else Path(rig.base)))
    return out


__all__ = ["MagnetSource", "bounding_radius", "magnet_sources"]
