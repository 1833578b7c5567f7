"""One column grammar (mime_gui.nodes.columns): the docs' table of kinds is the declared one, every declared
kind is played by the rig, a kind declared in the table alone is read, split and scheduled end to end, and the
kinds declared refuse as they always have."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui.errors import CodedError
from mime_gui.nodes import columns as grammar
from mime_gui.nodes import read_commands
from mime_gui.rig import channels, playback
from mime_gui.rig.driven import is_torque_channel

DOCS = Path(__file__).resolve().parents[2] / "docs" / "command-files.md"


@pytest.fixture(scope="module")
def built():
    return snippet_rig().build()


def docs_rows() -> list[list[str]]:
    """The rows of the table under docs/command-files.md's '## Kinds of column'."""
    section = DOCS.read_text(encoding="utf-8").split("## Kinds of column", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


def test_the_docs_table_lists_exactly_the_declared_kinds_and_units():
    rows = docs_rows()
    assert [r[0] for r in rows] == [k.name for k in grammar.KINDS]
    for row, kind in zip(rows, grammar.KINDS, strict=True):
        assert row[2] == kind.unit
        marks = re.findall(r"`\[([^]]+)\]`", row[3])
        assert marks == [m for m, _ in kind.units] and (marks or row[3] == "none")
        assert re.findall(r"`<segment>\.([a-z_]+)", row[1]) == list(kind.channel_names)
    assert grammar.docs_table() in DOCS.read_text(encoding="utf-8")  # written as the table renders it


def test_every_declared_kind_has_its_channels_and_the_rigs_adapter():
    assert grammar.KINDS[0] is grammar.POSITIONS  # a joint's column, which names no channel
    assert set(playback.KIND_CHECKS) == {k.name for k in grammar.KINDS} - {grammar.POSITIONS.name}
    for kind in grammar.KINDS:
        assert kind.units == tuple((m.lower(), f) for m, f in kind.units)  # read whatever their case
        for channel, elements in kind.channels:
            assert grammar.kind_of(f"seg.{channel}") is kind
            assert grammar.kind_of(f"seg.{channel}.x") is (kind if elements else grammar.POSITIONS)
            assert grammar.channel_pattern().match(f"seg.{channel}.0")["channel"] == channel
    assert grammar.markers() == {"rad": 1.0, "deg": pytest.approx(np.pi / 180), "m": 1.0}


CURRENTS = grammar.Kind("currents", "current channel", (("coil_current", False),), "A",
                        (("a", 1.0), ("ma", 1e-3)))


@pytest.fixture
def with_currents(monkeypatch):
    """A throwaway kind, declared as a new kind is: its entry in the table, the rig's check of a column."""
    checked = []

    def check(built, column):
        checked.append(column)
        if column.split(".")[0] != "motor":
            raise CodedError("commands.current", f"{column!r}: only the motor has a coil")

    monkeypatch.setattr(grammar, "KINDS", (*grammar.KINDS, CURRENTS))
    monkeypatch.setitem(playback.KIND_CHECKS, CURRENTS.name, check)
    return checked


def write(tmp_path, header, rows=((0.0, 0.1, 500.0), (0.01, 0.2, 250.0))):
    path = tmp_path / "cmd.csv"
    path.write_text(header + "\n" + "\n".join(",".join(map(repr, r)) for r in rows) + "\n")
    return path


def test_a_kind_declared_in_the_table_is_read_split_and_scheduled(tmp_path, built, with_currents):
    recorded = read_commands(write(tmp_path, "time,arm.joint_1,motor.coil_current[mA]"))
    np.testing.assert_allclose(recorded.joint_positions[:, 1], [0.5, 0.25])  # the kind's marker, to SI
    assert grammar.kind_of("motor.coil_current") is CURRENTS and not is_torque_channel("motor.coil_current")
    with pytest.raises(channels.ChannelError) as info:  # not a position the player could drive
        channels.resolve("motor.coil_current", {"motor": ["shaft"]})
    assert info.value.code == "commands.current-channel"
    playable = playback.RigPlayable(built)
    schedule = playable.schedule(recorded, None)
    assert with_currents == ["motor.coil_current"]
    assert schedule.recorded == ("arm.joint_1",) and playable.torque_schedule is None
    currents = playable.kind_schedules["currents"]
    assert currents.command_names == ("motor.coil_current",)
    np.testing.assert_allclose(currents.commands[:, 0], [0.5, 0.25])


@pytest.mark.parametrize(("header", "code", "text"), [
    ("time,arm.joint_1,arm.coil_current", "commands.current", "column 3: 'arm.coil_current': only the motor"),
    ("time,arm.joint_1,motor.coil_current[deg]", "commands.units",
     "column 3: the current channel 'motor.coil_current' takes [a] or [ma] (A); remove [deg]"),
])
def test_a_declared_kind_is_refused_with_its_column(tmp_path, built, with_currents, header, code, text):
    recorded = read_commands(write(tmp_path, header))
    with pytest.raises(CodedError) as info:
        playback.RigPlayable(built).schedule(recorded, None)
    assert info.value.code == code and text in info.value.message and info.value.line == 1


def test_a_marker_no_kind_declares_is_refused_by_the_reader_naming_every_declared_one(tmp_path,
                                                                                     with_currents):
    with pytest.raises(CodedError) as info:
        read_commands(write(tmp_path, "time,arm.joint_1,motor.coil_current[kA]"))
    assert info.value.code == "commands.units"
    assert info.value.message.endswith("use [rad], [deg], [m], [a] or [ma]")


@pytest.mark.parametrize(("header", "code", "text"), [
    ("time,motor.torque[deg]", "commands.units", "column 2: the torque channel 'motor.torque' takes no unit "
     "marker (N·m, or N on a sliding joint); remove [deg]"),
    ("time,motor.torque.x", "commands.torque-channel", "column 2: 'motor.torque.x' is a torque channel; the "
     "player drives positions: give motor.joint_positions.<i> or motor.<joint>"),
    ("time,arm.joint_positions", "commands.unknown-joint", "column 2: 'arm.joint_positions' holds 6 joints"),
])
def test_the_declared_kinds_refuse_as_they_did(tmp_path, built, header, code, text):
    recorded = read_commands(write(tmp_path, header, ((0.0, 1.0), (0.01, 2.0))))
    with pytest.raises(CodedError) as info:
        playback.RigPlayable(built).schedule(recorded, None)
    assert (info.value.code, info.value.line) == (code, 1) and info.value.message.startswith(text)


def test_the_reader_names_the_declared_markers(tmp_path):
    with pytest.raises(CodedError) as info:
        read_commands(write(tmp_path, "time,joint_1[rpm]", ((0.0, 1.0),)))
    assert info.value.code == "commands.units" and info.value.message.endswith("use [rad], [deg] or [m]")


@pytest.mark.parametrize(("column", "words"), [
    ("arm.joint_positions.3", "'arm.joint_positions.3': arm has 3 commanded joint(s)"),
    ("arm.joint_positions", "'arm.joint_positions' holds 3 joints; give one column per joint"),
], ids=["an index past the last", "the whole channel"])
def test_a_channel_column_the_player_cannot_take_lists_the_indices_and_joints_there_are(column, words):
    with pytest.raises(channels.ChannelError) as info:
        channels.resolve(column, {"arm": ["shoulder", "elbow", "wrist"]})
    message = str(info.value)
    assert words in message and info.value.code == "commands.unknown-joint"
    # three joints: indices 0 to 2
    assert message.endswith("arm.joint_positions.0 … .2 (shoulder, elbow, wrist)")


def test_a_channel_of_a_segment_without_commanded_joints_says_there_are_none():
    with pytest.raises(channels.ChannelError) as info:
        channels.resolve("base.joint_positions.0", {"base": []})
    message = str(info.value)
    assert "'base.joint_positions.0': base has 0 commanded joint(s)" in message
    assert message.endswith("(none)") and info.value.code == "commands.unknown-joint"
