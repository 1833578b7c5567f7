"""The desktop app (PySide6 + PyVista): the only package that imports Qt, pyvista, pyvistaqt or vtk.

Widgets are thin views over :class:`mime_gui.session.Session`: they call Session methods and refresh from its
events (through :class:`mime_gui.app.bridge.SessionBridge`) with their own signals blocked.
"""
