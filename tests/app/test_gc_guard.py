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


def test_a_settle_keeps_what_survived_out_of_collections_until_the_next_settle(make_window):
    make_window()
    guard = gc_guard.installed()
    try:
        kept = [_Node()]
        dead = weakref.ref(kept[0])
        before = guard.settles
        guard.settle()
        assert guard.settles == before + 1 and gc.get_freeze_count() > 0
        kept.clear()  # garbage now, but frozen: a full collection no longer walks it
        gc.collect()
        assert dead() is not None
        guard.settle()  # unfrozen first, so an earlier document's garbage goes here
        assert dead() is None
    finally:
        gc.unfreeze()


def test_the_app_settles_once_shown_and_after_each_file_it_opens(make_window, qtbot):
    from mime_gui import RESOURCES

    window = make_window()
    guard = gc_guard.installed()
    try:
        before = guard.settles
        gc_guard.settle_after_opens(window.session, guard)
        assert guard.settles == before  # later, once the event loop runs, not inside the call
        qtbot.waitUntil(lambda: guard.settles == before + 1, timeout=5000)
        assert gc.get_freeze_count() > 0
        window.session.open(RESOURCES / "demo" / "demo.rig.json")
        qtbot.waitUntil(lambda: guard.settles == before + 2, timeout=5000)
        qtbot.wait(100)
        assert guard.settles == before + 2  # once per document, not once per event
    finally:
        gc.unfreeze()
