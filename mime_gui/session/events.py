"""A tiny synchronous event type for the headless Session (Qt signals stay in the app)."""

from __future__ import annotations

from collections.abc import Callable


class Event:
    """``event.connect(fn)``; ``event.emit(*args)`` calls every listener in connection order."""

    def __init__(self, name: str = ""):
        self.name = name
        self._listeners: list[Callable] = []

    def connect(self, fn: Callable) -> Callable:
        self._listeners.append(fn)
        return fn

    def disconnect(self, fn: Callable) -> None:
        self._listeners.remove(fn)

    def emit(self, *args) -> None:
        for fn in list(self._listeners):
            fn(*args)
