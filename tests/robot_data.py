"""Where example-robot-data keeps its robots (installed data only, found from the interpreter's environment).

The one place every test folder finds the real robots (``tests/conftest.py`` puts this folder on the path).
"""

from __future__ import annotations

import importlib.util
import site
import sys
import sysconfig
from pathlib import Path

import pytest

_TAIL = Path("cmeel.prefix", "share", "example-robot-data", "robots")


def robots_dir() -> Path | None:
    """``<site-packages>/cmeel.prefix/share/example-robot-data/robots``, or None when it is not installed."""
    paths = sysconfig.get_paths()
    bases = [paths["purelib"], paths["platlib"], *getattr(site, "getsitepackages", list)(),
             site.getusersitepackages(), *Path(sys.prefix).glob("lib/python*/site-packages")]
    candidates = [Path(base) / _TAIL for base in bases]
    spec = importlib.util.find_spec("example_robot_data")
    if spec is not None and spec.origin:
        candidates += [parent / _TAIL for parent in Path(spec.origin).resolve().parents]
    return next((path for path in candidates if path.is_dir()), None)


ROBOTS = robots_dir()
ALL_URDFS = sorted(ROBOTS.rglob("*.urdf")) if ROBOTS else []


def robot_urdf(relative: str) -> Path:
    """``ROBOTS / relative``; the test is skipped when example-robot-data (or that file) is not installed."""
    if ROBOTS is None or not (ROBOTS / relative).is_file():
        pytest.skip(f"example-robot-data ({relative}) is not installed (pip install --no-deps "
                    "example-robot-data)")
    return ROBOTS / relative


#: a two-joint arm whose wrist moves a link without mass or inertia (its acceleration is undefined)
MASSLESS_TIP_URDF = """<robot name="r"><link name="base"/>
<link name="arm"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="tip"/>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
<joint name="wrist" type="revolute"><parent link="arm"/><child link="tip"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


#: two unit links turning about world z; link2's frame sits at the elbow, its tip 1 m along its x
PLANAR_URDF = """<robot name="planar">
  <link name="base"/>
  <link name="link1"/>
  <link name="link2"/>
  <joint name="shoulder" type="continuous"><parent link="base"/><child link="link1"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="elbow" type="continuous"><parent link="link1"/><child link="link2"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
</robot>"""


#: two joints on the base: the first turns a link without mass or inertia, the second a massive one
BARE_FIRST_URDF = """<robot name="r"><link name="base"/><link name="tip"/>
<link name="arm"><inertial><mass value="1"/><origin xyz="0.1 0 0"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="bare" type="revolute"><parent link="base"/><child link="tip"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
<joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="10" velocity="1"/></joint></robot>"""


def fold_urdf(multiplier: float) -> str:
    """Two 10 cm links folding in a plane to a tip, the second (j2) following the first (j1) at ``multiplier``
    of its angle within ±0.5 rad."""
    return f"""<robot name="fold">
  <link name="base"/><link name="a"/><link name="b"/><link name="tip"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/><limit lower="-1.0" upper="1.0" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0.1 0 0"/>
    <axis xyz="0 0 1"/><limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>
    <mimic joint="j1" multiplier="{multiplier:g}" offset="0"/></joint>
  <joint name="t" type="fixed"><parent link="b"/><child link="tip"/><origin xyz="0.1 0 0"/></joint>
</robot>
"""
