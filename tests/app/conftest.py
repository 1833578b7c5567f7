"""Qt fixtures for the desktop app tests (run under ``xvfb-run -a``: the 3D view needs an X server)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from mime_gui import RESOURCES

DEMO_URDF = RESOURCES / "demo" / "arm.urdf"


def example_robot_data() -> Path | None:
    """``…/cmeel.prefix/share/example-robot-data/robots`` of the installed example-robot-data, if any."""
    candidates = [Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
                  / "site-packages" / "cmeel.prefix" / "share" / "example-robot-data" / "robots"]
    spec = importlib.util.find_spec("example_robot_data")
    if spec is not None and spec.origin:
        for parent in Path(spec.origin).resolve().parents:
            candidates.append(parent / "cmeel.prefix" / "share" / "example-robot-data" / "robots")
    for c in candidates:
        if c.is_dir():
            return c
    return None


ROBOTS = {
    "pr2": "pr2_description/urdf/pr2.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "so101": "so_arm_description/urdf/so101.urdf",
}


def robot_path(name: str) -> Path:
    if name == "demo":
        return DEMO_URDF
    root = example_robot_data()
    if root is None:
        pytest.skip("example-robot-data is not installed (pip install --no-deps example-robot-data)")
    return root / ROBOTS[name]


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path, monkeypatch):
    """Keep QSettings (recent files, window state) in a per-test folder."""
    from PySide6.QtCore import QSettings

    folder = tmp_path / "settings"
    folder.mkdir()
    for fmt in (QSettings.NativeFormat, QSettings.IniFormat):
        QSettings.setPath(fmt, QSettings.UserScope, str(folder))
    yield folder


def _stale_surfaces() -> list:
    """QSurface wrappers in the binding's address map that no live 3D view holds: the objects are gone, and
    the next Qt object made at one of those addresses would come back to Python as a QSurface."""
    import shiboken6
    from PySide6.QtGui import QSurface
    from PySide6.QtWidgets import QApplication

    from mime_gui.app.scene.interactor import Interactor

    held = [getattr(w, "_surface", None) for w in QApplication.allWidgets() if isinstance(w, Interactor)]
    return [s for s in shiboken6.getAllValidWrappers()
            if type(s) is QSurface and not any(s is h for h in held)]


@pytest.fixture(autouse=True)
def no_stale_surface(qapp):
    """Every app test starts with no stale QSurface wrapper (one made an earlier window fail to build)."""
    stale = _stale_surfaces()
    assert not stale, f"{len(stale)} QSurface wrapper(s) outlived their surface (left by an earlier test)"
    yield


@pytest.fixture
def make_window(qtbot):
    """``make_window(restore=False)`` → a shown MainWindow on a fresh Session; every one is closed after."""
    from mime_gui.app.main_window import MainWindow
    from mime_gui.session import Session

    windows = []

    def make(restore: bool = False, size=(1200, 800)):
        w = MainWindow(Session(), restore=restore)
        if not restore:
            w.resize(*size)
        w.show()
        qtbot.waitExposed(w)
        windows.append(w)
        return w

    yield make
    for w in windows:
        if w.error_dialog is not None:
            try:
                w.error_dialog.close()
            except RuntimeError:  # already deleted on close
                pass
        w.close()
        w.deleteLater()


@pytest.fixture
def window(make_window):
    return make_window()


@pytest.fixture
def robot_file():
    """``robot_file('pr2' | 'panda' | 'ur5' | 'demo')`` → the URDF path (skips without example-robot-data)."""
    return robot_path


@pytest.fixture
def make_scene_view(qtbot):
    """``make_scene_view(async_meshes=False, size=(1000, 700), **kwargs)`` → a shown SceneView in a window
    of that size, full display detail unless asked (the automatic one follows measured frame times); every
    plotter is closed after."""
    from PySide6.QtWidgets import QMainWindow

    from mime_gui.app.scene.view import SceneView

    made = []

    def make(async_meshes: bool = False, size=(1000, 700), **kwargs):
        kwargs.setdefault("display_detail", None)
        win = QMainWindow()
        view = SceneView(async_meshes=async_meshes, **kwargs)
        win.setCentralWidget(view)
        win.resize(*size)
        win.show()
        qtbot.waitExposed(win)
        made.append((win, view))
        return view

    yield make
    import shiboken6

    for win, view in made:
        if shiboken6.isValid(view):  # a test may have deleted it
            view.close()
        if shiboken6.isValid(win):
            win.close()
            win.deleteLater()


@pytest.fixture
def make_view(make_scene_view):
    return make_scene_view


class FakeClock:
    """A clock the test moves ('a moment later' without waiting for one): the undo history's, for one."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    """The bundled demo copied to a folder of the test's own (edits and saves touch the copy only)."""
    import shutil

    folder = tmp_path / "demo"
    shutil.copytree(RESOURCES / "demo", folder)
    return folder


@pytest.fixture
def ur5_with_box(window, qtbot, robot_file):
    """UR5 (a robot the forms were not written for) with a box dropped on its wrist's row, the box's form
    open, the history on a :class:`FakeClock`; ``(session, clock)``."""
    from gestures import drop_on_row
    from test_assembly import open_ready, settle

    from mime_gui.session import ItemRef

    open_ready(window, robot_file("ur5"))
    session = window.session
    drop_on_row(window, "part.box", ItemRef("ur5", "link", "wrist_3_link"))
    settle(qtbot)
    assert list(session.rig.parts) == ["box"]
    clock = FakeClock()
    session.history.clock = clock
    return session, clock
