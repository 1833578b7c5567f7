"""Build a valid apparatus: grafted articulations with armature, the build report, whole-chain playback.

On a dynamic segment every mounted part is welded to its frame's link as a new link ``part:<name>`` (placed
at the part's centroid, axes those of the mount frame) carrying the part's mass; the link's own inertial stays
as the description gave it, so the composite inertia is the sum. On a kinematic segment the part's link is
welded the same way but carries no mass (the segment prescribes its motion). Every graft link is a frame, so
playback gives every mounted part's pose.

:meth:`BuiltRig.play` steps every segment through the rig's
:class:`~mime_gui.rig.chain_node.ChainNode`: a later segment rides on its mount frame's pose and angular
velocity from the earlier segment's trajectory (a dynamic segment plays kinematically here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial

import numpy as np

from mime_gui.multibody import Articulation, MultibodyTree
from mime_gui.multibody.tree import Inertial
from mime_gui.rig.findings import RigError
from mime_gui.rig.geometries import paths_of
from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.payload import carry, report_entry
from mime_gui.rig.report import RigReport, geometry_dict, link_inertials
from mime_gui.rig.rules import Analysis, analyse
from mime_gui.rig.segments import _ArmSegment, _MotorSegment
from mime_gui.rig.visuals import part_shape

# how a graft link is named (files and reports name them so); what a graft link stands for is read from
# BuiltSegment.grafts, never from its name
GRAFT_PREFIX = "part:"


def graft_link(name: str) -> str:
    """The link a part or magnet called ``name`` is grafted as."""
    return GRAFT_PREFIX + name


def frame_under_grafts(tree: MultibodyTree, link: str) -> str | None:
    """The description's own frame a grafted part's link hangs from (``link`` itself when not a graft);
    None when a graft has no parent joint."""
    while link in tree.part_links:
        joint = tree.parent_joint(link)
        if joint is None:
            return None
        link = joint.parent
    return link


@dataclass(frozen=True, eq=False)
class BuiltSegment:
    name: str
    segment: object
    tree: MultibodyTree  # with the grafted parts
    articulation: Articulation  # compiled from ``tree`` with the armature
    mount: tuple[str, str] | None  # (segment, frame) it rides on; None: the world
    placement: np.ndarray  # mount_X_base (or world_X_base for the first segment)
    # grafted link → (collection, name) of the part or magnet it stands for: what a drawn link is, so no
    # caller reads it from the link's name
    grafts: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # what rides on it, how its riders are welded on and how they hang on it (mime_gui.rig.payload.carry),
    # made on first use: an edit is drawn without waiting for the payload's mass properties
    ride: Callable[[], tuple] | None = field(default=None, repr=False)
    weld: Callable[[], Articulation] | None = field(default=None, repr=False)
    hang: Callable[[], object] | None = field(default=None, repr=False)

    @property
    def riders(self) -> tuple:
        """The segments it carries, as rigid bodies (:class:`mime_gui.rig.payload.Rider`), in mount order
        (``ride`` makes them once)."""
        return () if self.ride is None else self.ride()

    @cached_property
    def carrying(self) -> Articulation | None:
        """``articulation`` with the riders welded on (None: no payload)."""
        return None if self.weld is None else self.weld()

    @cached_property
    def coupled(self):
        """The riders hung on it, moving (:class:`mime_gui.rig.coupled.Coupled`, its torques); None: none."""
        return None if self.hang is None else self.hang()

    def link_of(self, item: tuple[str, str]) -> str | None:
        """The link the part or magnet ``(collection, name)`` is grafted as here; None when it is not."""
        return next((link for link, it in self.grafts.items() if it == tuple(item)), None)

    @property
    def dynamics_articulation(self) -> Articulation:
        """What its dynamics use: the articulation with its payload welded on, when it carries one."""
        return self.articulation if self.carrying is None else self.carrying


_TAIL = {"joint_positions": (), "frame_poses": (4, 4), "frame_angular_velocities": (3,)}  # after (T, n)


@dataclass(frozen=True, eq=False)
class RigTrajectory:
    """Whole-chain playback: ``segments[name]`` is each segment's :class:`~mime_gui.nodes.Trajectory`; the
    stacked arrays name joints and frames ``<segment>.<name>`` in chain order."""

    segments: dict
    joint_names: tuple[str, ...]
    frame_names: tuple[str, ...]
    command_names: tuple[str, ...]
    dt: float
    initial: dict | None = None  # each segment's NodeState before step 0
    steps: int = 0  # T: a chain of no segment still has its steps (and no joint nor frame at each)

    def _stack(self, attr: str) -> np.ndarray:
        if not self.segments:
            return np.zeros((self.steps, 0) + _TAIL[attr])
        return np.concatenate([getattr(t, attr) for t in self.segments.values()], axis=1)

    @property
    def joint_positions(self) -> np.ndarray:
        return self._stack("joint_positions")

    @property
    def frame_poses(self) -> np.ndarray:
        return self._stack("frame_poses")

    @property
    def frame_angular_velocities(self) -> np.ndarray:
        return self._stack("frame_angular_velocities")

    @property
    def clamped(self) -> np.ndarray:
        if not self.segments:
            return np.zeros(0, dtype=int)
        return np.concatenate([t.clamped for t in self.segments.values()])

    def __len__(self) -> int:
        return len(next(iter(self.segments.values()))) if self.segments else self.steps

    def times(self, start: float = 0.0) -> np.ndarray:
        return start + self.dt * np.arange(1, len(self) + 1)

    def as_trajectory(self):
        """One :class:`~mime_gui.nodes.Trajectory` with the stacked arrays."""
        from mime_gui.nodes import Trajectory

        return Trajectory(self.joint_positions, self.frame_poses, self.frame_angular_velocities, self.dt,
                          self.clamped)


class BuiltRig:
    """A built apparatus: ``report``, ``articulation(segment)``, ``node(segment)`` and ``play(...)``."""

    def __init__(self, apparatus, segments: dict[str, BuiltSegment], report: Callable[[], RigReport],
                 analysis: Analysis):
        self.apparatus = apparatus
        self.segments = segments
        self.analysis = analysis  # what the rules resolved
        self._report = report
        self._nodes: dict = {}  # segment -> its node with the rig's servo time constant

    @cached_property
    def report(self) -> RigReport:
        """The build report, made on first use."""
        return self._report()

    def articulation(self, segment: str) -> Articulation:
        """The segment's Articulation with its armature and grafted parts."""
        try:
            return self.segments[segment].articulation
        except KeyError:
            raise KeyError(f"no segment {segment!r}; segments: {', '.join(self.segments)}") from None

    def dynamics_articulation(self, segment: str) -> Articulation:
        """The segment's Articulation with its armature, grafted parts and payload (what its dynamics use)."""
        self.articulation(segment)
        return self.segments[segment].dynamics_articulation

    def node(self, segment: str, servo_time_constant: float | None = None):
        """A :class:`~mime_gui.nodes.KinematicArmNode` for the segment, placed as the rig places it (with the
        rig's servo time constant: made once, a node holds no state)."""
        from mime_gui.nodes import KinematicArmNode

        s = self.segments[segment]
        if servo_time_constant is None:
            node = self._nodes.get(segment)
            if node is None:
                node = self._nodes[segment] = self.node(segment, s.segment.servo_time_constant)
            return node
        return KinematicArmNode(s.articulation, servo_time_constant=servo_time_constant,
                                placement=s.placement)

    def chain_node(self, servo_time_constant: float | None = None):
        """The :class:`~mime_gui.rig.chain_node.ChainNode` of every segment, each on its mount."""
        from mime_gui.rig.chain_node import ChainNode, ChainSegment

        return ChainNode({n: ChainSegment(s.articulation, s.placement, s.mount, s.segment.servo_time_constant)
                          for n, s in self.segments.items()}, servo_time_constant)

    # -- names -------------------------------------------------------------------------------------
    @property
    def command_names(self) -> tuple[str, ...]:
        """Every commandable joint as ``<segment>.<joint>``, in chain order."""
        return tuple(f"{n}.{j}" for n in self.segments for j in self.node(n).command_names)

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(f"{n}.{j}" for n, s in self.segments.items() for j in s.articulation.joint_names)

    @property
    def frame_names(self) -> tuple[str, ...]:
        return tuple(f"{n}.{f}" for n, s in self.segments.items() for f in s.articulation.frame_names)

    def initial_commands(self) -> np.ndarray:
        """The rig's initial positions of every command, in :attr:`command_names` order."""
        out = []
        for n, s in self.segments.items():
            init = s.segment.initial_positions
            out += [init.get(j, 0.0) for j in self.node(n).command_names]
        return np.array(out, dtype=float)

    # -- playback ----------------------------------------------------------------------------------
    def play(self, commands, dt: float, initial_positions=None, servo_time_constant: float | None = None,
             progress: Callable[[int, int], None] | None = None) -> RigTrajectory:
        """Step every segment in chain order for ``T`` steps of ``dt`` seconds.

        ``commands``: a ``(T, len(command_names))`` array, or a mapping from a segment name to its
        ``(T, ncommands)`` commands or from ``<segment>.<joint>`` to a ``(T,)`` column (joints not given hold
        their initial position). ``initial_positions``: a mapping ``<segment>.<joint>`` → value overriding the
        rig's initial positions. ``servo_time_constant`` overrides every segment's.
        """
        names = self.command_names
        u, T = self._command_array(commands, names)
        init = self.initial_commands()
        for key, value in (initial_positions or {}).items():
            if key not in names:
                raise KeyError(f"unknown command {key!r}; commands: {', '.join(names)}")
            init[names.index(key)] = float(value)
        per_segment, initial, col = {}, {}, 0
        for n in self.segments:
            k = len(self.node(n).command_names)
            per_segment[n], initial[n] = u[:, col:col + k], init[col:col + k]
            col += k
        chain = self.chain_node(servo_time_constant)
        played = chain.play(per_segment, dt, initial, progress=progress)
        out = {n: played[n] for n in self.segments}  # chain order, for the stacked arrays
        return RigTrajectory(out, self.joint_names, self.frame_names, names, float(dt),
                             chain.initial_state(initial), T)

    def torques(self, trajectory: RigTrajectory, start: float = 0.0, gravity=(0.0, 0.0, -9.81)):
        """The joint torques ``trajectory`` asks of every dynamic segment, and the limits it exceeds
        (:func:`mime_gui.rig.torques.rig_torques`)."""
        from mime_gui.rig.torques import rig_torques

        return rig_torques(self, trajectory.segments, trajectory.initial, trajectory.dt, start, gravity)

    def _command_array(self, commands, names) -> tuple[np.ndarray, int]:
        if not isinstance(commands, Mapping):
            u = np.asarray(commands, dtype=float)
            if u.ndim != 2 or u.shape[1] != len(names):
                raise ValueError(f"commands must be a (T, {len(names)}) array ({', '.join(names)}), "
                                 f"got shape {u.shape}")
            return u, len(u)
        lengths = {len(np.asarray(v)) for v in commands.values()}
        if len(lengths) != 1:
            raise ValueError("every command must have the same number of steps")
        T = lengths.pop()
        u = np.tile(self.initial_commands(), (T, 1))
        for key, value in commands.items():
            value = np.asarray(value, dtype=float)
            if key in self.segments:
                cols = [i for i, c in enumerate(names) if c.startswith(key + ".")]
                if value.ndim == 1 and len(cols) == 1:
                    value = value[:, None]
                if value.shape != (T, len(cols)):
                    raise ValueError(f"commands of {key!r} must have shape ({T}, {len(cols)}), got "
                                     f"{value.shape}")
                u[:, cols] = value
            elif key in names:
                if value.shape != (T,):
                    raise ValueError(f"command {key!r} must have shape ({T},), got {value.shape}")
                u[:, names.index(key)] = value
            else:
                raise KeyError(f"unknown command {key!r}; segments: {', '.join(self.segments)}; commands: "
                               f"{', '.join(names)}")
        return u, T


def _build_segment(name: str, seg, apparatus, a: Analysis, lenient: bool = False, reuse=None) \
        -> tuple[BuiltSegment, list[dict]]:
    """One segment with its parts grafted (and its armature, unless ``lenient``). ``lenient`` builds what
    can be drawn of a rig that breaks rules: parts whose mount, place or shape is not known are left out,
    and a placement that breaks a rule stands at the identity. ``reuse``: the ``(tree, articulation)`` of an
    earlier build of the same description, armature, declared frames and mounted parts (only the placement
    may differ): they are taken as they are instead of grafted and compiled again."""
    tree = a.trees[name].copy() if reuse is None else None
    grafts, items = [], {}
    for collection, pname, part in apparatus.solids():
        mount = a.part_mounts.get((collection, pname))
        if mount is None or mount[0] != name:
            continue
        mass = a.masses.get((collection, pname))
        if mass is None and (not lenient or paths_of(part.geometry)
                             or _has_finding(a, f"{collection}.{pname}", ("geometry", "at"))):
            continue  # lenient: drawn while its material or mass is being fixed, not a shape or place (nor
            # a shape from a file: without a mass, its file may not be readable)
        X = np.eye(4)
        X[:3, 3] = part.at
        inertial = None
        if seg.dynamic and mass is not None and (mass.mass > 0 or np.any(mass.inertia)):
            inertial = Inertial(mass=mass.mass, link_X_com=np.eye(4), inertia=mass.inertia.copy())
        link = graft_link(pname)
        if tree is None:  # reused: grafted as before, by the first item of that name
            if link in reuse[0].part_links and link not in items:
                items[link] = (collection, pname)
        else:
            if link in tree.links:  # a duplicate name (a finding): the first one is drawn
                continue
            items[link] = (collection, pname)
            grafted = tree.add_fixed_link(link, mount[1], X, inertial)
            centroid = mass.centroid if mass is not None else \
                part.geometry.mass_properties(apparatus.base).centroid  # drawn while its mass is being fixed
            grafted.visuals.append(part_shape(part, centroid, apparatus.base))
            tree.part_links.add(link)
        if seg.dynamic and mass is not None:
            grafts.append({"part": pname, "segment": name, "link": mount[1], "graft": link,
                           "mass": mass.mass, "at": list(part.at),
                           "inertia_about_centroid": mass.inertia.tolist()})
    if reuse is None:
        armature = {} if lenient else {s.joint: s.value for s in a.armature.get(name, [])}
        art = tree.compile(armature=armature or None)
    else:
        tree, art = reuse
    placeable = not lenient or not _has_finding(a, f"chain.{name}", ("at", "orientation"))
    placement = seg.placement() if placeable else np.eye(4)
    return BuiltSegment(name, seg, tree, art, a.segment_mounts.get(name), placement, grafts=items), grafts


def _has_finding(a: Analysis, item: str, fields) -> bool:
    prefixes = tuple(f"{item}.{f}" for f in fields)
    return any(f.where == p or f.where.startswith(p + ".") for f in a.findings for p in prefixes)


def display_segments(apparatus, analysis: Analysis | None = None, reuse=None) -> dict[str, BuiltSegment]:
    """What can be drawn of any rig, valid or not: every segment whose description was read, with the parts
    whose mount and shape are known (see :func:`_build_segment`), each on its mount where it resolved, else
    in the world. For the app's view of a rig being fixed; never for export or dynamics."""
    a = analysis if analysis is not None else analyse(apparatus)
    reuse = reuse or {}
    return {name: _build_segment(name, seg, apparatus, a, lenient=True, reuse=reuse.get(name))[0]
            for name, seg in apparatus.chain.items() if a.trees.get(name) is not None}


def build(apparatus, analysis: Analysis | None = None, reuse=None) -> BuiltRig:
    """Validate and build; raises :class:`RigError` carrying every finding when the rig is not valid.
    ``analysis``: the rig's :func:`~mime_gui.rig.rules.analyse`, when the caller has it already; ``reuse``:
    segment name → ``(tree, articulation)`` still valid from an earlier build (see :func:`_build_segment`)."""
    a = analysis if analysis is not None else analyse(apparatus)
    if a.findings:
        raise RigError(a.findings)
    segments: dict[str, BuiltSegment] = {}
    grafts: list[dict] = []
    for name, seg in apparatus.chain.items():
        segments[name], seg_grafts = _build_segment(name, seg, apparatus, a, reuse=(reuse or {}).get(name))
        grafts += seg_grafts
    segments = carry(segments, apparatus, a)
    return BuiltRig(apparatus, segments, partial(_report, apparatus, a, segments, grafts), a)


def _report(apparatus, a: Analysis, segments: dict[str, BuiltSegment], grafts: list[dict]) -> RigReport:
    """The build report of a built rig (see :mod:`mime_gui.rig.report`), made when it is first read."""
    mounted_mass = {n: 0.0 for n in apparatus.chain}
    parts_report: list[dict] = []
    for collection, name, part in apparatus.solids():
        mass = a.masses[(collection, name)]
        mount = a.part_mounts[(collection, name)]
        entry = {
            "name": name, "role": "magnet" if isinstance(part, PermanentMagnet) else "part",
            "collection": collection, "mount": part.mount, "at": list(part.at),
            "geometry": geometry_dict(part.geometry), "material": part.material, "volume": mass.volume,
            "mass": mass.mass, "density": mass.density, "mass_source": mass.source,
            "mass_detail": mass.detail,
            "centroid_in_geometry": mass.centroid.tolist(), "inertia_about_centroid": mass.inertia.tolist(),
        }
        if mount is None:
            entry["carried"] = "fixed in the world: carried by no segment"
            entry["carried_by"] = None
        else:
            seg = apparatus.chain[mount[0]]
            mounted_mass[mount[0]] += mass.mass
            entry["carried_by"] = mount[0] if seg.dynamic else None
            entry["carried"] = (f"grafted onto {mount[0]}.{mount[1]} (dynamic segment)" if seg.dynamic else
                                f"rides on {mount[0]}.{mount[1]}; {mount[0]} is kinematic and carries "
                                f"no mass")
        if name in a.moments:
            entry["magnet"] = a.moments[name].to_dict()
        parts_report.append(entry)

    seg_report = []
    for name, seg in apparatus.chain.items():
        entry = _segment_report(name, seg, a, segments[name].tree, mounted_mass[name])
        entry["payload"] = report_entry(name, seg, list(segments[name].riders))
        seg_report.append(entry)

    world = sum(p["mass"] for p in parts_report if p["mount"] is None)
    carried = sum(p["mass"] for p in parts_report if p["carried_by"] is not None)
    total = sum(p["mass"] for p in parts_report)
    counts: dict[str, int] = {}
    for s in seg_report:
        for j in s["joints"]:
            counts[j["source"]] = counts.get(j["source"], 0) + 1
    totals = {
        "segments_mass": sum(s["mass"]["own"] for s in seg_report),
        "parts_mass": total, "carried_mass": carried, "world_mass": world,
        "kinematic_mass": total - carried - world,
        "massless": [p["name"] for p in parts_report if p["mass_source"] == "none"],
        "armature": counts,
        "magnets": sum(1 for p in parts_report if "magnet" in p),
        "magnetic_moment": sum(p["magnet"]["moment"] for p in parts_report if "magnet" in p),
    }
    return RigReport({"rig": apparatus.name, "segments": seg_report, "parts": parts_report,
                      "grafts": grafts, "totals": totals})


def _segment_report(name: str, seg, a: Analysis, tree: MultibodyTree, mounted: float) -> dict:
    mount = a.segment_mounts.get(name)
    links = link_inertials(tree)
    entry = {
        "name": name, "kind": seg.kind, "dynamic": seg.dynamic,
        "description": seg.description if isinstance(seg, _ArmSegment) else None,
        "mount": f"{mount[0]}.{mount[1]}" if mount else None,
        "at": list(seg.at), "orientation": list(seg.orientation),
        "servo_time_constant": seg.servo_time_constant,
        "initial_positions": dict(seg.initial_positions),
        "frames": list(a.frames[name]),
        "links": links if isinstance(seg, _ArmSegment) else [],
        "mass": {"own": sum(link["mass"] for link in links), "mounted": mounted},
    }
    if name in a.armature:
        entry["joints"] = [s.to_dict() for s in a.armature[name]]
    else:
        why = ("kinematic segment: prescribed motion, no armature" if not seg.dynamic else
               "a motor's rotor is its own body; no armature")
        entry["joints"] = [{"joint": j, "type": tree.joints[j].type, "value": 0.0,
                            "unit": "kg" if tree.joints[j].type == "prismatic" else "kg m2", "source": "none",
                            "detail": why, "reason": None} for j in tree.movable_joint_names()]
    if isinstance(seg, _MotorSegment):
        entry["axis"] = list(seg.axis)
        q = getattr(seg, "inertia", None)
        entry["rotor_inertia"] = (None if q is None else
                                  {"value": q.value, "unit": q.unit, "reason": q.reason})
    return entry
