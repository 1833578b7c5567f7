"""Every URDF of example-robot-data through the reader, the mesh loader and Pinocchio: the table of
docs/robots.md.

    .venv/bin/python benchmarks/robot_sweep.py            # print the table
    .venv/bin/python benchmarks/robot_sweep.py --write    # and write it into docs/robots.md

For each file: loaded or refused (with the code and why), the errors it loaded with (each a defect confined
to one element, with what it blocks), the shapes drawn as marked placeholders (a mesh that cannot be found or
read, a shape that cannot be drawn), the meshes that loaded with a defect, where the colours of its visuals
come from (the URDF's material, the mesh file's own colours, or the default grey), and the largest
difference of any frame pose from Pinocchio's at 5 random configurations (where Pinocchio loads the file).
Meshes are decoded (no window is opened); the whole sweep takes about half a minute.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
from robots import robots_dir  # benchmarks/ is on the path of a script run from it

from mime_gui.multibody import UrdfError, frame_poses, read_urdf
from mime_gui.multibody.tree import Mesh, UnknownGeometry

DOC = Path(__file__).resolve().parents[1] / "docs" / "robots.md"
BEGIN, END = "<!-- robot-sweep:begin -->", "<!-- robot-sweep:end -->"


def _colour_sources(tree, assets) -> Counter:
    """Where each visual's colour comes from: ``URDF``, ``file`` (the mesh's own colours) or ``default``."""
    from mime_gui.app.scene import meshes

    out = Counter()
    for link in tree.links.values():
        for shape in link.visuals:
            g = shape.geometry
            if isinstance(g, UnknownGeometry):
                out["placeholder"] += 1
                continue
            asset = assets.get(meshes.cache_key(g.filename, g.scale, g.uri)) if isinstance(g, Mesh) else None
            if asset is None or asset.placeholder or not asset.has_colors:
                out["URDF" if shape.rgba is not None else "default"] += 1
            elif shape.rgba is not None and asset.default_material:
                out["URDF"] += 1
            else:
                out["file"] += 1
    return out


def _pinocchio_error(path: Path, tree, rng) -> float | None:
    """The largest difference of a frame pose from Pinocchio's at 5 random configurations; None when
    Pinocchio is not installed or does not load the file."""
    try:
        import pinocchio as pin

        model = pin.buildModelFromUrdf(str(path))
    except Exception:  # noqa: BLE001 - not installed, or refused: no comparison
        return None
    art = tree.compile()
    data = model.createData()
    fids = [model.getFrameId(name, pin.FrameType.BODY) for name in art.frame_names]
    lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
    hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
    worst = 0.0
    for q in rng.uniform(lo, hi, (5, art.nq)):
        pq = np.zeros(model.nq)
        for j, name in enumerate(art.joint_names):
            joint = model.joints[model.getJointId(name)]
            if joint.nq == 2:
                pq[joint.idx_q], pq[joint.idx_q + 1] = np.cos(q[j]), np.sin(q[j])
            else:
                pq[joint.idx_q] = q[j]
        pin.framesForwardKinematics(model, data, pq)
        ref = np.array([data.oMf[f].homogeneous for f in fids])
        worst = max(worst, float(np.abs(frame_poses(art, q) - ref).max()))
    return worst


def sweep(robots: Path) -> tuple[list[dict], Counter]:
    from mime_gui.app.scene import meshes

    rows, totals = [], Counter()
    rng = np.random.default_rng(12)
    for path in sorted(robots.rglob("*.urdf")):
        rel = path.relative_to(robots).as_posix()
        try:
            tree = read_urdf(path, package_dirs=[robots])
        except UrdfError as exc:
            rows.append({"file": rel, "status": f"refused: `{exc.code}` line {exc.line}, "
                                                f"{_first_clause(exc.diagnostic.message)}"})
            totals["refused"] += 1
            continue
        requests = [meshes.MeshRequest(s.geometry.filename, tuple(s.geometry.scale), s.geometry.uri)
                    for link in tree.links.values() for s in (*link.visuals, *link.collisions)
                    if isinstance(s.geometry, Mesh)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assets, _ = meshes.load_all(requests)
        errors = tree.report.errors
        undrawable = sum(isinstance(s.geometry, UnknownGeometry) for link in tree.links.values()
                         for s in (*link.visuals, *link.collisions))
        placeholders = undrawable + sum(a.placeholder for a in assets.values())
        defects = sum(bool(a.notes) for a in assets.values() if not a.placeholder)
        error_text = ", ".join(f"`{code}` ×{n} (blocks {blocks})" for (code, blocks), n in
                               Counter((e.code, e.blocks) for e in errors).items())
        pin_error = _pinocchio_error(path, tree, rng)
        rows.append({"file": rel, "status": "loaded" + (" with errors" if errors else ""),
                     "errors": error_text or "–", "placeholders": placeholders, "defects": defects,
                     "colours": ", ".join(f"{k} {n}" for k, n in _colour_sources(tree, assets).most_common())
                     or "–", "pinocchio": "not loaded" if pin_error is None else f"{pin_error:.1e}"})
        totals["loaded"] += 1
        totals["with errors"] += bool(errors)
        totals["placeholders"] += placeholders
        totals["robots with placeholders"] += bool(placeholders)
        totals["mesh files with defects"] += defects
        if pin_error is not None:
            totals["compared with Pinocchio"] += 1
            totals["worst"] = max(totals["worst"], pin_error)
    return rows, totals


def _first_clause(message: str) -> str:
    """The message up to its first ``;`` or ``(``, with ``<`` and ``>`` escaped for a Markdown table."""
    return html.escape(re.split(r"[;(]", message, maxsplit=1)[0].strip(), quote=False)


def table(rows: list[dict], totals: Counter) -> str:
    t = totals
    lines = [f"{len(rows)} files: {t['loaded']} loaded ({t['with errors']} of them with errors), "
             f"{t['refused']} refused; {t['placeholders']} placeholder(s) in {t['robots with placeholders']} "
             f"robot(s); {t['mesh files with defects']} mesh file load(s) with a defect; kinematics compared "
             f"with Pinocchio on {t['compared with Pinocchio']} files, largest frame pose difference "
             f"{t['worst']:.1e}.", "",
             "| file | read | errors (what they block) | placeholders | meshes with a defect | colours of "
             "the visuals | frame poses vs Pinocchio |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["status"].startswith("refused"):
            lines.append(f"| `{r['file']}` | {r['status']} | | | | | |")
        else:
            lines.append(f"| `{r['file']}` | {r['status']} | {r['errors']} | {r['placeholders']} | "
                         f"{r['defects']} | {r['colours']} | {r['pinocchio']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"write the table into {DOC.name}")
    args = parser.parse_args(argv)
    text = table(*sweep(robots_dir()))
    sys.stdout.write(text)
    if args.write:
        doc = DOC.read_text()
        start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(doc[:start] + "\n" + text + doc[end:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
