"""Forces and torques on the rig's samples along a long trajectory: ``forces_along`` on 10,000 steps against a
per-step loop of Magpylib's ``getFT`` on the same poses.

Figures, each against a peer measured in the same run:
- ``forces_along`` (what ``mime-gui field`` writes as ``sample_force`` and ``sample_torque``) on the
  four-magnet demo rig of ``benchmarks/field.py`` (a diametric cylinder on the rotor, a block on the flange,
  a ball on an arm link, a block in the world), every joint moving and the rotor at 5 turns a second, with
  four samples: a declared moment on the stator, one that follows the field, a 1 mm N42 ball on an arm link
  and a 1 mm N42 cube fixed in the world. Goal: ≥ 10× the loop.
- The loop: at each step the four Magpylib sources moved to the step's pose and one ``getFT`` call on the
  four samples as Magpylib targets (a ``Dipole`` for a declared moment, turned along that step's B for the
  one that follows; a ``Sphere``; a ``Cuboid`` cut into 125 cells), the torque about each sample's centre,
  timed on ``--peer-steps`` steps and scaled to the full run.

    .venv/bin/python benchmarks/forces.py [--steps N] [--peer-steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys

from timing import best, drop_blas_overrides  # benchmarks/ is on the path of a script run from it

drop_blas_overrides()  # before numpy loads

import numpy as np  # noqa: E402
from field import four_magnet_rig, trajectory  # noqa: E402  (the field benchmark's rig and motion)

from mime_gui.field.forces import GETFT_EPS_RATIO  # noqa: E402
from mime_gui.field.samples import SAMPLE_CELLS, forces_along  # noqa: E402
from mime_gui.field.sources import magnet_sources  # noqa: E402
from mime_gui.rig import Box, Sample, Sphere, a_m2  # noqa: E402


def sampled_rig():
    rig = four_magnet_rig()
    rig.probes = {}
    rig.samples = {
        "bead": Sample((0.0, 0.01, 0.06), mount="motor.stator", moment=a_m2(2e-3, reason="VSM, the batch"),
                       magnetisation=(1, 0, 0)),
        "free": Sample((0.01, 0.0, 0.05), mount="motor.stator", moment=a_m2(1e-3, reason="VSM, the batch"),
                       orientation="follows"),
        "ball": Sample((0.0, -0.03, 0.0), mount="arm.link_3", geometry=Sphere(5e-4), material="NdFeB-N42"),
        "chip": Sample((0.35, 0.05, 0.2), geometry=Box((0.001, 0.001, 0.001)), material="NdFeB-N42"),
    }
    assert rig.validate() == [], rig.validate()
    return rig


def getft_loop(built, frame_poses, result, steps: int):
    """Force and torque ``(steps, samples, 3)`` by one ``getFT`` call per step on the same poses."""
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    magnets = magnet_sources(built)
    sources = [m.source() for m in magnets]
    poses = [m.poses(frame_poses) for m in magnets]
    samples = list(built.apparatus.samples.values())
    size = np.linalg.norm(result.moment[0], axis=-1)
    targets = []
    for sample in samples:
        if sample.geometry is None:
            targets.append(magpy.misc.Dipole(moment=(0.0, 0.0, 1.0)))
        elif isinstance(sample.geometry, Sphere):
            targets.append(magpy.magnet.Sphere(diameter=2 * sample.geometry.radius, polarization=(0, 0, 1.0)))
        else:
            targets.append(magpy.magnet.Cuboid(dimension=sample.geometry.size, polarization=(0, 0, 1.0)))
    from mime_gui.rig.mass import MU0

    volumes = [1.0 if s.geometry is None else s.geometry.mass_properties().volume for s in samples]
    force, torque = np.empty((steps, len(samples), 3)), np.empty((steps, len(samples), 3))
    meshing = {t: SAMPLE_CELLS for t in targets if isinstance(t, magpy.magnet.Cuboid)}
    for step in range(steps):
        for source, pose in zip(sources, poses, strict=True):
            source.position = pose[step, :3, 3]
            source.orientation = Rotation.from_matrix(pose[step, :3, :3])
        centres = result.position[step]
        for s, target in enumerate(targets):
            target.position = centres[s]
            m = result.moment[step, s]  # held in its mount frame, or along this step's B (follows)
            if isinstance(target, magpy.misc.Dipole):
                target.moment = m
                if samples[s].orientation == "follows":  # the loop finds B itself, as a per-step code would
                    B = magpy.getB(sources, centres[s], sumup=True)
                    target.moment = size[s] * B / np.linalg.norm(B)
            else:
                target.polarization = m * MU0 / volumes[s]
        F, tau = magpy.getFT(sources, targets, pivot=centres, eps=GETFT_EPS_RATIO * 1e-3, squeeze=False,
                             meshing=meshing or None)
        force[step], torque[step] = F.sum(axis=0)[0], tau.sum(axis=0)[0]
    return force, torque


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--peer-steps", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    built = sampled_rig().build()
    played = trajectory(built, args.steps)
    result = forces_along(built, played)  # warms Magpylib's import and caches
    t_ours = best(lambda: forces_along(built, played), args.repeat)
    frame_poses = np.asarray(played.frame_poses)
    peer_steps = min(args.peer_steps, args.steps)
    holder = {}

    def peer():
        holder["out"] = getft_loop(built, frame_poses, result, peer_steps)

    t_peer = best(peer, max(1, args.repeat // 2)) * args.steps / peer_steps
    force, torque = holder["out"]
    scale_F = np.linalg.norm(result.force[:peer_steps], axis=-1, keepdims=True)
    # the torque against the largest a dipole there can feel, |m||B| (the one that follows feels none)
    scale_T = np.linalg.norm(result.moment[:peer_steps], axis=-1, keepdims=True) * \
        np.linalg.norm(result.B[:peer_steps], axis=-1, keepdims=True)
    error_F = np.linalg.norm(force - result.force[:peer_steps], axis=-1, keepdims=True)
    agree_F = float(np.max(error_F / scale_F))
    agree_T = float(np.max(np.linalg.norm(torque - result.torque[:peer_steps], axis=-1, keepdims=True)
                           / scale_T))
    load1 = os.getloadavg()[0]
    print(f"### Forces benchmark — CPython {platform.python_version()}, numpy {np.__version__}, "
          f"{platform.machine()}, best of {args.repeat}, load average {load1:.1f}")
    print()
    print("| figure | ours | peer (same run) | ratio |")
    print("|---|---|---|---|")
    print(f"| force and torque on 4 samples from 4 magnets, {args.steps:,} steps (`forces_along`, routes "
          f"{', '.join(result.routes)}; goal ≥ 10×) | {t_ours * 1e3:,.0f} ms | per-step loop of Magpylib's "
          f"`getFT` on the same poses {t_peer * 1e3:,.0f} ms ({peer_steps} steps timed, scaled) | "
          f"{t_peer / t_ours:.1f}× faster |")
    print()
    print(f"The two agree to {agree_F:.1e} of each sample's force and {agree_T:.1e} of its largest torque "
          f"|m||B|, over the {peer_steps} steps of the loop.")


if __name__ == "__main__":
    sys.exit(main())
