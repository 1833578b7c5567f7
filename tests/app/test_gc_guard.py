"""Cyclic garbage is collected on the GUI thread only once a window exists: a worker that allocates never
destroys a closed window's Qt objects (PySide then deadlocks the two threads on a Qt lock and the GIL)."""

from __future__ import annotations

import gc
import threading
import weakref

from mime_gui.app import gc_guard


class _Node:
    def __init__(self):
        self.me = self  # a cycle: only the cyclic collector frees it


def test_a_window_switches_automatic_collection_off_and_collects_on_its_own_thread(make_window, qtbot):
    window = make_window()
    guard = gc_guard.installed()
    assert guard is not None and guard is gc_guard.install() and not gc.isenabled()
    threads = []

    def seen(phase, info):
        if phase == "start":
            threads.append(threading.get_ident())

    gc.callbacks.append(seen)
    try:
        canary = _Node()
        dead = weakref.ref(canary)
        del canary

        def worker():  # allocates far past the first generation's threshold
            junk = [_Node() for _ in range(20 * gc.get_threshold()[0])]
            del junk

        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert threads == []  # nothing collected on the worker
        before = guard.collections
        qtbot.waitUntil(lambda: guard.collections > before, timeout=5000)
        gc.collect()  # the canary may sit in an older generation: a full pass, here, on this thread
        assert dead() is None
        assert threads and set(threads) == {threading.get_ident()} == {guard.gui_thread}
    finally:
        gc.callbacks.remove(seen)
    assert window.isVisible()


def test_collection_switched_back_on_is_switched_off_again(make_window, qtbot):
    make_window()
    guard = gc_guard.installed()
    gc.enable()  # as the URDF reader's pause would leave it if a window appeared meanwhile
    qtbot.waitUntil(lambda: not gc.isenabled(), timeout=5000)
    assert guard.timer.isActive()
