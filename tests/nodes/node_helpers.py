"""Small independent helpers for the node tests."""


import numpy as np

from mime_gui import RESOURCES

DEMO = RESOURCES / "demo"
DEMO_URDF = DEMO / "arm.urdf"

# A three-link arm: j1 revolute, j2 prismatic, j3 follows j1 (multiplier -2, offset 0.1) within ±1.5,
# j4 continuous.
MIMIC_URDF = """<robot name="mimic_arm">
  <link name="base"/><link name="a"/><link name="b"/><link name="c"/><link name="d"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><origin xyz="0 0 0.2"/>
    <axis xyz="0 0 1"/><limit lower="-1.0" upper="1.2" effort="1" velocity="1"/></joint>
  <joint name="j2" type="prismatic"><parent link="a"/><child link="b"/><origin xyz="0.1 0 0" rpy="0 0.3 0"/>
    <axis xyz="1 0 0"/><limit lower="0.0" upper="0.4" effort="1" velocity="1"/></joint>
  <joint name="j3" type="revolute"><parent link="b"/><child link="c"/><origin xyz="0.1 0 0.05"/>
    <axis xyz="0 1 0"/><limit lower="-1.5" upper="1.5" effort="1" velocity="1"/>
    <mimic joint="j1" multiplier="-2" offset="0.1"/></joint>
  <joint name="j4" type="continuous"><parent link="c"/><child link="d"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/></joint>
</robot>
"""

# A tree: j1 carries two revolute branches (j2 about x, j3 about an oblique axis with a rotated origin), one
# with a fixed tool welded on; no limits on j3 (continuous).
BRANCH_URDF = """<robot name="branch">
  <link name="root"/><link name="hub"/><link name="left"/><link name="right"/><link name="tool"/>
  <joint name="j1" type="revolute"><parent link="root"/><child link="hub"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="hub"/><child link="left"/>
    <origin xyz="0 0.2 0" rpy="0.3 0 0"/>
    <axis xyz="1 0 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j3" type="continuous"><parent link="hub"/><child link="right"/>
    <origin xyz="0 -0.2 0" rpy="0 0.5 1.0"/><axis xyz="0.6 0 0.8"/></joint>
  <joint name="t" type="fixed"><parent link="right"/><child link="tool"/>
    <origin xyz="0.1 0 0" rpy="1 0 0"/></joint>
</robot>
"""

STATIC_URDF = """<robot name="static">
  <link name="base"/><link name="plate"/>
  <joint name="weld" type="fixed"><parent link="base"/><child link="plate"/><origin xyz="0 0 0.3"/></joint>
</robot>
"""


def rot(axis, angle) -> np.ndarray:
    """A (4, 4) rotation about a unit axis by Rodrigues' formula."""
    a = np.asarray(axis, dtype=float)
    a = a / np.linalg.norm(a)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    X = np.eye(4)
    X[:3, :3] = np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K
    return X


def pose(axis, angle, xyz) -> np.ndarray:
    X = rot(axis, angle)
    X[:3, 3] = xyz
    return X


def random_pose(rng) -> np.ndarray:
    return pose(rng.normal(size=3), rng.uniform(-np.pi, np.pi), rng.normal(size=3))


def rotation_log(R) -> np.ndarray:
    """The rotation vector of a rotation matrix (angle below π)."""
    c = np.clip((np.trace(R) - 1) / 2, -1, 1)
    angle = np.arccos(c)
    w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    if angle < 1e-12:
        return w / 2
    return w * angle / (2 * np.sin(angle))
