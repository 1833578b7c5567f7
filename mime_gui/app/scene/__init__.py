"""The 3D scene: mesh and primitive geometry (:mod:`.meshes`) and the Qt/PyVista view (:mod:`.view`)."""
