"""Where example-robot-data keeps its robots, for every benchmark (data only, from the interpreter's
environment)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

_TAIL = Path("cmeel.prefix", "share", "example-robot-data", "robots")


def robots_dir() -> Path:
    """``<site-packages>/cmeel.prefix/share/example-robot-data/robots``; exits with a hint when missing."""
    for key in ("purelib", "platlib"):
        path = Path(sysconfig.get_paths()[key]) / _TAIL
        if path.is_dir():
            return path
    raise SystemExit("example-robot-data is not installed: pip install --no-deps example-robot-data")


def panda_urdf() -> Path:
    return robots_dir() / "panda_description" / "urdf" / "panda.urdf"
