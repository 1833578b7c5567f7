"""A palette template dropped with Shift on a face of a link in the 3D view: a frame of the rig's own at the
point under the mouse with its z along the face's normal (checked against the link's drawn mesh with
trimesh), the item mounted on it resting on the face, both in one undo step."""

from __future__ import annotations

import numpy as np
import pyvista as pv
import trimesh
from PySide6.QtCore import Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication
from test_assembly import _link_under_its_own_centre, open_ready, settle

from mime_gui.app.drag import template_mime
from mime_gui.session import ItemRef


def link_mesh(window, link: str) -> trimesh.Trimesh:
    """The link's drawn visual geometry in world coordinates."""
    meshes = []
    for actor in window.scene.actors("arm", "visual"):
        if window.scene.item_of(actor) != ItemRef("arm", "link", link):
            continue
        poly = pv.wrap(actor.GetMapper().GetInput()).triangulate().transform(np.asarray(actor.user_matrix),
                                                                             inplace=False)
        faces = poly.faces.reshape(-1, 4)[:, 1:]
        meshes.append(trimesh.Trimesh(np.asarray(poly.points), faces, process=False))
    assert meshes
    return trimesh.util.concatenate(meshes)


def test_shift_drop_places_the_magnet_on_the_face_with_a_frame_turned_to_it(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    settle(qtbot, 50)
    session = window.session
    link, pos = _link_under_its_own_centre(window)
    widget = window.scene.plotter
    mime = template_mime("magnet.block")
    for event in (QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.ShiftModifier),
                  QDragMoveEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.ShiftModifier)):
        QApplication.sendEvent(widget, event)
        assert event.isAccepted()
    target = window.assembly.drop_target
    assert target.label.text() == f"Place on a face of arm.{link}"
    steps = len(session.history)
    QApplication.sendEvent(widget, QDropEvent(pos.toPointF(), Qt.CopyAction, mime, Qt.LeftButton,
                                              Qt.ShiftModifier))
    settle(qtbot, 30)
    rig = session.rig
    assert len(session.history) == steps + 1 and session.findings == ()
    (face,) = [n for n in rig.frames if n.startswith("magnet")]
    assert rig.frames[face].mount == f"arm.{link}"
    magnet = rig.magnets["magnet"]
    assert magnet.mount == f"arm.{face}"
    half = magnet.geometry.half_extents()
    np.testing.assert_allclose(magnet.at, (0.0, 0.0, half[2]), atol=0)
    # the frame's origin is on the link's surface, its z along that face's normal, pointing out to the camera
    X = session.frame_world_pose("arm", face)
    mesh = link_mesh(window, link)
    closest, distance, triangle = trimesh.proximity.closest_point(mesh, X[:3, 3][None])
    size = float(np.linalg.norm(mesh.extents))
    assert distance[0] < 1e-6 * size
    normal = mesh.face_normals[triangle[0]]
    assert abs(abs(normal @ X[:3, 2]) - 1.0) < 1e-6
    camera = np.array(window.scene.plotter.renderer.GetActiveCamera().GetPosition())
    assert (camera - X[:3, 3]) @ X[:3, 2] > 0
    # the magnet rests on the face: its centre half its height out along the normal
    centre = window.scene.items.poses[ItemRef("", "magnet", "magnet")][:3, 3]
    np.testing.assert_allclose(centre, X[:3, 3] + half[2] * X[:3, 2], atol=1e-9)
    session.undo()
    assert "magnet" not in session.rig.magnets and face not in session.rig.frames


def test_without_shift_the_drop_still_mounts_on_the_frame_origin(window, qtbot, demo_copy):
    open_ready(window, demo_copy / "demo.rig.json")
    settle(qtbot, 50)
    link, pos = _link_under_its_own_centre(window)
    widget = window.scene.plotter
    mime = template_mime("part.box")
    QApplication.sendEvent(widget, QDragEnterEvent(pos, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier))
    QApplication.sendEvent(widget, QDropEvent(pos.toPointF(), Qt.CopyAction, mime, Qt.LeftButton,
                                              Qt.NoModifier))
    settle(qtbot, 30)
    rig = window.session.rig
    assert rig.parts["box"].mount == f"arm.{link}" and not rig.frames
