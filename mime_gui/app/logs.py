"""The desktop app's log file and its last line of defence against an unexpected exception.

A desktop launcher throws stderr away, so the app writes a rotating log in the user's state folder
(``$XDG_STATE_HOME/mime-gui/mime-gui.log``, by default ``~/.local/state/mime-gui/``; ``~/Library/Logs`` on
macOS, ``%LOCALAPPDATA%`` on Windows). The headless packages log through :mod:`logging` under ``mime_gui``
(the reader's warnings, the mesh loader's placeholders); the app adds the Session's errors and the handler.

An exception nobody caught, on the GUI thread (including one raised in a Qt slot, which PySide hands to
``sys.excepthook``) or on a worker thread, is written to the log with its traceback and shown in a dialog
that names the log; the app keeps running.
"""

from __future__ import annotations

import html
import logging
import logging.handlers
import os
import sys
import threading
import traceback
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QApplication, QMessageBox

APP_FOLDER = "mime-gui"
LOG_NAME = "mime-gui.log"
MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s"

log = logging.getLogger("mime_gui.app")
_state: dict = {"file": None, "handler": None}


def log_folder(environ=None, platform: str | None = None, home: Path | None = None) -> Path:
    """Where the user's state (logs) lives on this platform, as platformdirs' ``user_log_dir`` puts it."""
    environ = os.environ if environ is None else environ
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    if platform == "darwin":
        return home / "Library" / "Logs" / APP_FOLDER
    if platform.startswith("win"):
        base = environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / APP_FOLDER / "Logs"
    state = environ.get("XDG_STATE_HOME", "")  # the XDG spec says a relative path is to be ignored
    base = Path(state) if state and Path(state).is_absolute() else home / ".local" / "state"
    return base / APP_FOLDER


def stop_logging() -> None:
    """Remove (and close) the handler :func:`setup_logging` added."""
    handler = _state["handler"]
    if handler is not None:
        logging.getLogger("mime_gui").removeHandler(handler)
        handler.close()
    _state.update(file=None, handler=None)


def setup_logging(folder: Path | None = None) -> Path | None:
    """Send ``mime_gui``'s records (INFO and above) to a rotating file in ``folder`` (default
    :func:`log_folder`); returns the file, or None when the folder cannot be written (records then go to
    stderr). Calling it again replaces the handler it added before."""
    logger = logging.getLogger("mime_gui")
    stop_logging()
    path: Path | None = (folder or log_folder()) / LOG_NAME
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    except OSError as exc:
        handler = logging.StreamHandler(sys.stderr)
        print(f"warning: cannot write the log {path}: {exc}; logging to stderr", file=sys.stderr)
        path = None
    handler.setFormatter(logging.Formatter(FORMAT))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    _state.update(file=path, handler=handler)
    return path


def current_log_file() -> Path | None:
    """The file :func:`setup_logging` writes, if any (shown in Help → About)."""
    return _state["file"]


def log_session_error(err) -> None:
    """A listener for the Session's ``error`` event: every refusal shown to the user is also logged."""
    one_line = getattr(err, "one_line", None)
    log.error("%s", one_line() if callable(one_line) else err)


class ExceptionReporter(QObject):
    """``sys.excepthook`` and ``threading.excepthook``: log the exception, then show it in one dialog.

    A worker thread's exception reaches the dialog through a queued signal (widgets live on the GUI
    thread). While the dialog is open, later exceptions are logged and counted in it, not stacked.
    """

    _show = Signal(str)

    def __init__(self, log_file: Path | None, parent=None):
        super().__init__(parent)
        self.log_file = log_file
        self.dialog: QMessageBox | None = None
        self.count = 0
        self._previous = (sys.excepthook, threading.excepthook)
        self._show.connect(self._show_dialog, Qt.QueuedConnection)

    def install(self) -> ExceptionReporter:
        sys.excepthook = self.excepthook
        threading.excepthook = self.thread_excepthook
        return self

    def uninstall(self) -> None:
        sys.excepthook, threading.excepthook = self._previous

    def excepthook(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, (KeyboardInterrupt, SystemExit)):
            self._previous[0](exc_type, exc, tb)
            return
        self._report(exc_type, exc, tb, threading.current_thread().name)

    def thread_excepthook(self, args) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "a thread"
        self._report(args.exc_type, args.exc_value, args.exc_traceback, name)

    def _report(self, exc_type, exc, tb, thread: str) -> None:
        try:
            log.critical("unexpected exception in %s", thread, exc_info=(exc_type, exc, tb))
        except Exception:  # noqa: BLE001 - a failing log must not hide the exception itself
            traceback.print_exception(exc_type, exc, tb)
        summary = "".join(traceback.format_exception_only(exc_type, exc)).strip()
        if QApplication.instance() is None:
            traceback.print_exception(exc_type, exc, tb)
            return
        self._show.emit(summary)  # queued: the dialog opens on the GUI thread, after the failing slot

    def _show_dialog(self, summary: str) -> None:
        self.count += 1
        where = f"<br><br>Details are in the log:<br><tt>{html.escape(str(self.log_file))}</tt>" \
            if self.log_file else "<br><br>No log file could be written; details went to stderr."
        text = (f"An unexpected error happened; the app keeps running, but the last action may not have "
                f"finished.<br><br><b>{html.escape(summary)}</b>{where}")
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.setText(text)
            self.dialog.setInformativeText(f"{self.count} unexpected errors since this box opened.")
            return
        self.count = 1
        parent = QApplication.activeWindow()
        box = QMessageBox(QMessageBox.Critical, "Unexpected error", text, QMessageBox.Ok, parent)
        box.setTextFormat(Qt.RichText)
        box.setTextInteractionFlags(Qt.TextSelectableByMouse)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.destroyed.connect(self._forget)
        self.dialog = box
        box.show()

    def _forget(self, *_) -> None:
        self.dialog = None


def install_exception_hook(log_file: Path | None) -> ExceptionReporter:
    """Route unexpected exceptions to the log and a dialog (call once a QApplication exists)."""
    return ExceptionReporter(log_file, QApplication.instance()).install()
