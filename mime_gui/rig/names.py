"""The one rule every item's name keeps (segments, parts, magnets, probes, poses, declared frames,
trajectories, samples, zones, targets and the apparatus itself).

A name is a rig path's step (``parts.holder.at``), a line of a message, a row in the tree and a name in the
exported MJCF, URDF and Python; so it is text without dots, control characters (a newline, a tab) or
surrounding spaces, and of a bounded length, which a rig file's reader and every one of those can hold.
"""

from __future__ import annotations

import unicodedata

from mime_gui.errors import printable

MAX_NAME_LENGTH = 128
#: the rig's collections whose items share one namespace (``name.duplicate``, ``sample.name``, ``zone.name``;
#: an item is picked, mounted on and reported by its name alone), each as its items are called; poses,
#: trajectories, declared frames and targets have one each of their own
NAMESPACE = {"chain": "segments", "parts": "parts", "magnets": "magnets", "probes": "probes",
             "samples": "samples", "zones": "zones"}
NAMESPACE_TEXT = ", ".join(list(NAMESPACE.values())[:-1]) + " and " + list(NAMESPACE.values())[-1]


def rule(also: str = "") -> str:
    """The rule in words; ``also`` names more characters a kind's names go without (", colons")."""
    return (f"non-empty text of at most {MAX_NAME_LENGTH} characters, without dots{also}, control characters "
            "or surrounding spaces")


RULE = rule()
_SHOWN = 40  # characters of a refused name a message quotes


def _text(name) -> bool:
    """Text a file and a line can hold: no lone surrogate, no control character, not too long."""
    if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
        return False
    try:
        name.encode("utf-8")  # a lone surrogate is no text a file can hold
    except UnicodeEncodeError:
        return False
    # Cc: C0/C1 controls (newline, tab); Zl, Zp: the line and paragraph separators; U+FFFE and U+FFFF are
    # no characters an XML file (the MJCF and URDF exports) can hold
    return not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") or c in "\ufffe\uffff" for c in name)


def good_name(name, forbidden: str = ".") -> bool:
    """True when ``name`` keeps :data:`RULE` (and holds none of the characters in ``forbidden``)."""
    return (_text(name) and bool(name) and name == name.strip()
            and not any(c in name for c in forbidden))


def good_title(name) -> bool:
    """True when ``name`` can be the apparatus's: a title, which may hold dots and spaces around it, but is
    not blank and keeps the rest of the rule."""
    return _text(name) and bool(name.strip())


def shown(name) -> str:
    """``name`` quoted for a one-line message: escaped, and cut after its first characters."""
    if not isinstance(name, str):
        return repr(name)
    text = printable(name)
    return f"'{text if len(text) <= _SHOWN else text[:_SHOWN] + '…'}'"
