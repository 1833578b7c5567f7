"""Export a valid rig as one URDF: the whole chain in one tree under the link ``world`` (:func:`export_urdf`).

What goes where (see docs/simulators.md): every link and joint of the whole tree
(:func:`mime_gui.rig.simulators.whole`) as it is, fixed joints included (a part, a magnet, a declared frame,
a probe and each segment's mount are fixed joints); inertials as the rig has them (a rotor's inertia about
its shaft alone, which URDF holds); visuals and collisions as primitives, meshes copied beside the file, a
part's solid of a kind URDF has no primitive for as an STL of its triangles; limits, damping, friction and
mimics as the descriptions give them; the descriptions' transmissions, renamed, with their reductions.

URDF has no armature: each joint's armature (value, source, reason) is in the comment at the top, with the
provenance (versions, the SHA-256 of every file the rig references), each segment's kind and servo time
constant. Each magnet's moment is the extension element
``<mime_magnet moment="A m2" direction="x y z" remanence="T"/>`` in its link (the direction in the link's
axes), which other readers ignore.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from mime_gui.files import write_atomic
from mime_gui.inputs import resolved
from mime_gui.multibody.spatial import rpy_of
from mime_gui.multibody.tree import Box, Capsule, Cylinder, Mesh, Solid, Sphere
from mime_gui.rig.simulators import (
    MeshCopies,
    Whole,
    armature_line,
    check_target,
    comment,
    header_lines,
    named,
    num,
    nums,
    whole,
)

MAGNET_ELEMENT = "mime_magnet"


def _origin(X) -> str:
    X = np.asarray(X, dtype=float)
    return f'<origin xyz="{nums(X[:3, 3])}" rpy="{nums(rpy_of(X[:3, :3]))}"/>'


class _Writer:
    def __init__(self, w: Whole, target: Path):
        self.w = w
        self.tree = w.tree
        self.copies = MeshCopies(target)

    def geometry(self, link: str, g) -> str | None:
        if isinstance(g, Box):
            return f'<box size="{nums(g.size)}"/>'
        if isinstance(g, Cylinder):
            return f'<cylinder radius="{num(g.radius)}" length="{num(g.length)}"/>'
        if isinstance(g, Capsule):
            return f'<capsule radius="{num(g.radius)}" length="{num(g.length)}"/>'
        if isinstance(g, Sphere):
            return f'<sphere radius="{num(g.radius)}"/>'
        if isinstance(g, Mesh):
            if not g.filename:
                return None
            scale = f' scale="{nums(g.scale)}"' if tuple(g.scale) != (1.0, 1.0, 1.0) else ""
            return f"<mesh filename={quoteattr(self.copies.mesh(g.filename))}{scale}/>"
        if isinstance(g, Solid):
            return f"<mesh filename={quoteattr(self.copies.solid(link, g))}/>"
        return None

    def shapes(self, link: str, shapes, element: str) -> list[str]:
        out = []
        for i, shape in enumerate(shapes):
            geometry = self.geometry(link, shape.geometry)
            if geometry is None:
                out.append(
                    "    "
                    + comment(
                        f"a {element} not written: {type(shape.geometry).__name__} "
                        f"{getattr(shape.geometry, 'uri', '')} was not found or has no "
                        "URDF element"
                    )
                )
                continue
            material = ""
            if element == "visual" and shape.rgba is not None:
                material = (
                    f'<material name={quoteattr(f"{link}#{i}")}><color rgba="{nums(shape.rgba)}"/></material>'
                )
            out.append(
                f"    <{element}>{_origin(shape.link_X_shape)}<geometry>{geometry}</geometry>"
                f"{material}</{element}>"
            )
        return out

    def link(self, name: str) -> str:
        link = self.tree.links[name]
        out = [f"  <link name={quoteattr(name)}>"]
        role = self.w.roles.get(name, "link")
        if role != "link":
            out.append("    " + comment(role))
        i = link.inertial
        if i is not None:
            I = np.asarray(i.inertia, dtype=float)
            out.append(
                f'    <inertial>{_origin(i.link_X_com)}<mass value="{num(i.mass)}"/>'
                f'<inertia ixx="{num(I[0, 0])}" ixy="{num(I[0, 1])}" ixz="{num(I[0, 2])}" '
                f'iyy="{num(I[1, 1])}" iyz="{num(I[1, 2])}" izz="{num(I[2, 2])}"/></inertial>'
            )
        out += self.shapes(name, link.visuals, "visual")
        out += self.shapes(name, link.collisions, "collision")
        m = self.w.magnets.get(name)
        if m is not None:
            out.append(
                f'    <{MAGNET_ELEMENT} moment="{num(m.moment)}" direction="{nums(m.direction)}" '
                f'remanence="{num(m.remanence)}"/>'
            )
        if len(out) == 1:
            return out[0][:-1] + "/>"
        return "\n".join([*out, "  </link>"])

    def joint(self, j) -> str:
        type_ = j.type
        limit = j.limit
        if (
            type_ == "revolute"
            and limit is not None
            and not (np.isfinite(limit.lower) and np.isfinite(limit.upper))
        ):
            type_ = "continuous"  # a revolute joint without bounds (a lab's frames may have one)
        out = [
            f'  <joint name={quoteattr(j.name)} type="{type_}">{_origin(j.parent_X_joint)}'
            f"<parent link={quoteattr(j.parent)}/><child link={quoteattr(j.child)}/>"
        ]
        if j.movable:
            out.append(f'<axis xyz="{nums(j.axis)}"/>')
            effort = limit.effort if limit is not None and np.isfinite(limit.effort) else 0.0
            velocity = limit.velocity if limit is not None and np.isfinite(limit.velocity) else 0.0
            if type_ != "continuous":
                lower, upper = (limit.lower, limit.upper) if limit is not None else (0.0, 0.0)
                out.append(
                    f'<limit lower="{num(lower)}" upper="{num(upper)}" effort="{num(effort)}" '
                    f'velocity="{num(velocity)}"/>'
                )
            elif effort or velocity:
                out.append(f'<limit effort="{num(effort)}" velocity="{num(velocity)}"/>')
            if j.damping or j.friction:
                out.append(f'<dynamics damping="{num(j.damping)}" friction="{num(j.friction)}"/>')
            if j.mimic is not None:
                out.append(
                    f'<mimic joint={quoteattr(j.mimic.joint)} multiplier="{num(j.mimic.multiplier)}" '
                    f'offset="{num(j.mimic.offset)}"/>'
                )
        return "".join(out) + "</joint>"

    def transmissions(self) -> list[str]:
        out = []
        for seg, s in self.w.built.segments.items():
            for t in s.tree.transmissions.values():
                if t.reduction is None:
                    continue
                joint = named(seg, t.joint)
                a = self.w.armature.get(joint)
                if a is not None and a.source == "reflected":
                    out.append("  " + comment(armature_line(joint, a)))
                actuator = (
                    f"<actuator name={quoteattr(named(seg, t.actuator))}><mechanicalReduction>"
                    f"{num(t.reduction)}</mechanicalReduction></actuator>"
                    if t.actuator
                    else ""
                )
                out.append(
                    f"  <transmission name={quoteattr(named(seg, t.name))}>"
                    "<type>transmission_interface/SimpleTransmission</type>"
                    f"<joint name={quoteattr(joint)}/>{actuator}</transmission>"
                )
        return out

    def write(self, source: str) -> str:
        head = header_lines(self.w, "URDF", source)
        head.append("URDF has no armature; each joint's, as the rig's build gives it:")
        head += [armature_line(j, a) for j, a in self.w.armature.items()]
        head.append(
            f"each magnet's moment: <{MAGNET_ELEMENT} moment (A m2) direction (unit, the link's axes) "
            "remanence (T)/> in its link, which other readers ignore"
        )
        lines = [
            '<?xml version="1.0" encoding="utf-8"?>',
            *(comment(line) for line in head),
            f"<robot name={quoteattr(self.tree.name)}>",
        ]
        order = self.tree.link_order()
        lines += [self.link(n) for n in order]
        lines += [self.joint(self.tree.parent_joint(n)) for n in order[1:]]
        lines += self.transmissions()
        lines.append("</robot>")
        return "\n".join(lines) + "\n"


def to_urdf(rig, path, source: str = "") -> str:
    """The URDF text of a valid ``rig`` to be saved at ``path`` (its meshes are copied beside it now)."""
    path = check_target(path)
    return _Writer(whole(rig, resolved(path).parent), path).write(source)


def export_urdf(rig, path, source: str = "") -> Path:
    """Write a valid ``rig`` as one URDF to ``path`` atomically, its meshes beside it; raises RigError when
    the rig breaks a rule."""
    path = Path(path)
    return write_atomic(path, to_urdf(rig, path, source))
