"""The words of the sweep's refusals: each names the --vary, the table line or the scheduler it refuses and
says what to give instead."""

from __future__ import annotations

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import load
from mime_gui.sweep import SweepError, parse_all

RIG = RESOURCES / "demo" / "demo.rig.json"
RADIUS = "parts.holder.geometry.radius"


@pytest.mark.parametrize("texts, code, words", [
    ([f"{RADIUS}=0.01:0.03:0"], "sweep.range",
     [f"{RADIUS}=0.01:0.03:0: COUNT is 0", "give how many values, 1 to 100,000"]),
    ([f"{RADIUS}=-1e308:1e308:3"], "sweep.range",
     [f"{RADIUS}=-1e308:1e308:3: the span from START to STOP overflows", "give a smaller range"]),
    ([RADIUS], "sweep.vary", [f"'{RADIUS}': write PATH=RANGE, e.g. "]),
    ([f"{RADIUS}=1", f"{RADIUS}=2"], "sweep.vary",
     [f"{RADIUS} is varied twice; give its values in one --vary"]),
    ([f"{RADIUS}=0.01:0.02:1000", "parts.holder.geometry.length=0.01:0.02:1000"], "sweep.too-many",
     ["the grid holds 1,000,000 variants (1000 x 1000), more than 100,000",
      "give fewer values or split the sweep"]),
], ids=["count-zero", "span-overflows", "no-equals", "varied-twice", "too-many"])
def test_a_bad_vary_is_refused_at_the_option_naming_the_path_and_the_fix(texts, code, words):
    with pytest.raises(SweepError) as info:
        parse_all(texts, load(RIG))
    assert (info.value.code, info.value.file) == (code, "--vary")
    for w in words:
        assert w in info.value.message


def sweep(out, capsys, values="0.01,0.02") -> tuple[int, str]:
    status = main(["sweep", str(RIG), f"--vary={RADIUS}={values}", "--out", str(out), "--workers", "1",
                   "--quiet"])
    return status, capsys.readouterr().err


KEY = "# mime-gui sweep: key " + "0" * 64 + "; 2 variants\n"


@pytest.mark.parametrize("body, line, words", [
    ("variant,findings\n0,1,2\n", 3, ["3 cells under a header of 2: the row is damaged",
                                      "remove it (it will be computed again)"]),
    ('variant,findings\n0,"1"x\n', 3, ["the table is damaged (", "move it away to start over"]),
], ids=["cells-under-header", "csv-damaged"])
def test_a_damaged_table_is_refused_naming_its_line_and_what_to_do(tmp_path, capsys, body, line, words):
    out = tmp_path / "t.csv"
    out.write_text(KEY + body)
    status, err = sweep(out, capsys)
    assert status == 2
    assert err.startswith(f"error[sweep.table] {out}:{line}: ")
    for w in words:
        assert w in err
    assert out.read_text() == KEY + body


def test_a_kept_row_whose_value_is_not_its_variants_is_refused_naming_both_values(tmp_path, capsys):
    out = tmp_path / "t.csv"
    status, _ = sweep(out, capsys)
    assert status == 0
    text = out.read_text()
    assert "\n1,0.02," in text
    out.write_text(text.replace("\n1,0.02,", "\n1,0.03,"))
    status, err = sweep(out, capsys)
    assert status == 2
    lines = out.read_text().splitlines()
    line = next(i for i, t in enumerate(lines, start=1) if t.startswith("1,0.03,"))
    assert err.startswith(f"error[sweep.table] {out}:{line}: ")
    assert f"variant 1 holds {RADIUS} = 0.03 where the sweep has 0.02; remove the row" in err


def test_a_lab_kinds_whole_number_parameter_takes_whole_numbers_only():
    """A lab kind's params keep the numbers their file gives (a tooth count stays an int): varied, they stay
    whole, and a fraction is refused naming the path and its value now."""
    from mime_gui.rig import Apparatus, LabSegment, dynamics, register_dynamics, unregister_dynamics

    def gear(teeth=12):
        return dynamics.frames("gear", "base", [("spin", "continuous", "base", "wheel", (0, 0, 0.01),
                                                 (0, 0, 1), None)])

    register_dynamics("gear", gear)
    try:
        rig = Apparatus("g", chain={"gear": LabSegment(kind="gear", params={"teeth": 12})})
        [vary] = parse_all(["chain.gear.params.teeth=10,14"], rig)
        assert vary.values == (10, 14) and all(type(v) is int for v in vary.values)
        with pytest.raises(SweepError) as info:
            parse_all(["chain.gear.params.teeth=10,12.5"], rig)
        assert (info.value.code, info.value.file) == ("sweep.value", "--vary")
        assert info.value.message == "chain.gear.params.teeth holds a whole number (12); give whole numbers"
    finally:
        unregister_dynamics("gear")
