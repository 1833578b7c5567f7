"""The document: the rig as written (possibly breaking rules), its findings, the last build that
succeeded, and the segments drawn from it.

Every open file is a rig: a URDF opens as a one-segment rig around that file (an ``Arm.Kinematic``), so what
the user adds to it is saved as a rig file beside it. ``kind`` says which kind of file was opened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mime_gui.multibody import Articulation, MultibodyTree
from mime_gui.rig.apparatus import Apparatus
from mime_gui.rig.findings import Finding


@dataclass(eq=False)
class DrawnSegment:
    """One drawn segment of the document: its tree (with the grafted parts), the compiled articulation,
    where it is placed, and the chain node's state and command for it.

    ``q`` (joint positions, the state), ``command`` and ``world_X_frame`` are replaced, never written in
    place, so a view may keep what it was given."""

    name: str
    tree: MultibodyTree
    articulation: Articulation
    q: np.ndarray
    world_X_frame: np.ndarray  # (nframes, 4, 4) at q, in the world (through the mount)
    kind: str = "Arm.Kinematic"  # the rig's kind of segment ('Arm.Dynamic', 'Motor.Kinematic', …)
    mount: tuple[str, str] | None = None  # (segment, frame) this segment rides on; None: the world
    placement: np.ndarray = field(default_factory=lambda: np.eye(4))  # mount_X_base (world_X_base)
    command: np.ndarray | None = None  # the commanded joints' commands (KinematicArmNode.command_names)
    key: object = None  # what the drawing depends on: equal keys, same tree and articulation
    # grafted link → (collection, name) of the part or magnet it stands for (the build's BuiltSegment.grafts)
    grafts: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # joint name → the rig's initial position, where the chain node starts it when nothing is carried over
    initial: Mapping[str, float] = field(default_factory=dict)

    def frame_pose(self, name: str) -> np.ndarray:
        return self.world_X_frame[self.articulation.frame_index(name)]

    def item_of(self, link: str) -> tuple[str, str] | None:
        """``(collection, name)`` of the part or magnet ``link`` is grafted for; None for a link of the
        segment's own description."""
        return self.grafts.get(link)

    def graft_of(self, name: str) -> str | None:
        """The link the part or magnet called ``name`` is drawn as on this segment; None when it is not."""
        return next((link for link, (_, n) in self.grafts.items() if n == name), None)


@dataclass(eq=False)
class Document:
    path: str  # the file opened or last saved ('' for a rig built in Python, until it is saved)
    kind: str  # the kind of file opened: 'urdf' or 'rig'
    rig: Apparatus
    findings: tuple[Finding, ...] = ()
    built: object = None  # the last BuiltRig that succeeded (None until the rig is valid once)
    analysis: object = None  # the rules' Analysis of ``rig`` (the next edit's analysis takes over from it)
    segments: dict[str, DrawnSegment] = field(default_factory=dict)
    # the bundle (.zip) this document was extracted from, '' otherwise: ``path`` is then the extracted copy
    # in the bundle cache, which is no place to keep work (Save asks for a name)
    bundle: str = ""

    @property
    def source(self) -> Apparatus:
        """The rig as written (kept for callers of the viewer era)."""
        return self.rig

    @property
    def valid(self) -> bool:
        return not self.findings

    @property
    def name(self) -> str:
        if self.bundle:
            return f"{Path(self.path).name} (from the bundle {Path(self.bundle).name})"
        if self.path:
            return Path(self.path).name
        return str(self.rig.name or "untitled")

    def reports(self) -> dict:
        """Segment name → the ReadReport of its description."""
        return {name: seg.tree.report for name, seg in self.segments.items()}
