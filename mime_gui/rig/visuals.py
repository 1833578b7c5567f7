"""How a part looks in a view: its geometry as a description ``Shape`` on the link it is grafted to.

The grafted link's frame sits at the part's centroid, axes of the mount frame; a mesh is shifted so its
centroid lands there. Colours follow the material family so a magnet stands out from its holder.
"""

from __future__ import annotations

import numpy as np

from mime_gui.multibody import tree as description
from mime_gui.rig.geometries import kind_of
from mime_gui.rig.parts import Part, PermanentMagnet

_MAGNET_RGBA = (0.80, 0.12, 0.16, 1.0)
_RGBA_BY_FAMILY = (
    ("alumin", (0.80, 0.82, 0.85, 1.0)),
    ("titan", (0.62, 0.63, 0.66, 1.0)),
    ("steel", (0.55, 0.57, 0.60, 1.0)),
    ("brass", (0.80, 0.66, 0.30, 1.0)),
    ("copper", (0.78, 0.45, 0.28, 1.0)),
    ("abs", (0.92, 0.92, 0.88, 1.0)),
    ("pla", (0.30, 0.62, 0.86, 1.0)),
)
_DEFAULT_RGBA = (0.70, 0.72, 0.76, 1.0)


def part_rgba(part: Part) -> tuple[float, float, float, float]:
    if isinstance(part, PermanentMagnet):
        return _MAGNET_RGBA
    name = (part.material or "").lower()
    return next((rgba for key, rgba in _RGBA_BY_FAMILY if key in name), _DEFAULT_RGBA)


def part_shape(part: Part, centroid, base=None) -> description.Shape:
    """The part's visual, in the frame of its grafted link (origin at the centroid): its kind's description
    primitive when it has one, else its kind's triangles; shifted so its centroid lands on the origin."""
    g = part.geometry
    kind = kind_of(g)
    geometry = kind.drawn(g, base) if kind.drawn is not None else None
    if geometry is None:
        vertices, faces = kind.mesh(g, base)
        text = kind.describe(kind.values(g), lambda v: f"{float(v):.3g}",
                             lambda v: " × ".join(f"{float(x):.3g}" for x in v))
        geometry = description.Solid(kind.type, text, np.asarray(vertices, dtype=float),
                                     np.asarray(faces, dtype=np.int64))
    link_X_shape = np.eye(4)
    c = np.asarray(centroid, dtype=float)
    if np.any(c):  # a mesh's, an arc's: its own frame is not centred on it
        link_X_shape[:3, 3] = -c
    return description.Shape(geometry, link_X_shape, part_rgba(part), part.material, None)
