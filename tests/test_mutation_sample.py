"""tools/mutation_sample.py reads docs/mutation.md's table of equivalent mutants whole (a row whose name
carries a note included) and leaves them out of the score."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import mutation_sample  # noqa: E402


def test_every_row_of_the_equivalent_table_is_read_with_its_reason():
    text = (ROOT / "docs" / "mutation.md").read_text(encoding="utf-8")
    table = text.split("## Equivalent mutants", 1)[1]
    rows = [line for line in table.splitlines() if re.match(r"\|\s*`mime_gui\.", line)]
    found = mutation_sample.equivalent()
    assert len(rows) >= 17 and len(found) == len(rows)
    # a name followed by a note in its cell (the mutated text) is read too, and its reason is the next cell
    noted = "mime_gui.multibody._world.x_tree_sum__mutmut_1"
    assert found[noted].startswith("for the `(..., k, d)` arrays every caller passes")


def test_an_equivalent_mutant_is_left_out_of_its_file_s_score():
    names = [f"mime_gui.rig.a.x_f__mutmut_{k}" for k in (1, 2, 3)]
    picked = dict.fromkeys(names, "mime_gui/rig/a.py")
    codes = dict(zip(names, (1, 0, 0), strict=True))
    table = mutation_sample.score_table(picked, codes, {names[2]: "same"})
    # 3 sampled, 1 equivalent, 1 killed, 1 survived: 1 of the 2 judged
    assert "| **mime_gui/rig** | 3 | 1 | 1 | 1 | 50 % |" in table.splitlines()
