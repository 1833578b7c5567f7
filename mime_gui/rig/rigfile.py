"""The rig file: ``*.rig.json``, ``"format": "mime-rig"``, ``"version": 1`` (see docs/rig-file.md).

Every number carries its unit explicitly, every declaration keeps its reason, and URDF and mesh paths are
relative to the rig file. :func:`load` refuses unknown keys, a wrong format or version and wrong types with a
:class:`RigFileError` naming the line and the JSON pointer; nothing is dropped silently. :func:`save` is
atomic: the text is written to a temporary file in the same folder, flushed to disk, then renamed over the
target, so a failure never truncates the old file. ``load(save(rig))`` equals ``rig``.

The file holds what the user wrote, valid or not: a bare number where a unit is required loads (and
``validate`` reports it as ``unit``), so the GUI can open and fix a rig that does not build yet.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

from mime_gui import inputs
from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import CodedError, printable
from mime_gui.rig import dynamics, provenance
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.clearance import Allowed, Clearance
from mime_gui.rig.dynamics import LabSegment
from mime_gui.rig.frames import DeclaredFrame
from mime_gui.rig.geometries import KINDS, kind_of
from mime_gui.rig.parts import Part, PermanentMagnet
from mime_gui.rig.pointers import line_of
from mime_gui.rig.poses import POSE_UNITS, UNIT_FACTORS, Pose
from mime_gui.rig.probes import Probe
from mime_gui.rig.samples import Sample
from mime_gui.rig.segments import SEGMENT_KINDS, _ArmSegment, _MotorSegment
from mime_gui.rig.targets import FieldTarget, TargetError
from mime_gui.rig.trajectories import (
    ACCELERATION_UNITS,
    FREQUENCY_UNITS,
    AccelerationLimit,
    Keyframe,
    Spin,
    Trajectory,
)
from mime_gui.rig.units import UNITS, Quantity
from mime_gui.rig.zones import Zone

FORMAT = "mime-rig"
VERSION = 1
SUFFIX = ".rig.json"
POSITIONS_UNIT = "rad|m"  # radians on revolute and continuous joints, metres on prismatic ones


class RigFileError(CodedError):
    """A refused rig file: ``code`` (``rigfile.*``), the file, the line and the JSON ``pointer`` of the
    offending value, printed ``error[CODE] FILE:LINE: #POINTER: message``."""

    def __init__(self, code: str, message: str, file: str = "", pointer: str = "", line: int = 0):
        self.pointer = pointer
        super().__init__(code, message, file, line)
        self.args = (self.one_line(),)  # str() names the JSON pointer too

    def one_line(self) -> str:
        where, message = self.where(), printable(self.message)
        if self.pointer:  # the line says where in the text, the pointer which value (a line may hold many)
            message = f"#{printable(self.pointer)}: {message}"
        head = f"error[{self.code}]"
        return f"{head} {where}: {message}" if where else f"{head} {message}"


def _escape(key) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


# -- reading ---------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, file: str):
        self.file = file

    def fail(self, code: str, pointer: str, message: str):
        raise RigFileError(code, message, self.file, pointer or "/")

    def obj(self, value, pointer: str, required=(), optional=()) -> dict:
        if not isinstance(value, dict):
            self.fail("rigfile.type", pointer, f"expected an object, got {_kind(value)}")
        allowed = set(required) | set(optional)
        for key in value:
            if key not in allowed:
                self.fail("rigfile.key", f"{pointer}/{_escape(key)}", f"unknown key {key!r}; allowed here: "
                                                                      f"{', '.join(sorted(allowed))}")
        for key in required:
            if key not in value:
                self.fail("rigfile.missing", pointer, f"missing key {key!r}")
        return value

    def string(self, value, pointer: str, nullable: bool = False) -> str | None:
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            self.fail("rigfile.type", pointer, f"expected text{' or null' if nullable else ''}, got "
                                               f"{_kind(value)}")
        return value

    def boolean(self, value, pointer: str) -> bool:
        if not isinstance(value, bool):
            self.fail("rigfile.type", pointer, f"expected true or false, got {_kind(value)}")
        return value

    def number(self, value, pointer: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail("rigfile.type", pointer, f"expected a number, got {_kind(value)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):  # JSON reads 1e999 (or an integer of 400 digits) as infinity
            self.fail("rigfile.value", pointer, f"{_short(value)} is beyond the largest number a rig holds "
                                                "(about 1.8e308); write a finite number")
        return number

    def numbers(self, value, pointer: str, n: int) -> tuple[float, ...]:
        if not isinstance(value, list) or len(value) != n:
            self.fail("rigfile.type", pointer, f"expected a list of {n} numbers, got {_kind(value)}")
        return tuple(self.number(v, f"{pointer}/{i}") for i, v in enumerate(value))

    def unit(self, value, pointer: str, unit: str) -> None:
        if value != unit:
            self.fail("rigfile.unit", pointer, f"expected the unit {unit!r}, got {value!r}")

    def measured(self, value, pointer: str, unit: str, n: int | None = None):
        """``{"value": number or [n numbers], "unit": unit}``."""
        d = self.obj(value, pointer, ("value", "unit"))
        self.unit(d["unit"], f"{pointer}/unit", unit)
        if n is None:
            return self.number(d["value"], f"{pointer}/value")
        return self.numbers(d["value"], f"{pointer}/value", n)

    def quantity(self, value, pointer: str, nullable: bool = True):
        """A declaration: ``{"value", "unit", "reason"}``; a bare number is kept (validation reports it)."""
        if value is None and nullable:
            return None
        if isinstance(value, int | float) and not isinstance(value, bool):
            return self.number(value, pointer)
        d = self.obj(value, pointer, ("value", "unit"), ("reason",))
        v = self.number(d["value"], f"{pointer}/value")
        unit = self.string(d["unit"], f"{pointer}/unit")
        if unit not in UNITS:
            self.fail("rigfile.unit", f"{pointer}/unit", f"unknown unit {unit!r}; units: {', '.join(UNITS)}")
        reason = self.string(d.get("reason"), f"{pointer}/reason", nullable=True)
        return Quantity(v, unit, reason)

    def names(self, value, pointer: str) -> dict:
        if not isinstance(value, dict):
            self.fail("rigfile.type", pointer, f"expected an object of names, got {_kind(value)}")
        return value

    # -- the document ------------------------------------------------------------------------------
    def document(self, data, base: Path) -> Apparatus:
        d = self.obj(data, "", ("format", "version", "name"),
                     ("package_dirs", "chain", "parts", "magnets", "provenance", "probes", "poses", "frames",
                      "trajectories", "samples", "zones", "clearance", "targets"))
        if d["format"] != FORMAT:
            self.fail("rigfile.format", "/format",
                      f"this is not a rig file: format {d['format']!r}, expected {FORMAT!r}")
        version = d["version"]
        if isinstance(version, bool) or not isinstance(version, int):
            self.fail("rigfile.version", "/version", f"expected an integer version, got {_kind(version)}")
        if version != VERSION:
            newer = " (written by a newer mime-gui)" if version > VERSION else ""
            self.fail("rigfile.version", "/version", f"version {version} is not supported{newer}; this "
                                                     f"mime-gui reads version {VERSION}")
        name = self.string(d["name"], "/name")
        if "provenance" in d:  # written by an export; validate compares its file hashes
            provenance.read(self, d["provenance"])
        chain = {}
        segments = d.get("chain", [])
        if not isinstance(segments, list):
            self.fail("rigfile.type", "/chain", f"expected a list of segments, got {_kind(segments)}")
        for i, seg in enumerate(segments):
            seg_name, segment = self.segment(seg, f"/chain/{i}")
            if seg_name in chain:
                self.fail("rigfile.duplicate", f"/chain/{i}/name",
                          f"segment {seg_name!r} appears twice in the chain")
            chain[seg_name] = segment
        parts = {k: self.part(v, f"/parts/{_escape(k)}", magnet=False)
                 for k, v in self.names(d.get("parts", {}), "/parts").items()}
        magnets = {k: self.part(v, f"/magnets/{_escape(k)}", magnet=True)
                   for k, v in self.names(d.get("magnets", {}), "/magnets").items()}
        probes = {k: self.probe(v, f"/probes/{_escape(k)}")
                  for k, v in self.names(d.get("probes", {}), "/probes").items()}
        samples = {k: self.sample(v, f"/samples/{_escape(k)}")
                   for k, v in self.names(d.get("samples", {}), "/samples").items()}
        zones = {k: self.zone(v, f"/zones/{_escape(k)}")
                 for k, v in self.names(d.get("zones", {}), "/zones").items()}
        poses = {k: self.pose(v, f"/poses/{_escape(k)}")
                 for k, v in self.names(d.get("poses", {}), "/poses").items()}
        frames = {k: self.frame(v, f"/frames/{_escape(k)}")
                  for k, v in self.names(d.get("frames", {}), "/frames").items()}
        trajectories = {k: self.trajectory(v, f"/trajectories/{_escape(k)}")
                        for k, v in self.names(d.get("trajectories", {}), "/trajectories").items()}
        targets = {k: self.target(v, f"/targets/{_escape(k)}")
                   for k, v in self.names(d.get("targets", {}), "/targets").items()}
        return Apparatus(name, chain=chain, parts=parts, magnets=magnets, base=base, targets=targets,
                         package_dirs=self.package_dirs(d.get("package_dirs", []), "/package_dirs"),
                         probes=probes, poses=poses, frames=frames, trajectories=trajectories,
                         samples=samples, zones=zones,
                         clearance=self.clearance(d["clearance"], "/clearance") if "clearance" in d else None)

    def package_dirs(self, value, pointer: str) -> list[str]:
        """Folders (relative to the rig file) where the descriptions' ``package://`` meshes are looked for."""
        if not isinstance(value, list):
            self.fail("rigfile.type", pointer, f"expected a list of folders, got {_kind(value)}")
        out = []
        for i, item in enumerate(value):
            folder = self.string(item, f"{pointer}/{i}")
            if not folder.strip() or "\x00" in folder:
                self.fail("rigfile.value", f"{pointer}/{i}", f"{folder!r} is not a folder; give a folder's "
                                                             "path, relative to the rig file")
            out.append(folder)
        return out

    def segment(self, value, p: str):
        kind = value.get("kind") if isinstance(value, dict) else None
        cls = SEGMENT_KINDS.get(kind) if isinstance(kind, str) else None
        common = ("at", "orientation", "mount", "servo_time_constant", "field_tolerance")
        if not isinstance(value, dict):
            self.fail("rigfile.type", p, f"expected a segment object, got {_kind(value)}")
        lab = cls is None and isinstance(kind, str) and self.lab_kind(kind, p) is not None
        if cls is None and not lab:
            self.fail("rigfile.value", f"{p}/kind", f"unknown segment kind {kind!r}; kinds: "
                                                    f"{', '.join([*SEGMENT_KINDS, *dynamics.kinds()])}"
                                                    f"{_provider(value)}")
        kw = {}
        if lab:  # a lab's registered kind (register_dynamics or an installed entry point)
            cls = LabSegment
            d = self.obj(value, p, ("name", "kind"), (*common, "package", "params", "initial_positions"))
            kw["kind"] = kind
            if "package" in d:
                self.string(d["package"], f"{p}/package")
            if "params" in d:
                kw["params"] = self.params(d["params"], f"{p}/params")
            if "initial_positions" in d:
                kw["initial_positions"] = self.positions(d["initial_positions"], f"{p}/initial_positions")
        elif issubclass(cls, _ArmSegment):
            extra = ("armature", "actuators", "carries_payload") if cls.dynamic else ()
            d = self.obj(value, p, ("name", "kind", "description"), (*common, "initial_positions", *extra))
            kw["description"] = self.string(d["description"], f"{p}/description")
            if "initial_positions" in d:
                ip = self.obj(d["initial_positions"], f"{p}/initial_positions", ("value", "unit"))
                self.unit(ip["unit"], f"{p}/initial_positions/unit", POSITIONS_UNIT)
                values = self.names(ip["value"], f"{p}/initial_positions/value")
                kw["initial_positions"] = {k: self.number(v, f"{p}/initial_positions/value/{_escape(k)}")
                                           for k, v in values.items()}
            for key in extra[:2]:
                if key in d:
                    entries = self.names(d[key], f"{p}/{key}")
                    kw[key] = {k: (v if key == "actuators" and isinstance(v, str) else
                                   self.quantity(v, f"{p}/{key}/{_escape(k)}", nullable=False))
                               for k, v in entries.items()}
        else:
            extra = ("inertia", "carries_payload") if cls.dynamic else ()
            d = self.obj(value, p, ("name", "kind"), (*common, "axis", "initial_position", *extra))
            if "axis" in d:
                kw["axis"] = self.numbers(d["axis"], f"{p}/axis", 3)
            if "initial_position" in d:
                kw["initial_position"] = self.measured(d["initial_position"], f"{p}/initial_position", "rad")
            if "inertia" in d:
                kw["inertia"] = self.quantity(d["inertia"], f"{p}/inertia")
        if "carries_payload" in d:
            kw["carries_payload"] = self.boolean(d["carries_payload"], f"{p}/carries_payload")
        name = self.string(d["name"], f"{p}/name")
        if "at" in d:
            kw["at"] = self.measured(d["at"], f"{p}/at", "m", 3)
        if "orientation" in d:
            kw["orientation"] = self.orientation(d["orientation"], f"{p}/orientation")
        if "mount" in d:
            kw["mount"] = self.string(d["mount"], f"{p}/mount", nullable=True)
        if "servo_time_constant" in d:
            kw["servo_time_constant"] = self.measured(d["servo_time_constant"], f"{p}/servo_time_constant",
                                                      "s")
        if "field_tolerance" in d:
            kw["field_tolerance"] = self.quantity(d["field_tolerance"], f"{p}/field_tolerance")
        return name, cls(**kw)

    def lab_kind(self, kind: str, p: str):
        try:
            return dynamics.kind(kind)
        except dynamics.DynamicsError as exc:  # an installed package whose entry point fails
            self.fail(exc.code, f"{p}/kind", exc.diagnostic.message)

    def params(self, value, p: str) -> dict:
        out = {}
        for k, v in self.names(value, p).items():
            try:
                out[k] = dynamics.json_value(v, k)
            except (TypeError, ValueError) as exc:
                self.fail("rigfile.value", f"{p}/{_escape(k)}", str(exc))
        return out

    def positions(self, value, p: str) -> dict[str, float]:
        ip = self.obj(value, p, ("value", "unit"))
        self.unit(ip["unit"], f"{p}/unit", POSITIONS_UNIT)
        return {k: self.number(v, f"{p}/value/{_escape(k)}") for k, v in self.names(ip["value"],
                                                                                     f"{p}/value").items()}

    def geometry(self, value, p: str):
        kind = value.get("type") if isinstance(value, dict) else None
        if not isinstance(value, dict):
            self.fail("rigfile.type", p, f"expected a geometry object, got {_kind(value)}")
        if not isinstance(kind, str) or kind not in KINDS:
            self.fail("rigfile.value", f"{p}/type", f"unknown geometry {kind!r}; geometries: "
                                                    f"{', '.join(KINDS)}")
        return self.declared(KINDS[kind], value, p)

    def declared(self, kind, value, p: str):
        """A geometry of ``kind`` from its fields: its unit keys, then each field (see
        :mod:`mime_gui.rig.geometries`)."""
        units = kind.unit_keys
        required = ("type", *(k for k, _ in units), *(f.name for f in kind.fields if not f.optional))
        d = self.obj(value, p, required, tuple(f.name for f in kind.fields if f.optional))
        for key, unit in units:
            self.unit(d[key], f"{p}/{key}", unit)
        kw = {}
        for f in kind.fields:
            if f.name not in d:
                continue
            at = f"{p}/{f.name}"
            kw[f.name] = self.string(d[f.name], at) if f.unit == "path" else \
                self.numbers(d[f.name], at, f.size) if f.size > 1 else self.number(d[f.name], at)
        return kind.cls(**kw)

    def part(self, value, p: str, magnet: bool):
        extra = ("magnetisation", "remanence") if magnet else ()
        d = self.obj(value, p, ("geometry",), ("material", "at", "mount", "mass", "density", *extra))
        kw = {"geometry": self.geometry(d["geometry"], f"{p}/geometry")}
        if "material" in d:
            kw["material"] = self.string(d["material"], f"{p}/material", nullable=True)
        if "at" in d:
            kw["at"] = self.measured(d["at"], f"{p}/at", "m", 3)
        if "mount" in d:
            kw["mount"] = self.string(d["mount"], f"{p}/mount", nullable=True)
        for key in ("mass", "density", "remanence"):
            if key in d:
                kw[key] = self.quantity(d[key], f"{p}/{key}")
        if "magnetisation" in d:
            kw["magnetisation"] = self.numbers(d["magnetisation"], f"{p}/magnetisation", 3)
        return (PermanentMagnet if magnet else Part)(**kw)

    def probe(self, value, p: str) -> Probe:
        """``{"at": {"value": [x, y, z], "unit": "m"}, "mount": "<segment>.<frame>" or null}``."""
        d = self.obj(value, p, ("at",), ("mount",))
        mount = self.string(d["mount"], f"{p}/mount", nullable=True) if "mount" in d else None
        return Probe(self.measured(d["at"], f"{p}/at", "m", 3), mount=mount)

    def sample(self, value, p: str) -> Sample:
        """``{"at", "mount", "geometry" | "moment", "material", "remanence", "magnetisation",
        "orientation", "drag"}``: a small magnet the field acts on."""
        d = self.obj(value, p, ("at",), ("mount", "geometry", "material", "remanence", "moment",
                                         "magnetisation", "orientation", "drag"))
        kw: dict = {"at": self.measured(d["at"], f"{p}/at", "m", 3)}
        if "mount" in d:
            kw["mount"] = self.string(d["mount"], f"{p}/mount", nullable=True)
        if "geometry" in d:
            kw["geometry"] = self.geometry(d["geometry"], f"{p}/geometry")
        if "material" in d:
            kw["material"] = self.string(d["material"], f"{p}/material", nullable=True)
        for key in ("remanence", "moment", "drag"):
            if key in d:
                kw[key] = self.quantity(d[key], f"{p}/{key}")
        if "magnetisation" in d:
            kw["magnetisation"] = self.numbers(d["magnetisation"], f"{p}/magnetisation", 3)
        if "orientation" in d:
            kw["orientation"] = self.string(d["orientation"], f"{p}/orientation")
        return Sample(**kw)

    def zone(self, value, p: str) -> Zone:
        """``{"box": {"value": [sx, sy, sz], "unit": "m"} | "sphere": {"value": r, "unit": "m"}, "at",
        "mount", "limit": {"value": T, "unit": "T"}, "reason"}``: a keep-out zone."""
        d = self.obj(value, p, ("at",), ("mount", "box", "sphere", "limit", "reason"))
        kw: dict = {"at": self.measured(d["at"], f"{p}/at", "m", 3)}
        if "mount" in d:
            kw["mount"] = self.string(d["mount"], f"{p}/mount", nullable=True)
        if "box" in d:
            kw["box"] = self.measured(d["box"], f"{p}/box", "m", 3)
        if "sphere" in d:
            kw["sphere"] = self.measured(d["sphere"], f"{p}/sphere", "m")
        if "limit" in d:
            kw["limit"] = self.measured(d["limit"], f"{p}/limit", "T")
        if "reason" in d:
            kw["reason"] = self.string(d["reason"], f"{p}/reason", nullable=True)
        return Zone(**kw)

    def target(self, value, p: str) -> FieldTarget:
        """``{"at": "probes.<name>", "direction": [x, y, z]}`` or ``{"at", "axis": [x, y, z], "frequency":
        {"value": Hz, "unit": "Hz"}}``, and optionally ``"tolerance": {"value": rad, "unit": "rad"}``,
        ``"low"``/``"high": {"value": T, "unit": "T"}``, ``"ellipticity"``, ``"max_gradient": {"value": T/m,
        "unit": "T/m"}``, ``"max_force": {"value": N, "unit": "N"}``: a field target."""
        d = self.obj(value, p, ("at",), ("direction", "axis", "frequency", "tolerance", "low", "high",
                                         "ellipticity", "max_gradient", "max_force"))
        kw: dict = {"at": self.string(d["at"], f"{p}/at")}
        for key in ("direction", "axis"):
            if key in d:
                kw[key] = self.numbers(d[key], f"{p}/{key}", 3)
        for key, unit in (("frequency", "Hz"), ("tolerance", "rad"), ("low", "T"), ("high", "T"),
                          ("max_gradient", "T/m"), ("max_force", "N")):
            if key in d:
                kw[key] = self.measured(d[key], f"{p}/{key}", unit)
        if "ellipticity" in d:
            kw["ellipticity"] = self.number(d["ellipticity"], f"{p}/ellipticity")
        try:
            return FieldTarget(**kw)
        except TargetError as err:  # a value no target has: refused at its place, with its own code
            self.fail(err.code, f"{p}/{err.file}" if err.file in kw else p, err.message)

    def clearance(self, value, p: str) -> Clearance:
        """``{"margin": {"value": m, "unit": "m"}, "reason", "allow": [{"pair": [item, item], "reason"}]}``,
        each key optional: the margin kept between moving items and the pairs allowed to touch."""
        d = self.obj(value, p, (), ("margin", "reason", "allow"))
        kw: dict = {}
        if "margin" in d:
            kw["margin"] = self.measured(d["margin"], f"{p}/margin", "m")
        if "reason" in d:
            kw["reason"] = self.string(d["reason"], f"{p}/reason", nullable=True)
        allow = d.get("allow", [])
        if not isinstance(allow, list):
            self.fail("rigfile.type", f"{p}/allow", f"expected a list of pairs, got {_kind(allow)}")
        pairs = []
        for i, entry in enumerate(allow):
            e = self.obj(entry, f"{p}/allow/{i}", ("pair",), ("reason",))
            pair = e["pair"]
            if not isinstance(pair, list) or len(pair) != 2:
                self.fail("rigfile.type", f"{p}/allow/{i}/pair", f"expected a list of two item names, got "
                                                                 f"{_kind(pair)}")
            first, second = (self.string(v, f"{p}/allow/{i}/pair/{k}") for k, v in enumerate(pair))
            pairs.append(Allowed(first, second,
                                 reason=self.string(e.get("reason"), f"{p}/allow/{i}/reason", nullable=True)))
        return Clearance(**kw, allow=tuple(pairs))

    def orientation(self, value, p: str) -> tuple[float, ...]:
        """``{"wxyz": [w, x, y, z]}``: a quaternion (the rules check it is a unit one)."""
        o = self.obj(value, p, ("wxyz",))
        return self.numbers(o["wxyz"], f"{p}/wxyz", 4)

    def frame(self, value, p: str) -> DeclaredFrame:
        """``{"mount": "<segment>.<frame>", "at": {"value": [x, y, z], "unit": "m"},
        "orientation": {"wxyz": [w, x, y, z]}}``; ``at`` and ``orientation`` default to none."""
        d = self.obj(value, p, ("mount",), ("at", "orientation"))
        kw = {}
        if "at" in d:
            kw["at"] = self.measured(d["at"], f"{p}/at", "m", 3)
        if "orientation" in d:
            kw["orientation"] = self.orientation(d["orientation"], f"{p}/orientation")
        return DeclaredFrame(self.string(d["mount"], f"{p}/mount"), **kw)

    def pose(self, value, p: str) -> Pose:
        """``{"value": {segment: {joint: number or {"value": number, "unit": u}}}, "unit": "deg|m"}``."""
        d = self.obj(value, p, ("value", "unit"))
        if d["unit"] not in POSE_UNITS:
            self.fail("rigfile.unit", f"{p}/unit", f"expected one of {', '.join(map(repr, POSE_UNITS))} "
                                                   f"(angles|lengths), got {d['unit']!r}")
        values: dict = {}
        units: dict = {}
        for segment, joints in self.names(d["value"], f"{p}/value").items():
            at = f"{p}/value/{_escape(segment)}"
            inner = values[segment] = {}
            for joint, v in self.names(joints, at).items():
                jp = f"{at}/{_escape(joint)}"
                if isinstance(v, dict):  # a value in a unit of its own
                    e = self.obj(v, jp, ("value", "unit"))
                    if e["unit"] not in UNIT_FACTORS:
                        self.fail("rigfile.unit", f"{jp}/unit", f"expected one of "
                                                                f"{', '.join(map(repr, UNIT_FACTORS))}, got "
                                                                f"{e['unit']!r}")
                    units.setdefault(segment, {})[joint] = e["unit"]
                    v = e["value"]
                    jp = f"{jp}/value"
                inner[joint] = self.number(v, jp)
        return Pose(values, d["unit"], units)

    def trajectory(self, value, p: str) -> Trajectory:
        """``{"unit": "deg|m", "segments": {segment: [keyframe, ...]}, "acceleration_limits": {segment:
        {joint or "*": {"value", "unit", "reason"}}}}``."""
        d = self.obj(value, p, ("unit", "segments"), ("acceleration_limits",))
        if d["unit"] not in POSE_UNITS:
            self.fail("rigfile.unit", f"{p}/unit", f"expected one of {', '.join(map(repr, POSE_UNITS))} "
                                                   f"(angles|lengths), got {d['unit']!r}")
        segments = {}
        for segment, keys in self.names(d["segments"], f"{p}/segments").items():
            at = f"{p}/segments/{_escape(segment)}"
            if not isinstance(keys, list):
                self.fail("rigfile.type", at, f"expected a list of keyframes, got {_kind(keys)}")
            segments[segment] = [self.keyframe(k, f"{at}/{i}") for i, k in enumerate(keys)]
        limits = {}
        declared = self.names(d.get("acceleration_limits", {}), f"{p}/acceleration_limits")
        for segment, joints in declared.items():
            at = f"{p}/acceleration_limits/{_escape(segment)}"
            limits[segment] = {j: self.acceleration(v, f"{at}/{_escape(j)}")
                               for j, v in self.names(joints, at).items()}
        return Trajectory(segments, d["unit"], acceleration_limits=limits)

    def acceleration(self, value, p: str) -> AccelerationLimit:
        d = self.obj(value, p, ("value", "unit"), ("reason",))
        if not isinstance(d["unit"], str) or d["unit"] not in ACCELERATION_UNITS:
            units = ", ".join(map(repr, ACCELERATION_UNITS))
            self.fail("rigfile.unit", f"{p}/unit", f"expected one of {units}, got {d['unit']!r}")
        return AccelerationLimit(self.number(d["value"], f"{p}/value"), d["unit"],
                                 self.string(d.get("reason"), f"{p}/reason", nullable=True))

    def keyframe(self, value, p: str) -> Keyframe:
        """``{"time": {"value": s, "unit": "s"}, "interpolation": …, "values": {joint: number}, "pose": name,
        "fixed": bool, "frame": name, "spin": {…}}``; all but the time optional."""
        d = self.obj(value, p, ("time",), ("interpolation", "values", "pose", "fixed", "frame", "spin"))
        kw: dict = {}
        if "interpolation" in d:
            kw["interpolation"] = self.string(d["interpolation"], f"{p}/interpolation")
        if "values" in d:
            kw["values"] = {j: self.number(v, f"{p}/values/{_escape(j)}")
                            for j, v in self.names(d["values"], f"{p}/values").items()}
        for key in ("pose", "frame"):
            if key in d:
                kw[key] = self.string(d[key], f"{p}/{key}", nullable=True)
        if "fixed" in d:
            kw["fixed"] = self.boolean(d["fixed"], f"{p}/fixed")
        if "spin" in d:
            kw["spin"] = self.spin(d["spin"], f"{p}/spin")
        return Keyframe(self.measured(d["time"], f"{p}/time", "s"), **kw)

    def spin(self, value, p: str) -> Spin:
        """``{"frequency": {"value": f, "unit": "Hz"|"rpm"}, "ramp": {"value": s, "unit": "s"}, "hold":
        {"value": s, "unit": "s"}}`` or ``"turns": n`` in place of ``hold``."""
        d = self.obj(value, p, ("frequency",), ("ramp", "hold", "turns"))
        f = self.obj(d["frequency"], f"{p}/frequency", ("value", "unit"))
        if not isinstance(f["unit"], str) or f["unit"] not in FREQUENCY_UNITS:
            self.fail("rigfile.unit", f"{p}/frequency/unit", f"expected one of "
                                                             f"{', '.join(map(repr, FREQUENCY_UNITS))}, got "
                                                             f"{f['unit']!r}")
        kw = {}
        if "ramp" in d:
            kw["ramp"] = self.measured(d["ramp"], f"{p}/ramp", "s")
        if "hold" in d:
            kw["hold"] = self.measured(d["hold"], f"{p}/hold", "s")
        if "turns" in d:
            kw["turns"] = self.number(d["turns"], f"{p}/turns")
        return Spin(self.number(f["value"], f"{p}/frequency/value"), f["unit"], **kw)


def _provider(value) -> str:
    """What a rig file says provides an unknown kind, as advice."""
    package = value.get("package") if isinstance(value, dict) else None
    if isinstance(package, str) and package:
        return f"; the file says the package {package!r} provides it: install it (its entry point in the " \
               f"group {dynamics.GROUP!r} registers the kind)"
    return ""


def _short(value) -> str:
    if isinstance(value, int) and abs(value) >= 10**30:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"text ({value!r})"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return "an object"


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


class _Duplicate(Exception):
    def __init__(self, key):
        super().__init__(key)
        self.key = key
        self.start = -1  # where the object holding the key twice starts in the text


def _duplicate_line(text: str) -> int:
    """The line of the innermost object that holds a key twice (0 when not found): parsed again with the
    pure-Python scanner, whose object parser is told where each object starts."""
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)

    def parse_object(s_and_end, *args):
        try:
            return json.decoder.JSONObject(s_and_end, *args)
        except _Duplicate as exc:
            if exc.start < 0:
                exc.start = s_and_end[1] - 1
            raise

    decoder.parse_object = parse_object
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    try:
        decoder.decode(text)
    except _Duplicate as exc:
        return text.count("\n", 0, exc.start) + 1 if exc.start >= 0 else 0
    except (ValueError, RecursionError):
        pass
    return 0


def _lone_surrogate(data) -> tuple[str, str] | None:
    """The JSON pointer and text of the first key or string holding a lone surrogate (``"\\ud800"``), which
    no UTF-8 file can hold, so the rig could not be saved again; None when there is none."""
    stack = [("", data)]
    while stack:
        pointer, value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return pointer or "/", value
        elif isinstance(value, dict):
            for key, item in value.items():
                inner = f"{pointer}/{_escape(key)}"
                try:
                    key.encode("utf-8")
                except UnicodeEncodeError:
                    return inner, key
                stack.append((inner, item))
        elif isinstance(value, list):
            stack.extend((f"{pointer}/{i}", item) for i, item in enumerate(value))
    return None


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number; write a finite number")


def parse(text: str, file: str = "<string>", base=None) -> Apparatus:
    """An Apparatus from rig-file text; relative paths are read against ``base``."""
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_reject_constant)
    except _Duplicate as exc:
        raise RigFileError("rigfile.duplicate", f"the key {exc.key!r} appears twice in one object; keep one",
                           file, line=_duplicate_line(text)) from None
    except json.JSONDecodeError as exc:
        raise RigFileError("rigfile.json", f"not valid JSON: {exc.msg} (column {exc.colno})", file,
                           line=exc.lineno) from None
    except RecursionError:
        raise RigFileError("rigfile.json", "the JSON is nested too deeply to be a rig file", file) from None
    except ValueError as exc:
        raise RigFileError("rigfile.json", str(exc), file) from None
    bad = _lone_surrogate(data)
    if bad is not None:
        raise RigFileError("rigfile.value", f"{bad[1]!r} holds a lone UTF-16 surrogate (a \\ud800-\\udfff "
                                            "escape), which is not text; write the character itself", file,
                           bad[0], line_of(text, bad[0]))
    try:
        return _Reader(file).document(data, Path(base) if base is not None else Path.cwd())
    except RigFileError as exc:
        if not exc.pointer or exc.line:
            raise
        # the reader sees the parsed data only: the line is found in the text once, for the refusal
        raise RigFileError(exc.code, exc.message, exc.file, exc.pointer, line_of(text, exc.pointer)) from None


def load(path, base=None) -> Apparatus:
    """Read a rig file; raises :class:`RigFileError` (code, file, JSON pointer) when it is refused. Relative
    paths are read against ``base`` (default: the file's folder)."""
    path = Path(path)
    try:
        # a regular file within its size limit; a byte-order mark some editors write is skipped
        text = inputs.read_bytes(path, "rig").decode("utf-8-sig")
    except inputs.FileError as exc:
        raise RigFileError(exc.code, exc.message, str(path)) from None
    except OSError as exc:
        raise RigFileError("rigfile.io", f"cannot read the file ({exc.strerror or exc})", str(path)) from None
    except UnicodeDecodeError:
        raise RigFileError("rigfile.json", "the file is not UTF-8 text", str(path)) from None
    except ValueError as exc:  # a NUL byte in the path
        raise RigFileError("rigfile.io", f"cannot read the file ({exc})", str(path)) from None
    return parse(text, str(path), base=resolved(path).parent if base is None else base)


# -- writing ---------------------------------------------------------------------------------------
def _relative(path: str, base: Path | None, folder: Path) -> str:
    """``path`` (relative to ``base``) rewritten relative to ``folder``, with forward slashes."""
    p = Path(path)
    source_base = resolved(base or Path.cwd())
    if not p.is_absolute() and source_base == resolved(folder):
        return path  # same folder: keep it exactly as written
    absolute = p if p.is_absolute() else source_base / p
    try:
        return Path(os.path.relpath(absolute, resolved(folder))).as_posix()
    except ValueError:  # another drive (Windows): keep the absolute path
        return str(absolute)


def _quantity(q):
    if isinstance(q, Quantity):
        return {"value": q.value, "unit": q.unit, "reason": q.reason}
    return q  # a bare number (or None) is written as it is; validation reports it


def _measured(value, unit: str):
    return {"value": list(value) if isinstance(value, tuple) else value, "unit": unit}


def _geometry(g, base, folder) -> dict:
    """The rig file's object of a geometry: its type, its units, then its fields (a path relative to the
    file)."""
    kind = kind_of(g)
    d = {"type": kind.type, **{key: unit for key, unit in kind.unit_keys}}
    for f, value in zip(kind.fields, kind.values(g).values(), strict=True):
        d[f.name] = _relative(value, base, folder) if f.unit == "path" else value
    return d


def to_data(rig: Apparatus, folder) -> dict:
    """The JSON document of ``rig`` as it would be saved in ``folder``."""
    folder = Path(folder)
    chain = []
    for name, seg in rig.chain.items():
        d: dict = {"name": name, "kind": seg.kind}
        if isinstance(seg, _ArmSegment):
            d["description"] = _relative(seg.description, rig.base, folder)
        d["mount"] = seg.mount
        d["at"] = _measured(seg.at, "m")
        d["orientation"] = {"wxyz": list(seg.orientation)}
        d["servo_time_constant"] = _measured(seg.servo_time_constant, "s")
        if seg.field_tolerance is not None:  # written only when declared, so older files stay as they are
            d["field_tolerance"] = _quantity(seg.field_tolerance)
        if isinstance(seg, _ArmSegment):
            d["initial_positions"] = {"value": dict(seg.initial_positions), "unit": POSITIONS_UNIT}
            if seg.dynamic:
                d["armature"] = {k: _quantity(v) for k, v in seg.armature.items()}
                d["actuators"] = {k: _quantity(v) for k, v in seg.actuators.items()}
        elif isinstance(seg, LabSegment):
            package = seg.registrant()[0]
            if package:
                d["package"] = package  # what a machine without the kind is told to install
            d["params"] = dict(seg.params)
            d["initial_positions"] = {"value": dict(seg.initial_positions), "unit": POSITIONS_UNIT}
        elif isinstance(seg, _MotorSegment):
            d["axis"] = list(seg.axis)
            d["initial_position"] = _measured(seg.initial_position, "rad")
            if seg.dynamic:
                d["inertia"] = _quantity(seg.inertia)
        if seg.dynamic and not seg.carries_payload:  # written only when off, so older files stay as they are
            d["carries_payload"] = False
        chain.append(d)

    def part(p) -> dict:
        d = {"geometry": _geometry(p.geometry, rig.base, folder), "material": p.material,
             "at": _measured(p.at, "m"), "mount": p.mount, "mass": _quantity(p.mass),
             "density": _quantity(p.density)}
        if isinstance(p, PermanentMagnet):
            d["magnetisation"] = list(p.magnetisation)
            d["remanence"] = _quantity(p.remanence)
        return d

    dirs = {"package_dirs": [_relative(d, rig.base, folder) for d in rig.package_dirs]} \
        if rig.package_dirs else {}
    probes = {"probes": {k: {"at": _measured(v.at, "m"), "mount": v.mount} for k, v in rig.probes.items()}} \
        if rig.probes else {}  # a rig without probes is written as before they existed
    # samples and zones likewise: written only when the rig has some
    samples = {"samples": {k: _sample(v, rig.base, folder) for k, v in rig.samples.items()}} \
        if rig.samples else {}
    zones = {"zones": {k: _zone(v) for k, v in rig.zones.items()}} if rig.zones else {}
    poses = {"poses": {k: _pose(v) for k, v in rig.poses.items()}} if rig.poses else {}
    frames = {"frames": {k: {"mount": v.mount, "at": _measured(v.at, "m"),
                             "orientation": {"wxyz": list(v.orientation)}} for k, v in rig.frames.items()}} \
        if rig.frames else {}  # a rig without declared frames is written as before they existed
    trajectories = {"trajectories": {k: trajectory_data(v) for k, v in rig.trajectories.items()}} \
        if rig.trajectories else {}  # a rig without trajectories is written as before they existed
    # and the clearance only when the rig declares one, the targets when it has some
    clearance = {"clearance": _clearance(rig.clearance)} if rig.clearance is not None else {}
    targets = {"targets": {k: _target(v) for k, v in rig.targets.items()}} if rig.targets else {}
    return {"format": FORMAT, "version": VERSION, "name": rig.name, **dirs, "chain": chain, **frames,
            "parts": {k: part(v) for k, v in rig.parts.items()},
            "magnets": {k: part(v) for k, v in rig.magnets.items()}, **probes, **samples, **zones,
            **clearance, **poses, **trajectories, **targets}


def _target(t: FieldTarget) -> dict:
    """A target as written: where, the direction or the axis and frequency, then its bounds (the gradient's
    and the force's only when it has them)."""
    kind = {"direction": list(t.direction)} if t.direction is not None else \
        {"axis": list(t.axis), "frequency": _measured(t.frequency, "Hz")}
    bounds = {**({"max_gradient": _measured(t.max_gradient, "T/m")} if t.max_gradient is not None else {}),
              **({"max_force": _measured(t.max_force, "N")} if t.max_force is not None else {})}
    return {"at": t.at, **kind, "tolerance": _measured(t.tolerance, "rad"), "low": _measured(t.low, "T"),
            "high": _measured(t.high, "T"), "ellipticity": t.ellipticity, **bounds}


def _sample(sample: Sample, base, folder) -> dict:
    """A sample as written: what it declares (its shape or its moment), then where it is and how it turns."""
    d: dict = {}
    if sample.geometry is not None:
        d["geometry"] = _geometry(sample.geometry, base, folder)
    for key in ("material", "remanence", "moment"):
        if getattr(sample, key) is not None:
            d[key] = _quantity(getattr(sample, key)) if key != "material" else sample.material
    drag = {"drag": _quantity(sample.drag)} if sample.drag is not None else {}  # written only when declared
    return {**d, "magnetisation": list(sample.magnetisation), "at": _measured(sample.at, "m"),
            "mount": sample.mount, "orientation": sample.orientation, **drag}


def _zone(zone: Zone) -> dict:
    """A zone as written: its shape, where it is, its limit and its reason."""
    shape = {"box": _measured(zone.box, "m")} if zone.box is not None else {}
    if zone.sphere is not None:
        shape["sphere"] = _measured(zone.sphere, "m")
    return {**shape, "at": _measured(zone.at, "m"), "mount": zone.mount, "limit": _measured(zone.limit, "T"),
            "reason": zone.reason}


def _clearance(c: Clearance) -> dict:
    """The clearance as written: a declared margin and its reason, then the pairs allowed to touch."""
    margin = {"margin": _measured(c.margin, "m"), "reason": c.reason} if c.margin is not None else {}
    if c.margin is None and c.reason is not None:
        margin = {"reason": c.reason}
    return {**margin, "allow": [{"pair": [a.first, a.second], "reason": a.reason} for a in c.allow]}


def _pose(pose: Pose) -> dict:
    """A pose as written: its values in the order given, a value in a unit of its own as an object."""
    def value(segment, joint, v):
        own = pose.units.get(segment, {}).get(joint)
        return v if own is None else {"value": v, "unit": own}

    return {"value": {s: {j: value(s, j, v) for j, v in joints.items()} for s, joints in pose.values.items()},
            "unit": pose.unit}


def _keyframe(key: Keyframe) -> dict:
    """A keyframe as written: its time and interpolation, then what it gives (defaults left out)."""
    d: dict = {"time": _measured(key.time, "s"), "interpolation": key.interpolation}
    if key.pose is not None:
        d["pose"] = key.pose
    if key.values:
        d["values"] = dict(key.values)
    if key.frame is not None:
        d["frame"] = key.frame
    if key.spin is not None:
        spin = key.spin
        d["spin"] = {"frequency": {"value": spin.frequency, "unit": spin.unit},
                     "ramp": _measured(spin.ramp, "s"),
                     **({"hold": _measured(spin.hold, "s")} if spin.hold is not None else {}),
                     **({"turns": spin.turns} if spin.turns is not None else {})}
    if key.fixed:
        d["fixed"] = True
    return d


def trajectory_data(trajectory: Trajectory) -> dict:
    """A trajectory as the rig file writes it."""
    limits = {"acceleration_limits": {
        s: {j: {"value": v.value, "unit": v.unit, "reason": v.reason} for j, v in joints.items()}
        for s, joints in trajectory.acceleration_limits.items()}} if trajectory.acceleration_limits else {}
    segments = {s: [_keyframe(k) for k in keys] for s, keys in trajectory.segments.items()}
    return {"unit": trajectory.unit, "segments": segments, **limits}


_SCALAR = r"(?:-?[0-9.eE+\-]+|null|true|false)"
_NUMBER_LIST = re.compile(r"\[\n\s+(" + _SCALAR + r"(?:,\n\s+" + _SCALAR + r")*)\n\s*\]")


def _compact(text: str) -> str:
    """Lists of numbers on one line (JSON strings hold no raw newline, so only indentation is touched)."""
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def dumps(rig: Apparatus, folder) -> str:
    """The rig-file text of ``rig`` saved in ``folder``; refuses non-finite numbers (JSON has none)."""
    data = to_data(rig, folder)
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:
        raise RigFileError("rigfile.value", f"cannot write the rig: {exc} (JSON holds finite numbers only)") \
            from None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pointer, bad = _lone_surrogate(data) or ("", "")
        raise RigFileError("rigfile.value", f"cannot write the rig: {bad!r} holds a lone UTF-16 surrogate, "
                                            "which a UTF-8 file cannot hold", pointer=pointer) from None
    return _compact(text) + "\n"


def dumps_export(rig: Apparatus, folder) -> str:
    """:func:`dumps` with the export's ``provenance`` block (versions, rungs, file hashes) at the end."""
    data = json.loads(dumps(rig, folder))
    data["provenance"] = provenance.record(rig, folder)
    return _compact(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


def save(rig: Apparatus, path) -> Path:
    """Write ``rig`` to ``path`` atomically (temporary file in the same folder, fsync, rename).

    Paths in the file are made relative to its folder. On any failure the old file, if any, is untouched
    and the temporary file is removed. Returns the path written.
    """
    path = Path(path)
    text = dumps(rig, resolved(path).parent)  # before touching the disk
    return write_atomic(path, text)
