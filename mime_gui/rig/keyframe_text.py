"""A keyframe's values as one line of text, as the Trajectory dock shows them and takes them typed back.

Clauses are separated by commas, in any order::

    pose 'over the sample', joint_1 35°, joint_2 -0.2 rad, frame tool0
    spin 5 Hz, ramp 0.5 s, hold 4 s
    spin 300 rpm, ramp 1 s, 20 turns

``pose NAME`` (quotes optional) takes a named pose's values for the segment; ``JOINT VALUE`` a joint's
position, in the trajectory's unit for that joint or with a unit of its own (``35 deg``, ``0.61 rad``,
``12 mm``); ``frame NAME`` the frame a ``line`` interval moves; ``spin``, ``ramp``, ``hold`` and ``turns`` a
motor's spin profile. Numbers go through the one parser (:func:`~mime_gui.rig.typed_units.parse_typed`).
Text that says nothing (``""``, :data:`NOTHING`) keeps the positions before. A clause that is not one of
these is refused with ``trajectory.values``, naming it; whether the names exist is the rig's rules' to say.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from mime_gui.errors import CodedError
from mime_gui.rig.trajectories import FREQUENCY_UNITS, Keyframe, Spin
from mime_gui.rig.typed_units import parse_typed

#: what a keyframe that names no value shows
NOTHING = "(the positions before)"
#: the longest text taken (a keyframe of a few dozen joints fits many times over)
MAX_TEXT = 10_000
_SHOWN = {"deg": "°"}
_CLAUSE = re.compile(r"^(\S+)\s+(.+)$")


class KeyframeTextError(CodedError):
    pass


def _fail(message: str) -> KeyframeTextError:
    return KeyframeTextError("trajectory.values", message)


def _unit_shown(unit: str) -> str:
    return _SHOWN.get(unit, f" {unit}")


def keyframe_text(key: Keyframe, unit_of: Callable[[str], str]) -> str:
    """The keyframe's values as text; ``unit_of(joint)`` is the trajectory's unit for that joint."""
    parts = []
    if key.pose is not None:
        parts.append(f"pose {key.pose!r}")
    if key.spin is not None:
        s = key.spin
        held = f"hold {s.hold:g} s" if s.hold is not None else f"{s.turns:g} turns"
        parts.append(f"spin {s.frequency:g} {s.unit}, ramp {s.ramp:g} s, {held}")
    for joint, v in key.values.items():
        parts.append(f"{joint} {v:g}{_unit_shown(unit_of(joint))}")
    if key.frame is not None:
        parts.append(f"frame {key.frame}")
    return ", ".join(parts) or NOTHING


def _number(text: str, unit: str, what: str) -> float:
    value = parse_typed(text, unit)
    if value is None:
        raise _fail(f"{what}: {text!r} is not a number{f' in {unit}' if unit else ''}; type one, as 1.5"
                    + (f" or 1.5 {unit}" if unit else ""))
    return value


def _name(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]
    return text


def parse_keyframe_text(text: str, key: Keyframe, unit_of: Callable[[str], str]) -> Keyframe:
    """``key`` with the values, pose, frame and spin profile ``text`` gives (its time and interpolation
    kept); raises :class:`KeyframeTextError` (``trajectory.values``) naming the clause it cannot read."""
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise _fail(f"type at most {MAX_TEXT} characters")
    text = text.strip()
    values: dict[str, float] = {}
    pose = frame = None
    spin: dict[str, object] = {}
    if text and text != NOTHING:
        for clause in (c.strip() for c in text.split(",")):
            m = _CLAUSE.match(clause)
            if m is None:
                raise _fail(f"{clause!r} is not a clause: type JOINT VALUE, pose NAME, frame NAME or "
                            "spin 5 Hz, ramp 0.5 s, hold 4 s")
            word, rest = m.group(1), m.group(2).strip()
            if word == "pose":
                pose = _name(rest)
            elif word == "frame":
                frame = _name(rest)
            elif word == "spin":
                number, _, unit = rest.rpartition(" ")
                if unit not in FREQUENCY_UNITS:
                    raise _fail(f"spin {rest!r}: a frequency in {' or '.join(FREQUENCY_UNITS)}, as spin 5 Hz")
                spin["frequency"], spin["unit"] = _number(number, "", "spin"), unit
            elif word == "ramp":
                spin["ramp"] = _number(rest, "s", "ramp")
            elif word == "hold":
                spin["hold"] = _number(rest, "s", "hold")
            elif rest == "turns":
                spin["turns"] = _number(word, "", "turns")
            elif word in values:
                raise _fail(f"{word} is given twice; give each joint once")
            else:
                values[word] = _number(rest, unit_of(word), word)
    if spin and "frequency" not in spin:
        raise _fail("a ramp, a hold or turns belong to a spin: begin with spin 5 Hz")
    profile = None
    if spin:
        try:
            profile = Spin(spin.pop("frequency"), spin.pop("unit"), **spin)
        except (TypeError, ValueError) as err:
            raise _fail(str(err)) from None
    return replace(key, values=values, pose=pose, frame=frame, spin=profile)


__all__ = ["NOTHING", "KeyframeTextError", "keyframe_text", "parse_keyframe_text"]
