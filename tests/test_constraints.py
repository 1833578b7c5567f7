"""constraints.txt pins every requirement of pyproject (and example-robot-data) to a version pyproject admits.

A requirement added to pyproject without ``make lock``, or a bound raised past the pinned version, fails here
instead of installing an unpinned or conflicting release.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pins() -> dict[str, str]:
    found = {}
    for n, line in enumerate((ROOT / "constraints.txt").read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!-]+)", line)
        assert m, f"constraints.txt:{n}: {line!r} is not NAME==VERSION"
        name = canonicalize_name(m[1])
        assert name not in found, f"constraints.txt:{n}: {m[1]} is pinned twice"
        found[name] = m[2]
    return found


def requirements() -> list[Requirement]:
    reqs = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in PROJECT["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    return reqs


def test_every_requirement_is_pinned_within_its_bounds():
    pinned = pins()
    for req in requirements():
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is not in constraints.txt: run make lock"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"constraints.txt pins {req.name}=={pinned[name]}, outside {req.specifier}: run make lock"


def test_the_robot_data_the_tests_use_is_pinned_and_the_project_is_not():
    pinned = pins()
    assert "example-robot-data" in pinned
    assert "mime-gui" not in pinned  # pip refuses a constraint on the project being installed


def test_the_excluded_pyside_release_stays_excluded():
    (pyside,) = [r for r in requirements() if canonicalize_name(r.name) == "pyside6-essentials"]
    assert not pyside.specifier.contains("6.12.0")
    assert pins()["pyside6-essentials"] != "6.12.0"
