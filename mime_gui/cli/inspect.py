"""``mime-gui inspect URDF [--json] [--strict] [--package-dir DIR ...]``: what a URDF holds and what the
reader did.

Prints the robot's name, its counts (links, joints by type, degrees of freedom, frames, mimic joints), the
total mass, the tree as an indented outline (each joint with its type and limits, then the link it carries),
the reader's three groups of element kinds (used, recognised and not used, refused), the errors the file
loaded with (each a defect confined to one element, with what it blocks) and the warnings. ``--json`` prints
the same as one JSON document. Exit status 0 when the file loads, errors or not; on a refusal, exit status 2
and one line ``error[urdf.CODE] FILE:LINE: message`` on stderr. ``--strict`` refuses a file with an error too,
and one whose numbers are separated by commas (``urdf.comma``).
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter

from mime_gui.cli import package_dirs
from mime_gui.multibody.errors import UrdfError, printable
from mime_gui.multibody.report import GROUPS, IGNORED, REFUSED, USED
from mime_gui.multibody.tree import JOINT_TYPES, Joint, MultibodyTree
from mime_gui.multibody.urdf import read_urdf

#: the outline indents this many levels; deeper joints carry their depth in brackets
MAX_INDENT = 40
MASS_INCLUDES = "every link's <inertial> mass, the root link and links welded by fixed joints included"
_GROUP_TITLES = {USED: "read and used", IGNORED: "recognised and not used", REFUSED: "refused"}


def add_arguments(parser, name: str = "inspect") -> None:
    parser.add_argument("urdf", metavar="URDF", help="the URDF file to read")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    package_dirs.add_option(parser)
    parser.add_argument("--strict", action="store_true",
                        help="refuse (exit 2) a file with an error confined to one element (a "
                        "non-physical inertia, a reduction that is not a number, a shape that cannot be "
                        "drawn …) instead of loading it with the error listed, and one whose numbers are "
                        "separated by commas")


def run(args) -> int:
    try:
        with package_dirs.applied(args):
            tree = read_urdf(args.urdf, strict=args.strict)
        art = tree.compile()
    except UrdfError as exc:
        print(printable(exc.one_line()), file=sys.stderr)
        return 2
    summary = summarize(tree, art)
    text = json.dumps(_json_safe(summary), indent=2, allow_nan=False) + "\n" if args.json \
        else format_text(tree, summary)
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `mime-gui inspect ... | head`
        pass
    return 0


# -- the summary ----------------------------------------------------------------------------------------

def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None


def _json_safe(value):
    """``value`` with every number JSON cannot hold (infinity, NaN) as null, so ``--json`` always prints
    JSON. The reader bounds what it accepts, so this is a guard, not a path taken."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def _tree_rows(tree: MultibodyTree) -> list[dict]:
    """Joints depth-first from the root (document order among siblings), each with its depth."""
    children: dict[str, list[Joint]] = {}
    for joint in tree.joints.values():
        children.setdefault(joint.parent, []).append(joint)
    rows: list[dict] = []
    stack = [(j, 1) for j in reversed(children.get(tree.root, []))]
    while stack:
        joint, depth = stack.pop()
        row = {"depth": depth, "joint": joint.name, "type": joint.type, "parent": joint.parent,
               "child": joint.child, "line": joint.line}
        if joint.movable:
            row["axis"] = [float(a) for a in joint.axis]
            if joint.limit is not None:
                row.update(lower=_finite(joint.limit.lower), upper=_finite(joint.limit.upper),
                           effort=_finite(joint.limit.effort), velocity=_finite(joint.limit.velocity))
            if joint.damping or joint.friction:
                row.update(damping=joint.damping, friction=joint.friction)
        if joint.mimic is not None:
            row["mimic"] = {"joint": joint.mimic.joint, "multiplier": joint.mimic.multiplier,
                            "offset": joint.mimic.offset}
        rows.append(row)
        stack.extend((j, depth + 1) for j in reversed(children.get(joint.child, [])))
    return rows


def summarize(tree: MultibodyTree, art=None) -> dict:
    """A JSON-ready summary of a tree (and of its Articulation, compiled when not given)."""
    art = tree.compile() if art is None else art
    by_type = Counter(j.type for j in tree.joints.values())
    masses = [link.inertial.mass for link in tree.links.values() if link.inertial is not None]
    report = tree.report.to_dict()
    return {
        "file": tree.source,
        "name": tree.name,
        "root": tree.root,
        "counts": {
            "links": len(tree.links),
            "joints": len(tree.joints),
            "joints_by_type": {t: by_type.get(t, 0) for t in JOINT_TYPES},
            "dof": art.nq,
            "frames": art.nframes,
            "bodies": art.nbodies,
            "mimic": int(art.is_mimic.sum()),
            "transmissions": len(tree.transmissions),
        },
        "total_mass": {"kg": float(sum(masses)), "includes": MASS_INCLUDES,
                       "links_with_inertial": len(masses),
                       "links_without_inertial": len(tree.links) - len(masses)},
        "tree": _tree_rows(tree),
        "report": {g: report[g] for g in GROUPS},
        "errors": [w for w in report["warnings"] if w["severity"] == "error"],
        "warnings": [w for w in report["warnings"] if w["severity"] != "error"],
    }


# -- text -----------------------------------------------------------------------------------------------

def _num(x: float | None) -> str:
    return "inf" if x is None else f"{x:.6g}"


def _joint_text(row: dict) -> str:
    text = f"{row['joint']} ({row['type']})"
    if row["type"] in ("revolute", "prismatic") and "lower" in row:
        unit = "rad" if row["type"] == "revolute" else "m"
        text += f" [{_num(row['lower'])}, {_num(row['upper'])}] {unit}"
    if row["type"] != "fixed" and row.get("effort") is not None:
        text += f", effort {_num(row['effort'])}"
    if row["type"] != "fixed" and row.get("velocity") is not None:
        text += f", velocity {_num(row['velocity'])}"
    if "mimic" in row:
        m = row["mimic"]
        text += f", mimics {m['joint']} (x{m['multiplier']:g} {m['offset']:+g})"
    return f"{text} -> {row['child']}"


def _indent(depth: int) -> str:
    """Two spaces a level up to :data:`MAX_INDENT` levels, then the depth written out: the outline of a
    chain of n joints stays O(n) characters, not O(n²)."""
    if depth <= MAX_INDENT:
        return "  " + "  " * depth
    return "  " + "  " * MAX_INDENT + f"[depth {depth}] "


def _group_lines(entries: list[dict], with_notes: bool) -> list[str]:
    """One line per element kind, its attribute kinds of the same group folded in: ``kind xN (@attr xN)``."""
    kinds = {e["kind"] for e in entries}
    attrs: dict[str, list[dict]] = {}
    rows = []
    for e in entries:
        element, at, _ = e["kind"].partition("@")
        if at and element in kinds:
            attrs.setdefault(element, []).append(e)
        else:
            rows.append(e)
    lines = []
    for e in rows:
        line = f"  {e['kind']} x{e['count']}"
        folded = attrs.get(e["kind"])
        if folded:
            line += " (" + ", ".join(f"@{a['kind'].partition('@')[2]} x{a['count']}" for a in folded) + ")"
        if with_notes and e["note"]:
            line += f": {e['note']}"
        lines.append(line)
    return lines


def format_text(tree: MultibodyTree, summary: dict) -> str:
    c = summary["counts"]
    types = ", ".join(f"{t} {n}" for t, n in c["joints_by_type"].items() if n)
    mass = summary["total_mass"]
    out = [
        f"robot {summary['name'] or '(unnamed)'}  ({summary['file']})",
        f"  links {c['links']}, joints {c['joints']}" + (f" ({types})" if types else "")
        + f", dof {c['dof']}, frames {c['frames']}, mimic {c['mimic']}, transmissions {c['transmissions']}",
        f"  total mass {mass['kg']:.6g} kg: {mass['includes']}"
        + (f"; {mass['links_without_inertial']} link(s) have no <inertial>" if mass["links_without_inertial"]
           else ""),
        "",
        "tree",
        f"  {summary['root']}",
    ]
    out += [_indent(row["depth"]) + _joint_text(row) for row in summary["tree"]]
    for group in GROUPS:
        entries = summary["report"][group]
        out += ["", f"{_GROUP_TITLES[group]} ({len(entries)} kind{'s' if len(entries) != 1 else ''})"]
        out += _group_lines(entries, with_notes=group != USED) or ["  (none)"]
    file = summary["file"]
    errors = summary["errors"]
    out += ["", f"errors ({len(errors)}): loaded; each blocks only the use it names"]
    for e in errors:
        where = f"{file}:{e['line']}" if e["line"] else file
        out.append(f"  error[{e['code']}] {where}: {e['message']} [blocks {e['blocks']}]")
    if not errors:
        out.append("  (none)")
    warnings = summary["warnings"]
    out += ["", f"warnings ({len(warnings)})"]
    for w in warnings:
        where = f"{file}:{w['line']}" if w["line"] else file
        out.append(f"  warning[{w['code']}] {where}: {w['message']}")
    if not warnings:
        out.append("  (none)")
    # every name and path comes from the file: each line escaped, so a name cannot start a line of its own
    return "\n".join(map(printable, out)) + "\n"
