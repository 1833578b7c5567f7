"""The largest magnitudes a description may hold, and the one way text becomes a number: kept in
:mod:`mime_gui.magnitudes`, below every layer (the reading door parses numbers too), and re-exported here."""

from __future__ import annotations

from mime_gui.magnitudes import MAX_FACTOR, MAX_INERTIA, MAX_LENGTH, MAX_MASS, parse_float, parse_int, within

__all__ = ["MAX_FACTOR", "MAX_INERTIA", "MAX_LENGTH", "MAX_MASS", "parse_float", "parse_int", "within"]
