"""Export a valid rig as MuJoCo's MJCF: the whole chain as nested bodies (:func:`export_mjcf`).

What goes where (see docs/simulators.md):

- every link of the whole tree (:func:`mime_gui.rig.simulators.whole`) is a ``<body>`` placed by its parent
  joint; a movable joint is a ``hinge`` (revolute, continuous) or ``slide`` (prismatic) at the body's origin
  with its ``range`` (finite limits only), ``damping``, ``frictionloss`` and ``armature`` (the rig's, each
  with its source and reason in a comment before it); a mimic joint is an ``<equality><joint>`` with the
  multiplier and offset as ``polycoef``;
- a link welded by a fixed joint that holds nothing (no mass, no shape, nothing on it: a declared frame, a
  probe, a description's bare frame) is a ``<site>`` of its parent body;
- inertials as ``<inertial pos quat mass diaginertia/>`` (the principal axes of the link's inertia); geoms
  are drawn only (``inertiafromgeom="false"``: the masses are the rig's, not the shapes'): visuals in class
  ``visual`` (group 1, no contact), collisions in class ``collision`` (group 3);
- meshes are copied beside the file; COLLADA (``.dae``), which MuJoCo does not read, is converted to STL;
- each magnet is ``<numeric name="magnet:<body>" data="moment_A_m2 dx dy dz remanence_T"/>`` in
  ``<custom>`` (the direction in the body's axes), which MuJoCo keeps and never applies;
- ``<option gravity>`` is the rig's gravity; each segment's servo time constant is a comment (MuJoCo has no
  servo here: a kinematic segment's prescribed motion is the caller's to apply).

MuJoCo holds two things differently from the rig, each written so its dynamics stay the same:

- it refuses a body whose inertia has no transverse extent (``A + B >= C``), which an ideal rotor has (its
  inertia about its shaft alone). Such a body on a hinge is written as the thinnest rotor MuJoCo takes, a disc
  (the same inertia about the shaft, half of it about every axis across), and the body it turns in takes off
  that transverse half: symmetric about the shaft and without mass, it turns with the stator whether it is
  held by the rotor or not, so the sum is the rig's dynamics exactly. Both are said in comments. When the
  bodies it turns in cannot take it off and stay physical, ``export.mjcf-inertia`` refuses the rig;
- it refuses a moving body without mass or inertia (with whatever is welded to it). A joint that moves
  nothing with mass (a motor without a rotor or a part on it, a lab's own kind, which carries no mass) is
  refused with ``export.mjcf-massless``: the URDF holds it.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.multibody.spatial import quaternion_of
from mime_gui.multibody.tree import Box, Capsule, Cylinder, Inertial, Mesh, Solid, Sphere
from mime_gui.rig.simulators import (
    WORLD,
    ExportError,
    MeshCopies,
    Whole,
    armature_line,
    check_target,
    comment,
    header_lines,
    num,
    nums,
    whole,
)

GRAVITY = (0.0, 0.0, -9.81)
#: MuJoCo's smallest mass or inertia of a moving body (mjMINVAL)
MINVAL = 1e-15
_TYPES = {"revolute": "hinge", "continuous": "hinge", "prismatic": "slide"}


def _pos_quat(X) -> str:
    X = np.asarray(X, dtype=float)
    out = []
    if np.any(X[:3, 3]):
        out.append(f'pos="{nums(X[:3, 3])}"')
    if not np.array_equal(X[:3, :3], np.eye(3)):
        out.append(f'quat="{nums(quaternion_of(X[:3, :3]))}"')
    return (" " + " ".join(out)) if out else ""


def _body_inertia(inertial: Inertial | None) -> np.ndarray:
    """The inertia about the centre of mass in the link's axes."""
    R = inertial.link_X_com[:3, :3]
    return R @ np.asarray(inertial.inertia, dtype=float) @ R.T


def _principal(I: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments and the rotation whose columns are the principal axes (a proper rotation)."""
    w, V = np.linalg.eigh(0.5 * (I + I.T))
    if np.linalg.det(V) < 0:
        V[:, 0] = -V[:, 0]
    return w, V


def _physical(I: np.ndarray) -> bool:
    """MuJoCo's test of a body's inertia: positive semi-definite, and no principal moment above the sum of
    the other two."""
    w, _ = _principal(I)
    scale = max(float(np.max(np.abs(w))), 1e-300)
    return bool(w[0] >= -1e-12 * scale and w[0] + w[1] >= w[2] * (1 - 1e-10))


def _holds(inertial: Inertial | None) -> bool:
    """A body MuJoCo lets move: a mass and every principal moment of at least :data:`MINVAL`."""
    return inertial is not None and inertial.mass >= MINVAL and \
        bool(_principal(_body_inertia(inertial))[0][0] >= MINVAL)


def _with_inertia(inertial: Inertial, I_link: np.ndarray) -> Inertial:
    """``inertial`` with its inertia about its centre of mass set to ``I_link`` (in the link's axes)."""
    R = inertial.link_X_com[:3, :3]
    return Inertial(mass=inertial.mass, link_X_com=inertial.link_X_com, inertia=R.T @ I_link @ R)


class _Writer:
    def __init__(self, w: Whole, target: Path, gravity):
        self.w = w
        self.tree = w.tree
        self.copies = MeshCopies(target, convert=("dae",))
        self.gravity = gravity
        self.inertials = {n: link.inertial for n, link in self.tree.links.items()}
        self.notes: dict[str, list[str]] = {}
        self.assets: dict[tuple, str] = {}
        self.asset_lines: list[str] = []

    # -- checks and adjustments ------------------------------------------------------------------------
    def welded(self, link: str) -> list[str]:
        """``link`` and every link welded to it, down the tree."""
        out, stack = [], [link]
        while stack:
            n = stack.pop()
            out.append(n)
            stack += [j.child for j in self.tree.child_joints(n) if not j.movable]
        return out

    def carrier(self, link: str) -> str:
        """The link whose body ``link`` is welded to, up the tree: the child of a movable joint, or the
        world."""
        while link != WORLD:
            joint = self.tree.parent_joint(link)
            if joint.movable:
                return link
            link = joint.parent
        return WORLD

    def check_masses(self) -> None:
        for joint in self.tree.joints.values():
            if not joint.movable:
                continue
            # MuJoCo's rule: the moving body, or one welded to it, has a mass and every principal moment of
            # at least MINVAL (a thin rod's zero moment, or a mass on one body and an inertia on another, is
            # refused however large the rest)
            if not any(_holds(self.inertials[n]) for n in self.welded(joint.child)):
                segment = self.w.owner.get(joint.name, "")
                info = self.w.segments.get(segment)
                why = (
                    f"{segment} is a lab's own kind ({info.kind}), which carries no mass; MJCF cannot hold it"
                    if info is not None and info.lab
                    else "give it mass: a rotor inertia, a part on it, or a mass in its description"
                )
                raise ExportError(
                    "export.mjcf-massless",
                    f"the joint {joint.name} moves no body with both a mass and an inertia about every "
                    f"axis, and MuJoCo refuses a moving body without them; {why} (the URDF "
                    "export, --urdf, holds it as it is)",
                    f"chain.{segment}" if segment else "",
                )

    def fix_rotors(self) -> None:
        """Rotors whose inertia MuJoCo refuses, written as discs (see the module docstring)."""
        for joint in list(self.tree.joints.values()):
            inertial = self.inertials[joint.child]
            if inertial is None or joint.type not in ("revolute", "continuous"):
                continue
            I = _body_inertia(inertial)
            if _physical(I):
                continue
            a = np.asarray(joint.axis, dtype=float)
            a = a / np.linalg.norm(a)
            c = 0.5 * float(a @ I @ a) * (1 + 1e-9)  # a hair over the disc's half, for rounding
            transverse = c * (np.eye(3) - np.outer(a, a))
            if not _physical(I + transverse):
                raise ExportError(
                    "export.mjcf-inertia",
                    f"the inertia of {joint.child} is not one MuJoCo "
                    "holds (a principal moment above the sum of the other two) and is not a rotor "
                    f"about {joint.name}'s axis; fix its inertia",
                    joint.child,
                )
            self.inertials[joint.child] = _with_inertia(inertial, I + transverse)
            in_world = self.carrier(joint.parent) == WORLD
            self.notes.setdefault(joint.child, []).append(
                f"{joint.child} is written as a disc: its inertia about {joint.name}'s axis, and half of "
                f"that across it ({num(c)} kg m2), "
                + ("which nothing takes off: it turns in the world, which does not move" if in_world
                   else "which the body it turns in takes off again")
            )
            self._take_off(joint, transverse)

    def _take_off(self, joint, transverse: np.ndarray) -> None:
        """Take ``transverse`` (in the rotor's axes) off the rigid body ``joint`` turns in: the first link of
        it, up from the joint and then the others welded to it, that stays physical."""
        carrier = self.carrier(joint.parent)
        if carrier == WORLD:
            return  # it turns in the world, which does not move: nothing to take off
        rotation = {carrier: np.eye(3)}  # carrier_R_link over the rigid body
        for link in self.welded(carrier):
            for j in self.tree.child_joints(link):
                if not j.movable:
                    rotation[j.child] = rotation[link] @ j.parent_X_joint[:3, :3]
        R = rotation[joint.parent] @ joint.parent_X_joint[:3, :3]
        T = R @ transverse @ R.T  # in the carrier's axes
        up, link = [], joint.parent
        while link != carrier:
            up.append(link)
            link = self.tree.parent_joint(link).parent
        for link in [*up, carrier, *(n for n in self.welded(carrier) if n not in up and n != carrier)]:
            inertial = self.inertials[link]
            if inertial is None:
                continue
            I = _body_inertia(inertial) - rotation[link].T @ T @ rotation[link]
            if _physical(I):
                self.inertials[link] = _with_inertia(inertial, I)
                self.notes.setdefault(link, []).append(
                    f"{link}'s inertia is its own less the transverse inertia written on the disc of "
                    f"{joint.child}, which turns in it"
                )
                return
        raise ExportError(
            "export.mjcf-inertia",
            "MuJoCo holds no rotor without transverse inertia, and no "
            f"body welded to the one {joint.child} turns in can take the disc's off and stay "
            f"physical; give {joint.parent} or what it is welded to more inertia, or export --urdf",
            joint.child,
        )

    # -- writing -----------------------------------------------------------------------------------------
    def mesh_asset(self, rel: str, scale) -> str:
        key = (rel, tuple(float(s) for s in scale))
        if key not in self.assets:
            name = f"mesh{len(self.assets) + 1}"
            self.assets[key] = name
            scaled = f' scale="{nums(scale)}"' if tuple(scale) != (1.0, 1.0, 1.0) else ""
            self.asset_lines.append(f'    <mesh name="{name}" file={quoteattr(rel)}{scaled}/>')
        return self.assets[key]

    def geom(self, link: str, shape, cls: str, indent: str) -> str:
        g = shape.geometry
        where = _pos_quat(shape.link_X_shape)
        rgba = f' rgba="{nums(shape.rgba)}"' if shape.rgba is not None and cls == "visual" else ""
        if isinstance(g, Box):
            kind = f'type="box" size="{nums(np.asarray(g.size) / 2)}"'
        elif isinstance(g, Cylinder):
            kind = f'type="cylinder" size="{num(g.radius)} {num(g.length / 2)}"'
        elif isinstance(g, Capsule):
            kind = f'type="capsule" size="{num(g.radius)} {num(g.length / 2)}"'
        elif isinstance(g, Sphere):
            kind = f'type="sphere" size="{num(g.radius)}"'
        elif isinstance(g, Mesh):
            if not g.filename:
                return indent + comment(f"a mesh not found ({g.uri}): not drawn") + "\n"
            kind = f'type="mesh" mesh="{self.mesh_asset(self.copies.mesh(g.filename), g.scale)}"'
        elif isinstance(g, Solid):
            kind = f'type="mesh" mesh="{self.mesh_asset(self.copies.solid(link, g), (1.0, 1.0, 1.0))}"'
        else:
            return (
                indent
                + comment(f"a shape of a kind MuJoCo has no geom for ({type(g).__name__}): not drawn")
                + "\n"
            )
        return f'{indent}<geom class="{cls}" {kind}{where}{rgba}/>\n'

    def inertial(self, link: str, indent: str) -> str:
        inertial = self.inertials[link]
        if inertial is None or (inertial.mass == 0 and not np.any(inertial.inertia)):
            return ""
        w, V = _principal(_body_inertia(inertial))
        w = np.maximum(w, 0.0)  # rounding below zero on a principal moment that is zero
        X = np.eye(4)
        X[:3, :3] = V
        X[:3, 3] = inertial.link_X_com[:3, 3]
        where = _pos_quat(X)
        where = where if "pos=" in where else ' pos="0 0 0"' + where  # MuJoCo requires it
        return f'{indent}<inertial{where} mass="{num(inertial.mass)}" diaginertia="{nums(w)}"/>\n'

    def is_site(self, joint) -> bool:
        link = self.tree.links[joint.child]
        inertial = self.inertials[joint.child]
        return (
            not joint.movable
            and not link.visuals
            and not link.collisions
            and not self.tree.child_joints(joint.child)
            and (inertial is None or (inertial.mass == 0 and not np.any(inertial.inertia)))
        )

    def body(self, joint, indent: str) -> str:
        name = joint.child
        if self.is_site(joint):
            role = self.w.roles.get(name, "link")
            return (
                f"{indent}<site name={quoteattr(name)}{_pos_quat(joint.parent_X_joint)}/>"
                + (f" {comment(role)}" if role in ("frame", "probe", "sample") else "")
                + "\n"
            )
        out = [f"{indent}<body name={quoteattr(name)}{_pos_quat(joint.parent_X_joint)}>\n"]
        inner = indent + "  "
        for note in self.notes.get(name, []):
            out.append(inner + comment(note) + "\n")
        if joint.movable:
            out.append(self.joint(joint, inner))
        out.append(self.inertial(name, inner))
        link = self.tree.links[name]
        out += [self.geom(name, s, "visual", inner) for s in link.visuals]
        out += [self.geom(name, s, "collision", inner) for s in link.collisions]
        out += [self.body(j, inner) for j in self.tree.child_joints(name)]
        out.append(f"{indent}</body>\n")
        return "".join(out)

    def joint(self, joint, indent: str) -> str:
        a = self.w.armature.get(joint.name)
        out = []
        attrs = [
            f"name={quoteattr(joint.name)}",
            f'type="{_TYPES[joint.type]}"',
            f'axis="{nums(joint.axis)}"',
        ]
        limit = joint.limit
        if (
            joint.type != "continuous"
            and limit is not None
            and np.isfinite(limit.lower)
            and np.isfinite(limit.upper)
            and limit.lower < limit.upper
        ):
            attrs.append(f'range="{num(limit.lower)} {num(limit.upper)}"')
        if joint.damping:
            attrs.append(f'damping="{num(joint.damping)}"')
        if joint.friction:
            attrs.append(f'frictionloss="{num(joint.friction)}"')
        if a is not None:
            out.append(indent + comment(armature_line(joint.name, a)) + "\n")
            if a.value:
                attrs.append(f'armature="{num(a.value)}"')
        if limit is not None and np.isfinite(limit.effort) and limit.effort > 0:
            out.append(
                indent
                + comment(
                    f"effort limit {num(limit.effort)}; velocity limit {num(limit.velocity)}: "
                    "for the actuators the user adds"
                )
                + "\n"
            )
        return "".join(out) + f"{indent}<joint {' '.join(attrs)}/>\n"

    def write(self, source: str) -> str:
        self.fix_rotors()  # first: a rotor written as a disc has the inertia across its axis MuJoCo checks
        self.check_masses()
        bodies = "".join(self.body(j, "    ") for j in self.tree.child_joints(WORLD))
        head = "\n".join("  " + comment(line) for line in header_lines(self.w, "MJCF", source))
        servo = "\n".join(
            "  "
            + comment(
                f"segment {s.name} ({s.kind}, {'dynamic' if s.dynamic else 'kinematic'}): "
                f"servo time constant {num(s.servo_time_constant)} s"
                + (
                    ""
                    if s.dynamic
                    else "; its motion is prescribed: drive its joints "
                    "with position actuators or set them each step"
                )
            )
            for s in self.w.segments.values()
        )
        mimics = [j for j in self.tree.joints.values() if j.mimic is not None and j.movable]
        equality = ""
        if mimics:
            equality = (
                "  <equality>\n"
                + "".join(
                    f"    <joint joint1={quoteattr(j.name)} joint2={quoteattr(j.mimic.joint)} "
                    f'polycoef="{num(j.mimic.offset)} {num(j.mimic.multiplier)} 0 0 0"/>\n'
                    for j in mimics
                )
                + "  </equality>\n"
            )
        custom = ""
        if self.w.magnets:
            custom = (
                "  <custom>\n    "
                + comment(
                    "each magnet: moment (A m2), its magnetisation's direction (unit, in its body's axes), "
                    "remanence (T)"
                )
                + "\n"
                + "".join(
                    f'    <numeric name={quoteattr("magnet:" + link)} '
                    f'data="{num(m.moment)} {nums(m.direction)} {num(m.remanence)}"/>\n'
                    for link, m in self.w.magnets.items()
                )
                + "  </custom>\n"
            )
        assets = ("  <asset>\n" + "\n".join(self.asset_lines) + "\n  </asset>\n") if self.asset_lines else ""
        return (
            f"<mujoco model={quoteattr(self.tree.name)}>\n{head}\n{servo}\n"
            '  <compiler angle="radian" inertiafromgeom="false" autolimits="true"/>\n'
            f'  <option gravity="{nums(self.gravity)}"/>\n'
            "  <default>\n"
            '    <default class="visual"><geom contype="0" conaffinity="0" group="1"/></default>\n'
            '    <default class="collision"><geom group="3"/></default>\n'
            "  </default>\n"
            f"{assets}  <worldbody>\n{bodies}  </worldbody>\n{equality}{custom}</mujoco>\n"
        )


def to_mjcf(rig, path, source: str = "", gravity=GRAVITY) -> str:
    """The MJCF text of a valid ``rig`` to be saved at ``path`` (its meshes are copied beside it now)."""
    path = check_target(path)
    w = whole(rig, resolved(path).parent)
    return _Writer(w, path, tuple(float(g) for g in gravity)).write(escape(source))


def export_mjcf(rig, path, source: str = "", gravity=GRAVITY) -> Path:
    """Write a valid ``rig`` as MJCF to ``path`` atomically, its meshes beside it; raises RigError when the
    rig breaks a rule, :class:`~mime_gui.rig.simulators.ExportError` when MJCF cannot hold it."""
    path = Path(path)
    return write_atomic(path, to_mjcf(rig, path, source, gravity))
