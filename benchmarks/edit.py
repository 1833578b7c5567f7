"""One edit through the Session's one door, everything a user waits for, against a bare re-render.

Run under a virtual X server::

    xvfb-run -a .venv/bin/python benchmarks/edit.py

Row (issue 9's figure): ``Session.apply(SetValue(<part>.geometry, …))`` — the edit applied to a new rig, the
rules, the build, the drawing keys compared, the view's ``update_segments`` of the one segment that changed
and the poses — then a render, against a bare re-render of the same scene (the visuals and the part as plain
``add_mesh`` actors in a bare ``QtInteractor``, and that plus the same grid and orientation axes), for the
demo rig (the holder's radius, on the motor) and for PR2 with a box on its right gripper (the box's length).
Interleaved runs, medians; renders end with ``glFinish``. Two interleavings: the peers' re-renders after each
edit, and after every ten edits (as edits follow one another in the app, with only the view's frames between
them). A last row times the same kind of edit applied again at once, with no frame between: what the apply
costs when a render has not just taken the caches.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gui import FILES, Bench  # noqa: E402  (benchmarks/ is on the path)
from window import render_time, render_view  # noqa: E402

#: edits in a row between the peers' re-renders in the second interleaving
BLOCK = 10


def edit_row(bench: Bench, name: str, rig, path: str, make, runs: int = 120) -> None:
    from mime_gui.app.scene.view import SceneView
    from mime_gui.session import Session, SetValue

    session = Session()
    view = SceneView(async_meshes=False, display_detail=None)
    win = bench.window(view)
    session.attach_renderer(view)
    session.open_apparatus(rig)
    bench.pump(0.2)
    view.render_now()
    plotters = bench.bare_scenes(view, ("visual", "parts"))
    for block in (1, BLOCK):
        edits(bench, name, session, view, plotters, path, make, runs, block)
    assert session.findings == (), session.findings
    again = []  # the same kind of edit applied again at once, no frame between: the apply with warm caches
    for k in range(runs):
        session.history.seal()
        session.apply(SetValue(path, make(k)))
        session.history.seal()
        t0 = time.perf_counter()
        session.apply(SetValue(path, make(k + 7)))  # neither the value just set nor the next one: a change
        again.append(time.perf_counter() - t0)
        render_view(view)
        bench.app.processEvents()
        for plotter, _ in plotters:
            render_time(plotter)
            bench.app.processEvents()
    warm = statistics.median(again) * 1e3
    bench.row(f"| … the apply right after another, no frame between (warm caches), {name} | {warm:.2f} ms "
              f"| | |")
    for plotter, w in plotters:
        plotter.close()
        w.close()
    session.attach_renderer(None)
    view.close()
    win.close()


def edits(bench: Bench, name: str, session, view, plotters, path: str, make, runs: int, block: int) -> None:
    """``runs`` edits, each followed by its render, against the bare scenes' re-renders, interleaved every
    ``block`` edits (1: an edit, then a re-render of each bare scene; more: as edits follow one another in
    the app, with only the view's own frames between them)."""
    from mime_gui.session import SetValue

    apply_t, ours = [], []
    bare = {id(p): [] for p, _ in plotters}
    for start in range(0, runs, block):
        for k in range(start, start + block):
            session.history.seal()  # one step per edit, as after a field is left
            t0 = time.perf_counter()
            session.apply(SetValue(path, make(k)))
            t1 = time.perf_counter()
            render_view(view)
            t2 = time.perf_counter()
            apply_t.append(t1 - t0)
            ours.append(t2 - t0)
            bench.app.processEvents()
        for plotter, _ in plotters:
            for _ in range(block):
                bare[id(plotter)].append(render_time(plotter))
                bench.app.processEvents()
    bare_t, plus_t = (bare[id(p)] for p, _ in plotters)
    a, o, b, p = (statistics.median(x) * 1e3 for x in (apply_t, ours, bare_t, plus_t))
    how = "each edit" if block == 1 else f"every {block} edits"
    bench.row(f"| one edit through `Session.apply` (rules, build, in-place view) + render, {name}, the peers "
              f"interleaved {how} | median {o:.1f} ms = apply {a:.2f} + render {o - a:.1f} | bare re-render "
              f"{b:.1f} ms; with grid and axes {p:.1f} ms | {o / b:.2f}× / {o / p:.2f}× |")


def main() -> int:
    import dataclasses

    from mime_gui import RESOURCES
    from mime_gui.rig import Apparatus, Arm, Box, Part, load

    bench = Bench()
    demo = load(RESOURCES / "demo" / "demo.rig.json")
    holder = demo.parts["holder"].geometry
    tool = Part(Box(size=(0.04, 0.03, 0.02)), material="aluminium", at=(0.08, 0.0, 0.0),
                mount="arm.r_gripper_palm_link")
    pr2 = Apparatus("pr2", chain={"arm": Arm.Kinematic(description=str(FILES["PR2"]))}, parts={"tool": tool})
    bench.row("| figure | ours | peer | ratio (bare / bare + grid and axes) |")
    bench.row("| --- | --- | --- | --- |")
    edit_row(bench, "demo rig", demo, "parts.holder.geometry",
             lambda k: dataclasses.replace(holder, radius=holder.radius * (1.0 + 0.01 * (k % 20 + 1))))
    edit_row(bench, "PR2 with a part on its gripper", pr2, "parts.tool.geometry",
             lambda k: Box(size=(0.04 * (1.0 + 0.01 * (k % 20 + 1)), 0.03, 0.02)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
