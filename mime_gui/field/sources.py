"""The rig's magnets as Magpylib sources: shape, polarisation, and where each one rides.

A box is a ``Cuboid``, a cylinder a ``Cylinder`` (diameter and length, axis z), a ring a whole turn of a
``CylinderSegment`` (inner and outer radius, length, axis z), a sphere a ``Sphere``, a
closed mesh a ``TriangularMesh`` (its vertices scaled, about its centroid: the graft frame sits there); the
polarisation is ``Br·d`` in the magnet's own frame, with the remanence and direction the build resolved (its
report's ``magnet`` entry).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mime_gui.rig.parts import Box, Cylinder, Mesh, Ring, Sphere, _load_mesh


@dataclass(frozen=True, eq=False)
class MagnetSource:
    """One magnet: ``name``, its ``geometry``, polarisation ``J`` (T, magnet frame), and where it rides:
    ``frame`` the index of its graft frame in ``built.frame_names`` (None: fixed in the world at
    ``world_X_magnet``)."""

    name: str
    geometry: object
    polarization: np.ndarray
    frame: int | None
    world_X_magnet: np.ndarray
    triangles: tuple[np.ndarray, np.ndarray] | None = None  # a mesh's (vertices about its centroid, faces)

    def source(self):
        """A fresh Magpylib source at the origin (its path is set by the caller)."""
        import magpylib as magpy

        g, J = self.geometry, tuple(float(v) for v in self.polarization)
        if isinstance(g, Box):
            return magpy.magnet.Cuboid(dimension=tuple(g.size), polarization=J)
        if isinstance(g, Cylinder):
            return magpy.magnet.Cylinder(dimension=(2.0 * g.radius, g.length), polarization=J)
        if isinstance(g, Ring):  # a whole turn of a cylinder segment, centred on the ring's centroid
            turn = (g.inner_radius, g.outer_radius, g.length, 0.0, 360.0)
            return magpy.magnet.CylinderSegment(dimension=turn, polarization=J)
        if isinstance(g, Sphere):
            return magpy.magnet.Sphere(diameter=2.0 * g.radius, polarization=J)
        vertices, faces = self.triangles
        return magpy.magnet.TriangularMesh(vertices=vertices, faces=faces, polarization=J)

    def poses(self, frame_poses: np.ndarray) -> np.ndarray:
        """``world_X_magnet (T, 4, 4)`` from the trajectory's ``frame_poses (T, F, 4, 4)``."""
        if self.frame is None:
            return np.broadcast_to(self.world_X_magnet, (len(frame_poses), 4, 4))
        return frame_poses[:, self.frame]


def magnet_sources(built) -> list[MagnetSource]:
    """Every magnet of a built rig, in the rig's order."""
    rig = built.apparatus
    resolved = {p["name"]: p for p in built.report.data["parts"] if p["collection"] == "magnets"}
    frames = {name: i for i, name in enumerate(built.frame_names)}
    out = []
    for name, magnet in rig.magnets.items():
        moment = resolved[name]["magnet"]
        J = moment["remanence"] * np.asarray(moment["direction"], dtype=float)
        triangles = None
        if isinstance(magnet.geometry, Mesh):  # watertight: the rules refuse any other mesh
            mesh = _load_mesh(str(magnet.geometry.resolve(rig.base).resolve()))
            centroid = np.asarray(resolved[name]["centroid_in_geometry"], dtype=float)
            triangles = (mesh.vertices * np.asarray(magnet.geometry.scale) - centroid,
                         np.asarray(mesh.faces))
        world_X_magnet = np.eye(4)
        frame = None
        if magnet.mount is None:
            world_X_magnet[:3, 3] = magnet.at
        else:
            segment = magnet.mount.split(".", 1)[0]
            link = built.segments[segment].link_of(("magnets", name))
            frame = frames[f"{segment}.{link}"]  # placed at the centroid, mount frame's axes
        out.append(MagnetSource(name, magnet.geometry, J, frame, world_X_magnet, triangles))
    return out


__all__ = ["MagnetSource", "magnet_sources"]
