"""Export a rig as MIME-style Python: ``Apparatus(...)`` source that executes into an equal rig; or as a rig
file with its provenance (:func:`export_json`).

The file is data, not a door. Every name, path and reason goes through one literal writer, :func:`_text`
(:func:`ascii`): an escaped, pure-ASCII literal, so any text (quotes, newlines, backslashes, non-ASCII, lone
surrogates) comes back exactly and none can close a literal or a comment under any source encoding. The first
line declares UTF-8 and no user text stands on the first two lines, so a name holding an encoding declaration
(PEP 263 reads only those two) cannot change how Python decodes the file. Numbers are written with
:func:`repr`, which round-trips every float.
Description and mesh paths are written relative to the exported file, and the source sets ``base`` to its
own folder, so it runs from anywhere. Only a valid rig is exported.
"""

from __future__ import annotations

import math
from pathlib import Path

from mime_gui import __version__
from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.rig import provenance
from mime_gui.rig.dynamics import LabSegment
from mime_gui.rig.findings import RigError
from mime_gui.rig.geometries import kind_of
from mime_gui.rig.rigfile import _relative, dumps_export
from mime_gui.rig.segments import _ArmSegment
from mime_gui.rig.units import KG, KG_M2, KG_PER_M3, TESLA, M, Quantity, S

_CONSTRUCTOR = {KG: "kg", KG_M2: "kg_m2", KG_PER_M3: "kg_per_m3", M: "m", S: "s", TESLA: "tesla"}
_IMPORTS = ("Apparatus", "Arm", "Box", "Cylinder", "LabSegment", "Mesh", "Motor", "Part", "PermanentMagnet",
            "Quantity", "Sphere", "kg", "kg_m2", "kg_per_m3", "m", "s", "tesla")
_PROBE_IMPORT = "Probe"  # imported only by a rig with probes, so other exports read as before
_POSE_IMPORT = "Pose"  # likewise, by a rig with poses
_FRAME_IMPORT = "DeclaredFrame"  # and by a rig that declares frames
_TRAJECTORY_IMPORTS = ("AccelerationLimit", "Keyframe", "Spin", "Trajectory")  # and by one with trajectories
_SAMPLE_IMPORTS = ("Sample",)  # and by one with samples (a moment is a Quantity in A m2)
_ZONE_IMPORT = "Zone"  # and by one with zones
_CLEARANCE_IMPORTS = ("Allowed", "Clearance")  # and by one that declares its clearance
_TARGET_IMPORT = "FieldTarget"  # and by one with field targets


def _optional_imports(rig) -> list[str]:
    """Names imported only by a rig that uses them (probes, poses, declared frames, trajectories, the geometry
    kinds after the first four), so other exports read as before."""
    used = {type(p.geometry).__name__ for _c, _n, p in rig.solids()} - set(_IMPORTS)
    used |= {type(s.geometry).__name__ for s in rig.samples.values() if s.geometry is not None} \
        - set(_IMPORTS)
    return [*([_PROBE_IMPORT] if rig.probes else ()), *([_POSE_IMPORT] if rig.poses else ()),
            *([_FRAME_IMPORT] if rig.frames else ()), *(_TRAJECTORY_IMPORTS if rig.trajectories else ()),
            *(_SAMPLE_IMPORTS if rig.samples else ()), *([_ZONE_IMPORT] if rig.zones else ()),
            *(_CLEARANCE_IMPORTS if rig.clearance is not None else ()),
            *([_TARGET_IMPORT] if rig.targets else ()), *sorted(used)]


def _text(value: str) -> str:
    """The one literal writer for user text: a pure-ASCII Python string literal that reads back exactly."""
    return ascii(str(value))


def _num(x) -> str:
    x = float(x)
    return repr(x) if math.isfinite(x) else f"float({_text(str(x))})"


def _value(value) -> str:
    """A lab segment's parameter (a number, text, a boolean, None or a list of them)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return repr(value) if isinstance(value, int) else _num(value)


def _optional(value) -> str:
    return "None" if value is None else _text(value)


def _tuple(values) -> str:
    return "(" + ", ".join(_num(v) for v in values) + ("," if len(values) == 1 else "") + ")"


def _quantity(q) -> str:
    if q is None:
        return "None"
    if not isinstance(q, Quantity):
        return _num(q)
    reason = "" if q.reason is None else f", reason={_text(q.reason)}"
    name = _CONSTRUCTOR.get(q.unit)
    if name is None:
        return f"Quantity({_num(q.value)}, {_text(q.unit)}{reason})"
    return f"{name}({_num(q.value)}{reason})"


def _mapping(d: dict, render, indent: str) -> str:
    if not d:
        return "{}"
    inner = indent + "    "
    items = "".join(f"{inner}{_text(k)}: {render(v)},\n" for k, v in d.items())
    return "{\n" + items + indent + "}"


def _call(name: str, args: list[str], indent: str) -> str:
    inner = indent + "    "
    return f"{name}(\n" + "".join(f"{inner}{a},\n" for a in args) + indent + ")"


def _geometry(g, rig, folder) -> str:
    """The geometry's constructor call: its fields by name (a path, relative to the export, first and
    unnamed)."""
    kind = kind_of(g)
    args = []
    for f, value in zip(kind.fields, kind.values(g).values(), strict=True):
        if f.unit == "path":
            args.append(_text(_relative(value, rig.base, folder)))
        else:
            args.append(f"{f.name}={_tuple(value) if f.size > 1 else _num(value)}")
    return f"{kind.cls.__name__}({', '.join(args)})"


def _segment(seg, rig, folder, indent: str) -> str:
    args = []
    if isinstance(seg, _ArmSegment):
        args.append(f"description={_text(_relative(seg.description, rig.base, folder))}")
    args += [f"at={_tuple(seg.at)}", f"orientation={_tuple(seg.orientation)}",
             f"mount={_optional(seg.mount)}", f"servo_time_constant={_num(seg.servo_time_constant)}"]
    if seg.field_tolerance is not None:  # only when declared, so other exports read as before
        args.append(f"field_tolerance={_quantity(seg.field_tolerance)}")
    inner = indent + "    "
    if isinstance(seg, LabSegment):  # a lab's registered kind: its name and parameters
        args = [f"kind={_text(seg.kind)}", f"params={_mapping(seg.params, _value, inner)}", *args,
                f"initial_positions={_mapping(seg.initial_positions, _num, inner)}"]
        return _call("LabSegment", args, indent)
    if isinstance(seg, _ArmSegment):
        args.append(f"initial_positions={_mapping(seg.initial_positions, _num, inner)}")
        if seg.dynamic:
            args.append(f"armature={_mapping(seg.armature, _quantity, inner)}")
            args.append("actuators=" + _mapping(seg.actuators, lambda v: _text(v) if isinstance(v, str)
                                                else _quantity(v), inner))
    else:
        args += [f"axis={_tuple(seg.axis)}", f"initial_position={_num(seg.initial_position)}"]
        if seg.dynamic:
            args.append(f"inertia={_quantity(seg.inertia)}")
    return _call(seg.kind, args, indent)


def _part(part, rig, folder, indent: str) -> str:
    args = [_geometry(part.geometry, rig, folder), f"material={_optional(part.material)}",
            f"at={_tuple(part.at)}", f"mount={_optional(part.mount)}", f"mass={_quantity(part.mass)}",
            f"density={_quantity(part.density)}"]
    if part.role == "magnet":
        args += [f"magnetisation={_tuple(part.magnetisation)}", f"remanence={_quantity(part.remanence)}"]
    return _call(type(part).__name__, args, indent)


def _probe(probe, rig, folder, indent: str) -> str:
    return f"Probe(at={_tuple(probe.at)}, mount={_optional(probe.mount)})"


def _sample(sample, rig, folder, indent: str) -> str:
    args = [f"at={_tuple(sample.at)}", f"mount={_optional(sample.mount)}",
            f"geometry={'None' if sample.geometry is None else _geometry(sample.geometry, rig, folder)}",
            f"material={_optional(sample.material)}", f"remanence={_quantity(sample.remanence)}",
            f"moment={_quantity(sample.moment)}", f"magnetisation={_tuple(sample.magnetisation)}",
            f"orientation={_text(sample.orientation)}"]
    if sample.drag is not None:
        args.append(f"drag={_quantity(sample.drag)}")
    return _call("Sample", args, indent)


def _zone(zone, rig, folder, indent: str) -> str:
    args = [f"at={_tuple(zone.at)}", f"mount={_optional(zone.mount)}",
            f"box={'None' if zone.box is None else _tuple(zone.box)}",
            f"sphere={'None' if zone.sphere is None else _num(zone.sphere)}", f"limit={_num(zone.limit)}",
            f"reason={_optional(zone.reason)}"]
    return _call("Zone", args, indent)


def _target(t, rig, folder, indent: str) -> str:
    kind = [f"direction={_tuple(t.direction)}"] if t.direction is not None else \
        [f"axis={_tuple(t.axis)}", f"frequency={_num(t.frequency)}"]
    bounds = [f"{key}={_num(getattr(t, key))}" for key in ("max_gradient", "max_force")
              if getattr(t, key) is not None]
    args = [_text(t.at), *kind, f"tolerance={_num(t.tolerance)}", f"low={_num(t.low)}",
            f"high={_num(t.high)}", f"ellipticity={_num(t.ellipticity)}", *bounds]
    return _call("FieldTarget", args, indent)


def _clearance(c, indent: str) -> str:
    pairs = "".join(f"{indent}    Allowed({_text(a.first)}, {_text(a.second)}, "
                    f"reason={_optional(a.reason)}),\n" for a in c.allow)
    return (f"Clearance({'None' if c.margin is None else _num(c.margin)}, reason={_optional(c.reason)}, "
            f"allow=(\n{pairs}{indent}))")


def _frame(frame, rig, folder, indent: str) -> str:
    return (f"DeclaredFrame({_text(frame.mount)}, at={_tuple(frame.at)}, "
            f"orientation={_tuple(frame.orientation)})")


def _pose(pose, rig, folder, indent: str) -> str:
    inner = indent + "    "
    values = _mapping(pose.values, lambda j: _mapping(j, _num, inner), indent)
    units = f", units={_mapping(pose.units, lambda j: _mapping(j, _text, inner), indent)}" if pose.units \
        else ""
    return f"Pose({values}, unit={_text(pose.unit)}{units})"


def _spin(spin) -> str:
    held = f"hold={_num(spin.hold)}" if spin.hold is not None else ""
    turns = f"turns={_num(spin.turns)}" if spin.turns is not None else ""
    return "Spin(" + ", ".join(a for a in (_num(spin.frequency), _text(spin.unit), f"ramp={_num(spin.ramp)}",
                                           held, turns) if a) + ")"


def _keyframe(key) -> str:
    args = [_num(key.time)]
    if key.values:
        args.append("values={" + ", ".join(f"{_text(j)}: {_num(v)}" for j, v in key.values.items()) + "}")
    if key.pose is not None:
        args.append(f"pose={_text(key.pose)}")
    args.append(f"interpolation={_text(key.interpolation)}")
    if key.frame is not None:
        args.append(f"frame={_text(key.frame)}")
    if key.spin is not None:
        args.append(f"spin={_spin(key.spin)}")
    if key.fixed:
        args.append("fixed=True")
    return f"Keyframe({', '.join(args)})"


def _trajectory(trajectory, rig, folder, indent: str) -> str:
    inner = indent + "    "
    nl = "\n"
    segments = "{" + nl + "".join(
        f"{inner}{_text(s)}: [" + nl + "".join(f"{inner}    {_keyframe(k)}," + nl for k in keys)
        + f"{inner}]," + nl for s, keys in trajectory.segments.items()) + indent + "}"

    def limit(v) -> str:
        return f"AccelerationLimit({_num(v.value)}, {_text(v.unit)}, reason={_optional(v.reason)})"

    table = _mapping(trajectory.acceleration_limits, lambda j: _mapping(j, limit, inner), indent)
    limits = f", acceleration_limits={table}" if trajectory.acceleration_limits else ""
    return f"Trajectory({segments}, unit={_text(trajectory.unit)}{limits})"


def to_python(rig, folder, source: str = "") -> str:
    """The Python source of ``rig`` as saved in ``folder`` (it defines ``rig``)."""
    folder = Path(folder)
    origin = f" from {_text(source)}" if source else ""
    lines = ["# -*- coding: utf-8 -*-",
             f"# A MIME rig, exported by mime-gui {_text(__version__)[1:-1]}.",
             f"# rig {_text(rig.name)}{origin}",
             "", "from pathlib import Path", "",
             "from mime_gui.rig import (",
             *(f"    {name}," for name in sorted((*_IMPORTS, *_optional_imports(rig)),
                                                 key=lambda n: (n[0].islower(), n))), ")", "",
             "# paths below are relative to this file's folder",
             'HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()', ""]
    indent = "        "

    def entries(items, render) -> str:
        return "".join(f"{indent}{_text(n)}: {render(v, rig, folder, indent)},\n" for n, v in items.items())

    chain, parts, mags = entries(rig.chain, _segment), entries(rig.parts, _part), entries(rig.magnets, _part)
    dirs = ", ".join(_text(_relative(d, rig.base, folder)) for d in rig.package_dirs)
    lines += ["rig = Apparatus(",
              f"    {_text(rig.name)},",
              "    chain={\n" + chain + "    },",
              *(["    frames={\n" + entries(rig.frames, _frame) + "    },"] if rig.frames else []),
              "    parts={\n" + parts + "    },",
              "    magnets={\n" + mags + "    },",
              *(["    probes={\n" + entries(rig.probes, _probe) + "    },"] if rig.probes else []),
              *(["    samples={\n" + entries(rig.samples, _sample) + "    },"] if rig.samples else []),
              *(["    zones={\n" + entries(rig.zones, _zone) + "    },"] if rig.zones else []),
              *([f"    clearance={_clearance(rig.clearance, '    ')},"] if rig.clearance is not None else []),
              *(["    poses={\n" + entries(rig.poses, _pose) + "    },"] if rig.poses else []),
              *(["    trajectories={\n" + entries(rig.trajectories, _trajectory) + "    },"]
                if rig.trajectories else []),
              *(["    targets={\n" + entries(rig.targets, _target) + "    },"] if rig.targets else []),
              *([f"    package_dirs=[{dirs}],"] if rig.package_dirs else []),
              "    base=HERE,",
              ")", "", *_provenance(rig, folder), ""]
    return "\n".join(lines)


def _provenance(rig, folder) -> list[str]:
    """``PROVENANCE``: what wrote the rig and the SHA-256 of every file it references (see
    :mod:`mime_gui.rig.provenance`), every text through :func:`_text`."""
    block = provenance.record(rig, folder)
    segments = "".join(f"        {_text(n)}: {{" + ", ".join(f"{_text(k)}: {_text(v)}" for k, v in s.items())
                       + "},\n" for n, s in block["segments"].items())
    files = "".join(f"        {_text(f)}: {{" + ", ".join(f"{_text(k)}: {_text(v)}" for k, v in e.items())
                    + "},\n" for f, e in block["files"].items())
    return ["# what exported this rig and the files it was exported with (paths relative to this file)",
            "PROVENANCE = {", f"    'mime_gui': {_text(block['mime_gui'])},",
            "    'segments': {\n" + segments + "    },", "    'files': {\n" + files + "    },", "}"]


def export_json(rig, path) -> Path:
    """Write a valid ``rig`` as a rig file with its ``provenance`` to ``path`` atomically (paths relative to
    it); raises RigError when invalid. ``mime-gui export --json`` and the app's File → Export rig both call
    it, so the two write the same file."""
    findings = rig.validate()
    if findings:
        raise RigError(findings)
    path = Path(path)
    return write_atomic(path, dumps_export(rig, resolved(path).parent))


def export_python(rig, path, source: str = "") -> Path:
    """Write the Python source of a valid ``rig`` to ``path`` atomically; raises RigError when invalid."""
    findings = rig.validate()
    if findings:
        raise RigError(findings)
    path = Path(path)
    return write_atomic(path, to_python(rig, resolved(path).parent, source))
