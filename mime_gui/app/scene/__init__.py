"""The 3D scene: the Qt/PyVista view (:mod:`.view`, which composes the other modules, one concept each) and
mesh and primitive geometry (:mod:`.meshes`)."""
