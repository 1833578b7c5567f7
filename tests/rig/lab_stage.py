"""A lab's package, ``lab_stages`` 1.2.0, installed into a temporary folder on ``sys.path``: a linear stage
(a carriage sliding along x at ``height`` above its base, within ``travel``) registered through its entry
point in the group ``mime_gui.dynamics``."""

from __future__ import annotations

import textwrap
from pathlib import Path

ARM_URDF = """<robot name="pivot">
  <link name="base"/>
  <link name="link_1"/>
  <link name="tool"/>
  <joint name="joint_1" type="revolute">
    <parent link="base"/><child link="link_1"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="1" velocity="1"/>
  </joint>
  <joint name="flange" type="fixed">
    <parent link="link_1"/><child link="tool"/><origin xyz="0.2 0 0"/>
  </joint>
</robot>
"""

PACKAGE = '''
from mime_gui.rig.dynamics import frames


def stage(travel=0.1, height=0.02):
    if not isinstance(travel, (int, float)) or travel <= 0:
        raise ValueError(f"travel must be a positive number of metres, got {travel!r}")
    return frames("stage", "base", [("slide", "prismatic", "base", "carriage", (0, 0, height), (1, 0, 0),
                                     (-travel, travel))])
'''


def install(site: Path) -> Path:
    """Write the package and its ``.dist-info`` (with the entry point) into ``site``; returns ``site``."""
    (site / "lab_stages").mkdir(parents=True)
    (site / "lab_stages" / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    info = site / "lab_stages-1.2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lab-stages\nVersion: 1.2.0\n")
    (info / "entry_points.txt").write_text("[mime_gui.dynamics]\nlinear-stage = lab_stages:stage\n")
    return site
