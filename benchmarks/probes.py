"""The probe rules of a large rig: ``validate`` with 20,000 probes against 500 ring magnets.

Figures, each against a peer measured in the same run:
- ``Apparatus.validate()`` of the demo rig with ``--magnets`` ring magnets and ``--probes`` probes fixed in
  the world (a share of them in a ring's material, a share in a bore, the rest scattered), against the rule
  as a plain loop over (probe, magnet) pairs calling :func:`mime_gui.rig.probes.inside` once per pair (the
  rule before it ran over arrays). The loop runs ``--loop-probes`` probes and its time is scaled to all of
  them; its findings on those probes must equal the rule's. Goal: validation ≤ 2 s.
- ``mime-gui validate`` on the same rig written as a rig file (reading it included), in-process.

    .venv/bin/python benchmarks/probes.py [--probes N] [--magnets N] [--loop-probes N] [--repeat R]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import sys
import tempfile
from pathlib import Path

from timing import best, drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402

from mime_gui import RESOURCES  # noqa: E402
from mime_gui.cli import main as cli  # noqa: E402
from mime_gui.rig import PermanentMagnet, Probe, Ring, load, save, tesla  # noqa: E402
from mime_gui.rig.probes import inside  # noqa: E402

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
RING = Ring(inner_radius=0.004, outer_radius=0.01, length=0.005)


def crowded_rig(probes: int, magnets: int, seed: int = 1):
    """The demo rig with ``magnets`` rings on a 1 m grid in the world and ``probes`` probes: a tenth in a
    ring's material, a tenth in a bore, the rest anywhere in the grid's box."""
    rng = np.random.default_rng(seed)
    rig = load(DEMO_RIG)
    br = tesla(1.3, reason="N42 figure for the benchmark")
    side = int(np.ceil(magnets ** (1 / 3)))
    centres = [(0.05 * i, 0.05 * j, 0.05 * k) for i in range(side) for j in range(side) for k in range(side)]
    centres = np.array(centres[:magnets], dtype=float)
    rig.magnets = {f"ring{m}": PermanentMagnet(RING, at=tuple(c), remanence=br)
                   for m, c in enumerate(centres)}
    points = rng.uniform(-0.01, 0.05 * side, (probes, 3))
    tenth = probes // 10
    which = rng.integers(0, magnets, 2 * tenth)
    angle = rng.uniform(0, 2 * np.pi, 2 * tenth)
    radius = np.r_[rng.uniform(0.005, 0.009, tenth), rng.uniform(0.0, 0.003, tenth)]  # material, bore
    points[:2 * tenth] = centres[which] + np.c_[radius * np.cos(angle), radius * np.sin(angle),
                                                rng.uniform(-0.002, 0.002, 2 * tenth)]
    rig.probes = {f"p{i}": Probe(tuple(p)) for i, p in enumerate(points)}
    return rig


def pair_loop(rig, names) -> list[tuple[str, str]]:
    """The rule as a plain loop over (probe, magnet) pairs: (probe, magnet) of every probe inside."""
    out = []
    for name in names:
        probe = rig.probes[name]
        at = np.asarray(probe.at, dtype=float)
        for magnet_name, magnet in rig.magnets.items():
            if magnet.mount == probe.mount and bool(inside(magnet.geometry, at - np.asarray(magnet.at))):
                out.append((name, magnet_name))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=20_000)
    parser.add_argument("--magnets", type=int, default=500)
    parser.add_argument("--loop-probes", type=int, default=400,
                        help="probes the pair loop runs, its time scaled to --probes")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rig = crowded_rig(args.probes, args.magnets)
    findings = rig.validate()
    inside_found = sorted((f.where.split(".")[1], f.message.split("'")[1]) for f in findings
                          if f.code == "probe.inside-magnet")
    assert len(findings) == len(inside_found), [f for f in findings if f.code != "probe.inside-magnet"][:3]
    t_validate = best(rig.validate, args.repeat)

    n = min(args.loop_probes, args.probes)
    names = list(rig.probes)[:n]
    loop_found = pair_loop(rig, names)
    assert sorted(loop_found) == sorted(p for p in inside_found if p[0] in set(names)), "the loop differs"
    t_loop = best(lambda: pair_loop(rig, names), max(1, args.repeat // 2))
    t_loop_scaled = t_loop * args.probes / n

    with tempfile.TemporaryDirectory() as folder:
        path = save(rig, Path(folder) / "crowded.rig.json")
        size = path.stat().st_size

        def validate_cli():
            with contextlib.redirect_stdout(io.StringIO()) as out:
                status = cli(["validate", str(path)])
            assert status == 1 and out.getvalue().count("probe.inside-magnet") == len(inside_found)

        validate_cli()
        t_cli = best(validate_cli, max(1, args.repeat // 2))

    load1 = os.getloadavg()[0]
    print(f"### Probe rules benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, best of {args.repeat}, load average {load1:.1f}")
    print()
    print("| figure | ours | baseline (same run) | ratio |")
    print("|---|---|---|---|")
    print(f"| `validate()` of the demo rig with {args.probes:,} probes and {args.magnets} ring magnets "
          f"({len(inside_found):,} probes inside one; goal ≤ 2 s) | {t_validate * 1e3:,.0f} ms | the rule "
          f"as a loop over (probe, magnet) pairs {t_loop_scaled * 1e3:,.0f} ms ({n:,} probes timed, "
          "scaled) | "
          f"{t_loop_scaled / t_validate:.0f}× faster |")
    print(f"| `mime-gui validate` of that rig file ({size / 1e6:.1f} MB), reading included | "
          f"{t_cli * 1e3:,.0f} ms | `validate()` alone {t_validate * 1e3:,.0f} ms | "
          f"{t_cli / t_validate:.1f}× |")


if __name__ == "__main__":
    sys.exit(main())
