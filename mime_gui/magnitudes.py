"""The largest magnitudes a description may hold, and the one way text becomes a number.

A finite value can still break a later stage: an origin of 1e308 m overflows when two are added, a sphere
radius of 1e300 m when it is cubed, a mimic multiplier of 1e200 when two are folded. The readers (URDF) and
the rig rules refuse values beyond these bounds, which lie far beyond any robot or rig and far below where
sums over a million links, squares, and drawing in single precision (about 3.4e38) overflow.
"""

from __future__ import annotations

import math

#: positions and sizes (origins, geometry, placements), in metres
MAX_LENGTH = 1e6
#: the mass of one link or part, in kg
MAX_MASS = 1e9
#: a component of one inertia, in kg m² (the largest mass at the largest distance)
MAX_INERTIA = MAX_MASS * MAX_LENGTH * MAX_LENGTH
#: dimensionless factors: mesh scales, mimic multipliers (folded along a chain of mimics)
MAX_FACTOR = 1e6


def parse_float(text: str) -> float:
    """``float(text)`` without the underscores Python accepts between digits (``1_000``) and without the
    digits of other scripts it accepts too (Arabic-Indic ``٣``, fullwidth ``３``): a file's number is written
    plainly, in ASCII. Raises ValueError like ``float`` does."""
    _plain(text)
    return float(text)


def parse_int(text: str) -> int:
    """``int(text)`` on the same terms as :func:`parse_float` (plain ASCII digits, no ``_``). Raises
    ValueError like ``int`` does; the caller bounds the value."""
    _plain(text)
    return int(text)


def _plain(text: str) -> None:
    if "_" in text:
        raise ValueError(f"could not convert string to a number: {text!r} (digits grouped with '_')")
    if not text.isascii():  # float() and int() read any script's decimal digits, and Unicode spaces
        raise ValueError(f"could not convert string to a number: {text!r} (not plain ASCII: write the digits "
                         "0-9)")


def within(value: float, bound: float) -> bool:
    """``|value| <= bound`` and finite."""
    return math.isfinite(value) and -bound <= value <= bound
