"""A segment's command channels, as the spec names them, in a command file's columns.

A column names one joint, ``<segment>.<joint>`` (``arm.joint_1``), or one element of a segment's channel
``<segment>.joint_positions``: ``arm.joint_positions.0`` is the segment's first commanded joint (in the
order ``mime-gui play`` and the chain node list them), ``arm.joint_positions.joint_1`` the joint by name, and
a segment with one commanded joint (a motor, a one-axis stage) takes ``motor.joint_positions`` itself. A CSV
header may add its unit as for any column (``arm.joint_positions.0[deg]``). A lab's segment kind is read
the same way. The channels of other kinds (torques: ``<segment>.joint_torques``, ``<segment>.torque``) are
not played here: the player drives positions. :func:`resolve` turns a channel column into its joint, or says
why it cannot. The channels and their kinds are declared in :mod:`mime_gui.nodes.columns`.
"""

from __future__ import annotations

from mime_gui.nodes import columns as grammar

POSITIONS = grammar.POSITIONS.channel_names[0]


class ChannelError(ValueError):
    """A column that names a channel no segment takes (the message says which exist); ``code`` is
    ``commands.unknown-joint``, or the kind's own (``commands.torque-channel``) for a channel of another kind
    than positions."""

    def __init__(self, message: str, code: str = "commands.unknown-joint"):
        super().__init__(message)
        self.code = code


def resolve(column: str, joints: dict[str, list[str]]) -> str | None:
    """``<segment>.<joint>`` for a channel ``column`` (``joints``: each segment's commanded joints, in
    order); None when the column is not a channel name. Raises :class:`ChannelError`."""
    m = grammar.channel_pattern().match(column)
    if m is None or m["segment"] not in joints:
        return None
    segment, channel, element = m["segment"], m["channel"], m["element"]
    names = joints[segment]
    listing = f"{segment}.{POSITIONS}.0 … .{len(names) - 1} ({', '.join(names) or 'none'})"
    kind = grammar.channel_kind(channel)
    if kind is not grammar.POSITIONS:
        raise ChannelError(f"{column!r} is a {kind.what}; the player drives positions: give "
                           f"{segment}.{POSITIONS}.<i> or {segment}.<joint>", kind.misplaced)
    if element is None:
        if len(names) == 1:
            return f"{segment}.{names[0]}"
        raise ChannelError(f"{column!r} holds {len(names)} joints; give one column per joint, {listing}")
    if element.isdigit() and element.isascii():
        i = int(element)
        if i >= len(names):
            raise ChannelError(f"{column!r}: {segment} has {len(names)} commanded joint(s), {listing}")
        return f"{segment}.{names[i]}"
    if element not in names:
        raise ChannelError(f"{column!r}: {element!r} is not a commanded joint of {segment}; {listing}")
    return f"{segment}.{element}"
