"""Package folders remembered by the app: the order they are searched in, the dialog, and a file whose
``package://`` mesh is found once its folder is added."""

from __future__ import annotations

import trimesh
from PySide6.QtCore import QSettings

from mime_gui.app import package_folders
from mime_gui.app.main_window import settings
from mime_gui.multibody.resolve import package_dirs, set_package_dirs

URDF = """<robot name="boxed">
  <link name="base">
    <visual><geometry><mesh filename="package://boxpkg/meshes/box.stl"/></geometry></visual>
  </link>
</robot>
"""


def test_remembered_folders_follow_the_command_line_and_a_single_one_reads_back(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    s = settings()
    package_folders.remember(s, [str(b)])
    s.sync()
    # an ini file hands a one-item list back as a string: still one folder, not its characters
    assert package_folders.remembered(QSettings(s.fileName(), QSettings.IniFormat)) == [str(b)] or \
        package_folders.remembered(s) == [str(b)]
    try:
        assert package_folders.apply(s, [a, b]) == (str(a), str(b))  # listed once, the command line first
        assert package_dirs() == (str(a), str(b))
        package_folders.remember(s, [str(b), str(tmp_path)])
        # a later call (after the dialog) keeps the command line's folders of this run
        assert package_folders.apply(s) == (str(a), str(b), str(tmp_path))
    finally:
        package_folders.apply(s, [])
        package_folders.remember(s, [])
        set_package_dirs([])
    assert package_dirs() == ()


def test_the_dialog_adds_a_folder_the_open_file_finds_its_mesh_there(window, qtbot, tmp_path):
    root = tmp_path / "packages"
    (root / "boxpkg" / "meshes").mkdir(parents=True)
    trimesh.creation.box(extents=(0.1, 0.2, 0.3)).export(root / "boxpkg" / "meshes" / "box.stl")
    robot = tmp_path / "robot" / "boxed.urdf"
    robot.parent.mkdir()
    robot.write_text(URDF)
    package_folders.apply(settings(), [])
    try:
        assert window.open_file(str(robot))
        mesh = window.session.segment("boxed").tree.links["base"].visuals[0].geometry
        assert mesh.filename is None  # not found: no folder says where boxpkg is

        dialog = window.package_folders_dialog()
        assert not dialog.add_folder(str(tmp_path / "missing"))  # not a folder
        assert dialog.add_folder(str(root))
        assert not dialog.add_folder(str(root))  # listed already
        assert dialog.folders() == [str(root)]
        dialog.accept()  # kept, applied, and the file read again
        mesh = window.session.segment("boxed").tree.links["base"].visuals[0].geometry
        assert mesh.filename == str(root / "boxpkg" / "meshes" / "box.stl")
        assert package_folders.remembered(settings()) == [str(root)]

        dialog = window.package_folders_dialog()  # the next time it lists what was kept
        assert dialog.folders() == [str(root)]
        dialog.list.setCurrentRow(0)
        dialog.remove_selected()
        assert dialog.folders() == [] and not dialog.remove_button.isEnabled()
        dialog.reject()  # cancelled: nothing changes
        assert package_folders.remembered(settings()) == [str(root)]
    finally:
        package_folders.remember(settings(), [])
        set_package_dirs([])
