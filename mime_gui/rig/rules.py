"""The rules a rig must satisfy, each with a stable code, checked in one pass.

:func:`analyse` reads every description once and resolves what the build needs (each segment's tree, each
mount, each part's mass, each joint's armature source), collecting a :class:`~mime_gui.rig.findings.Finding`
for every rule broken. ``Apparatus.validate`` returns those findings; ``Apparatus.build`` refuses with them.
Every finding carries a rig path such as ``chain.arm.mount`` or ``parts.holder.mount``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import import_module

from mime_gui.multibody import MultibodyTree, UrdfError
from mime_gui.multibody.magnitudes import MAX_INERTIA, MAX_LENGTH
from mime_gui.multibody.resolve import package_dirs as process_dirs
from mime_gui.rig.armature import ArmatureSource, armature_sources
from mime_gui.rig.dynamics import DynamicsError, LabSegment
from mime_gui.rig.findings import Finding
from mime_gui.rig.geometries import paths_of
from mime_gui.rig.geometries.tables import geometry_rule
from mime_gui.rig.mass import MagnetMoment, PartMass, magnet_moment, part_mass
from mime_gui.rig.mount_rules import resolve_mount
from mime_gui.rig.names import MAX_NAME_LENGTH, RULE, good_name, good_title, rule, shown
from mime_gui.rig.parts import PermanentMagnet
from mime_gui.rig.registry_epoch import epoch
from mime_gui.rig.segments import MOTOR_JOINT, _ArmSegment, _MotorSegment
from mime_gui.rig.tolerance_rules import tolerance_problems
from mime_gui.rig.units import KG_M2, check_declaration

#: Every rule code, with what it refuses.
RULES = {
    "chain.mount-first": "the first segment is placed in the world with at/orientation and takes no mount",
    "chain.mount": "a later segment mounts on a frame of the segment before it, or <segment>.<frame> of an "
                   "earlier one",
    "chain.description": "an arm's URDF description must be readable; a lab kind must be registered and its "
                         "factory must give its frames for the segment's `params` (at "
                         "`chain.<segment>.kind` / `.params`)",
    "chain.inertia": "a dynamic arm's links have physical mass properties (a positive semi-definite inertia, "
                     "a mass >= 0); a kinematic arm needs none",
    "chain.placement": "at must be finite (each coordinate within ±1e6 m) and orientation a finite unit "
                       "quaternion (w, x, y, z)",
    "chain.initial-positions": "initial positions name movable joints, finite and within their limits",
    "chain.servo": "the servo time constant is finite and not negative",
    "chain.field-tolerance": "a segment's declared field tolerance (the largest |B| its joints take) is in "
                             "tesla, finite, positive and at most 100 T, with a reason",
    "chain.motor": "a motor has an axis with a direction, and a dynamic one its rotor inertia (at most "
                   "1e21 kg m2)",
    "chain.armature": "each joint's armature comes from one place: declared, or reflected through an "
                      "existing transmission from a known actuator, on a movable joint, finite, not "
                      "negative and at most 1e21 kg m2 (1e9 kg on a sliding joint)",
    "part.mount": "a part mounts on <segment>.<frame> of the chain, or nowhere (fixed in the world)",
    "part.placement": "a part's at is finite, each coordinate within ±1e6 m",
    "part.geometry": geometry_rule(),  # from the geometry kinds: their bounds and conditions
    "part.material": "a part's material is one of the materials table",
    "part.mass": "a part declares a mass or a density, not both, finite and not negative; its mass is at "
                 "most 1e9 kg",
    "magnet.magnetisation": "a magnet's magnetisation direction is a non-zero vector",
    "magnet.remanence": "a magnet has a remanence, from its material or declared, finite, not negative and "
                        "at most 100 T",
    "probe.mount": "a probe mounts on <segment>.<frame> of the chain, or nowhere (fixed in the world)",
    "probe.placement": "a probe's at is finite, each coordinate within ±1e6 m",
    "probe.inside-magnet": "a probe is not inside a magnet on the same frame (on its surface at the nearest)",
    "sample.name": f"a sample's name is {RULE}, and not the name "
                   "of a segment, part, magnet, probe or other sample",
    "sample.mount": "a sample mounts on <segment>.<frame> of the chain, or nowhere (fixed in the world)",
    "sample.placement": "a sample's at is finite, each coordinate within ±1e6 m",
    "sample.moment": "a sample has a geometry or a declared moment (A m2, with a reason), one of them; a "
                     "declared moment is finite, positive and at most 1e6 A m2",
    "sample.geometry": "a sample's geometry is a solid kind (not a mesh), as a part's geometry",
    "sample.material": "a sample's material is one of the materials table, and a sample with a declared "
                       "moment has none",
    "sample.remanence": "a sample with a geometry has a remanence, from its magnetic material or declared, "
                        "finite, not negative and at most 100 T; one with a declared moment declares none",
    "sample.magnetisation": "a sample's magnetisation direction is a non-zero vector",
    "sample.orientation": "a sample's orientation is fixed (held in its mount frame) or follows (along the "
                          "field)",
    "sample.drag": "a sample's declared rotational drag is in N m s, finite, positive and at most 1e6 N m s, "
                   "with a reason, on a sample that follows the field",
    "zone.name": f"a zone's name is {RULE}, and not the name of a "
                 "segment, part, magnet, probe, sample or other zone",
    "zone.mount": "a zone mounts on <segment>.<frame> of the chain, or nowhere (fixed in the world)",
    "zone.placement": "a zone's at is finite, each coordinate within ±1e6 m",
    "zone.shape": "a zone is a box (three full sizes) or a sphere (a radius), one of them, finite, positive "
                  "and at most 1e6 m",
    "zone.limit": "a zone's |B| limit is finite, positive and at most 100 T",
    "zone.reason": "a zone says why it is there",
    "target.name": f"a target's name is {RULE}, and differs from "
                   "every other target's in more than case",
    "target.at": "a target asks for the field at a probe or a sample of the rig (probes.<name> or "
                 "samples.<name>)",
    "clearance.declaration": "a declared clearance margin is finite, not negative and at most 1e6 m, and "
                             "says why",
    "clearance.allow": "a pair allowed to touch names two different items (parts.<name>, magnets.<name>, "
                       "samples.<name> or <segment>.<link>), once, with a reason",
    "pose.name": f"a pose's name is {RULE}, and differs from every "
                 "other pose's in more than case",
    "pose.segment": "a pose names segments of the chain",
    "pose.joint": "a pose names its segments' commandable joints: movable, and not a mimic follower (give "
                  "its master)",
    "pose.unit": "a value of a pose written in a unit of its own is an angle (rad, deg) on a turning joint "
                 "and a length (m, mm) on a sliding one",
    "pose.limits": "a pose's values are finite and within their joints' limits",
    "frame.name": f"a declared frame's name is {rule(', colons')}, and "
                  "not already a link or a joint of its segment",
    "frame.mount": "a declared frame mounts on <segment>.<frame> of the chain: a frame of the segment's "
                   "description or another declared frame of it, not itself nor a ring of frames",
    "frame.at": "a declared frame's at is finite, each coordinate within ±1e6 m",
    "frame.orientation": "a declared frame's orientation is a finite unit quaternion (w, x, y, z) within "
                         "1e-6",
    "trajectory.name": f"a trajectory's name is {RULE}, and "
                       "differs from every other trajectory's in more than case",
    "trajectory.segment": "a trajectory's keyframes and acceleration limits name segments of the chain",
    "trajectory.joint": "a keyframe's values and an acceleration limit name their segment's commandable "
                        "joints: movable, and not a mimic follower (give its master)",
    "trajectory.time": "a segment's keyframes are at finite times from 0 to 1e9 s, each after the one before",
    "trajectory.value": "a keyframe's values are finite and within their joints' limits",
    "trajectory.pose": "a keyframe's pose is a pose of the rig that gives positions of the keyframe's "
                       "segment",
    "trajectory.interpolation": "a keyframe's interpolation is linear, cubic, quintic, hold, line or spin",
    "trajectory.frame": "a line names a frame of its segment, and only a line names a frame",
    "trajectory.spin": "a spin turns a segment with one turning joint: a frequency (Hz or rpm) finite, "
                       "not zero and within ±1e6 Hz, a ramp from 0 s, a hold time or a number of turns "
                       "(one), and its keyframe no earlier than its end; only a spin has a spin profile, and "
                       "it gives no values",
    "trajectory.limits": "an acceleration limit is finite and positive, in rad/s2 or deg/s2 on a turning "
                         "joint and m/s2 or mm/s2 on a sliding one",
    "declaration.reason": "every declared value says where it comes from",
    "unit": "a declared value carries its unit (kg, kg_m2, kg_per_m3, tesla), not a bare number",
    "name.duplicate": "segments, parts, magnets and probes have distinct names",
    "name.invalid": f"names are {RULE}",
}


@dataclass
class Analysis:
    """What validation resolved; the build reads it instead of resolving again."""

    findings: list[Finding] = field(default_factory=list)
    trees: dict[str, MultibodyTree | None] = field(default_factory=dict)
    frames: dict[str, list[str]] = field(default_factory=dict)
    frame_sets: dict[str, frozenset[str]] = field(default_factory=dict)  # the same, for membership tests
    declared: dict[str, tuple[str, str]] = field(default_factory=dict)  # frame → (segment, frame it is on)
    segment_mounts: dict[str, tuple[str, str] | None] = field(default_factory=dict)
    part_mounts: dict[tuple[str, str], tuple[str, str] | None] = field(default_factory=dict)
    masses: dict[tuple[str, str], PartMass] = field(default_factory=dict)
    moments: dict[str, MagnetMoment] = field(default_factory=dict)
    armature: dict[str, list[ArmatureSource]] = field(default_factory=dict)
    # what a later analysis of an edited rig may take over (see :func:`analyse`'s ``since``): the rig read,
    # the registries' epoch then, the chain's findings, and each part's results by (collection, name)
    rig: object = field(default=None, repr=False)
    epoch: int = -1
    process_dirs: tuple[str, ...] = ()  # the process's package folders then (descriptions read under them)
    chain_findings: tuple[Finding, ...] = ()
    solids: dict = field(default_factory=dict, repr=False)
    stages: dict[str, tuple[Finding, ...]] = field(default_factory=dict, repr=False)

    def add(self, code: str, where: str, message: str) -> None:
        self.findings.append(Finding(code, where, message))


def _listing(names, limit: int = 16) -> str:
    names = list(names)
    if not names:
        return "(none)"
    return ", ".join(names[:limit]) + (f" … ({len(names) - limit} more)" if len(names) > limit else "")


def _finite(values) -> bool:
    return all(math.isfinite(v) for v in values)


def _placed(values) -> bool:
    """A position every later sum can take: finite, each coordinate within ±:data:`MAX_LENGTH`."""
    return all(math.isfinite(v) and abs(v) <= MAX_LENGTH for v in values)


def _check_names(rig, a: Analysis) -> None:
    if not good_title(rig.name):
        a.add("name.invalid", "name", f"the apparatus needs a name: non-empty text of at most "
                                      f"{MAX_NAME_LENGTH} characters without control characters, got "
                                      f"{shown(rig.name)}")
    seen: dict[str, str] = {}
    for collection in ("chain", "parts", "magnets", "probes"):
        for name in getattr(rig, collection):
            where = f"{collection}.{name}"
            if not good_name(name):
                a.add("name.invalid", where, f"{shown(name)} is not a valid name: use {RULE}")
                continue
            if name in seen:
                a.add("name.duplicate", where, f"{name!r} is already the name of {seen[name]}; rename one")
            else:
                seen[name] = where


def _segment_tree(name: str, seg, rig, a: Analysis) -> MultibodyTree | None:
    where = f"chain.{name}"
    if isinstance(seg, _ArmSegment):
        if not seg.description.strip() or "\x00" in seg.description:
            a.add("chain.description", f"{where}.description", f"{seg.description!r} is not the path of a "
                                                               "URDF file; give the file's path, relative to "
                                                               "the rig file")
            return None
        try:
            return seg.tree(rig.base, rig.package_folders())
        except UrdfError as exc:
            a.add("chain.description", f"{where}.description", f"cannot read {seg.description!r}: "
                                                               f"[{exc.code}] {exc.diagnostic.message}")
            return None
        except OSError as exc:
            a.add("chain.description", f"{where}.description", f"cannot read {seg.description!r} "
                                                               f"({exc.strerror or exc}); check the path")
            return None
    if isinstance(seg, _MotorSegment):
        try:
            return seg.tree(rig.base, name)
        except ValueError as exc:
            a.add("chain.motor", f"{where}.axis", f"{exc}; give a non-zero axis such as (0, 0, 1)")
            return None
    if isinstance(seg, LabSegment):  # a lab's registered kind: its factory gives the frames and channels
        try:
            return seg.tree(rig.base, name)
        except DynamicsError as exc:
            at = f"{where}.kind" if exc.code == "dynamics.unknown" else f"{where}.params"
            a.add("chain.description", at, exc.diagnostic.message)
            return None
    a.add("chain.description", where, f"a segment is an Arm, a Motor or a registered kind "
                                      f"(register_dynamics), got {type(seg).__name__}")
    return None


def _check_segment(index: int, name: str, seg, rig, a: Analysis) -> None:
    where = f"chain.{name}"
    names = list(rig.chain)
    if not _placed(seg.at):
        a.add("chain.placement", f"{where}.at", f"at {seg.at} must be finite (m), each coordinate within "
                                                f"±{MAX_LENGTH:g} m")
    norm = math.sqrt(sum(v * v for v in seg.orientation)) if _finite(seg.orientation) else float("nan")
    if not math.isfinite(norm) or abs(norm - 1.0) > 1e-6:
        a.add("chain.placement", f"{where}.orientation", f"orientation {seg.orientation} must be a unit "
                                                         f"quaternion (w, x, y, z); normalise it")
    tau = seg.servo_time_constant
    if not math.isfinite(tau) or tau < 0:
        a.add("chain.servo", f"{where}.servo_time_constant", f"the servo time constant must be finite "
                                                             f"and not negative, got {tau} s")
    for code, message in tolerance_problems(seg.field_tolerance):
        a.add(code, f"{where}.field_tolerance", message)

    # mounts
    if index == 0:
        a.segment_mounts[name] = None
        if seg.mount is not None:
            a.add("chain.mount-first", f"{where}.mount", f"the first segment {name!r} is placed in the "
                                                         f"world with at/orientation and takes no mount (got "
                                                         f"{seg.mount!r})")
    else:
        a.segment_mounts[name] = _resolve_segment_mount(name, seg.mount, names[:index], a)

    tree = a.trees.get(name)
    if tree is None:
        return
    # initial positions
    movable = tree.movable_joint_names()
    for joint, value in seg.initial_positions.items():
        w = f"{where}.initial_positions.{joint}"
        j = tree.joints.get(joint)
        if j is None or not j.movable:
            a.add("chain.initial-positions", w, f"{joint!r} is not a movable joint of {tree.name!r}; movable "
                                                f"joints: {_listing(movable)}")
        elif not math.isfinite(value):
            a.add("chain.initial-positions", w, f"the initial position of {joint!r} must be finite, got "
                                                f"{value}")
        elif j.limit is not None and j.type != "continuous" and not j.limit.lower <= value <= j.limit.upper:
            a.add("chain.initial-positions", w, f"the initial position {value} of {joint!r} is outside "
                                                f"its limits [{j.limit.lower}, {j.limit.upper}]")
    # motors
    if isinstance(seg, _MotorSegment) and seg.dynamic:
        q = seg.inertia
        if q is None:
            a.add("chain.motor", f"{where}.inertia", "a dynamic motor needs its rotor inertia: "
                                                     "inertia=kg_m2(value, reason=...)")
        else:
            for code, message in check_declaration(q, KG_M2, "the rotor inertia", "kg_m2(value, reason=...)",
                                                   "chain.motor"):
                a.add(code, f"{where}.inertia", message)
            value = getattr(q, "value", 0.0)
            if isinstance(value, int | float) and math.isfinite(value) and value > MAX_INERTIA:
                a.add("chain.motor", f"{where}.inertia", f"the rotor inertia {value:g} kg m2 is beyond "
                                                         f"{MAX_INERTIA:g} kg m2; check the value")
    if seg.dynamic and isinstance(seg, _ArmSegment):
        _check_inertias(where, tree, a)
    # armature
    if seg.dynamic and isinstance(seg, _ArmSegment):
        sources, problems = armature_sources(seg, tree)
        for code, w, message in problems:  # an armature beyond its bound too, at the entry that gives it
            a.add(code, f"{where}.{w}", message)
        a.armature[name] = sources


def _check_inertias(where: str, tree: MultibodyTree, a: Analysis) -> None:
    """A dynamic arm needs physical mass properties: one finding per link whose description has none."""
    for name, link in tree.links.items():
        if link.inertial is not None and link.inertial.error:
            a.add("chain.inertia", f"{where}.description", f"link {name!r} of {tree.name!r}: "
                                                           f"{link.inertial.error}. A dynamic arm needs its "
                                                           "mass properties: fix them in the description, or "
                                                           "make the segment Arm.Kinematic")


def _resolve_segment_mount(name: str, mount, earlier: list[str], a: Analysis) -> tuple[str, str] | None:
    where = f"chain.{name}.mount"
    prev = earlier[-1]
    prev_frames = a.frames.get(prev)
    if mount is None:
        a.add("chain.mount", where, f"segment {name!r} must mount on a frame of {prev!r}: "
                                    f"{_listing(prev_frames or [])}")
        return None
    if prev_frames is not None and mount in a.frame_sets[prev]:
        return prev, mount
    for seg in earlier:
        if mount.startswith(seg + ".") and mount[len(seg) + 1:] in a.frame_sets.get(seg, ()):
            return seg, mount[len(seg) + 1:]
    if any(a.frames.get(seg) is None for seg in earlier):
        return None  # an earlier description failed; that finding says why
    others = [f"{seg}.<frame>" for seg in earlier[:-1]]
    a.add("chain.mount", where, f"{mount!r} is not a frame segment {name!r} can mount on; frames of "
                                f"{prev!r}: "
                                f"{_listing(prev_frames)}" + (f"; or {', '.join(others)} of an earlier "
                                                              f"segment"
                                                              if others else ""))
    return None


def _same_chain(rig, since: Analysis) -> bool:
    """Whether ``rig``'s chain and declared frames are those ``since`` analysed: the same segment and frame
    objects in the same order, the same folders and registries. (Rigs are edited by replacing items, never
    in place; a description changed on disk is read again by reopening the rig.)"""
    old = since.rig
    return (old is not None and since.epoch == epoch() and since.process_dirs == process_dirs()
            and old.base == rig.base and old.package_dirs == rig.package_dirs
            and _same_items(old.chain, rig.chain) and _same_items(old.frames, rig.frames))


def _same_items(old: dict, new: dict) -> bool:
    return list(old) == list(new) and all(old[k] is v for k, v in new.items())


# The rules checked after the parts, in order: (stage, its module, whose check_<stage>(rig, a) adds its
# findings; the rig's collections whose items it reads; those whose names only it reads). Each reads the
# chain's trees and mounts besides.
_STAGES = (
    ("probes", "probe_rules", ("probes", "magnets"), ()),
    ("samples", "sample_rules", ("samples",), ("chain", "parts", "magnets", "probes")),
    ("zones", "zone_rules", ("zones",), ("chain", "parts", "magnets", "probes", "samples")),
    ("clearance", "clearance_rules", ("clearance",), ()),
    ("poses", "pose_rules", ("poses",), ()),
    ("trajectories", "trajectory_rules", ("trajectories", "poses"), ()),
    ("targets", "target_rules", ("targets",), ("probes", "samples")),
)


def _same_inputs(old, new, items, names) -> bool:
    """Whether a stage reads the same in ``new`` as in ``old``: the same objects (none naming a file, which
    may have changed on disk) and the same names."""
    for c in items:
        before, now = getattr(old, c), getattr(new, c)
        if not isinstance(now, dict):
            if before is not now:
                return False
            continue
        if not _same_items(before, now) or any(paths_of(getattr(v, "geometry", None)) for v in now.values()):
            return False
    return all(list(getattr(old, c)) == list(getattr(new, c)) for c in names)


def _check_chain(rig, a: Analysis) -> None:
    for name, seg in rig.chain.items():
        a.trees[name] = _segment_tree(name, seg, rig, a)
    from mime_gui.rig.frame_rules import declare_frames

    # before any mount is resolved: a declared frame is then a frame like the description's
    a.declared = declare_frames(rig, a)
    for name, tree in a.trees.items():
        if tree is not None:
            a.frames[name] = tree.link_order()
            a.frame_sets[name] = frozenset(a.frames[name])
    for index, (name, seg) in enumerate(rig.chain.items()):
        _check_segment(index, name, seg, rig, a)


def _take_chain(a: Analysis, since: Analysis) -> None:
    """The chain's trees, frames, mounts, armature and findings as ``since`` resolved them."""
    a.trees = dict(since.trees)
    a.declared = dict(since.declared)
    a.frames = dict(since.frames)
    a.frame_sets = dict(since.frame_sets)
    a.segment_mounts = dict(since.segment_mounts)
    a.armature = dict(since.armature)
    a.findings += since.chain_findings


def _check_solid(rig, a: Analysis, collection: str, name: str, part) -> MagnetMoment | None:
    """One part's or magnet's rules; its mount and mass go in ``a``; returns its magnet's moment."""
    where = f"{collection}.{name}"
    a.part_mounts[(collection, name)] = resolve_mount(f"{where}.mount", part.mount, rig, a, "part")
    if not _placed(part.at):
        a.add("part.placement", f"{where}.at", f"at {part.at} must be finite (m), each coordinate "
                                               f"within ±{MAX_LENGTH:g} m")
    mass, problems = part_mass(part, rig.base)
    for code, w, message in problems:
        a.add(code, f"{where}.{w}", message)
    if mass is not None:
        a.masses[(collection, name)] = mass
    if isinstance(part, PermanentMagnet):
        moment, problems = magnet_moment(part, mass.volume if mass is not None else None)
        for code, w, message in problems:
            a.add(code, f"{where}.{w}", message)
        if moment is not None:
            a.moments[name] = moment
        return moment
    if collection == "magnets":
        a.add("magnet.magnetisation", where, "a magnet is a PermanentMagnet (with a magnetisation), "
                                             "not a plain Part; move it to parts or make it a magnet")
    return None


def analyse(rig, since: Analysis | None = None) -> Analysis:
    """Check every rule and resolve what the build needs. ``since``: the analysis of the rig this one was
    edited from; what the edit left as it was (the chain and declared frames, each part or magnet whose
    shape needs no file) is taken from it, its findings in their places, instead of checked again."""
    a = Analysis(rig=rig, epoch=epoch(), process_dirs=process_dirs())
    _check_names(rig, a)
    chain_kept = since is not None and _same_chain(rig, since)
    start = len(a.findings)
    if chain_kept:
        _take_chain(a, since)
    else:
        _check_chain(rig, a)
    a.chain_findings = tuple(a.findings[start:])
    for collection in ("parts", "magnets"):
        for name, part in getattr(rig, collection).items():
            key = (collection, name)
            old = since.solids.get(key) if chain_kept else None
            if old is not None and old[0] is part and not paths_of(part.geometry):
                _, findings, mount, mass, moment = old
                a.part_mounts[key] = mount
                a.findings += findings
                if mass is not None:
                    a.masses[key] = mass
                if moment is not None:
                    a.moments[name] = moment
            else:
                start = len(a.findings)
                moment = _check_solid(rig, a, collection, name, part)
                findings = tuple(a.findings[start:])
            a.solids[key] = (part, findings, a.part_mounts[key], a.masses.get(key), moment)
    for stage, module, items, names in _STAGES:
        old = since.stages.get(stage) if chain_kept else None
        if old is not None and _same_inputs(since.rig, rig, items, names):
            a.findings += old
            a.stages[stage] = old
            continue
        start = len(a.findings)
        getattr(import_module(f"mime_gui.rig.{module}"), f"check_{stage}")(rig, a)
        a.stages[stage] = tuple(a.findings[start:])
    return a


__all__ = ["MOTOR_JOINT", "RULES", "Analysis", "analyse"]
