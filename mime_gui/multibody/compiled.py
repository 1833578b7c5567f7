"""Whether the compiled kernels (:mod:`mime_gui.multibody._kernels`) are loaded, and loading them off the
caller's thread.

Loading them costs about a second the first time in a process (numba's import and its cached code), and
compiling them, where nothing is cached yet, about 15 s. Code that runs on every frame of the app (the live
torques) uses them once :func:`ready` says so and numpy's equal algorithms until then, so the window never
stops for it; :func:`load_in_background` is how the app gets them ready. This module imports neither numba
nor the kernels.
"""

from __future__ import annotations

import logging
import threading

_ready = threading.Event()
_lock = threading.Lock()
_thread: threading.Thread | None = None
log = logging.getLogger(__name__)


def ready() -> bool:
    """True once :func:`load` finished: calling a kernel costs no import and no compile."""
    return _ready.is_set()


def load() -> None:
    """Import the kernels and load (or compile, once) every kernel in the signature the rig's code calls."""
    from mime_gui.multibody import _kernels

    _kernels.warm()
    _ready.set()


def _load_logged() -> None:
    try:
        load()
    except Exception:  # the numpy paths keep working without them
        log.exception("the compiled dynamics could not be loaded; numpy's are used meanwhile")


def load_in_background() -> threading.Thread:
    """Start :func:`load` on a daemon thread (once per process) and return that thread."""
    global _thread
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_load_logged, name="compiled-dynamics", daemon=True)
            _thread.start()
        return _thread
