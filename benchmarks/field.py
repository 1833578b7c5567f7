"""The field of the rig's magnets: the batched path against a per-step loop, and a |B| plane against a render.

Figures (issue 17), each against a peer measured in the same run:
- B at 4 probes from 4 magnets over 10,000 steps with :func:`mime_gui.field.field_along` (one Magpylib call,
  each magnet a source with a path of poses, each probe a sensor with a path), against a per-step Python
  loop calling Magpylib with the same sources moved to each step's pose (target: batched ≥ 10× faster).
  The loop runs ``--loop-steps`` steps and its time is scaled to the full run.
- A 100 × 100 |B| plane through the demo rig's magnet (:func:`mime_gui.field.field_plane`) against one bare
  off-screen PyVista render of the demo rig's drawn shapes at the same pose (target: at most one render).
- The app's plane (:class:`mime_gui.app.scene.field_plane.FieldPlaneView`): the GUI thread's share of one
  update, the worker's result copied into the drawn grid, against the same render.

    .venv/bin/python benchmarks/field.py [--steps N] [--loop-steps N] [--repeat R]
"""

from __future__ import annotations

import argparse
import math
import os
import platform

import numpy as np
from timing import best  # benchmarks/ is on the path of a script run from it

from mime_gui import RESOURCES
from mime_gui.field import field_along, field_plane, magnet_sources, rest_poses
from mime_gui.rig import Box, Cylinder, PermanentMagnet, Probe, Sphere, load, tesla

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def four_magnet_rig():
    """The demo rig with four magnets (on the rotor, the tool flange, an arm link and the world) and four
    probes (on the stator, the rotor, a link and the world)."""
    rig = load(DEMO_RIG)
    br = tesla(1.3, reason="N42 figure for the benchmark")
    rig.magnets = {
        "rotor": PermanentMagnet(Cylinder(0.005, 0.01), magnetisation=(1, 0, 0), at=(0, 0, 0.025),
                                 mount="motor.rotor", remanence=br),
        "flange": PermanentMagnet(Box((0.01, 0.01, 0.005)), at=(0.03, 0, 0), mount="arm.tool0", remanence=br),
        "link": PermanentMagnet(Sphere(0.006), magnetisation=(0, 1, 0), at=(0, 0.05, 0), mount="arm.link_3",
                                remanence=br),
        "bench": PermanentMagnet(Box((0.02, 0.02, 0.02)), at=(0.4, 0.0, 0.1), remanence=br),
    }
    rig.probes = {"axis": Probe((0, 0, 0.06), mount="motor.stator"),
                  "rider": Probe((0.012, 0, 0.03), mount="motor.rotor"),
                  "elbow": Probe((0.0, -0.05, 0.0), mount="arm.link_3"),
                  "sample": Probe((0.35, 0.05, 0.25))}
    return rig


def trajectory(built, steps: int, dt: float = 1e-3):
    t = dt * np.arange(1, steps + 1)
    init = built.initial_commands()
    commands = init + 0.3 * np.sin(2 * math.pi * 0.5 * t[:, None] + np.arange(len(init)))
    shaft = built.command_names.index("motor.shaft")
    commands[:, shaft] = 2 * math.pi * 5.0 * t  # the rotor at 5 turns a second
    return built.play(commands, dt)


def per_step_loop(built, frame_poses, positions):
    """What the field would cost without paths: one Magpylib call per step, sources moved to that step."""
    import magpylib as magpy
    from scipy.spatial.transform import Rotation

    magnets = magnet_sources(built)
    sources = [m.source() for m in magnets]
    poses = [m.poses(frame_poses) for m in magnets]
    out = np.empty((len(frame_poses), positions.shape[1], 3))
    for step in range(len(frame_poses)):
        for source, pose in zip(sources, poses, strict=True):
            source.position = pose[step, :3, 3]
            source.orientation = Rotation.from_matrix(pose[step, :3, :3])
        out[step] = magpy.getB(sources, positions[step], sumup=True)
    return out


def bare_render_time(built, frame_poses, repeat: int) -> float:
    """One render of the rig's drawn shapes (each a plain ``add_mesh``) in a bare off-screen Plotter."""
    import pyvista as pv

    from mime_gui.multibody import tree as description

    plotter = pv.Plotter(off_screen=True, window_size=(1000, 700))
    index = {n: i for i, n in enumerate(built.frame_names)}
    for seg_name, seg in built.segments.items():
        for link_name, link in seg.tree.links.items():
            world_X_link = frame_poses[index[f"{seg_name}.{link_name}"]]
            for shape in link.visuals:
                g = shape.geometry
                if isinstance(g, description.Box):
                    mesh = pv.Box(bounds=(-g.size[0] / 2, g.size[0] / 2, -g.size[1] / 2, g.size[1] / 2,
                                          -g.size[2] / 2, g.size[2] / 2))
                elif isinstance(g, description.Cylinder):
                    mesh = pv.Cylinder(radius=g.radius, height=g.length, direction=(0, 0, 1), resolution=40)
                elif isinstance(g, description.Sphere):
                    mesh = pv.Sphere(radius=g.radius)
                elif isinstance(g, description.Mesh) and g.filename:
                    mesh = pv.read(g.filename).scale(g.scale)
                else:
                    continue
                actor = plotter.add_mesh(mesh, color="lightgrey")
                actor.user_matrix = world_X_link @ shape.link_X_shape
    plotter.show(auto_close=False)  # the first render builds the pipeline; the figure is a render in place
    render_window = plotter.render_window

    def render():
        render_window.Render()  # VTK's own render: pyvista's render() skips a scene it thinks unchanged

    try:
        return best(render, repeat)
    finally:
        plotter.close()


def plane_draw_time(planes, repeat: int) -> float:
    """The GUI thread's share of one |B| plane update in the app: the worker's result copied into the drawn
    grid (:meth:`FieldPlaneView._draw`, in place after the first), in an off-screen Plotter."""
    from types import SimpleNamespace

    import pyvista as pv

    from mime_gui.app.scene.field_plane import FieldPlaneView

    plotter = pv.Plotter(off_screen=True, window_size=(1000, 700))
    view = SimpleNamespace(mesh=None, actor=None, bar=None, _show=lambda _on: None,
                           scene=SimpleNamespace(plotter=plotter, request_render=lambda: None))
    FieldPlaneView._draw(view, planes[0])  # the first makes the actor and the colour bar
    plotter.show(auto_close=False)
    turn = iter(range(10**9))
    try:
        return best(lambda: FieldPlaneView._draw(view, planes[next(turn) % 2]), repeat)
    finally:
        plotter.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--loop-steps", type=int, default=2_000,
                        help="steps of the per-step loop, its time scaled to --steps")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import magpylib as magpy

    built = four_magnet_rig().build()
    played = trajectory(built, args.steps)
    field = field_along(built, played)  # warm: imports, caches
    t_batched = best(lambda: field_along(built, played), args.repeat)

    n = min(args.loop_steps, args.steps)
    poses = played.frame_poses[:n]
    loop_B = per_step_loop(built, poses, field.probe_positions[:n])
    assert np.allclose(loop_B, field.B[:n], rtol=1e-10, atol=1e-15), "the loop and the batched path differ"
    t_loop = best(lambda: per_step_loop(built, poses, field.probe_positions[:n]), max(1, args.repeat // 2))
    t_loop_scaled = t_loop * args.steps / n

    demo = load(DEMO_RIG).build()
    rest = rest_poses(demo)
    centre = rest[demo.frame_names.index("motor.part:m1"), :3, 3]
    plane = field_plane(demo, rest, centre, normal=(0, 1, 0), size=0.08, n=100)
    t_plane = best(lambda: field_plane(demo, rest, centre, normal=(0, 1, 0), size=0.08, n=100), args.repeat)
    t_render = bare_render_time(demo, rest, args.repeat * 2)
    other = field_plane(demo, rest, centre + 0.01, normal=(0, 1, 0), size=0.08, n=100)
    t_draw = plane_draw_time((plane, other), args.repeat * 2)

    load1 = os.getloadavg()[0]
    print(f"### Field benchmark — CPython {platform.python_version()}, numpy {np.__version__}, magpylib "
          f"{magpy.__version__}, {platform.machine()}, best of {args.repeat}, load average {load1:.1f}")
    print()
    print("| figure | ours | baseline (same run) | ratio |")
    print("|---|---|---|---|")
    print(f"| B at 4 probes from 4 magnets, {args.steps:,} steps (`field_along`) | {t_batched * 1e3:.1f} ms "
          "| "
          f"per-step Magpylib loop {t_loop_scaled * 1e3:,.0f} ms ({n:,} steps timed, scaled) | "
          f"{t_loop_scaled / t_batched:.1f}× faster |")
    print(f"| 100 × 100 \\|B\\| plane, demo rig (`field_plane`), max {plane.magnitude.max():.3g} T | "
          f"{t_plane * 1e3:.1f} ms | one bare off-screen PyVista render of the demo rig, 1000×700 "
          f"{t_render * 1e3:.1f} ms | {t_plane / t_render:.2f} renders |")
    print(f"| the app's \\|B\\| plane: the GUI thread's share of an update (the worker's 100 × 100 result "
          f"copied into the drawn grid; `field_plane` runs on a worker) | {t_draw * 1e3:.2f} ms | the same "
          f"bare render {t_render * 1e3:.1f} ms | {t_draw / t_render:.3f} renders |")


if __name__ == "__main__":
    main()
