"""Test ids that can be given back to pytest on its command line.

mutmut runs each mutant's tests by passing their ids to pytest; an id pytest escaped (a non-ASCII or control
character in a parameter becomes ``\\u0663`` or ``\\n``) has a backslash that pytest escapes once more at each
collection, so it never matches and the run stops. ``ids=plain_id`` writes such characters as ``%xx`` /
``%uxxxx`` instead, and ``tests/conftest.py`` refuses an id with a backslash."""

from __future__ import annotations


def plain_id(value) -> str | None:
    """Text or bytes as printable ASCII without a backslash; None (pytest's own id) for anything else."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if not isinstance(value, str):
        return None
    out = []
    for ch in value:
        if ch == "\\" or ch == "%":
            out.append(f"%{ord(ch):02x}")
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.append(f"%{ord(ch):02x}" if ord(ch) < 256 else f"%u{ord(ch):04x}")
    return "".join(out)
