"""Command files, the forms that must be accepted as well as refused (docs/command-files.md): the header and
its unit markers, decoding and line endings, time order, and the zero-order hold at and around the sample
instants. Each test fails for the other reading of the rule it names."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui.nodes import CommandFileError, read_commands


def csv_file(tmp_path, text: str | bytes, name="cmd.csv"):
    path = tmp_path / name
    if isinstance(text, str):
        path.write_bytes(text.encode())
    else:
        path.write_bytes(text)
    return path


def npz_file(tmp_path, time, values, names=("joint_1",)):
    path = tmp_path / "cmd.npz"
    np.savez(path, time=np.asarray(time, float), joint_positions=np.asarray(values, float),
             joint_names=np.array(names))
    return path


def refusal(path) -> CommandFileError:
    with pytest.raises(CommandFileError) as info:
        read_commands(path)
    return info.value


def resampled(tmp_path, times, values, dt):
    text = "time,joint_1\n" + "\n".join(f"{t!r},{v!r}" for t, v in zip(times, values, strict=True)) + "\n"
    grid, commands, used = read_commands(csv_file(tmp_path, text)).resample(dt)
    return grid, commands[:, 0], used


# -- the header ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("first", ["time", "time[s]", "time [s]", "time[ s ]", "Time", "TIME", "Time[S]"])
def test_the_time_column_is_time_in_seconds_with_or_without_its_marker(tmp_path, first):
    rec = read_commands(csv_file(tmp_path, f"{first},joint_1\n0,0.5\n1,0.25\n"))
    assert rec.joint_names == ("joint_1",)
    assert rec.time.tolist() == [0.0, 1.0]
    assert rec.header_line == 1


@pytest.mark.parametrize("first, code", [
    ("time[ms]", "commands.units"),    # an unknown unit
    ("time[deg]", "commands.columns"),  # a known unit that is not one of time
    ("time[m]", "commands.columns"),
    ("times", "commands.columns"),
    ("t", "commands.columns"),
    ("joint_1", "commands.columns"),
])
def test_a_first_column_that_is_not_time_in_seconds_is_refused_at_the_header(tmp_path, first, code):
    err = refusal(csv_file(tmp_path, f"# recorded\n{first},joint_2\n0,0\n"))
    assert (err.code, err.line) == (code, 2)


def test_seconds_are_a_unit_of_time_only(tmp_path):
    err = refusal(csv_file(tmp_path, "time[s],joint_1[s]\n0,0\n"))
    assert (err.code, err.line) == ("commands.units", 1)
    assert "joint_1[s]" in err.message


@pytest.mark.parametrize("cell, unit, factor", [
    ("joint_1", "", 1.0),
    ("joint_1[rad]", "rad", 1.0),
    ("joint_1[RAD]", "rad", 1.0),
    ("joint_1[deg]", "deg", math.pi / 180),
    ("joint_1[Deg]", "deg", math.pi / 180),
    ("joint_1 [ deg ]", "deg", math.pi / 180),
    ("joint_1[m]", "m", 1.0),
    ("joint_1[M]", "m", 1.0),
])
def test_unit_markers_are_read_whatever_their_case_and_spacing(tmp_path, cell, unit, factor):
    rec = read_commands(csv_file(tmp_path, f"time,{cell}\n0,90\n"))
    assert rec.joint_names == ("joint_1",)
    assert rec.units == (unit,)
    assert rec.joint_positions[0, 0] == 90 * factor


@pytest.mark.parametrize("cell", ["joint_1[grad]", "joint_1[degree]", "joint_1[mm]", "joint_1[s]"])
def test_an_unknown_unit_marker_is_refused(tmp_path, cell):
    err = refusal(csv_file(tmp_path, f"time,{cell}\n0,0\n"))
    assert (err.code, err.line) == ("commands.units", 1)


def test_unit_markers_decide_per_column(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,a[deg],b,c[rad]\n0,180,2,3\n"))
    assert rec.units == ("deg", "", "rad")
    np.testing.assert_array_equal(rec.joint_positions[0], [math.pi, 2.0, 3.0])


@pytest.mark.parametrize("header, code", [
    ("time", "commands.columns"),  # no joint column
    ("time,[deg]", "commands.columns"),  # a column with a unit and no name
    ("time,a,a", "commands.columns"),
    ("time,a,a[deg]", "commands.columns"),  # the same joint in two units
])
def test_header_refusals(tmp_path, header, code):
    err = refusal(csv_file(tmp_path, f"{header}\n0,0,0\n"))
    assert (err.code, err.line) == (code, 1)


def test_joint_names_are_case_sensitive(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,Joint_1,joint_1\n0,1,2\n"))
    assert rec.joint_names == ("Joint_1", "joint_1")


# -- decoding and lines ------------------------------------------------------------------------------------
def test_a_byte_order_mark_is_not_part_of_the_first_name(tmp_path):
    rec = read_commands(csv_file(tmp_path, b"\xef\xbb\xbftime,joint_1\r\n0,1\r\n"))
    assert rec.joint_names == ("joint_1",)
    assert rec.header_line == 1


def test_text_that_is_not_utf8_is_refused_as_a_format_error(tmp_path):
    err = refusal(csv_file(tmp_path, b"time,joint_\xe9\n0,1\n"))
    assert err.code == "commands.format"
    assert "byte 11" in err.message  # the offset of the first byte that is not UTF-8


def test_a_name_in_utf8_is_read(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,gelenk_ä\n0,1\n"))
    assert rec.joint_names == ("gelenk_ä",)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"], ids=["LF", "CRLF", "CR"])
def test_every_line_ending_ends_a_line_and_lines_are_counted_alike(tmp_path, newline):
    text = newline.join(["# comment", "", "time,joint_1", "0,1", "", "# later", "1,2", ""])
    rec = read_commands(csv_file(tmp_path, text))
    assert rec.header_line == 3
    assert rec.lines.tolist() == [4, 7]
    assert rec.joint_positions[:, 0].tolist() == [1.0, 2.0]


def test_mixed_line_endings_count_each_break_once(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,joint_1\r\n0,1\r2,3\n4,5\r\n"))
    assert rec.lines.tolist() == [2, 3, 4]
    assert rec.time.tolist() == [0.0, 2.0, 4.0]


@pytest.mark.parametrize("separator", ["\x0b", "\x0c", "\x1c", "\x85", "\u2028", "\u2029"],
                         ids=["VT", "FF", "FS", "NEL", "LS", "PS"])
def test_only_cr_and_lf_break_lines(tmp_path, separator):
    """str.splitlines breaks at these too; an editor does not, so neither does the reader."""
    rec = read_commands(csv_file(tmp_path, f"time,joint_1\n0,{separator}1\n1,2\n"))
    assert rec.lines.tolist() == [2, 3]
    assert rec.joint_positions[:, 0].tolist() == [1.0, 2.0]


def test_a_refusal_names_the_line_counted_with_blank_and_comment_lines(tmp_path):
    err = refusal(csv_file(tmp_path, "\n# c\ntime,joint_1\n\n0,1\n# c\n1,x\n"))
    assert (err.code, err.line) == ("commands.format", 7)


@pytest.mark.parametrize("row, code", [
    ("1", "commands.columns"),
    ("1,2,3", "commands.columns"),
    ("1,", "commands.format"),
    ("1,nan", "commands.non-finite"),
    ("1,-inf", "commands.non-finite"),
    ("inf,1", "commands.non-finite"),
    ("1,0x10", "commands.format"),
])
def test_sample_refusals_name_their_line(tmp_path, row, code):
    err = refusal(csv_file(tmp_path, f"time,joint_1\n0,0\n{row}\n"))
    assert (err.code, err.line) == (code, 3)


def test_numbers_in_any_float_spelling_are_read(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,joint_1\n0,1e-3\n1.5E1, -2.50 \n"))
    assert rec.time.tolist() == [0.0, 15.0]
    assert rec.joint_positions[:, 0].tolist() == [1e-3, -2.5]


def test_a_header_without_samples_and_an_empty_file_are_empty(tmp_path):
    err = refusal(csv_file(tmp_path, "# c\ntime,joint_1\n\n"))
    assert (err.code, err.line) == ("commands.empty", 2)
    err = refusal(csv_file(tmp_path, "# only a comment\n\n", name="other.csv"))
    assert (err.code, err.line) == ("commands.empty", 0)


# -- time order --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("second, ok", [("0.5", True), ("1e-12", True), ("0", False), ("-0.5", False),
                                        ("-0", False)])
def test_csv_times_must_strictly_increase(tmp_path, second, ok):
    path = csv_file(tmp_path, f"time,joint_1\n0,0\n{second},1\n")
    if ok:
        assert read_commands(path).time.tolist() == [0.0, float(second)]
    else:
        err = refusal(path)
        assert (err.code, err.line) == ("commands.time-order", 3)
        assert "(line 2)" in err.message


@pytest.mark.parametrize("times, bad_row", [([0, 1, 1], 2), ([0, 1, 0.5], 2), ([1, 0], 1), ([0, 0, 1], 1)])
def test_npz_times_must_strictly_increase(tmp_path, times, bad_row):
    err = refusal(npz_file(tmp_path, times, np.zeros((len(times), 1))))
    assert err.code == "commands.time-order"
    assert err.message.startswith(f"row {bad_row}:")


def test_npz_increasing_times_and_degrees_are_read(tmp_path):
    rec = read_commands(npz_file(tmp_path, [0, 1e-9, 2], [[180, 1], [90, 2], [0, 3]], ("a[deg]", "b")))
    assert rec.time.tolist() == [0, 1e-9, 2]
    assert rec.joint_names == ("a", "b") and rec.units == ("deg", "")
    np.testing.assert_array_equal(rec.joint_positions, [[math.pi, 1], [math.pi / 2, 2], [0, 3]])


def test_npz_names_in_bytes_are_decoded(tmp_path):
    path = tmp_path / "cmd.npz"
    np.savez(path, time=np.array([0.0]), joint_positions=np.array([[1.0]]),
             joint_names=np.array([b"joint_1"]))
    assert read_commands(path).joint_names == ("joint_1",)


def test_npz_non_finite_rows_name_the_row_and_the_columns(tmp_path):
    err = refusal(npz_file(tmp_path, [0, 1, math.nan], [[0, 0], [0, math.inf], [math.nan, 0]], ("a", "b")))
    assert err.code == "commands.non-finite"
    assert err.message == "row 1: b not finite"
    err = refusal(npz_file(tmp_path, [0, math.inf], [[0, 0], [math.nan, 0]], ("a", "b")))
    assert err.message == "row 1: time, a not finite"


# -- the zero-order hold -----------------------------------------------------------------------------------
def test_a_step_that_starts_exactly_on_a_sample_takes_that_sample(tmp_path):
    grid, u, dt = resampled(tmp_path, [0.0, 1.0, 2.0], [0.0, 10.0, 20.0], 0.5)
    assert grid.tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert u.tolist() == [0.0, 0.0, 10.0, 10.0, 20.0]
    assert dt == 0.5


def test_a_step_that_starts_just_before_a_sample_holds_the_one_before(tmp_path):
    dt = 1.0 - 1e-6
    grid, u, _ = resampled(tmp_path, [0.0, 1.0], [0.0, 10.0], dt)
    assert grid.tolist() == [0.0, dt]
    assert u.tolist() == [0.0, 0.0]


def test_a_step_that_starts_just_after_a_sample_takes_it(tmp_path):
    dt = 1.0 + 1e-6
    grid, u, _ = resampled(tmp_path, [0.0, 1.0, 3.0], [0.0, 10.0, 30.0], dt)
    assert len(grid) == 3
    assert u.tolist() == [0.0, 10.0, 10.0]


def test_a_step_a_rounding_error_before_a_sample_counts_as_on_it(tmp_path):
    """0.1 + 0.7 is 0.7999999999999999 in floating point: the sample written 0.8 is meant."""
    grid, u, _ = resampled(tmp_path, [0.1, 0.8], [0.0, 10.0], 0.7)
    assert grid[1] < 0.8
    assert u.tolist() == [0.0, 10.0]
    grid, u, _ = resampled(tmp_path, [0.0, 1.0], [0.0, 10.0], 1.0 - 1e-12)
    assert u.tolist() == [0.0, 10.0]


def test_steps_run_while_their_start_is_at_or_before_the_last_sample(tmp_path):
    """0.3 / 0.1 is 2.9999999999999996: the step at the last sample still exists."""
    grid, u, _ = resampled(tmp_path, [0.0, 0.1, 0.2, 0.3], [0.0, 1.0, 2.0, 3.0], 0.1)
    assert len(grid) == 4
    assert u.tolist() == [0.0, 1.0, 2.0, 3.0]
    grid, u, _ = resampled(tmp_path, [0.0, 0.3], [0.0, 3.0], 0.2)  # 0.4 is past the end
    assert grid.tolist() == [0.0, 0.2]
    assert u.tolist() == [0.0, 0.0]


def test_samples_between_steps_are_skipped_and_the_latest_one_is_held(tmp_path):
    grid, u, _ = resampled(tmp_path, [0.0, 0.25, 0.5, 0.75, 1.0], [0.0, 1.0, 2.0, 3.0, 4.0], 0.4)
    assert grid.tolist() == pytest.approx([0.0, 0.4, 0.8])
    assert u.tolist() == [0.0, 1.0, 3.0]


def test_the_default_step_is_the_median_spacing(tmp_path):
    grid, u, dt = resampled(tmp_path, [0.0, 0.1, 0.2, 0.3, 1.3], [0, 1, 2, 3, 4], None)
    assert dt == pytest.approx(0.1)
    assert len(grid) == 14
    assert u[-1] == 4.0


def test_the_step_limit_counts_steps_inclusively(tmp_path):
    path = csv_file(tmp_path, "time,joint_1\n0,0\n0.9,1\n")
    rec = read_commands(path)
    grid, _, _ = rec.resample(0.1, max_steps=10)
    assert len(grid) == 10
    with pytest.raises(CommandFileError) as info:
        rec.resample(0.1, max_steps=9)
    assert info.value.code == "commands.dt"


@pytest.mark.parametrize("dt", [0.0, -0.1, math.nan, math.inf])
def test_a_step_that_is_not_a_positive_number_is_refused(tmp_path, dt):
    rec = read_commands(csv_file(tmp_path, "time,joint_1\n0,0\n1,1\n"))
    with pytest.raises(CommandFileError) as info:
        rec.resample(dt)
    assert info.value.code == "commands.dt"


def test_one_sample_needs_a_step_and_with_one_makes_one_step(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,joint_1\n2.5,7\n"))
    with pytest.raises(CommandFileError) as info:
        rec.resample()
    assert (info.value.code, info.value.line) == ("commands.dt", 1)
    grid, commands, _ = rec.resample(0.01)
    assert grid.tolist() == [2.5] and commands.tolist() == [[7.0]]


# -- mapping onto the commanded joints ---------------------------------------------------------------------
def test_a_schedule_places_each_column_on_its_joint_and_holds_the_others(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,c,a[deg]\n0,1,90\n1,2,180\n"))
    s = rec.schedule(("a", "b", "c"), dt=1.0, initial_positions=[9.0, 8.0, 7.0])
    assert s.command_names == ("a", "b", "c") and s.recorded == ("c", "a")
    np.testing.assert_allclose(s.commands, [[math.pi / 2, 8.0, 1.0], [math.pi, 8.0, 2.0]])
    np.testing.assert_allclose(s.initial_positions, [math.pi / 2, 8.0, 1.0])
    assert (s.start, s.dt, s.steps) == (0.0, 1.0, 2)


@pytest.mark.parametrize("cell, linear, ok", [
    ("s[m]", True, True), ("s", True, True), ("s[deg]", True, False),
    ("s[m]", False, False), ("s[deg]", False, True), ("s[rad]", False, True),
])
def test_metres_go_with_sliding_joints_and_degrees_with_turning_ones(tmp_path, cell, linear, ok):
    rec = read_commands(csv_file(tmp_path, f"# c\ntime,{cell}\n0,1\n"))
    if ok:
        assert rec.schedule(("s",), dt=1.0, linear={"s"} if linear else ()).steps == 1
    else:
        with pytest.raises(CommandFileError) as info:
            rec.schedule(("s",), dt=1.0, linear={"s"} if linear else ())
        assert (info.value.code, info.value.line) == ("commands.units", 2)
        assert info.value.message.startswith("column 2:")


def test_an_unknown_or_follower_column_is_refused_with_its_column(tmp_path):
    rec = read_commands(csv_file(tmp_path, "time,a,z\n0,1,2\n"))
    with pytest.raises(CommandFileError) as info:
        rec.schedule(("a",), dt=1.0)
    assert (info.value.code, info.value.line) == ("commands.unknown-joint", 1)
    assert info.value.message.startswith("column 3: unknown joint 'z'; commandable joints: a")
    with pytest.raises(CommandFileError) as info:
        rec.schedule(("a",), dt=1.0, not_commandable={"z": "it follows 'a' (mimic)"})
    assert info.value.message == "column 3: joint 'z' takes no command: it follows 'a' (mimic)"


@pytest.mark.parametrize("t0", [0.0, 3.0, 1e4, 1e6, -1e5])
def test_a_clock_far_from_zero_steps_and_holds_as_one_from_zero(tmp_path, t0):
    """Times written as t0 + k·0.02 (rounded as a file or a float gives them) resample to the same 201 steps
    and the same held commands as 0 + k·0.02: far from zero a time is a few ulps off its grid point, and the
    last step was lost and a sample held one step late."""
    from mime_gui.nodes.commands import read_commands

    k = np.arange(201)
    values = np.sin(k / 7.0)
    rows = "\n".join(f"{float(t0 + 0.02 * i)!r},{float(v)!r}" for i, v in zip(k, values, strict=True))
    (tmp_path / "far.csv").write_text(f"time,a\n{rows}\n")
    rec = read_commands(tmp_path / "far.csv")
    grid, held, dt = rec.resample()
    assert len(grid) == 201 and dt == pytest.approx(0.02, rel=1e-9)
    np.testing.assert_array_equal(held[:, 0], values)  # each sample held at its own step
