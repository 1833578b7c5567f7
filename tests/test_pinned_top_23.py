"""Pins of :mod:`mime_gui.mesh_files`: an XML mesh is parsed to its end, so a file cut short (an element
never closed) is refused as ``mesh.xml`` at the line where it ends, before any COLLADA reader sees it."""

from __future__ import annotations

import pytest

from mime_gui import mesh_files
from mime_gui.mesh_files import MeshFileError


def test_the_reading_of_a_collada_mesh_cut_short_is_refused_as_not_well_formed(tmp_path):
    # every line parses on its own; only the end of the document shows <COLLADA> is never closed
    path = tmp_path / "part.dae"
    path.write_text('<?xml version="1.0"?>\n<COLLADA>\n<asset>\n</asset>\n')
    with pytest.raises(MeshFileError) as info:
        mesh_files.read(path)
    assert (info.value.code, info.value.file, info.value.line) == ("mesh.xml", str(path), 5)
    assert info.value.message == "not well-formed XML (no element found); fix or export the mesh again"
