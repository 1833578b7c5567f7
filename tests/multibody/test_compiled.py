"""The compiled kernels load off the caller's thread, once per process, and say when they are ready."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading


def test_the_kernels_load_on_one_background_thread_and_say_so():
    code = (
        "import sys\n"
        "from mime_gui.multibody import compiled\n"
        "assert not compiled.ready() and 'numba' not in sys.modules\n"
        "thread = compiled.load_in_background()\n"
        "assert compiled.load_in_background() is thread  # once per process\n"
        "assert thread.daemon and thread.name == 'compiled-dynamics'\n"
        "thread.join(300)\n"
        "assert compiled.ready() and 'numba' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600)


def test_a_failed_load_is_logged_and_leaves_them_not_ready():
    code = (
        "import logging, sys\n"
        "from mime_gui.multibody import compiled\n"
        "sys.modules['numba'] = None  # an install whose numba cannot be imported\n"
        "logging.basicConfig(level=logging.ERROR, stream=sys.stdout)\n"
        "compiled.load_in_background().join(60)\n"
        "assert not compiled.ready()\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "the compiled dynamics could not be loaded" in run.stdout


def test_the_background_load_is_one_daemon_thread_started_once(monkeypatch):
    # in this process, with the load itself replaced: the thread, not the kernels, is what is checked here
    from mime_gui.multibody import compiled

    calls = []
    monkeypatch.setattr(compiled, "_thread", None)
    monkeypatch.setattr(compiled, "_load_logged", lambda: calls.append(threading.current_thread()))
    thread = compiled.load_in_background()
    assert compiled.load_in_background() is thread
    assert thread.daemon and thread.name == "compiled-dynamics"
    thread.join(60)
    assert calls == [thread]


def test_a_failed_load_logs_that_numpy_is_used_meanwhile(monkeypatch, caplog):
    # in this process (where mutation testing sees it), with the load replaced by one that fails
    from mime_gui.multibody import compiled

    def failing_load():
        raise ImportError("numba is not installed")

    monkeypatch.setattr(compiled, "load", failing_load)
    with caplog.at_level(logging.ERROR, logger=compiled.log.name):
        compiled._load_logged()
    [record] = caplog.records
    # one sentence, nothing before or after it: what failed, then what is used instead
    assert record.getMessage().startswith("the compiled dynamics could not be loaded")
    assert record.getMessage().endswith("numpy's are used meanwhile")
    assert record.exc_info[0] is ImportError
