"""The bundled data: the demo arm and rig, the materials table, the actuator registry, the rig schema.

This folder sits at the top of the repository and is installed as the package ``mime_gui.resources``
(``pyproject.toml`` maps it); being a regular package, ``importlib.resources`` gives it as one folder on disk
in an editable install and in an installed wheel alike. :data:`mime_gui.RESOURCES` is the way to reach it.
"""
