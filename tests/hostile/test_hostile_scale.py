"""Algorithms that scale: the mimic check, the mimic fold and the outline of ``inspect`` are linear.

The work is counted, not timed (speed goals live in benchmarks/): the reader's mimic check looks each joint up
a bounded number of times however the mimics chain (it was O(n³): 3,000 chained mimics took 48 s, 10,000 never
ended), the compile step's fold likewise, and the outline of a 10,000-joint chain is O(n) characters. The
large files run under a time limit, as a guard against a hang, not as a measure.
"""

from __future__ import annotations

import pytest
from hostile_corpus import LIMIT, cli, write

from mime_gui.multibody import read_urdf
from mime_gui.multibody.articulation import _mimic_roots
from mime_gui.multibody.urdf import _Reader

pytestmark = pytest.mark.timeout(120)


def chain(n: int, mimic: bool = False) -> str:
    """n revolute joints in a chain; with ``mimic``, joint i follows joint i - 1 (joint 1 is independent)."""
    links = "".join(f'<link name="l{i}"/>' for i in range(n + 1))
    joints = []
    for i in range(1, n + 1):
        m = f'<mimic joint="j{i - 1}"/>' if mimic and i > 1 else ""
        joints.append(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                      f"{LIMIT}{m}</joint>")
    return f'<robot name="c">{links}{"".join(joints)}</robot>'


class CountingDict(dict):
    def __init__(self, *args):
        super().__init__(*args)
        self.lookups = 0

    def get(self, key, default=None):
        self.lookups += 1
        return super().get(key, default)


class CountingList(list):
    def __init__(self, *args):
        super().__init__(*args)
        self.reads = 0

    def __getitem__(self, index):
        self.reads += 1
        return super().__getitem__(index)


@pytest.mark.parametrize("order", ["forward", "backward"])
@pytest.mark.parametrize("n", [100, 1000])
def test_the_mimic_check_looks_each_joint_up_a_bounded_number_of_times(n, order):
    """Forward (each follower after its master) and backward (the longest chain walked first) alike."""
    tree = read_urdf(chain(n, mimic=True))
    joints = tree.joints if order == "forward" else dict(reversed(tree.joints.items()))
    counting = CountingDict(joints)
    _Reader("<test>", None, (), {}).check_mimic(counting)
    assert counting.lookups <= 2 * n


@pytest.mark.parametrize("n", [100, 1000])
def test_the_mimic_fold_reads_each_joint_a_bounded_number_of_times(n):
    tree = read_urdf(chain(n, mimic=True))
    joints = CountingList(reversed(list(tree.joints.values())))  # the deepest follower first
    master, multiplier, offset = _mimic_roots(joints)
    assert joints.reads <= 4 * n
    root = n - 1  # j1, last in the reversed list
    assert list(master) == [root] * (n - 1) + [-1] and set(multiplier) == {1.0} and set(offset) == {0.0}


def test_ten_thousand_chained_mimics_read_compile_and_inspect(tmp_path):
    path = write(tmp_path, "mimic.urdf", chain(10_000, mimic=True))
    art = read_urdf(path).compile()
    assert art.nq == 10_000 and int(art.is_mimic.sum()) == 9_999
    assert set(art.mimic_master[1:]) == {0}
    status, out, _ = cli("inspect", path)
    assert status == 0 and "mimic 9999" in out


def test_the_outline_of_a_deep_chain_is_linear_in_characters(tmp_path):
    path = write(tmp_path, "deep.urdf", chain(10_000))
    status, out, _ = cli("inspect", path)
    assert status == 0
    tree_lines = [line for line in out.splitlines() if "(revolute)" in line]
    assert len(tree_lines) == 10_000
    assert max(map(len, tree_lines)) < 2 * 41 + 80  # indentation stops growing after 40 levels
    assert tree_lines[39].startswith("  " * 41 + "j40 (revolute)")
    assert tree_lines[-1].startswith("  " * 41 + "[depth 10000] j10000 (revolute)")
