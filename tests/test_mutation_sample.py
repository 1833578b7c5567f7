"""tools/mutation_sample.py reads docs/mutation.md's table of equivalent mutants whole (a row whose name
carries a note included) and leaves them out of the score; a run starts from no earlier run's map of tests."""

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


def test_a_run_starts_without_the_last_run_s_map_of_tests_and_results(tmp_path, monkeypatch):
    # mutmut traces only tests added since its last map: a test that reaches a function new since then would
    # not be run against that function's mutants, so they would be counted as survivors
    mutants = tmp_path / "mutants"
    (mutants / "mime_gui").mkdir(parents=True)
    (mutants / "mutmut-stats.json").write_text("{}")
    meta = '{"exit_code_by_key": {"mime_gui.old.x_f__mutmut_1": 0}}'
    (mutants / "mime_gui" / "old.py.meta").write_text(meta)
    seen = []

    def fake_mutmut(*args, children):
        seen.append((args, sorted(p.name for p in mutants.rglob("*"))))

    monkeypatch.setattr(mutation_sample, "MUTANTS", mutants)
    monkeypatch.setattr(mutation_sample, "mutmut", fake_mutmut)
    assert mutation_sample.main(["--per-file", "1"]) == 1  # the fake made no mutants: nothing to score
    assert seen == [(("mime_gui.files*",), [])]  # the first run found nothing of the last one
