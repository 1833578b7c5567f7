"""``run_app``: start the desktop app, or take one screenshot of the whole window and exit."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path

from mime_gui import RESOURCES, __version__
from mime_gui.multibody.magnitudes import parse_float

#: What the app opens without a file argument.
DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def parse_size(text: str | None) -> tuple[int, int]:
    try:
        w, h = (parse_float(v) for v in str(text or "1400x900").lower().split("x"))
    except ValueError:
        w = h = 0.5  # not whole: refused below
    if not (w.is_integer() and h.is_integer()):  # also inf and nan
        raise SystemExit(f"error: --size must look like 1400x900, got {text!r}")
    w, h = int(w), int(h)
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise SystemExit(f"error: --size {w}x{h} is out of range (200…8000 pixels each way)")
    return w, h


def wait_until_ready(window, timeout: float = 30.0) -> None:
    """Process events until the scene has nothing left to load (meshes load off the GUI thread)."""
    from PySide6.QtWidgets import QApplication

    deadline = time.monotonic() + timeout
    while True:
        QApplication.processEvents()
        if not window.loading or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for _ in range(5):
        QApplication.processEvents()


def run_app(file: str | None = None, screenshot: str | None = None, size: str | None = None,
            package_dirs=None) -> int:
    """Open the app on ``file``; ``package_dirs`` (the command line's ``--package-dir``) and then the folders
    remembered in File → Package folders… become the package folders of the process, where every description
    it opens looks for ``package://`` meshes."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from mime_gui.app.logs import install_exception_hook, log_session_error, setup_logging
    from mime_gui.app.main_window import APP_NAME, MainWindow
    from mime_gui.session import Session, SessionError

    if screenshot and os.environ.get("QT_QPA_PLATFORM") == "offscreen":
        print("warning: the 3D view cannot render with QT_QPA_PLATFORM=offscreen; run under xvfb-run",
              file=sys.stderr)
    QApplication.setAttribute(Qt.AA_ShareOpenGLContexts)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName("MIME")
    install_exception_hook(setup_logging())
    from mime_gui.app.main_window import settings
    from mime_gui.app.package_folders import apply

    apply(settings(), package_dirs or ())  # the command line's folders, then the remembered ones
    logging.getLogger("mime_gui.app").info("%s %s started", APP_NAME, __version__)

    session = Session()
    session.error.connect(log_session_error)
    path = Path(file) if file else DEMO_RIG
    try:
        session.open(path)
    except SessionError as err:  # logged by the listener above
        print(err.one_line(), file=sys.stderr)
        return 2

    window = MainWindow(session, restore=not screenshot)
    if screenshot:
        w, h = parse_size(size)
        window.resize(w, h)
        window.show()
        wait_until_ready(window)
        ok = window.save_screenshot(screenshot)
        window.close()
        if not ok:
            print(window.screenshot_error.one_line(), file=sys.stderr)
            return 1
        print(screenshot)
        return 0
    window.show()
    if file:
        window.add_recent(str(path))
    from mime_gui.app import gc_guard

    gc_guard.settle_after_opens(session)  # no full collection walks the startup's objects mid-playback
    return app.exec()
