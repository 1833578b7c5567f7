"""Run a fixed list of hand-written one-line bugs against a set of tests (docs/mutation.md).

For code mutmut cannot mutate: the 3D scene and the docks (they need a display and Qt's event loop, which
mutmut's forked workers do not give) and the compiled kernels (numba cannot compile mutmut's trampolines).
Each mutant is applied to a copy of the repository (the working tree is never touched) and the tests run; a
mutant is killed when they fail. Prints one line per mutant and the score.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tests_fail(copy: Path, tests: list[str]) -> bool:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
                          cwd=copy, env=env, capture_output=True, text=True)
    return done.returncode != 0


def run_sample(target: str, tests: list[str], mutants: list[tuple[str, str, str]]) -> int:
    """``mutants``: (what the bug does, text in ``target``, its replacement), each text found once."""
    return run_spread([(what, target, old, new, tests) for what, old, new in mutants])


def run_spread(mutants: list[tuple[str, str, str, str, list[str]]]) -> int:
    """``mutants``: (what the bug does, the file, text in it found once, its replacement, the tests that
    should catch it): each mutant runs only its own tests, as a whole list of app tests is minutes."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", "mutants", ".venv", "__pycache__"))
        every = sorted({test for *_, tests in mutants for test in tests})
        if _tests_fail(copy, every):
            print(f"{', '.join(every)} fail without a mutant; fix them first", file=sys.stderr)
            return 1
        killed = 0
        for what, target, old, new, tests in mutants:
            source = copy / target
            original = source.read_text()
            if original.count(old) != 1:
                print(f"?        {what}: the text to mutate is not found once; update this list")
                continue
            source.write_text(original.replace(old, new))
            try:
                dead = _tests_fail(copy, tests)
            finally:
                source.write_text(original)
            killed += dead
            print(f"{'killed  ' if dead else 'SURVIVED'} {what}", flush=True)
        print(f"\n{killed} of {len(mutants)} killed ({100 * killed / len(mutants):.0f} %)")
    return 0
