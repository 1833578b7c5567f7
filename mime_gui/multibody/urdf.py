"""Read a URDF into a :class:`MultibodyTree`, accounting for every element and attribute kind.

The XML is parsed with defusedxml (no DTDs, entities or external references), keeping the line of every
element so a refusal can point at it. Every kind lands in the report as *used*, *recognised and not used*,
or *refused*; a refusal raises :class:`UrdfError` with a stable code.

Fixed joints are kept in the tree as they are written; :meth:`MultibodyTree.compile` merges links welded by
fixed joints into the body of their nearest movable ancestor and keeps every link name as a frame.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from mime_gui.multibody.errors import UrdfError
from mime_gui.multibody.report import IGNORED, REFUSED, USED, ReadReport
from mime_gui.multibody.resolve import resolve_uri
from mime_gui.multibody.spatial import transform
from mime_gui.multibody.tree import (
    Box,
    Cylinder,
    Inertial,
    Joint,
    Limit,
    Link,
    Mesh,
    Mimic,
    MultibodyTree,
    Shape,
    Sphere,
    Transmission,
)

# Attributes each used element kind reads; any other attribute is recorded as recognised and not used.
_GEOMETRY = {"geometry": set(), "geometry/box": {"size"}, "geometry/cylinder": {"radius", "length"},
             "geometry/sphere": {"radius"}, "geometry/mesh": {"filename", "scale"}}
_SHAPE = {"origin": {"xyz", "rpy"}, **_GEOMETRY}
_USED: dict[str, set[str]] = {
    "robot": {"name"},
    "robot/material": {"name"},
    "robot/material/color": {"rgba"},
    "robot/link": {"name"},
    "robot/link/inertial": set(),
    "robot/link/inertial/origin": {"xyz", "rpy"},
    "robot/link/inertial/mass": {"value"},
    "robot/link/inertial/inertia": {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"},
    "robot/link/visual": {"name"},
    **{f"robot/link/visual/{k}": v for k, v in _SHAPE.items()},
    "robot/link/visual/material": {"name"},
    "robot/link/visual/material/color": {"rgba"},
    "robot/link/collision": {"name"},
    **{f"robot/link/collision/{k}": v for k, v in _SHAPE.items()},
    "robot/joint": {"name", "type"},
    "robot/joint/origin": {"xyz", "rpy"},
    "robot/joint/parent": {"link"},
    "robot/joint/child": {"link"},
    "robot/joint/axis": {"xyz"},
    "robot/joint/limit": {"lower", "upper", "effort", "velocity"},
    "robot/joint/dynamics": {"damping", "friction"},
    "robot/joint/mimic": {"joint", "multiplier", "offset"},
    "robot/transmission": {"name"},
    "robot/transmission/joint": {"name"},
    "robot/transmission/actuator": {"name"},
    "robot/transmission/actuator/mechanicalReduction": set(),
    "robot/transmission/mechanicalReduction": set(),
}
# Known kinds that are read but not used by the model, with why; their subtree is not descended.
_KNOWN_UNUSED = {
    "gazebo": "simulator settings (Gazebo)",
    "sensor": "sensor descriptions",
    "safety_controller": "soft limits of a ROS safety controller",
    "calibration": "calibration references",
    "contact": "contact parameters",
    "texture": "textures are not drawn",
    "type": "transmission type name",
    "hardwareInterface": "ROS control interface",
    "ros2_control": "ROS 2 control settings",
    "motor": "motor descriptions",
    "klampt": "Klampt settings",
}

_XACRO_TAG = re.compile(rb"<\s*xacro:", re.IGNORECASE)
_XACRO_SUBST = re.compile(r"\$[({]")


@dataclass
class _Node:
    tag: str
    attrib: dict[str, str]
    line: int
    children: list[_Node] = field(default_factory=list)
    text: str = ""

    def find(self, tag: str) -> _Node | None:
        for c in self.children:
            if c.tag == tag:
                return c
        return None

    def findall(self, tag: str) -> list[_Node]:
        return [c for c in self.children if c.tag == tag]


class _Builder:
    """Parser target that keeps element lines (the stdlib tree builder drops them)."""

    def __init__(self, line_offset: int):
        self.parser = None
        self.stack: list[_Node] = []
        self.root: _Node | None = None
        self.line_offset = line_offset

    def start(self, tag, attrib):
        line = self.parser.parser.CurrentLineNumber + self.line_offset if self.parser else 0
        node = _Node(tag, dict(attrib), line)
        if self.stack:
            self.stack[-1].children.append(node)
        else:
            self.root = node
        self.stack.append(node)

    def end(self, tag):
        self.stack.pop()

    def data(self, text):
        if self.stack:
            self.stack[-1].text += text

    def close(self):
        return self.root


def _prepare(data: bytes) -> tuple[bytes, int]:
    """Tolerate what real files carry: a byte-order mark, blank lines before ``<?xml``, trailing NULs."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    stripped = data.lstrip()
    offset = data[: len(data) - len(stripped)].count(b"\n")
    stripped = stripped.rstrip(b"\x00 \t\r\n")
    return stripped, offset


def _parse_xml(data: bytes, file: str) -> _Node:
    data, offset = _prepare(data)
    builder = _Builder(offset)
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    builder.parser = parser
    try:
        parser.feed(data)
        root = parser.close()
    except DefusedXmlException as exc:
        line = getattr(parser.parser, "CurrentLineNumber", 0) + offset
        raise UrdfError("urdf.xml", f"forbidden XML construct ({type(exc).__name__}): entity declarations "
                        "and external references are not accepted; remove the DOCTYPE/ENTITY block",
                        file, line) from None
    except Exception as exc:  # expat's ParseError and friends
        pos = getattr(exc, "position", None)
        line = pos[0] + offset if pos else 0
        text = data.split(b"\n")[pos[0] - 1] if pos and 0 < pos[0] <= data.count(b"\n") + 1 else b""
        if "unbound prefix" in str(exc) and _XACRO_TAG.search(text):
            raise UrdfError("urdf.xacro", "this is an unexpanded xacro file (xacro: elements); run "
                            "`xacro FILE.urdf.xacro > FILE.urdf` first and open the result", file, line) from None
        msg = str(exc).split(": line")[0]
        raise UrdfError("urdf.xml", f"not well-formed XML ({msg}); fix the markup at this line",
                        file, line) from None
    if root is None:
        raise UrdfError("urdf.xml", "the file is empty; expected a <robot> element", file, 0)
    return root


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if tag.startswith("{") else tag


class _Reader:
    def __init__(self, file: str, base: Path | None, package_dirs):
        self.file = file
        self.base = base
        self.package_dirs = tuple(package_dirs)
        self.report = ReadReport(file=file)
        self.materials: dict[str, tuple[float, float, float, float] | None] = {}
        self._warned_kinds: set[str] = set()

    # -- errors and accounting ---------------------------------------------------------------------
    def fail(self, code: str, message: str, node: _Node | None = None, kind: str | None = None):
        if kind:
            self.report.add(kind, REFUSED, node.line if node else 0, message)
        raise UrdfError(code, message, self.file, node.line if node else 0, report=self.report)

    def ignore(self, kind: str, line: int, why: str = "") -> None:
        self.report.add(kind, IGNORED, line, why)
        if kind not in self._warned_kinds:
            self._warned_kinds.add(kind)
            self.report.warn("urdf.not-used", f"<{kind}> is recognised and not used"
                             + (f" ({why})" if why else ""), line)

    def account(self, node: _Node, path: str) -> None:
        """Sort ``node``, its attributes and its subtree into the report groups."""
        tag = _local(node.tag)
        if node.tag.startswith("{") or ":" in node.tag:
            if "xacro" in node.tag:
                self.fail("urdf.xacro", f"<{node.tag}> is an unexpanded xacro element; run xacro first",
                          node, kind=f"{path}/{tag}")
            self.ignore(f"{path}/{tag}" if path else tag, node.line, "namespaced extension element")
            return
        kind = f"{path}/{tag}" if path else tag
        used_attrs = _USED.get(kind)
        if used_attrs is None:
            self.ignore(kind, node.line, _KNOWN_UNUSED.get(tag, "unknown element"))
            return
        self.report.add(kind, USED, node.line)
        for attr, value in node.attrib.items():
            if _XACRO_SUBST.search(value):
                self.fail("urdf.xacro", f"attribute {_local(attr)}={value!r} of <{tag}> holds an "
                          "unexpanded xacro substitution; run xacro first", node, kind=f"{kind}@{attr}")
            if attr in used_attrs:
                self.report.add(f"{kind}@{attr}", USED, node.line)
            else:
                self.ignore(f"{kind}@{_local(attr)}", node.line,
                            "namespaced attribute" if attr.startswith("{") else "attribute not used")
        for child in node.children:
            self.account(child, kind)

    # -- values ------------------------------------------------------------------------------------
    def floats(self, node: _Node, attr: str, n: int, default=None, what: str = "") -> np.ndarray:
        raw = node.attrib.get(attr)
        if raw is None:
            if default is None:
                self.fail("urdf.missing-attribute", f"<{_local(node.tag)}> needs the attribute {attr}="
                          f"\"{' '.join(['0'] * n)}\"{what}", node)
            return np.asarray(default, dtype=float)
        try:
            values = np.array([float(t) for t in raw.replace(",", " ").split()], dtype=float)
        except ValueError:
            self.fail("urdf.value", f"{attr}={raw!r} of <{_local(node.tag)}> is not a list of {n} numbers",
                      node)
        if values.size != n:
            self.fail("urdf.value", f"{attr}={raw!r} of <{_local(node.tag)}> has {values.size} numbers, "
                      f"expected {n}", node)
        if not np.all(np.isfinite(values)):
            self.fail("urdf.non-finite", f"{attr}={raw!r} of <{_local(node.tag)}> is not finite; give "
                      "finite numbers", node)
        return values

    def scalar(self, node: _Node, attr: str, default=None) -> float:
        return float(self.floats(node, attr, 1, None if default is None else [default])[0])

    def origin(self, parent: _Node) -> np.ndarray:
        o = parent.find("origin")
        if o is None:
            return np.eye(4)
        return transform(self.floats(o, "xyz", 3, (0, 0, 0)), self.floats(o, "rpy", 3, (0, 0, 0)))

    def name_of(self, node: _Node, what: str) -> str:
        name = node.attrib.get("name")
        if not name:
            self.fail("urdf.missing-attribute", f"a <{what}> has no name=; give every {what} a unique name",
                      node)
        return name

    # -- elements ----------------------------------------------------------------------------------
    def rgba(self, mat: _Node | None) -> tuple[tuple | None, str | None]:
        if mat is None:
            return None, None
        name = mat.attrib.get("name")
        color = mat.find("color")
        if color is not None:
            values = self.floats(color, "rgba", 4)
            return tuple(float(v) for v in values), name
        return self.materials.get(name), name

    def geometry(self, node: _Node, owner: str):
        g = node.find("geometry")
        if g is None or not g.children:
            self.fail("urdf.geometry", f"a <{_local(node.tag)}> of link {owner!r} has no <geometry> shape; "
                      "add a box, cylinder, sphere or mesh", node)
        shape = next((c for c in g.children if not c.tag.startswith("{")), None)
        if shape is None:
            self.fail("urdf.geometry", f"the <geometry> of link {owner!r} has no shape", g)
        tag = shape.tag
        if tag == "box":
            size = self.floats(shape, "size", 3)
            if np.any(size < 0):
                self.fail("urdf.geometry", f"box size {tuple(size)} of link {owner!r} is negative", shape)
            return Box(tuple(float(s) for s in size))
        if tag == "cylinder":
            r, length = self.scalar(shape, "radius"), self.scalar(shape, "length")
            if r < 0 or length < 0:
                self.fail("urdf.geometry", f"cylinder of link {owner!r} has a negative size", shape)
            return Cylinder(r, length)
        if tag == "sphere":
            r = self.scalar(shape, "radius")
            if r < 0:
                self.fail("urdf.geometry", f"sphere of link {owner!r} has a negative radius", shape)
            return Sphere(r)
        if tag == "mesh":
            uri = shape.attrib.get("filename", "").strip()
            if not uri:
                self.fail("urdf.geometry", f"a <mesh> of link {owner!r} has no filename=", shape)
            scale = self.floats(shape, "scale", 3, (1, 1, 1))
            found, tried = resolve_uri(uri, self.base, self.package_dirs)
            if found is None:
                self.report.warn("urdf.mesh-unresolved", f"mesh {uri!r} of link {owner!r} was not found; "
                                 "tried: " + ", ".join(tried) + ". Pass the package folder "
                                 "(package_dirs or ROS_PACKAGE_PATH) to resolve it", shape.line)
            return Mesh(uri, tuple(float(s) for s in scale), found, tried)
        self.fail("urdf.geometry", f"unknown geometry <{tag}> in link {owner!r}; use box, cylinder, sphere "
                  "or mesh", shape)

    def shape(self, node: _Node, owner: str, with_material: bool) -> Shape:
        rgba, material = self.rgba(node.find("material")) if with_material else (None, None)
        return Shape(self.geometry(node, owner), self.origin(node), rgba, material, node.attrib.get("name"),
                     node.line)

    def inertial(self, node: _Node, owner: str) -> Inertial:
        mass_node = node.find("mass")
        mass = self.scalar(mass_node, "value") if mass_node is not None else 0.0
        if mass < 0:
            self.fail("urdf.inertial", f"link {owner!r} has a negative mass {mass}; a mass is >= 0",
                      mass_node)
        inertia_node = node.find("inertia")
        I = np.zeros((3, 3))
        if inertia_node is not None:
            v = {k: self.scalar(inertia_node, k, 0.0) for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
            I = np.array([[v["ixx"], v["ixy"], v["ixz"]],
                          [v["ixy"], v["iyy"], v["iyz"]],
                          [v["ixz"], v["iyz"], v["izz"]]])
            principal = np.linalg.eigvalsh(I)
            scale = max(float(np.max(np.abs(principal))), 1e-300)
            tol = 1e-6 * scale + 1e-12
            if principal[0] < -tol:
                self.fail("urdf.inertial", f"the inertia of link {owner!r} is not positive semi-definite "
                          f"(principal moments {np.array2string(principal, precision=4)}); check the "
                          "signs of ixx..izz", inertia_node)
            a, b, c = principal
            if a + b < c - tol:
                # No rigid body has such an inertia, yet widely used descriptions (PR2 among them) carry
                # one; the algorithms stay well-defined, so it is a coded warning rather than a refusal.
                self.report.warn("urdf.inertial-triangle", f"the inertia of link {owner!r} breaks the "
                                 f"triangle inequality (principal moments "
                                 f"{np.array2string(principal, precision=4)}: the two smaller must add up to "
                                 "at least the largest); no rigid body has it, check the values",
                                 inertia_node.line)
        return Inertial(mass, self.origin(node), I, node.line)

    def link(self, node: _Node) -> Link:
        name = self.name_of(node, "link")
        link = Link(name=name, line=node.line)
        inertial = node.find("inertial")
        if inertial is not None:
            link.inertial = self.inertial(inertial, name)
        link.visuals = [self.shape(v, name, True) for v in node.findall("visual")]
        link.collisions = [self.shape(c, name, False) for c in node.findall("collision")]
        return link

    def joint(self, node: _Node) -> Joint:
        name = self.name_of(node, "joint")
        jtype = node.attrib.get("type", "")
        if jtype in ("floating", "planar"):
            self.fail("urdf.joint-type", f"joint {name!r} is {jtype}; only revolute, continuous, prismatic "
                      "and fixed joints are accepted. Model a free base as a separate segment, or fix it",
                      node, kind=f"robot/joint@type={jtype}")
        if jtype not in ("revolute", "continuous", "prismatic", "fixed"):
            self.fail("urdf.joint-type", f"joint {name!r} has an unknown type {jtype!r}; use revolute, "
                      "continuous, prismatic or fixed", node, kind="robot/joint@type")
        parent, child = node.find("parent"), node.find("child")
        if parent is None or not parent.attrib.get("link"):
            self.fail("urdf.missing-link", f"joint {name!r} has no <parent link=...>", node)
        if child is None or not child.attrib.get("link"):
            self.fail("urdf.missing-link", f"joint {name!r} has no <child link=...>", node)
        joint = Joint(name=name, type=jtype, parent=parent.attrib["link"], child=child.attrib["link"],
                      parent_X_joint=self.origin(node), line=node.line)
        axis_node = node.find("axis")
        if jtype != "fixed":
            axis = self.floats(axis_node, "xyz", 3, (1, 0, 0)) if axis_node is not None else np.array(
                [1.0, 0.0, 0.0])
            norm = float(np.linalg.norm(axis))
            if norm < 1e-12:
                self.fail("urdf.axis", f"joint {name!r} has a zero axis; give a direction such as "
                          "xyz=\"0 0 1\"", axis_node or node)
            joint.axis = axis / norm
        limit = node.find("limit")
        if jtype == "continuous":
            effort = self.scalar(limit, "effort", math.inf) if limit is not None else math.inf
            velocity = self.scalar(limit, "velocity", math.inf) if limit is not None else math.inf
            joint.limit = Limit(-math.inf, math.inf, effort, velocity)
        elif jtype in ("revolute", "prismatic"):
            if limit is None or "lower" not in limit.attrib or "upper" not in limit.attrib:
                hint = " or declare it continuous" if jtype == "revolute" else ""
                self.report.warn("urdf.limit-default", f"{jtype} joint {name!r} has no lower/upper limit; "
                                 f"the URDF default 0 is used, which holds it still. Add <limit lower=... "
                                 f"upper=...>{hint}", (limit or node).line)
            lower = self.scalar(limit, "lower", 0.0) if limit is not None else 0.0
            upper = self.scalar(limit, "upper", 0.0) if limit is not None else 0.0
            effort = self.scalar(limit, "effort", math.inf) if limit is not None else math.inf
            velocity = self.scalar(limit, "velocity", math.inf) if limit is not None else math.inf
            if lower > upper:
                self.fail("urdf.limit", f"joint {name!r} has lower {lower} > upper {upper}; swap them", limit)
            joint.limit = Limit(lower, upper, effort, velocity)
        dyn = node.find("dynamics")
        if dyn is not None:
            joint.damping = self.scalar(dyn, "damping", 0.0)
            joint.friction = self.scalar(dyn, "friction", 0.0)
        mimic = node.find("mimic")
        if mimic is not None:
            master = mimic.attrib.get("joint")
            if not master:
                self.fail("urdf.mimic", f"the <mimic> of joint {name!r} names no joint=", mimic)
            joint.mimic = Mimic(master, self.scalar(mimic, "multiplier", 1.0), self.scalar(mimic, "offset", 0.0))
        return joint

    def transmission(self, node: _Node) -> Transmission | None:
        name = node.attrib.get("name", f"transmission@{node.line}")
        joint = node.find("joint")
        actuator = node.find("actuator")
        if joint is None or not joint.attrib.get("name"):
            self.report.warn("urdf.transmission", f"transmission {name!r} names no joint; it is not used",
                             node.line)
            return None
        reduction_node = (actuator.find("mechanicalReduction") if actuator is not None else None) \
            or node.find("mechanicalReduction")
        reduction = 1.0
        if reduction_node is not None:
            try:
                reduction = float(reduction_node.text.strip())
            except ValueError:
                self.fail("urdf.value", f"mechanicalReduction {reduction_node.text.strip()!r} of transmission "
                          f"{name!r} is not a number", reduction_node)
            if not math.isfinite(reduction) or reduction == 0:
                self.fail("urdf.non-finite", f"mechanicalReduction of transmission {name!r} must be a finite, "
                          "non-zero number", reduction_node)
        return Transmission(name, joint.attrib["name"], actuator.attrib.get("name") if actuator is not None
                            else None, reduction, node.line)

    # -- the whole robot ---------------------------------------------------------------------------
    def read(self, root: _Node) -> MultibodyTree:
        if _local(root.tag) != "robot":
            self.fail("urdf.xml", f"the top element is <{root.tag}>, expected <robot>", root)
        self.account(root, "")
        for m in root.findall("material"):
            rgba, _ = self.rgba(m)
            self.materials[m.attrib.get("name", "")] = rgba
        links: dict[str, Link] = {}
        joints: dict[str, Joint] = {}
        for node in root.findall("link"):
            link = self.link(node)
            if link.name in links:
                self.fail("urdf.duplicate-name", f"link {link.name!r} is declared twice (first at line "
                          f"{links[link.name].line}); rename one", node)
            links[link.name] = link
        for node in root.findall("joint"):
            joint = self.joint(node)
            if joint.name in joints:
                self.fail("urdf.duplicate-name", f"joint {joint.name!r} is declared twice (first at line "
                          f"{joints[joint.name].line}); rename one", node)
            joints[joint.name] = joint
        if not links:
            self.fail("urdf.missing-link", "the robot has no <link>; a description needs at least one", root)
        child_of: dict[str, Joint] = {}
        for joint in joints.values():
            node_line = _Node("joint", {}, joint.line)
            for role, link in (("parent", joint.parent), ("child", joint.child)):
                if link not in links:
                    self.fail("urdf.missing-link", f"joint {joint.name!r} names {role} link {link!r}, which "
                              f"is not declared; declare <link name=\"{link}\"/> or fix the name", node_line)
            if joint.child in child_of:
                self.fail("urdf.closed-chain", f"link {joint.child!r} has two parents (joints "
                          f"{child_of[joint.child].name!r} and {joint.name!r}); closed chains are not "
                          "supported: remove one joint", node_line)
            if joint.parent == joint.child:
                self.fail("urdf.closed-chain", f"joint {joint.name!r} joins link {joint.child!r} to itself",
                          node_line)
            child_of[joint.child] = joint
        roots = [name for name in links if name not in child_of]
        if len(roots) > 1:
            self.fail("urdf.multiple-roots", f"the links {roots[:6]} have no parent; a description has one "
                      "root: join the others with joints", _Node("link", {}, links[roots[1]].line))
        if not roots:
            self.fail("urdf.closed-chain", "every link has a parent, so the joints form a loop; remove one",
                      root)
        for joint in joints.values():
            if joint.mimic is not None:
                master = joints.get(joint.mimic.joint)
                if master is None or not master.movable:
                    self.fail("urdf.mimic", f"joint {joint.name!r} mimics {joint.mimic.joint!r}, which is not a "
                              "movable joint of this robot", _Node("joint", {}, joint.line))
        tree = MultibodyTree(name=root.attrib.get("name", ""), links=links, joints=joints, root=roots[0],
                             source=self.file, report=self.report)
        reachable = set(tree.link_order())
        if len(reachable) != len(links):
            loose = sorted(set(links) - reachable)
            self.fail("urdf.closed-chain", f"links {loose[:6]} are joined in a loop, detached from the root",
                      _Node("link", {}, links[loose[0]].line))
        for node in root.findall("transmission"):
            t = self.transmission(node)
            if t is not None:
                tree.transmissions[t.name] = t
        return tree


def read_urdf(source, package_dirs=()) -> MultibodyTree:
    """Read a URDF file (path) or URDF text (``str``/``bytes`` holding ``<robot``) into a tree.

    Raises :class:`UrdfError` with a stable code on a refused file.
    """
    base: Path | None
    if isinstance(source, bytes) or (isinstance(source, str) and "<robot" in source):
        data = source.encode() if isinstance(source, str) else source
        file, base = "<string>", None
    else:
        path = Path(source)
        file = str(path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UrdfError("urdf.io", f"cannot read the file ({exc.strerror or exc}); check the path",
                            file) from None
        base = path.resolve().parent
    root = _parse_xml(data, file)
    return _Reader(file, base, package_dirs).read(root)
