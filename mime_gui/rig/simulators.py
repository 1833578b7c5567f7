"""The whole rig as one tree, for the simulators' formats: URDF (:mod:`mime_gui.rig.urdf_export`) and MuJoCo's
MJCF (:mod:`mime_gui.rig.mjcf_export`).

A rig is a chain of segments, each its own tree on its mount frame. A simulator reads one tree, so
:func:`whole` hangs every segment's built tree (grafted parts and declared frames included) from its mount
frame by its placement, under one root link, ``world``:

- every link and joint of a segment is named ``<segment>/<name>`` (:data:`SEPARATOR`: a slash is valid in
  URDF and MJCF names and is how ROS spells a namespaced frame), so the rig's frame ``arm.tool0`` is the
  link ``arm/tool0``; the fixed joint hanging a segment on its mount is ``<segment>/mount:<root link>``;
- a part or magnet on a segment is the link the build grafts it as, ``<segment>/part:<name>``, with its
  mass and inertia (on a kinematic segment too: a simulator moves every body it holds, so the parts keep
  their mass, as the coupled torques give them); one fixed in the world is ``part:<name>`` under ``world``;
- a probe is a massless link ``<segment>/probe:<name>`` (``probe:<name>`` in the world) welded at its point;
- a sample is a massless link ``<segment>/sample:<name>`` (``sample:<name>`` in the world) at its point: the
  small magnet the field moves is no body of the apparatus (a simulation gives it its own free body);
- a declared frame is the massless link the rules weld to its mount, ``<segment>/<name>``.

The armature of every joint (its value, source and reason), each magnet's moment and each segment's kind
and servo time constant travel beside the tree (:class:`Whole`), for the writers' comments and extensions.

Meshes are copied beside the export (:class:`MeshCopies`) into the folder ``<stem>_meshes/`` and named
relative to the exported file: read through :mod:`mime_gui.mesh_files` (the size and archive checks), written
through the atomic writer. A part's solid of a kind no format has a primitive for (a ring, an arc) is written
there as an STL of its triangles.
"""

from __future__ import annotations

import dataclasses
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mime_gui import __version__, mesh_files
from mime_gui.errors import CodedError, printable
from mime_gui.files import write_atomic
from mime_gui.multibody import MultibodyTree
from mime_gui.multibody.tree import Inertial, Joint, Link, Solid
from mime_gui.rig import provenance
from mime_gui.rig.build import build, graft_link
from mime_gui.rig.dynamics import LabSegment
from mime_gui.rig.findings import RigError
from mime_gui.rig.rules import analyse
from mime_gui.rig.visuals import part_shape

SEPARATOR = "/"
WORLD = "world"
PROBE_PREFIX = "probe:"
SAMPLE_PREFIX = "sample:"
MOUNT_PREFIX = "mount:"
#: characters an XML 1.0 attribute cannot hold as themselves (a reader turns tabs and newlines into spaces)
_NOT_XML = re.compile("[\x00-\x1f\x7f\ufffe\uffff\ud800-\udfff]")


class ExportError(CodedError):
    """A rig the format cannot hold (``export.*``): the code, the item and what to do."""


@dataclass(frozen=True)
class Armature:
    """A joint's armature in the whole tree, as the rig's build report gives it."""

    value: float
    unit: str
    source: str  # declared, reflected or none
    detail: str
    reason: str | None


@dataclass(frozen=True)
class Magnet:
    """A magnet's moment (A m²), its magnetisation's direction (unit, in its link's axes), remanence (T)."""

    name: str
    moment: float
    direction: tuple[float, float, float]
    remanence: float


@dataclass(frozen=True)
class SegmentInfo:
    name: str
    kind: str
    dynamic: bool
    root: str  # its root link in the whole tree
    servo_time_constant: float
    lab: bool  # a lab's own kind: its frames and joints are written at its params, not its factory
    joints: tuple[str, ...]  # its movable joints in the whole tree, in its own q order


@dataclass
class Whole:
    """The whole rig as one :class:`MultibodyTree` rooted at :data:`WORLD`, with what the tree cannot say."""

    tree: MultibodyTree
    armature: dict[str, Armature] = field(default_factory=dict)
    magnets: dict[str, Magnet] = field(default_factory=dict)  # link → its magnet
    roles: dict[str, str] = field(default_factory=dict)  # link → link, part, magnet, frame or probe
    segments: dict[str, SegmentInfo] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)  # joint → the segment it belongs to
    provenance: dict = field(default_factory=dict)
    built: object = None  # the BuiltRig the tree was made from


def named(segment: str, name: str) -> str:
    """A segment's link or joint ``name`` in the whole tree."""
    return f"{segment}{SEPARATOR}{name}"


def _check_name(name: str, where: str) -> None:
    if _NOT_XML.search(name):
        raise ExportError(
            "export.name",
            f"the name '{printable(name)}' holds a character an XML name "
            "cannot keep (a control character, a tab or a newline, U+FFFE, U+FFFF or half of a surrogate "
            "pair); rename it",
            where,
        )


def _massive(mass) -> bool:
    return mass is not None and (mass.mass > 0 or bool(np.any(mass.inertia)))


def whole(rig, folder) -> Whole:
    """The whole tree of a valid ``rig`` exported into ``folder``; raises :class:`RigError` with the rig's
    findings while it breaks a rule, :class:`ExportError` for a name an XML file cannot hold or two items
    that would take one name."""
    a = analyse(rig)
    if a.findings:
        raise RigError(a.findings)
    built = build(rig, a)
    tree = MultibodyTree(
        name=rig.name, links={WORLD: Link(WORLD)}, joints={}, root=WORLD, source=f"<rig {rig.name}>"
    )
    out = Whole(tree, provenance=provenance.record(rig, folder), built=built)
    out.roles[WORLD] = "link"
    declared = set(rig.frames)
    reports = {s["name"]: s for s in built.report.data["segments"]}
    for name, s in built.segments.items():
        _check_name(name, f"chain.{name}")
        items = {link: item for link, item in s.grafts.items()}
        for link in s.tree.links.values():
            _check_name(link.name, f"chain.{name}.{link.name}")
            inertial = link.inertial
            if link.name in items and not s.segment.dynamic:  # massless on a kinematic segment: see above
                mass = a.masses.get(items[link.name])
                if _massive(mass):
                    inertial = Inertial(mass=mass.mass, link_X_com=np.eye(4), inertia=mass.inertia.copy())
            _add_link(
                out,
                dataclasses.replace(link, name=named(name, link.name), inertial=inertial),
                f"chain.{name}",
            )
            collection = items.get(link.name, (None,))[0]
            out.roles[named(name, link.name)] = (
                "magnet"
                if collection == "magnets"
                else "part"
                if collection == "parts"
                else "frame"
                if link.name in declared
                else "link"
            )
        parent = WORLD if s.mount is None else named(*s.mount)
        root = named(name, s.tree.root)
        _add_joint(
            out,
            Joint(
                named(name, MOUNT_PREFIX + s.tree.root),
                "fixed",
                parent,
                root,
                np.asarray(s.placement, dtype=float),
            ),
            name,
        )
        for joint in s.tree.joints.values():
            _check_name(joint.name, f"chain.{name}.{joint.name}")
            mimic = (
                joint.mimic
                if joint.mimic is None
                else dataclasses.replace(joint.mimic, joint=named(name, joint.mimic.joint))
            )
            _add_joint(
                out,
                dataclasses.replace(
                    joint,
                    name=named(name, joint.name),
                    parent=named(name, joint.parent),
                    child=named(name, joint.child),
                    mimic=mimic,
                ),
                name,
            )
        for j in reports[name]["joints"]:
            out.armature[named(name, j["joint"])] = Armature(
                float(j["value"]), j["unit"], j["source"], j["detail"], j["reason"]
            )
        for link, (collection, pname) in items.items():
            if collection == "magnets" and pname in a.moments:
                out.magnets[named(name, link)] = _magnet(pname, a.moments[pname])
        out.segments[name] = SegmentInfo(
            name,
            s.segment.kind,
            s.segment.dynamic,
            root,
            float(s.segment.servo_time_constant),
            isinstance(s.segment, LabSegment),
            tuple(named(name, j) for j in s.articulation.joint_names),
        )
    for collection, pname, part in rig.solids():  # fixed in the world
        if a.part_mounts.get((collection, pname)) is not None:
            continue
        mass = a.masses[(collection, pname)]
        link = graft_link(pname)
        _check_name(pname, f"{collection}.{pname}")
        inertial = (
            Inertial(mass=mass.mass, link_X_com=np.eye(4), inertia=mass.inertia.copy())
            if _massive(mass)
            else None
        )
        X = np.eye(4)
        X[:3, 3] = part.at
        _add_link(
            out,
            Link(link, inertial=inertial, visuals=[part_shape(part, mass.centroid, rig.base)]),
            f"{collection}.{pname}",
        )
        _add_joint(out, Joint(link, "fixed", WORLD, link, X), None)
        out.roles[link] = "magnet" if collection == "magnets" else "part"
        if collection == "magnets" and pname in a.moments:
            out.magnets[link] = _magnet(pname, a.moments[pname])
    # probes and samples: points, massless links welded where they are (on their mount, or in the world)
    for collection, prefix, role in (("probes", PROBE_PREFIX, "probe"), ("samples", SAMPLE_PREFIX, "sample")):
        for pname, point in getattr(rig, collection, {}).items():
            _check_name(pname, f"{collection}.{pname}")
            mount = _probe_mount(point.mount, built)
            link = prefix + pname if mount is None else named(mount[0], prefix + pname)
            X = np.eye(4)
            X[:3, 3] = point.at
            _add_link(out, Link(link), f"{collection}.{pname}")
            _add_joint(
                out,
                Joint(link, "fixed", WORLD if mount is None else named(*mount), link, X),
                None if mount is None else mount[0],
            )
            out.roles[link] = role
    return out


def _probe_mount(mount, built) -> tuple[str, str] | None:
    if mount is None:
        return None
    for seg, s in built.segments.items():  # the rules resolved it so: the first segment holding the frame
        if mount.startswith(seg + ".") and mount[len(seg) + 1 :] in s.tree.links:
            return seg, mount[len(seg) + 1 :]
    return None


def _magnet(name: str, m) -> Magnet:
    return Magnet(name, float(m.moment), tuple(float(v) for v in m.direction), float(m.remanence))


def _add_link(out: Whole, link: Link, where: str) -> None:
    if link.name in out.tree.links:
        raise ExportError(
            "export.name",
            f"two items would be the link '{printable(link.name)}' of the exported tree; rename one of them",
            where,
        )
    out.tree.links[link.name] = link


def _add_joint(out: Whole, joint: Joint, segment: str | None) -> None:
    if joint.name in out.tree.joints:
        raise ExportError(
            "export.name",
            f"two items would be the joint '{printable(joint.name)}' of the "
            "exported tree; rename one of them",
            joint.name,
        )
    out.tree.joints[joint.name] = joint
    out.tree.__dict__.pop("_parent_index", None)
    if segment is not None:
        out.owner[joint.name] = segment


# -- meshes ----------------------------------------------------------------------------------------------


class MeshCopies:
    """The meshes of one export, copied (or converted) once each into ``<stem>_meshes/`` beside it."""

    def __init__(self, target: Path, convert: tuple[str, ...] = ()):
        self.target = Path(target)
        self.folder = self.target.parent / f"{self.target.stem}_meshes"
        self.convert = convert  # file types written as STL (MuJoCo reads STL, OBJ and MSH only)
        self.copied: dict[tuple, str] = {}
        self.taken: set[str] = set()

    def _name(self, stem: str, suffix: str) -> str:
        stem = re.sub(r"[^A-Za-z0-9._-]", "_", stem) or "mesh"
        name, n = f"{stem}{suffix}", 1
        while name.lower() in self.taken:
            n += 1
            name = f"{stem}_{n}{suffix}"
        self.taken.add(name.lower())
        return name

    def _write(self, name: str, data: bytes) -> str:
        self.folder.mkdir(exist_ok=True)  # beside the export: its folder must exist, as for every write
        write_atomic(self.folder / name, data)
        return f"{self.folder.name}/{name}"

    def mesh(self, filename: str) -> str:
        """The relative name of the copy of the mesh file ``filename`` (an absolute path)."""
        source = Path(filename)
        kind = mesh_files.file_type(source)
        key = ("file", str(source))
        if key not in self.copied:
            if kind in self.convert:
                data = _as_stl(mesh_files.load(source, force="mesh"))
                self.copied[key] = self._write(self._name(source.stem, ".stl"), data)
            else:
                name, data = self._name(source.stem, source.suffix.lower()), mesh_files.read(source)
                if kind == "obj":  # its material libraries, for the colours: each file copied once
                    data = provenance.renamed_libraries(source, data, self._library)
                self.copied[key] = self._write(name, data)
        return self.copied[key]

    def _library(self, lib: Path) -> str:
        """The name of the copy of the material library ``lib``: two libraries of one name from two folders
        are two copies, each OBJ naming its own."""
        key = ("library", str(lib))
        if key not in self.copied:
            self.copied[key] = self._write(self._name(lib.stem, lib.suffix), mesh_files.read(lib))
        return self.copied[key].rpartition("/")[2]

    def solid(self, link: str, solid: Solid) -> str:
        """The relative name of an STL holding ``solid``'s triangles."""
        import trimesh

        mesh = trimesh.Trimesh(
            np.asarray(solid.vertices, dtype=float), np.asarray(solid.faces), process=False
        )
        return self._write(self._name(link.replace(SEPARATOR, "_").replace(":", "_"), ".stl"), _as_stl(mesh))


def _as_stl(mesh) -> bytes:
    buffer = io.BytesIO()
    mesh.export(buffer, file_type="stl")
    return buffer.getvalue()


# -- text ------------------------------------------------------------------------------------------------


def num(x) -> str:
    """A float as XML writes it: ``repr`` (round-trips every finite float)."""
    x = float(x)
    return repr(x) if math.isfinite(x) else ("inf" if x > 0 else "-inf" if x < 0 else "nan")


def nums(values) -> str:
    return " ".join(num(v) for v in values)


def comment(text: str) -> str:
    """``text`` as an XML comment: printable, no ``--`` inside and none at its end."""
    text = printable(str(text))
    while "--" in text:
        text = text.replace("--", "- -")
    return f"<!-- {text} -->"


def header_lines(whole_: Whole, fmt: str, source: str = "") -> list[str]:
    """The provenance and the rig's own words, as comment lines: versions, hashes, segments, armature."""
    block = whole_.provenance
    lines = [
        f"A MIME rig as {fmt}, exported by mime-gui {__version__}" + (f" from {source}" if source else ""),
        f"rig {whole_.tree.name!r}; names are <segment>{SEPARATOR}<link or joint>; lengths in m, angles in "
        "rad, masses in kg, inertias in kg m2",
        "provenance: mime_gui " + block.get("mime_gui", ""),
    ]
    for name, seg in block.get("segments", {}).items():
        info = whole_.segments.get(name)
        lab = (
            " (a lab's own kind: its frames and joints at its params; its factory is not in this file)"
            if info is not None and info.lab
            else ""
        )
        servo = f", servo time constant {num(info.servo_time_constant)} s" if info is not None else ""
        lines.append(
            f"segment {name}: {seg['kind']} ({' '.join(v for v in (seg['package'], seg['version']) if v)}, "
            f"rung {seg['rung']})"
            f"{servo}{lab}"
        )
    for rel, entry in block.get("files", {}).items():
        lines.append(f"file {rel}: sha256 {entry['sha256']} (used by {entry.get('used_by', '?')})")
    return lines


def armature_line(joint: str, a: Armature) -> str:
    reason = f"; reason: {a.reason}" if a.reason and a.reason not in a.detail else ""
    return f"armature of {joint}: {num(a.value)} {a.unit} ({a.source}: {a.detail}{reason})"


def check_target(path) -> Path:
    path = Path(path)
    if path.is_dir():
        raise ExportError("export.io", "this is a folder; give the file to write", str(path))
    return path
