"""The command-file column grammar (docs/command-files.md): the names a column may take, their kinds, units.

A command file holds ``time`` (seconds), then one column per value. A column names a joint (``joint_1``; on a
rig ``<segment>.<joint>``), whose value is a position, or a segment's command channel as the spec names it,
``<segment>.<channel>[.<element>]``. Each channel is of one :class:`Kind` (positions, torques), declared once
in :data:`KINDS`: what it is called, its channels, the unit a bare value is in and the unit markers it takes.
The reader (:mod:`mime_gui.nodes.commands`), the rig's channels and playback (:mod:`mime_gui.rig.channels`,
:mod:`mime_gui.rig.playback`, :mod:`mime_gui.rig.driven`) and the recorder read the grammar here, so a new
kind of column is one entry of :data:`KINDS` and the rig's way of playing it (``playback.KIND_CHECKS``).
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass

#: the first column, and the units it may be marked with (``time[s]``, the docs' form)
TIME = "time"
TIME_UNITS = ("", "s")
#: the arrays of an NPZ command file: the times, the values (every column, whatever its kind), the names
NPZ_TIME = "time"
NPZ_VALUES = "joint_positions"
NPZ_NAMES = "joint_names"


@dataclass(frozen=True)
class Kind:
    """One kind of command-file column.

    ``channels`` maps each channel's name to whether it takes elements (``.<i>`` or ``.<joint>``); without
    one the channel is the whole column. ``units`` maps each unit marker the kind takes to its factor to
    ``unit``, the SI unit of a bare value (as docs/command-files.md's table of columns writes it); markers are
    lower case, as the reader reads them whatever their case.
    ``what`` names one of its channels in messages.
    """

    name: str
    what: str
    channels: tuple[tuple[str, bool], ...]
    unit: str
    units: tuple[tuple[str, float], ...] = ()

    @property
    def channel_names(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.channels)

    @property
    def misplaced(self) -> str:
        """The code refusing one of its channels where a position is wanted (``commands.torque-channel``)."""
        return f"commands.{self.what.replace(' ', '-')}"


POSITIONS = Kind("positions", "position channel", (("joint_positions", True),),
                 "rad, or m on a sliding joint", (("rad", 1.0), ("deg", math.pi / 180.0), ("m", 1.0)))
TORQUES = Kind("torques", "torque channel", (("joint_torques", True), ("torque", False)),
               "N·m, or N on a sliding joint")

#: every kind, positions first: a column that names no channel (a joint) is a position
KINDS: tuple[Kind, ...] = (POSITIONS, TORQUES)


def markers() -> dict[str, float]:
    """Every unit marker a column may carry and its factor, over all kinds (the reader knows a column's kind
    only once a rig places it, so it takes any declared marker; the kind's own are checked there)."""
    out: dict[str, float] = {}
    for kind in KINDS:
        for marker, factor in kind.units:
            # one marker, one meaning: the reader scales a column before its kind is known
            if out.setdefault(marker, factor) != factor:
                raise ValueError(f"unit marker [{marker}] declared with two factors")
    return out


def marker_list(names=None) -> str:
    """Markers (default: every declared one) for a message: ``[rad], [deg] or [m]``."""
    cells = [f"[{m}]" for m in (markers() if names is None else names)]
    return ", ".join(cells[:-1]) + " or " + cells[-1] if len(cells) > 1 else "".join(cells)


def kind_of(column: str) -> Kind:
    """The kind of a column: that of the channel it names (``<segment>.<channel>`` or, when the channel takes
    elements, ``<segment>.<channel>.<element>``), else positions (a joint)."""
    parts = column.split(".")
    if len(parts) >= 2:
        for kind in KINDS:
            for channel, elements in kind.channels:
                if parts[1] == channel and (elements or len(parts) == 2):
                    return kind
    return POSITIONS


def channel_pattern() -> re.Pattern:
    """``<segment>.<channel>[.<element>]`` for any declared channel (groups segment, channel, element)."""
    return _pattern(tuple(c for kind in KINDS for c in kind.channel_names))


@functools.lru_cache(maxsize=8)
def _pattern(channels: tuple[str, ...]) -> re.Pattern:
    names = "|".join(re.escape(c) for c in channels)
    return re.compile(rf"^(?P<segment>[^.]+)\.(?P<channel>{names})(?:\.(?P<element>.+))?$")


def channel_kind(channel: str) -> Kind:
    """The kind a channel's name (``joint_torques``) is declared in; KeyError when none."""
    for kind in KINDS:
        if channel in kind.channel_names:
            return kind
    raise KeyError(channel)


def docs_table() -> str:
    """docs/command-files.md's table of columns, as :data:`KINDS` declares them."""
    rows = ["| kind | channels | unit | markers |", "| --- | --- | --- | --- |"]
    for kind in KINDS:
        channels = ", ".join(f"`<segment>.{c}{'[.…]' if e else ''}`" for c, e in kind.channels)
        marks = ", ".join(f"`[{m}]`" for m, _ in kind.units) or "none"
        rows.append(f"| {kind.name} | {channels} | {kind.unit} | {marks} |")
    return "\n".join(rows)
