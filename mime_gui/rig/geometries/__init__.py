"""The geometry kinds of parts and magnets, declared once each (see :mod:`.registry`).

Each module below declares one kind and registers it when imported; their order here is the order the rig
file's messages, the schema and the docs list them in. A new kind is a new module and its line here.
"""

from mime_gui.rig.geometries import box, cylinder, ring, sphere, mesh, arc  # noqa: F401, I001  (this order)
from mime_gui.rig.geometries.arc import Arc
from mime_gui.rig.geometries.box import Box
from mime_gui.rig.geometries.cylinder import Cylinder
from mime_gui.rig.geometries.mesh import Mesh, load_mesh
from mime_gui.rig.geometries.registry import (
    KINDS,
    SURFACE_TOLERANCE,
    Field,
    GeometryKind,
    KindTemplate,
    MassProperties,
    kind_of,
    paths_of,
    with_paths,
)
from mime_gui.rig.geometries.ring import Ring
from mime_gui.rig.geometries.sphere import Sphere

#: every registered geometry class
CLASSES = tuple(k.cls for k in KINDS.values())


def by_class_name(name: str):
    """The registered geometry class called ``name``, or None."""
    return next((c for c in CLASSES if c.__name__ == name), None)


__all__ = ["CLASSES", "KINDS", "SURFACE_TOLERANCE", "Arc", "Box", "Cylinder", "Field", "GeometryKind",
           "KindTemplate", "MassProperties", "Mesh", "Ring", "Sphere", "by_class_name", "kind_of",
           "load_mesh", "paths_of", "with_paths"]
