"""Mutation score of the headless core on a deterministic sample of mutants (mutmut; docs/mutation.md).

    python tools/mutation_sample.py [--per-file N] [--draw D] [--files-sampled] [--children K]
                                    [--only PATTERN] [--no-run]

mutmut makes about 29,000 mutants of the packages that run without Qt (``mime_gui/{multibody,nodes,rig,
session,field,cli}`` and the top-level modules: the ``[tool.mutmut]`` section of pyproject.toml); running
them all takes days on two cores. This script:

1. removes what an earlier run left under ``mutants/`` and runs ``mutmut run "mime_gui.files*"``: that makes
   every mutant under ``mutants/``, maps each function to the tests that reach it (all of them: mutmut would
   otherwise trace only the tests added since its last map), and runs all mutants of ``files.py`` (a small
   module, measured whole);
2. picks ``N`` mutants of every other source file, the ``N`` whose names have the smallest SHA-256 (the
   same sample on every run while the code is the same, spread over each file's functions), and runs them
   with ``mutmut run NAME …``; ``--draw D`` skips the first ``D × N`` of each file in that order and takes
   the next ``N``, a new sample that shares no mutant with draws ``0 … D-1`` (for a figure on mutants no
   test was written against);
3. prints the score of each package and file: killed ÷ (sampled − equivalent). A timeout counts as killed (the
   tests stopped the mutant); a mutant no test reaches counts as survived. Mutants shown to be equivalent
   (no test can tell them from the code) are listed, each with its reason, in docs/mutation.md.

Run it from the repository root with the project's Python (``make mutation``).
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
DOCS = ROOT / "docs" / "mutation.md"
PACKAGES = ("mime_gui/multibody", "mime_gui/nodes", "mime_gui/rig", "mime_gui/session", "mime_gui/field",
            "mime_gui/cli", "mime_gui/files.py", "mime_gui/inputs.py", "mime_gui/mesh_files.py",
            "mime_gui/errors.py", "mime_gui/magnitudes.py", "mime_gui/_package.py", "mime_gui/__init__.py",
            "mime_gui/__main__.py")
KILLED = {1, 3, 36, 24, -24, 152, 255}  # test failure, pytest internal error, timeouts
SURVIVED = {0, 5, 33}  # tests passed, or no test reaches the mutant


def mutmut(*args: str, children: int) -> None:
    cmd = [str(Path(sys.executable).parent / "mutmut"), "run", "--max-children", str(children), *args]
    done = subprocess.run(cmd, cwd=ROOT, check=False, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:  # a failing test in the first, unmutated run stops mutmut: say which
        sys.exit(f"mutmut run failed ({done.returncode}):\n{done.stdout[-6000:]}")


def results() -> dict[str, tuple[str, int | None]]:
    """Mutant name -> (source file, exit code or None when not run)."""
    out = {}
    for meta in sorted(MUTANTS.glob("mime_gui/**/*.py.meta")):
        source = str(meta.relative_to(MUTANTS))[: -len(".meta")]
        for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
            out[name] = (source, code)
    return out


def equivalent() -> dict[str, str]:
    """The mutants docs/mutation.md lists as equivalent: name -> reason."""
    found = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        # a note may follow the name in its cell
        m = re.match(r"\|\s*`([\w.ǁ]+__mutmut_\d+)`[^|]*\|\s*(.+?)\s*\|\s*$", line)
        if m:
            found[m[1]] = m[2]
    return found


def sample(names_by_file: dict[str, list[str]], per_file: int, files_whole: bool = True,
           draw: int = 0) -> list[str]:
    """Each file's mutants in the order of their names' SHA-256; draw ``D`` takes places ``D·N … D·N+N-1``."""
    chosen = []
    for source, names in sorted(names_by_file.items()):
        if files_whole and source == "mime_gui/files.py":
            continue  # run whole in step 1
        ordered = sorted(names, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        chosen += ordered[draw * per_file:(draw + 1) * per_file]
    return chosen


def package_of(source: str) -> str:
    return next(p for p in PACKAGES if source == p or source.startswith(p + "/"))


def score_table(picked: dict[str, str], codes: dict[str, int | None], equiv: dict[str, str]) -> str:
    rows = defaultdict(lambda: [0, 0, 0, 0])  # key -> [sampled, equivalent, killed, survived]
    for name, source in picked.items():
        for key in {package_of(source), source}:
            r = rows[key]
            r[0] += 1
            if name in equiv:
                r[1] += 1
            elif codes[name] in KILLED:
                r[2] += 1
            elif codes[name] in SURVIVED:
                r[3] += 1
    lines = ["| module | sampled | equivalent | killed | survived | score |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for key in sorted(rows, key=lambda k: (package_of(k), k != package_of(k), k)):
        sampled, eq, killed, survived = rows[key]
        judged = sampled - eq
        score = f"{100 * killed / judged:.0f} %" if judged else "–"
        label = f"**{key}**" if key in PACKAGES else f"  {key}"
        lines.append(f"| {label} | {sampled} | {eq} | {killed} | {survived} | {score} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-file", type=int, default=12, help="mutants sampled per source file (default 12)")
    ap.add_argument("--draw", type=int, default=0,
                    help="skip the first DRAW x N mutants of each file in SHA-256 order and take the next N: "
                         "a new sample, disjoint from the earlier draws (default 0)")
    ap.add_argument("--children", type=int, default=2, help="mutants run at once (default 2)")
    ap.add_argument("--only", default="", help="sample only the files matching this glob (mime_gui/rig/*)")
    ap.add_argument("--no-run", action="store_true", help="print the scores of the last run only")
    ap.add_argument("--files-sampled", action="store_true",
                    help="sample files.py like the other files instead of running it whole (a shorter run)")
    args = ap.parse_args(argv)
    if args.per_file < 1 or args.draw < 0:
        ap.error("--per-file must be at least 1 and --draw at least 0")

    if not args.no_run:
        # mutmut keeps the map of tests of an earlier run and traces only the tests added since: an older
        # test that now reaches a function new since that run would not be run against its mutants, which
        # would pass for survivors; and the earlier run's exit codes would stand for mutants not run now
        shutil.rmtree(MUTANTS, ignore_errors=True)
        # the first run makes the mutants and the map of tests; with --files-sampled it runs only the first
        # mutant of each of files.py's functions
        first = "mime_gui.files.*__mutmut_1" if args.files_sampled else "mime_gui.files*"
        mutmut(first, children=args.children)
    found = results()
    if not found:
        print("no mutants under mutants/: run without --no-run first", file=sys.stderr)
        return 1
    by_file = defaultdict(list)
    for name, (source, _) in found.items():
        if not args.only or fnmatch.fnmatch(source, args.only):
            by_file[source].append(name)
    chosen = sample(by_file, args.per_file, files_whole=not args.files_sampled, draw=args.draw)
    if not args.no_run and chosen:
        mutmut(*chosen, children=args.children)
        found = results()
    picked = {n: found[n][0] for n in chosen}
    if not args.files_sampled:
        picked.update({n: s for n, (s, _) in found.items() if s == "mime_gui/files.py"})
    codes = {n: c for n, (_, c) in found.items()}
    equiv = equivalent()
    print(score_table(picked, codes, equiv))
    left = sorted(n for n in picked if n not in equiv and codes[n] not in KILLED)
    if left:
        print(f"\n{len(left)} surviving (or not run) mutants; `mutmut show NAME` shows each:")
        print("\n".join(f"  {n} ({codes[n]})" for n in left))
    return 0


if __name__ == "__main__":
    sys.exit(main())
