"""Algorithms that scale: the mimic check, the mimic fold and the outline of ``inspect`` are linear; so are a
command file's header, the probe rules and the field's memory in the magnets; sub-steps are bounded.

The work is counted, not timed (speed goals live in benchmarks/): the reader's mimic check looks each joint up
a bounded number of times however the mimics chain (it was O(n³): 3,000 chained mimics took 48 s, 10,000 never
ended), the compile step's fold likewise, and the outline of a 10,000-joint chain is O(n) characters. The
probe rule calls the inside test once per magnet, not once per (probe, magnet) pair; the field without
``contributions`` holds no magnets x probes x steps array (its memory is measured). The large files run under
a time limit, as a guard against a hang, not as a measure.
"""

from __future__ import annotations

import dataclasses
import math
import re
import tracemalloc

import numpy as np
import pytest
from hostile_corpus import DEMO, LIMIT, cli, one_error, write
from hypothesis import given, settings
from hypothesis import strategies as st

import mime_gui.rig.probe_rules as probe_rules
from mime_gui.cli.play import output_bytes
from mime_gui.field import along, field_along, field_bytes, magnet_sources
from mime_gui.multibody import read_urdf
from mime_gui.multibody.articulation import _mimic_roots
from mime_gui.multibody.errors import CodedError
from mime_gui.multibody.urdf import _Reader
from mime_gui.nodes import dynamic, read_commands
from mime_gui.nodes.commands import _unit_marker
from mime_gui.rig import Box, Cylinder, Mesh, PermanentMagnet, Probe, Ring, Sphere, load, save, tesla
from mime_gui.rig.probes import SURFACE_TOLERANCE

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


# -- a command file's header: linear in its columns and in each cell -------------------------------------
#: the pattern the reader matched a unit marker with: on a cell such as 'a[' and spaces it backtracked in
#: cubic time; kept here as the reference of what a marker is, on short cells
_PATTERN = re.compile(r"^(?P<name>.*?)\s*\[\s*(?P<unit>[^\]]*?)\s*\]$")


@settings(max_examples=400, deadline=None)
@given(cell=st.text(alphabet="ab []dg\t", max_size=14))
def test_a_unit_marker_is_read_as_the_pattern_reads_it(cell):
    m = _PATTERN.match(cell)
    assert _unit_marker(cell) == ((m["name"].strip(), m["unit"]) if m else None)


@pytest.mark.parametrize("target", ["arm.urdf", "demo.rig.json"])
def test_a_header_of_many_unknown_columns_is_refused_at_its_first_column(tmp_path, target):
    n = 200_000  # checked pairwise, 2·10¹⁰ comparisons: far past the time limit
    header = "time," + ",".join(f"c{i}" for i in range(n))
    path = write(tmp_path, "wide.csv", header + "\n0" + ",0" * n + "\n")
    status, out, err = cli("play", DEMO / target, "--commands", path, "--out", tmp_path / "o.npz")
    assert status == 2 and out == "" and not (tmp_path / "o.npz").exists()
    m = one_error(err)
    assert (m["code"], m["where"]) == ("commands.unknown-joint", f"{path}:1")
    assert m["message"].startswith("column 2: unknown joint 'c0'; commandable joints: ")


def test_a_wide_header_repeating_its_first_joint_at_the_end_names_that_column(tmp_path):
    n = 200_000
    path = write(tmp_path, "twice.csv", "time," + ",".join(f"c{i}" for i in range(n)) + ",c0\n")
    status, _, err = cli("play", DEMO / "arm.urdf", "--commands", path, "--out", tmp_path / "o.npz")
    assert status == 2
    m = one_error(err)
    assert (m["code"], m["where"]) == ("commands.columns", f"{path}:1")
    assert m["message"] == f"column {n + 2}: joint 'c0' appears twice"


def test_a_long_cell_with_an_open_bracket_is_read_in_one_pass(tmp_path):
    spaces = " " * 40_000  # within the CSV reader's field limit; the pattern took 7 s at 2,000
    path = write(tmp_path, "cell.csv", f"time,joint_1[{spaces}deg{spaces}],a[{spaces}x\n0,0,0\n")
    recorded = read_commands(path)
    assert recorded.joint_names == ("joint_1", f"a[{spaces}x") and recorded.units == ("deg", "")


# -- sub-steps: steps x sub-steps is bounded ------------------------------------------------------------
@pytest.fixture
def small_substep_limit(monkeypatch):
    monkeypatch.setattr(dynamic, "MAX_SUBSTEPS", 1000)
    return 1000


def test_steps_times_substeps_play_up_to_the_limit_and_no_further(small_substep_limit):
    art = read_urdf(DEMO / "arm.urdf").compile()
    node = dynamic.DynamicArmNode(art, substeps=10)
    played = node.play(np.zeros((100, art.nq)), 0.01)  # 100 x 10: the limit itself
    assert len(played.joint_positions) == 100
    with pytest.raises(CodedError) as info:
        node.play(np.zeros((101, art.nq)), 0.01)
    assert info.value.code == "dynamics.substeps"
    assert "more than the 1,000 sub-steps" in info.value.message
    assert "at most 9 sub-step(s) per step" in info.value.message
    with pytest.raises(CodedError) as info:  # one step of 10 s in sub-steps of at most 1 ms: 10,000
        node.advance(np.zeros(art.nq), np.zeros(art.nq), np.zeros(art.nq), 10.0, max_substep=1e-3)
    assert info.value.code == "dynamics.substeps" and "play fewer steps" not in info.value.message


def test_play_refuses_too_many_substeps_at_the_option_before_playing(tmp_path, small_substep_limit):
    commands = write(tmp_path, "torque.csv", "time,motor.torque\n0,1e-5\n0.1,0\n0.3,0\n")
    out = tmp_path / "o.npz"
    argv = ("play", DEMO / "demo.rig.json", "--commands", commands, "--dt", "0.01", "--out", out, "--quiet")
    assert cli(*argv, "--substeps", "32")[0] == 0 and out.exists()  # 0 to 0.3 s: 31 steps x 32 = 992
    out.unlink()
    status, _, err = cli(*argv, "--substeps", "33")  # 1,023
    assert status == 2 and not out.exists()
    m = one_error(err)
    assert (m["code"], m["where"]) == ("play.substeps", "--substeps")
    assert "31 steps of 33 sub-steps" in m["message"] and "at most 32 sub-step(s) per step" in m["message"]


# -- the probe rule: once per magnet, and the same as a plain loop over pairs --------------------------
def _inside_by_hand(geometry, d) -> bool:
    """Whether offset ``d`` (three floats) from a solid's centroid lies inside it by more than the surface
    tolerance, in plain arithmetic."""
    x, y, z = d
    shrink, grow = 1.0 - SURFACE_TOLERANCE, 1.0 + SURFACE_TOLERANCE
    if isinstance(geometry, Box):
        return all(abs(c) < size / 2.0 * shrink for c, size in zip(d, geometry.size, strict=True))
    if isinstance(geometry, Cylinder):
        return math.hypot(x, y) < geometry.radius * shrink and abs(z) < geometry.length / 2.0 * shrink
    if isinstance(geometry, Ring):  # the material, not the bore
        radial = math.hypot(x, y)
        return (geometry.inner_radius * grow < radial < geometry.outer_radius * shrink
                and abs(z) < geometry.length / 2.0 * shrink)
    if isinstance(geometry, Sphere):
        return math.sqrt(x * x + y * y + z * z) < geometry.radius * shrink
    return False  # a mesh is not checked


def _pairs_by_hand(probes, magnets) -> dict[int, list[str]]:
    out: dict[int, list[str]] = {}
    for i, probe in enumerate(probes):
        if not all(math.isfinite(v) and abs(v) <= 1e6 for v in probe.at):
            continue
        for name, magnet in magnets.items():
            offset = [p - m for p, m in zip(probe.at, magnet.at, strict=True)]
            if magnet.mount == probe.mount and _inside_by_hand(magnet.geometry, offset):
                out.setdefault(i, []).append(name)
    return out


MOUNTS = [None, "motor.rotor", "arm.link_3"]
BR = tesla(1.3, reason="a round N42 figure for the tests")


def _random_case(seed: int):
    """Magnets of every kind (rings most) on a few mounts, and probes: some in a ring's bore, in its
    material, exactly on a surface, at a centre, some beyond the bounds, the rest scattered."""
    rng = np.random.default_rng(seed)
    magnets = {}
    for m in range(int(rng.integers(1, 14))):
        kind = rng.choice(["ring", "ring", "ring", "box", "cylinder", "sphere", "mesh"])
        a, b, c = rng.uniform(0.005, 0.03, 3)
        geometry = {"ring": Ring(a * 0.5, a, c), "box": Box((a, b, c)), "cylinder": Cylinder(a, b),
                    "sphere": Sphere(a), "mesh": Mesh("meshes/base.stl")}[kind]
        magnets[f"m{m}"] = PermanentMagnet(geometry, at=tuple(rng.uniform(-0.05, 0.05, 3)),
                                           mount=MOUNTS[int(rng.integers(0, 3))], remanence=BR)
    probes = []
    names = list(magnets)
    for _ in range(int(rng.integers(0, 250))):
        magnet = magnets[names[int(rng.integers(0, len(names)))]]
        centre, g = np.array(magnet.at), magnet.geometry
        how = int(rng.integers(0, 7))
        angle = rng.uniform(0, 2 * math.pi)
        if how <= 2 and isinstance(g, Ring):  # the bore, the material, the outer surface
            radius = [rng.uniform(0, g.inner_radius * 0.99), rng.uniform(g.inner_radius * 1.01,
                                                                        g.outer_radius * 0.99),
                      g.outer_radius][how]
            point = centre + [radius * math.cos(angle), radius * math.sin(angle), rng.uniform(-0.4, 0.4)
                              * g.length]
            mount = magnet.mount
        elif how == 3:
            point, mount = centre, magnet.mount
        elif how == 4:
            point, mount = [[math.nan, 0, 0], [0, 2e6, 0], [0, 0, -math.inf]][int(rng.integers(0, 3))], None
        else:
            point, mount = centre + rng.normal(0, 0.02, 3), MOUNTS[int(rng.integers(0, 3))]
        probes.append(Probe(tuple(float(v) for v in point), mount=mount))
    return probes, magnets


@pytest.mark.parametrize("seed", range(40))
def test_the_probe_rule_equals_a_plain_loop_over_pairs(seed):
    probes, magnets = _random_case(seed)
    assert probe_rules.magnets_holding(probes, magnets) == _pairs_by_hand(probes, magnets)


def test_the_random_cases_hold_probes_in_a_bore_and_in_a_ring_and_the_rule_tells_them_apart():
    bore = material = 0
    for seed in range(40):
        probes, magnets = _random_case(seed)
        held = probe_rules.magnets_holding(probes, magnets)
        for i, probe in enumerate(probes):
            for name, magnet in magnets.items():
                if isinstance(magnet.geometry, Ring) and magnet.mount == probe.mount:
                    d = np.subtract(probe.at, magnet.at)
                    r, R = magnet.geometry.inner_radius, magnet.geometry.outer_radius
                    if abs(d[2]) < magnet.geometry.length / 4:
                        radial = math.hypot(d[0], d[1])
                        if radial < r * 0.99:
                            bore += 1
                            assert name not in held.get(i, [])
                        elif r * 1.01 < radial < R * 0.99:
                            material += 1
                            assert name in held.get(i, [])
    assert bore >= 20 and material >= 20


def test_validate_reports_each_probe_in_a_magnet_in_probe_then_magnet_order(tmp_path):
    probes, magnets = _random_case(7)
    rig = load(DEMO / "demo.rig.json")
    rig.magnets = magnets
    rig.probes = {f"p{i}": p for i, p in enumerate(probes)}
    expected = [(f"probes.p{i}.at", name) for i, names in sorted(_pairs_by_hand(probes, magnets).items())
                for name in names]
    found = [(f.where, f.message.split("magnet ")[1].split("'")[1]) for f in rig.validate()
             if f.code == "probe.inside-magnet"]
    assert found == expected and expected
    placement = {f.where for f in rig.validate() if f.code == "probe.placement"}
    assert placement == {f"probes.p{i}.at" for i, p in enumerate(probes)
                         if not all(math.isfinite(v) and abs(v) <= 1e6 for v in p.at)}


def test_the_probe_rule_tests_each_magnet_once_over_all_its_probes(monkeypatch):
    calls = []

    def counting(geometry, points):
        calls.append(len(points))
        return inside(geometry, points)

    inside = probe_rules.inside
    monkeypatch.setattr(probe_rules, "inside", counting)
    rig = load(DEMO / "demo.rig.json")
    ring = Ring(0.004, 0.01, 0.005)
    rig.magnets = {f"r{m}": PermanentMagnet(ring, at=(0.05 * m, 0.0, 0.0), remanence=BR) for m in range(30)}
    rig.probes = {f"p{i}": Probe((0.0005 * i, 0.007, 0.0)) for i in range(3000)}
    held = [f for f in rig.validate() if f.code == "probe.inside-magnet"]
    assert calls == [3000] * 30  # 90,000 pairs, 30 calls
    assert len(held) == sum(1 for i in range(3000) for m in range(30)
                            if 0.004 < math.hypot(0.0005 * i - 0.05 * m, 0.007) < 0.01)


# -- the field: the sum without each magnet's share unless asked; the memory it counts is what it takes --
def _many_magnet_rig(magnets: int, probes: int):
    """The demo rig with ``magnets`` small balls and ``probes`` probes fixed in the world, apart."""
    rng = np.random.default_rng(3)
    rig = load(DEMO / "demo.rig.json")
    rig.magnets = {f"b{m}": PermanentMagnet(Sphere(0.002), at=(0.5 + 0.01 * m, 0.0, 0.0), remanence=BR)
                   for m in range(magnets)}
    rig.probes = {f"p{i}": Probe(tuple(rng.uniform(-0.2, 0.2, 3) + [0.5, 0.2, 0.2])) for i in range(probes)}
    return rig


@pytest.fixture(scope="module")
def crowded():
    """40 magnets, 100 probes, 400 steps: each magnet's share at each probe would be 38.4 MB, B 0.96 MB
    (long enough that Magpylib's scratch of one call, a few MB whatever else ran before, is small beside
    the shares)."""
    built = _many_magnet_rig(40, 100).build()
    T = 400
    commands = np.tile(built.initial_commands(), (T, 1))
    commands[:, built.command_names.index("motor.shaft")] = np.linspace(0, 3, T)
    return built, built.play(commands, 0.01).as_trajectory()  # the poses held before the field is computed


def _peak(fn) -> tuple[int, object]:
    tracemalloc.start()
    try:
        result = fn()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def test_the_field_without_contributions_never_holds_each_magnets_share(crowded, monkeypatch):
    built, played = crowded
    T, M, P = len(played.frame_poses), 40, 100
    shares = T * M * P * 3 * 8
    monkeypatch.setattr(along, "CHUNK_TRIPLES", M * P)  # a step a call: Magpylib's scratch small beside them
    first = dataclasses.replace(played, joint_positions=played.joint_positions[:1],
                                frame_poses=played.frame_poses[:1],
                                frame_angular_velocities=played.frame_angular_velocities[:1])
    field_along(built, first)  # Magpylib's first call fills caches of its own, kept after
    peak, result = _peak(lambda: field_along(built, played))
    assert result.contributions is None and result.B.shape == (T, P, 3)
    # an array of every magnet's share would alone reach `shares`; what is held grows with steps × (magnets +
    # probes) (poses, B, the inside test), about half of it here
    assert peak < shares * 0.75, (peak, shares)
    assert peak <= field_bytes(T, M, P)
    monkeypatch.undo()  # kept, the shares are there, with all the steps in one call
    peak_with, kept = _peak(lambda: field_along(built, played, contributions=True))
    assert shares <= peak_with <= field_bytes(T, M, P, contributions=True)
    np.testing.assert_allclose(kept.contributions.sum(axis=1), result.B, rtol=1e-14, atol=0)


def test_chunks_of_steps_and_of_probes_give_the_field_of_one_call(crowded, monkeypatch):
    built, _ = crowded
    commands = np.tile(built.initial_commands(), (3, 1))
    commands[:, built.command_names.index("motor.shaft")] = np.linspace(0, 3, 3)
    played = built.play(commands, 0.01)
    magnets = magnet_sources(built)
    world = np.stack([m.poses(played.frame_poses) for m in magnets], axis=1)
    plain = field_along(built, played)
    whole = along.field_at(magnets, world, plain.probe_positions)  # (3, 40, 100, 3) in one Magpylib call
    monkeypatch.setattr(along, "CHUNK_TRIPLES", 1000)  # 40 magnets: one step and 25 of the 100 probes a call
    chunked = field_along(built, played, contributions=True)
    np.testing.assert_array_equal(chunked.contributions, whole)
    np.testing.assert_array_equal(chunked.B, whole.sum(axis=1))
    np.testing.assert_array_equal(plain.B, chunked.B)


def test_field_refuses_a_run_whose_contributions_pass_the_limit_and_runs_it_without(tmp_path, monkeypatch):
    M, P = 150, 40
    rig = _many_magnet_rig(M, P)
    rig.base = DEMO
    path = save(rig, tmp_path / "many.rig.json")
    commands = DEMO / "chain.csv"
    steps, _ = read_commands(commands).step_count()
    from mime_gui.rig.playback import load_rig_playable

    playable = load_rig_playable(path)
    without = output_bytes(playable, steps) + field_bytes(steps, M, P)
    shares_mb = steps * M * P * 3 * 8 / 2**20
    monkeypatch.setenv("MIME_GUI_MAX_PLAY_MB", repr(without / 2**20 + shares_mb / 2))
    out = tmp_path / "f.npz"
    status, _, err = cli("field", path, "--commands", commands, "--out", out, "--contributions")
    assert status == 2 and not out.exists()
    m = one_error(err)
    assert (m["code"], m["where"]) == ("field.too-large", str(out))
    assert f"each magnet's share {shares_mb:.1f} MB (--contributions)" in m["message"]
    assert "leave out --contributions" in m["message"]
    status, _, err = cli("field", path, "--commands", commands, "--out", out, "--quiet")
    assert status == 0, err
    assert np.load(out)["B"].shape == (steps, P, 3)
