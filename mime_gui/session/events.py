"""A small synchronous event type for the headless Session (Qt signals stay in the app).

Listeners are held weakly when they are bound methods (a closed dock that forgot to disconnect is not kept
alive, nor called), and one listener that raises does not silence the others: every listener runs, the
failures are logged, and the first is raised again once all have run. ``blocked()`` mutes an event for a
``with`` block.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Callable
from contextlib import contextmanager

log = logging.getLogger("mime_gui.session")


class Event:
    """``event.connect(fn)``; ``event.emit(*args)`` calls every live listener in connection order."""

    def __init__(self, name: str = ""):
        self.name = name
        self._listeners: list[tuple[object, Callable | weakref.WeakMethod]] = []
        self._blocked = 0

    def connect(self, fn: Callable) -> Callable:
        ref = weakref.WeakMethod(fn) if hasattr(fn, "__self__") and hasattr(fn, "__func__") else fn
        self._listeners.append((self._key(fn), ref))
        return fn

    @staticmethod
    def _key(fn: Callable):
        if hasattr(fn, "__self__") and hasattr(fn, "__func__"):
            return (id(fn.__self__), fn.__func__)
        return fn

    def disconnect(self, fn: Callable) -> None:
        key = self._key(fn)
        for i, (k, _) in enumerate(self._listeners):
            if k == key:
                del self._listeners[i]
                return
        raise ValueError(f"{fn!r} is not connected to {self.name or 'this event'}")

    def __len__(self) -> int:
        return sum(1 for _ in self._live())

    def _live(self):
        dead = False
        for _, ref in list(self._listeners):
            fn = ref() if isinstance(ref, weakref.WeakMethod) else ref
            if fn is None:
                dead = True
                continue
            yield fn
        if dead:
            self._listeners = [(k, r) for k, r in self._listeners
                               if not (isinstance(r, weakref.WeakMethod) and r() is None)]

    @contextmanager
    def blocked(self):
        self._blocked += 1
        try:
            yield
        finally:
            self._blocked -= 1

    def emit(self, *args) -> None:
        if self._blocked:
            return
        first: BaseException | None = None
        for fn in list(self._live()):
            try:
                fn(*args)
            except Exception as exc:  # noqa: BLE001 - isolate listeners; re-raised below
                log.exception("a listener of %s failed", self.name or "an event")
                if first is None:
                    first = exc
        if first is not None:
            raise first
