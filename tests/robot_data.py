"""Where example-robot-data keeps its robots (installed data only, found from the interpreter's prefix)."""

from __future__ import annotations

import site
import sys
import sysconfig
from pathlib import Path


def robots_dir() -> Path | None:
    """``<site-packages>/cmeel.prefix/share/example-robot-data/robots``, or None when it is not installed."""
    candidates = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    candidates += [*getattr(site, "getsitepackages", list)(), site.getusersitepackages()]
    candidates += list(Path(sys.prefix).glob("lib/python*/site-packages"))
    for base in candidates:
        path = Path(base) / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if path.is_dir():
            return path
    return None


ROBOTS = robots_dir()
ALL_URDFS = sorted(ROBOTS.rglob("*.urdf")) if ROBOTS else []
