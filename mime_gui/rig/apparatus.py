"""The apparatus: a chain of segments, the parts and the magnets mounted on it, the probes where their
field is wanted, its named poses, the frames it declares on its segments and its authored trajectories.

This is the document the GUI edits, the CLI validates and the rig file stores. ``base`` is the folder that
relative paths (URDF descriptions, meshes) are read against: the rig file's folder when loaded from a file,
the working folder otherwise. It is where the rig lives, not part of what the rig is: equality compares the
files that paths name, not how they are spelled. ``package_dirs`` are folders (relative to ``base``) where the
descriptions' ``package://`` meshes are looked for.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from mime_gui.rig.clearance import Clearance
from mime_gui.rig.findings import Finding, RigError
from mime_gui.rig.frames import DeclaredFrame
from mime_gui.rig.geometries import with_paths
from mime_gui.rig.parts import Part, PermanentMagnet
from mime_gui.rig.poses import Pose
from mime_gui.rig.probes import Probe
from mime_gui.rig.samples import Sample
from mime_gui.rig.segments import Segment
from mime_gui.rig.targets import FieldTarget
from mime_gui.rig.trajectories import Trajectory
from mime_gui.rig.zones import Zone


class Apparatus:
    """``Apparatus(name, chain={...}, parts={...}, magnets={...}, probes={...}, poses={...},
    frames={...}, trajectories={...})``: chain in order, first segment first."""

    def __init__(self, name: str, chain: dict[str, Segment] | None = None,
                 parts: dict[str, Part] | None = None, magnets: dict[str, PermanentMagnet] | None = None,
                 base: str | Path | None = None, package_dirs=(), probes: dict[str, Probe] | None = None,
                 poses: dict[str, Pose] | None = None, frames: dict[str, DeclaredFrame] | None = None,
                 trajectories: dict[str, Trajectory] | None = None, samples: dict[str, Sample] | None = None,
                 zones: dict[str, Zone] | None = None, clearance: Clearance | None = None,
                 targets: dict[str, FieldTarget] | None = None):
        for what, value in (("chain", chain), ("parts", parts), ("magnets", magnets), ("probes", probes),
                            ("poses", poses), ("frames", frames), ("trajectories", trajectories),
                            ("samples", samples), ("zones", zones), ("targets", targets)):
            if value is not None and not isinstance(value, dict):
                raise TypeError(f"{what} maps names to {what}, got {type(value).__name__}")
        self.name = name
        self.chain: dict[str, Segment] = dict(chain or {})
        self.parts: dict[str, Part] = dict(parts or {})
        self.magnets: dict[str, PermanentMagnet] = dict(magnets or {})
        self.probes: dict[str, Probe] = dict(probes or {})
        self.poses: dict[str, Pose] = dict(poses or {})
        for name, pose in self.poses.items():
            if not isinstance(pose, Pose):
                raise TypeError(f"poses maps names to Pose values, got {name!r}: {type(pose).__name__}")
        self.frames: dict[str, DeclaredFrame] = dict(frames or {})
        for name, frame in self.frames.items():
            if not isinstance(frame, DeclaredFrame):
                raise TypeError(f"frames maps names to DeclaredFrame values, got {name!r}: "
                                f"{type(frame).__name__}")
        self.trajectories: dict[str, Trajectory] = dict(trajectories or {})
        for name, trajectory in self.trajectories.items():
            if not isinstance(trajectory, Trajectory):
                raise TypeError(f"trajectories maps names to Trajectory values, got {name!r}: "
                                f"{type(trajectory).__name__}")
        # the small magnets the field acts on, and where it must stay weak
        self.samples: dict[str, Sample] = dict(samples or {})
        self.zones: dict[str, Zone] = dict(zones or {})
        for what, items, cls in (("samples", self.samples, Sample), ("zones", self.zones, Zone)):
            for name, item in items.items():
                if not isinstance(item, cls):
                    raise TypeError(f"{what} maps names to {cls.__name__} values, got {name!r}: "
                                    f"{type(item).__name__}")
        # the margin kept between moving items and the pairs allowed to touch (None: the default margin)
        if clearance is not None and not isinstance(clearance, Clearance):
            raise TypeError(f"clearance is a Clearance value, got {type(clearance).__name__}")
        self.clearance: Clearance | None = clearance
        # the fields probes and samples need, for the planner (mime_gui.field.planner)
        self.targets: dict[str, FieldTarget] = dict(targets or {})
        for name, target in self.targets.items():
            if not isinstance(target, FieldTarget):
                raise TypeError(f"targets maps names to FieldTarget values, got {name!r}: "
                                f"{type(target).__name__}")
        self.base: Path | None = Path(base) if base is not None else None
        if isinstance(package_dirs, str | os.PathLike):
            raise TypeError(f"package_dirs is a list of folders, got {package_dirs!r}")
        self.package_dirs: list[str] = [os.fspath(d) for d in package_dirs]

    def package_folders(self) -> list[Path]:
        """``package_dirs`` as folders, relative ones read against ``base``."""
        base = Path(self.base) if self.base is not None else Path.cwd()
        return [p if p.is_absolute() else base / p for p in map(Path, self.package_dirs)]

    # -- rules and build ---------------------------------------------------------------------------
    def validate(self) -> list[Finding]:
        """Every rule broken, as findings (``[]`` when the rig is valid)."""
        from mime_gui.rig.rules import analyse

        return analyse(self).findings

    def build(self):
        """The :class:`~mime_gui.rig.build.BuiltRig`; raises :class:`RigError` carrying the findings."""
        from mime_gui.rig.build import build

        return build(self)

    # -- helpers -----------------------------------------------------------------------------------
    def solids(self):
        """``(collection, name, part)`` for every part, then every magnet."""
        for name, part in self.parts.items():
            yield "parts", name, part
        for name, magnet in self.magnets.items():
            yield "magnets", name, magnet

    def _canonical(self):
        """What the rig is: chain order matters, and a relative path stands for the file it names."""
        base = os.path.abspath(self.base if self.base is not None else os.getcwd())

        def where(path: str) -> str:
            return os.path.normpath(os.path.join(base, path))

        def segment(seg):
            return replace(seg, description=where(seg.description)) if hasattr(seg, "description") else seg

        def part(p):
            g = with_paths(p.geometry, where)
            return p if g is p.geometry else replace(p, geometry=g)

        return (self.name, [where(d) for d in self.package_dirs],
                [(n, segment(s)) for n, s in self.chain.items()],
                {n: part(p) for n, p in self.parts.items()}, {n: part(p) for n, p in self.magnets.items()},
                self.probes, self.poses, self.frames, self.trajectories,
                {n: s if s.geometry is None else part(s) for n, s in self.samples.items()}, self.zones,
                self.clearance, self.targets)

    def __eq__(self, other) -> bool:
        """Equal rigs: same name, same chain in the same order, same parts, magnets, probes, poses,
        trajectories and declared frames (in any order: one mounted on another is placed after it whatever
        the order); paths compare by the file they name (``arm.urdf`` beside the rig equals
        ``../demo/arm.urdf`` from another folder)."""
        if not isinstance(other, Apparatus):
            return NotImplemented
        return self._canonical() == other._canonical()

    __hash__ = None

    def __repr__(self) -> str:
        return (f"Apparatus({self.name!r}, chain={self.chain!r}, parts={self.parts!r}, "
                f"magnets={self.magnets!r}" + (f", probes={self.probes!r}" if self.probes else "")
                + (f", poses={self.poses!r}" if self.poses else "")
                + (f", frames={self.frames!r}" if self.frames else "")
                + (f", trajectories={self.trajectories!r}" if self.trajectories else "")
                + (f", samples={self.samples!r}" if self.samples else "")
                + (f", zones={self.zones!r}" if self.zones else "")
                + (f", clearance={self.clearance!r}" if self.clearance is not None else "")
                + (f", targets={self.targets!r})" if self.targets else ")"))


__all__ = ["Apparatus", "Finding", "RigError"]
