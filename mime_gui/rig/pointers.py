"""The line of a JSON pointer in the text it points into, so a refusal of a JSON file (a rig file, an
``actuators.json``) can say ``FILE:LINE`` as every other refusal does; and the pointer of a rig path in a rig
file (:func:`pointer_of`), for a rule's finding.

:func:`json.loads` keeps no positions, so :func:`line_of` walks the text itself along the pointer: at each
object it reads the keys in order (skipping each value it passes with the decoder's ``raw_decode``), at
each list it skips to the element. The walk starts only on text that has already parsed.
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's whitespace
_DECODER = json.JSONDecoder()


def _skip(text: str, i: int) -> int:
    return _SPACE.match(text, i).end()


def _after_value(text: str, i: int) -> int:
    """The index after the value at ``i``, its separating comma and the whitespace around it."""
    _, end = _DECODER.raw_decode(text, i)
    end = _skip(text, end)
    return _skip(text, end + 1) if text.startswith(",", end) else end


def _tokens(pointer: str) -> list[str]:
    if pointer in ("", "/"):  # the document itself (the reader names it "/")
        return []
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def _position(text: str, tokens: list[str]) -> int | None:
    """Where the value at ``tokens`` is named: its key in an object, its first character in a list."""
    i = named = _skip(text, 0)
    for token in tokens:
        if text.startswith("{", i):
            i = _skip(text, i + 1)
            while True:
                if not text.startswith('"', i):
                    return None
                key, end = scanstring(text, i + 1)
                value = _skip(text, _skip(text, end) + 1)  # past the colon
                if key == token:
                    named, i = i, value
                    break
                i = _after_value(text, value)
        elif text.startswith("[", i):
            if not token.isdigit():
                return None
            i = _skip(text, i + 1)
            for _ in range(int(token)):
                if text.startswith("]", i):
                    return None
                i = _after_value(text, i)
            if text.startswith("]", i):
                return None
            named = i
        else:
            return None
    return named


def line_of(text: str, pointer: str) -> int:
    """The 1-based line where ``pointer`` (RFC 6901) is named in the JSON ``text``; 0 when the text does not
    hold it (or is not JSON)."""
    try:
        position = _position(text, _tokens(pointer))
    except (ValueError, IndexError):
        return 0
    return 0 if position is None else text.count("\n", 0, position) + 1


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _longest_name(rest: str, names) -> str | None:
    """The longest of ``names`` that ``rest`` starts with, whole (a name may hold dots)."""
    found = [n for n in names if isinstance(n, str) and (rest == n or rest.startswith(n + "."))]
    return max(found, key=len, default=None)


def pointer_of(data, where: str) -> str:
    """The JSON pointer, in a rig file's parsed ``data``, of the deepest value the rig path ``where``
    (``parts.holder.geometry.radius``, ``chain.arm.armature.joint_6``) names that the file holds; "" when
    it holds none of it. A segment is found in the chain list by its name."""
    collection, _, rest = where.partition(".")
    if not isinstance(data, dict) or collection not in data:
        return ""
    value, pointer = data[collection], f"/{_escape(collection)}"
    if collection == "chain" and isinstance(value, list):
        names = [s.get("name") if isinstance(s, dict) else None for s in value]
        name = _longest_name(rest, names)
        if name is None:
            return pointer
        i = names.index(name)
        value, pointer, rest = value[i], f"{pointer}/{i}", rest[len(name) + 1:]
    while rest and isinstance(value, dict):
        key = _longest_name(rest, value)
        if key is None and isinstance(value.get("value"), dict) and _longest_name(rest, value["value"]):
            # a measured mapping ({"value": {...}, "unit": …}, a pose, initial positions): the path names
            # its entries without the "value" between
            value, pointer = value["value"], f"{pointer}/value"
            continue
        if key is None:
            break
        value, pointer, rest = value[key], f"{pointer}/{_escape(key)}", rest[len(key) + 1:]
    return pointer
