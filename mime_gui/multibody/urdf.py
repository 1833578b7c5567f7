"""Read a URDF into a :class:`MultibodyTree`, accounting for every element and attribute kind.

Parsing is hardened: a file holding a markup declaration (``<!DOCTYPE``, ``<!ENTITY`` …), or whose markup
is not plainly ASCII-compatible (UTF-16/32, a byte-order mark other than UTF-8's, NUL bytes, another declared
encoding) goes through defusedxml, which refuses entity declarations and external references (so no
entity-expansion bomb and no external entity reaches the reader); a plain file without one cannot declare an
entity and is parsed by the C expat tree builder, its element lines recovered by one vectorised scan of the
start tags. Every element and attribute kind lands in the report as *used*, *recognised and not used*, or
*refused*; a refusal raises :class:`UrdfError` with a stable code, the line, and what to do.

A file is refused only when no tree can be built from it (bad XML, an unexpanded xacro file, a loop, a
missing link, a duplicate name, an unsupported joint type, ...). A defect confined to one element loads as a
coded *error* in the report that blocks only the use it breaks (see :mod:`mime_gui.multibody.report`): a
non-physical inertia blocks the articulation's dynamics, a reduction that is not a number blocks the armature
reflected through that transmission, a shape that cannot be drawn becomes a marked placeholder, a mimic that
names no movable joint leaves its joint independent, a xacro substitution left in a joint's ``<origin>``
leaves that joint and the links below it out of the tree (:meth:`_Reader.leave_out`). Numbers separated by
commas are read with a warning (``urdf.comma``: urdfdom and Pinocchio refuse them). ``strict=True`` refuses
those files as well.

One pass sorts the elements into the report and gathers the top-level ones; the reading pass builds the tree
from them, keeping numbers as tuples, and turns origins, inertias and axes into numpy arrays once per file.

Fixed joints are kept in the tree as they are written; :meth:`MultibodyTree.compile` merges links welded by
fixed joints into the body of their nearest movable ancestor and keeps every link name as a frame
(``docs/engine-conventions.md``).
"""

from __future__ import annotations

import gc
import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import NoReturn
from xml.parsers import expat

import numpy as np
from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from mime_gui import inputs
from mime_gui.inputs import resolved
from mime_gui.multibody.errors import UrdfError
from mime_gui.multibody.magnitudes import MAX_FACTOR, MAX_INERTIA, MAX_LENGTH, MAX_MASS, parse_float
from mime_gui.multibody.report import IGNORED, REFUSED, USED, ReadReport
from mime_gui.multibody.resolve import Resolver
from mime_gui.multibody.tree import (
    JOINT_TYPES,
    Box,
    Capsule,
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
    UnknownGeometry,
)

# Attributes each used element kind reads; any other attribute is recorded as recognised and not used.
_GEOMETRY = {"geometry": set(), "geometry/box": {"size"}, "geometry/cylinder": {"radius", "length"},
             "geometry/sphere": {"radius"}, "geometry/capsule": {"radius", "length"},
             "geometry/mesh": {"filename", "scale"}}
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
    "contact_coefficients": "contact parameters",
    "texture": "textures are not drawn",
    "type": "transmission type name",
    "hardwareInterface": "ROS control interface",
    "ros2_control": "ROS 2 control settings",
    "motor": "motor descriptions",
    "klampt": "Klampt settings",
}

_XACRO_TAG = re.compile(rb"<\s*xacro:", re.IGNORECASE)
_XACRO_SUBST = re.compile(r"\$[({]")
# A markup declaration (DOCTYPE, ENTITY, ELEMENT …): only the defused parser may see one.
_DECLARATION = re.compile(rb"<!(?!--|\[CDATA\[)")
_XML_ENCODING = re.compile(rb"<\?xml[^>]*?encoding\s*=\s*[\"']([^\"']*)[\"']")
_PLAIN_ENCODINGS = {"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin-1", "latin1"}
# Byte-order marks of the encodings whose markup is not ASCII bytes (UTF-32 LE starts like UTF-16 LE).
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")


# -- XML -------------------------------------------------------------------------------------------------

def _wide(data: bytes) -> bool:
    """A UTF-16/32 file (with or without a byte-order mark): its ASCII characters come with NUL bytes."""
    return data.startswith(_WIDE_BOMS) or b"\x00" in data[:4]


def _prepare(data: bytes) -> tuple[bytes, int]:
    """Tolerate what real files carry: byte-order marks, blank lines before ``<?xml``, trailing NULs.

    Returns the cleaned bytes and the number of lines removed at the start. A UTF-16/32 file is returned as it
    is (expat reads its byte-order mark; stripping bytes would cut its characters in half).
    """
    if _wide(data):
        return data, 0
    offset = 0
    while True:
        stripped = data.lstrip()
        offset += data.count(b"\n", 0, len(data) - len(stripped))
        data = stripped
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
            continue
        break
    return data.rstrip(b"\x00 \t\r\n"), offset


def _plain_ascii_markup(data: bytes) -> bool:
    """Whether the markup of ``data`` is plainly ASCII-compatible (UTF-8, ASCII, Latin-1), so a search of the
    bytes for ``<!`` sees every declaration the parser would see.

    Not so: NUL bytes (UTF-16/32 with or without a byte-order mark), a UTF-16/32 byte-order mark, a first
    byte other than ``<`` (EBCDIC, UTF-7 …), or an XML declaration naming another encoding.
    """
    if not data.startswith(b"<") or b"\x00" in data or data.startswith(_WIDE_BOMS):
        return False
    m = _XML_ENCODING.match(data)
    return m is None or m.group(1).decode("ascii", "replace").lower() in _PLAIN_ENCODINGS


def _scan(data: bytes, offset: int) -> tuple[list[int], bool] | None:
    """The line of every start tag in document order, and whether an attribute may hold a xacro
    substitution (a ``$`` outside comments, CDATA and instructions, or a character reference).

    One vectorised pass over the bytes and a short loop over the comments, CDATA sections and processing
    instructions (a ``<`` or ``$`` inside them is not markup). None when the bytes do not scan as expected.
    """
    buf = np.frombuffer(data, np.uint8)
    lt = np.flatnonzero(buf == 60)  # '<'
    if not lt.size or lt[-1] + 1 >= buf.size:
        return None
    after = buf[lt + 1]
    special = (after == 33) | (after == 63)  # '<!' (comment, CDATA: no declaration reaches here), '<?'
    starts = lt[~special & (after != 47)]  # and not '</'
    openers = lt[special].tolist()
    dollars = np.flatnonzero(buf == 36)  # '$'
    if openers:
        spans = []
        end = 0
        find, startswith = data.find, data.startswith
        for p in openers:
            if p < end:
                continue  # inside the previous comment, section or instruction
            if startswith(b"<!--", p):
                closer, skip = b"-->", 4
            elif startswith(b"<?", p):
                closer, skip = b"?>", 2
            elif startswith(b"<![CDATA[", p):
                closer, skip = b"]]>", 9
            else:
                return None
            end = find(closer, p + skip)
            if end < 0:
                return None
            end += len(closer)
            spans.append((p, end))
        bounds = np.array(spans, dtype=np.intp)
        starts = starts[_outside(bounds, starts)]
        if dollars.size:
            dollars = dollars[_outside(bounds, dollars)]
    newlines = np.flatnonzero(buf == 10)
    amps = np.flatnonzero(buf[:-1] == 38)  # '&': '&#' writes a character by its code, '$' among them
    char_ref = bool(amps.size) and bool((buf[amps + 1] == 35).any())
    return (np.searchsorted(newlines, starts) + (1 + offset)).tolist(), bool(dollars.size) or char_ref


def _outside(bounds: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Mask of the ``positions`` outside every ``[start, end)`` row of ``bounds`` (sorted, disjoint)."""
    k = np.searchsorted(bounds[:, 0], positions, side="right") - 1
    return (k < 0) | (positions >= bounds[np.maximum(k, 0), 1])


def _fast_parse(data: bytes, offset: int) -> tuple[ET.Element, dict, bool] | None:
    """Parse with the C tree builder when the file cannot declare entities; None to take the defused path.

    Only plainly ASCII-compatible bytes without a markup declaration qualify: in any other encoding a
    declaration could hide from the byte search (a UTF-16 ``<!ENTITY`` is not the bytes ``<!``).
    """
    if not _plain_ascii_markup(data) or _DECLARATION.search(data) is not None:
        return None
    try:
        parser = ET.XMLParser()
        parser.feed(data)
        root = parser.close()
    except ET.ParseError:
        return None  # the defused path reports it, with the same codes
    scan = _scan(data, offset)
    if scan is None:
        return None
    lines, may_hold_xacro = scan
    try:
        return root, dict(zip(root.iter(), lines, strict=True)), may_hold_xacro
    except ValueError:  # the start tags and the elements do not pair up: let expat count the lines
        return None


class _LineBuilder:
    """Parser target that builds a standard element tree and keeps the line of every element."""

    def __init__(self, offset: int):
        self.parser = None
        self.builder = ET.TreeBuilder()
        self.lines: dict[ET.Element, int] = {}
        self.offset = offset

    def start(self, tag, attrib):
        element = self.builder.start(tag, attrib)
        self.lines[element] = self.parser.parser.CurrentLineNumber + self.offset
        return element

    def end(self, tag):
        return self.builder.end(tag)

    def data(self, text):
        self.builder.data(text)

    def close(self):
        return self.builder.close()


def _defused_parse(data: bytes, offset: int, file: str) -> tuple[ET.Element, dict, bool]:
    builder = _LineBuilder(offset)
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    builder.parser = parser
    external_dtd: list[str] = []

    def doctype(name, system_id, public_id, has_internal_subset):
        if system_id or public_id:
            external_dtd.append(system_id or public_id)

    parser.parser.StartDoctypeDeclHandler = doctype
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
                            "`xacro FILE.urdf.xacro > FILE.urdf` first and open the result",
                            file, line) from None
        msg = str(exc).split(": line")[0]
        raise UrdfError("urdf.xml", f"not well-formed XML ({msg}); fix the markup at this line",
                        file, line) from None
    if root is None:
        raise UrdfError("urdf.xml", "the file is empty; expected a <robot> element", file, 0)
    if external_dtd:
        _refuse_external_entities(data, offset, file, external_dtd[0])
    return root, builder.lines, _wide(data) or b"$" in data or b"&#" in data


# A named entity reference other than the five XML predefines (a character reference starts with '&#').
_ENTITY_REFERENCE = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);|#)([^\s;&<>\"']+);")


def _refuse_external_entities(data: bytes, offset: int, file: str, dtd: str) -> None:
    """Refuse a reference to an entity that only the external DTD ``dtd`` could declare.

    The DTD is never read (and the file declares no entity: the defused parse refuses declarations), so
    expat skips such a reference, and in an attribute value it cannot even report it: ``name="&robot;"``
    would read as an empty name. A second pass hands expat's raw markup, as the file writes it, to a default
    handler that looks for named references outside comments, CDATA and instructions.
    """
    parser = expat.ParserCreate()
    found: list[tuple[str, int]] = []
    in_cdata = [False]

    def markup(text: str) -> None:
        if found or in_cdata[0] or "&" not in text or text.startswith(("<!--", "<?")):
            return
        m = _ENTITY_REFERENCE.search(text)
        if m:
            found.append((m.group(1), parser.CurrentLineNumber))

    parser.DefaultHandler = markup  # not ...Expand: no markup is interpreted, every piece is reported
    parser.StartCdataSectionHandler = lambda: in_cdata.__setitem__(0, True)
    parser.EndCdataSectionHandler = lambda: in_cdata.__setitem__(0, False)
    try:
        parser.Parse(data, True)
    except expat.ExpatError:
        return  # the first parse read this file; nothing more to learn here
    if found:
        name, line = found[0]
        raise UrdfError("urdf.entity", f"&{name}; names an entity declared only in the external DTD {dtd!r}, "
                        f"which is not read, so its text would be lost; write the text in place of &{name}; "
                        "and remove the DOCTYPE", file, line + offset)


def _parse_xml(data: bytes, file: str) -> tuple[ET.Element, dict, bool]:
    """The root element, the line of every element, and whether an attribute may hold a xacro substitution."""
    data, offset = _prepare(data)
    if not data:
        raise UrdfError("urdf.xml", "the file is empty (or only blank); expected a <robot> element", file, 1)
    return _fast_parse(data, offset) or _defused_parse(data, offset, file)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if tag.startswith("{") else tag


def _transforms(origins: np.ndarray) -> np.ndarray:
    """URDF origins ``(n, 6)`` as ``x y z roll pitch yaw`` to ``(n, 4, 4)`` transforms, each
    ``Rz(yaw) @ Ry(pitch) @ Rx(roll)`` with the translation (built once for the whole file)."""
    r, p, w = origins[:, 3], origins[:, 4], origins[:, 5]
    cr, sr, cp, sp, cy, sy = np.cos(r), np.sin(r), np.cos(p), np.sin(p), np.cos(w), np.sin(w)
    X = np.empty((len(origins), 4, 4))
    X[:, 0, 0] = cy * cp
    X[:, 0, 1] = cy * sp * sr - sy * cr
    X[:, 0, 2] = cy * sp * cr + sy * sr
    X[:, 1, 0] = sy * cp
    X[:, 1, 1] = sy * sp * sr + cy * cr
    X[:, 1, 2] = sy * sp * cr - cy * sr
    X[:, 2, 0] = 0.0 - sp  # +0.0, not -0.0, when the pitch is 0
    X[:, 2, 1] = cp * sr
    X[:, 2, 2] = cp * cr
    X[:, :3, 3] = origins[:, :3]
    X[:, 3, :3] = 0.0
    X[:, 3, 3] = 1.0
    return X


def principal_moments(xx, yy, zz, xy, xz, yz) -> tuple[float, float, float]:
    """Eigenvalues of a symmetric 3x3 inertia, ascending, in closed form (Smith 1961)."""
    p1 = xy * xy + xz * xz + yz * yz
    if p1 == 0.0:
        a, b, c = sorted((xx, yy, zz))
        return a, b, c
    q = (xx + yy + zz) / 3.0
    a, b, c = xx - q, yy - q, zz - q
    p = math.sqrt((a * a + b * b + c * c + 2.0 * p1) / 6.0)
    det = a * (b * c - yz * yz) - xy * (xy * c - yz * xz) + xz * (xy * yz - b * xz)
    r = min(1.0, max(-1.0, det / (2.0 * p * p * p)))
    phi = math.acos(r) / 3.0
    largest = q + 2.0 * p * math.cos(phi)
    smallest = q + 2.0 * p * math.cos(phi + 2.0 * math.pi / 3.0)
    return smallest, 3.0 * q - largest - smallest, largest


_ZERO3 = (0.0, 0.0, 0.0)
_ZERO6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
_X_AXIS = (1.0, 0.0, 0.0)
_ONE3 = (1.0, 1.0, 1.0)


# -- the reader ------------------------------------------------------------------------------------------

class _Reader:
    def __init__(self, file: str, base: Path | None, package_dirs, lines: dict, may_hold_xacro: bool = True,
                 strict: bool = False):
        self.file = file
        self.strict = strict
        self.may_hold_xacro = may_hold_xacro
        self.lines = lines
        self.resolve = Resolver(base, package_dirs)
        self.report = ReadReport(file=file)
        self.materials: dict[str, tuple[float, float, float, float] | None] = {}
        self._warned_kinds: set[str] = set()
        self._warned_meshes: set[str] = set()
        self._warned_materials: set[str] = set()
        self._child_of: dict[str, Joint] = {}
        # joint <origin> elements holding an unexpanded xacro substitution -> (attribute, value); their joints
        # are left out with the links they place (see leave_out)
        self._unknown_origins: dict[ET.Element, tuple[str, str]] = {}
        self._unplaced: dict[str, ET.Element] = {}  # joint name -> its <origin>, in document order
        # values written with commas, by (element tag, attribute): {element: (value, with spaces)}
        self._commas: dict[tuple[str, str], dict[ET.Element, tuple[str, str]]] = {}
        # The top-level elements by kind, gathered while accounting (the reading pass starts from them).
        self._top: dict[str, list[ET.Element]] = {"material": [], "link": [], "joint": [], "transmission": []}
        # Numbers gathered while reading, turned into numpy arrays once for the whole file (see _arrays):
        # (object, attribute, <origin> element or None): the attribute receives a (4, 4) transform
        self._placed: list[tuple[object, str, ET.Element | None]] = []
        self._origins: list[tuple] = []  # its origin: x y z roll pitch yaw
        self._inertials: list[Inertial] = []
        self._inertias: list[tuple] = []  # ixx ixy ixz iyy iyz izz of each

    # -- errors and accounting ---------------------------------------------------------------------
    def line(self, where) -> int:
        if where is None:
            return 0
        if isinstance(where, int):
            return where
        return self.lines.get(where, 0)

    def fail(self, code: str, message: str, where=None, kind: str | None = None) -> NoReturn:
        """Refuse: ``where`` is the element (or the line) the message is about."""
        line = self.line(where)
        if kind:
            self.report.add(kind, REFUSED, line, message)
        raise UrdfError(code, message, self.file, line, report=self.report)

    def defect(self, code: str, message: str, where, blocks: str) -> None:
        """A defect confined to one element: an error in the report that blocks ``blocks`` (a key of
        :data:`~mime_gui.multibody.report.BLOCKS`), or a refusal when reading strictly."""
        if self.strict:
            self.fail(code, message, where)
        self.report.error(code, message, self.line(where), blocks)

    def ignore(self, kind: str, line: int, why: str = "") -> None:
        self.report.add(kind, IGNORED, line, why)
        if kind not in self._warned_kinds:
            self._warned_kinds.add(kind)
            self.report.warn("urdf.not-used", f"<{kind}> is recognised and not used"
                             + (f" ({why})" if why else ""), line)

    def account(self, root: ET.Element, may_hold_xacro: bool = True) -> None:
        """Sort every element, its attributes and its subtree into the report groups, and gather the
        top-level materials, links, joints and transmissions for the reading pass.

        Elements are grouped by signature (kind and attribute names), so each element costs one lookup; a
        kind's first lines are the smallest over its signatures. ``may_hold_xacro`` False (no ``$`` in the
        file) skips the search for xacro substitutions.
        """
        # signature -> [count, first elements, kind, attribute kinds [(kind, group, note)], group, note]
        groups: dict[tuple, list] = {}
        try:
            entry = self._count(root, "", groups, may_hold_xacro)
            if entry[4] == USED:
                self._walk(root, entry[2], groups, may_hold_xacro, top=self._top)
        finally:
            self._flush(groups, self.lines)

    def _walk(self, node: ET.Element, kind: str, groups: dict, may_hold_xacro: bool,
              top: dict[str, list] | None = None) -> None:
        """Count the children of the used element ``node`` (of ``kind``) and their subtrees, in order;
        ``top`` (for the root) gathers the used children by tag for the reading pass."""
        get = groups.get
        for child in node:
            tag = child.tag
            attrib = child.attrib
            key = (kind, tag, *attrib) if attrib else (kind, tag)
            entry = get(key)
            if entry is None:
                entry = groups[key] = self._signature(child, kind, tag, attrib)
            entry[0] += 1
            if len(entry[1]) < 5:
                entry[1].append(child)
            if may_hold_xacro and attrib:
                self._xacro_values(child, attrib, entry[2])
            if entry[4] == USED:
                if top is not None:
                    top[tag].append(child)
                if len(child):
                    self._walk(child, entry[2], groups, may_hold_xacro)

    def _count(self, node: ET.Element, path: str, groups: dict, may_hold_xacro: bool) -> list:
        tag = node.tag
        attrib = node.attrib
        key = (path, tag, *attrib)
        entry = groups.get(key)
        if entry is None:
            entry = groups[key] = self._signature(node, path, tag, attrib)
        entry[0] += 1
        if len(entry[1]) < 5:
            entry[1].append(node)
        if may_hold_xacro and attrib:
            self._xacro_values(node, attrib, entry[2])
        return entry

    def _xacro_values(self, node: ET.Element, attrib: dict, kind: str) -> None:
        for attr, value in attrib.items():
            if "$" in value and _XACRO_SUBST.search(value):
                if kind == "robot/joint/origin" and attr in ("xyz", "rpy"):
                    self._unknown_origins.setdefault(node, (attr, value))  # confined: see leave_out
                    continue
                self.fail("urdf.xacro", f"attribute {_local(attr)}={value!r} of <{_local(node.tag)}> holds "
                          "an unexpanded xacro substitution; run xacro first", node, kind=f"{kind}@{attr}")

    def _signature(self, node: ET.Element, path: str, tag, attrib) -> list:
        if not isinstance(tag, str):  # a comment or processing instruction kept by a custom builder
            return [0, [], "", [], None, ""]
        local = _local(tag)
        kind = f"{path}/{local}" if path else local
        if tag[:1] == "{":
            if "xacro" in tag:
                self.fail("urdf.xacro", f"<xacro:{local}> is an unexpanded xacro element; run "
                          "`xacro FILE.urdf.xacro > FILE.urdf` first and open the result", node, kind=kind)
            return [0, [], kind, [], IGNORED, "namespaced extension element"]
        used = _USED.get(kind)
        if used is None:
            if path.endswith("/geometry"):  # a shape of an unknown kind: its error (see geometry) says so
                self._warned_kinds.add(kind)
                return [0, [], kind, [], IGNORED, "a geometry kind that is not drawn: a marked placeholder "
                                                  "stands in"]
            return [0, [], kind, [], IGNORED, _KNOWN_UNUSED.get(tag, "unknown element")]
        attrs = []
        for attr in attrib:
            if attr in used:
                attrs.append((f"{kind}@{attr}", USED, ""))
            else:
                attrs.append((f"{kind}@{_local(attr)}", IGNORED,
                              "namespaced attribute" if attr[:1] == "{" else "attribute not used"))
        return [0, [], kind, attrs, USED, ""]

    def _flush(self, groups: dict[tuple, list], lines) -> None:
        """Move the counted signatures into the report, kinds in document order, one warning per kind."""
        kinds: dict[str, list] = {}  # kind -> [group, count, first lines, note]
        for count, first, kind, attrs, group, note in groups.values():
            if group is None:
                continue
            first_lines = [lines.get(e, 0) for e in first]
            for k, g, n in [(kind, group, note), *attrs]:
                entry = kinds.get(k)
                if entry is None:
                    kinds[k] = [g, count, first_lines, n]
                else:
                    entry[1] += count
                    entry[2] = sorted(entry[2] + first_lines)[:5]
        for kind, (group, count, first, note) in sorted(kinds.items(), key=lambda kv: kv[1][2][:1]):
            if group == IGNORED and kind not in self._warned_kinds:
                self._warned_kinds.add(kind)
                self.report.warn("urdf.not-used", f"<{kind}> is recognised and not used"
                                 + (f" ({note})" if note else ""), first[0] if first else 0)
            self.report.merge(kind, group, count, first, note)

    # -- values ------------------------------------------------------------------------------------
    def floats(self, node: ET.Element, attr: str, n: int, default=None, what: str = "") -> tuple:
        raw = node.get(attr)
        if raw is None:
            if default is None:
                self.fail("urdf.missing-attribute", f"<{_local(node.tag)}> needs the attribute {attr}="
                          f"\"{' '.join(['0'] * n)}\"{what}", node)
            return default
        try:
            values = tuple(map(parse_float, raw.replace(",", " ").split() if "," in raw else raw.split()))
        except ValueError:
            if _XACRO_SUBST.search(raw):
                self.fail("urdf.xacro", f"{attr}={raw!r} of <{_local(node.tag)}> holds an unexpanded xacro "
                          "substitution; run xacro first", node)
            if "_" in raw:
                self.fail("urdf.value", f"{attr}={raw!r} of <{_local(node.tag)}> groups digits with '_'; "
                          "write each number plainly (1000, not 1_000)", node)
            self.fail("urdf.value", f"{attr}={raw!r} of <{_local(node.tag)}> is not a list of {n} number"
                      f"{'s' if n > 1 else ''}", node)
        if len(values) != n:
            self.fail("urdf.value", f"{attr}={raw!r} of <{_local(node.tag)}> has {len(values)} numbers, "
                      f"expected {n}", node)
        total = sum(values)
        if total - total != 0.0 and not all(map(math.isfinite, values)):
            self.fail("urdf.non-finite", f"{attr}={raw!r} of <{_local(node.tag)}> is not finite; give "
                      "finite numbers", node)
        if "," in raw:
            self.commas(node, attr, raw)
        return values

    def commas(self, node: ET.Element, attr: str, raw: str) -> None:
        """Numbers separated by commas are read, but urdfdom (ROS) and Pinocchio refuse the file: one warning
        per element and attribute kind, at its first line (:meth:`warn_commas`); a refusal when strict."""
        tag = _local(node.tag)
        fixed = " ".join(raw.replace(",", " ").split())
        if self.strict:
            self.fail("urdf.comma", f"{attr}={raw!r} of <{tag}> separates its numbers with commas, which "
                      f"urdfdom (ROS) and Pinocchio refuse; separate them with spaces: {attr}=\"{fixed}\"",
                      node)
        seen = self._commas.setdefault((tag, attr), {})
        seen.setdefault(node, (raw, fixed))  # a value may be read twice (a box's size)

    def warn_commas(self) -> None:
        for (tag, attr), seen in self._commas.items():
            (node, (raw, fixed)), *more = sorted(seen.items(), key=lambda item: self.line(item[0]))
            others = ""
            if more:
                lines = ", ".join(str(self.line(n)) for n, _ in more[:5]) + (" …" if len(more) > 5 else "")
                lines = ("lines " if len(more) > 1 else "line ") + lines
                others = f" (and {len(more)} more <{tag} {attr}=...> so written, {lines})"
            self.report.warn("urdf.comma", f"{attr}={raw!r} of <{tag}> separates its numbers with commas"
                             f"{others}; they are read, but urdfdom (ROS) and Pinocchio refuse the file: "
                             f"separate them with spaces ({attr}=\"{fixed}\")", self.line(node))

    def scalar(self, node: ET.Element, attr: str, default=None) -> float:
        raw = node.get(attr)
        if raw is None and default is not None:
            return default
        try:
            value = parse_float(raw)
        except (TypeError, ValueError):  # absent, or not one plain number: the full path says why
            return self.floats(node, attr, 1, None if default is None else (default,))[0]
        if value - value != 0.0:  # inf or nan
            self.fail("urdf.non-finite", f"{attr}={raw!r} of <{_local(node.tag)}> is not finite; give a "
                      "finite number", node)
        return value

    def place(self, obj, attr: str, parent: ET.Element) -> None:
        """Read the ``<origin>`` of ``parent``; ``obj.attr`` receives its transform at the end (_arrays)."""
        o = parent.find("origin")
        if o is None:
            self._origins.append(_ZERO6)
        else:
            xyz, rpy = o.get("xyz"), o.get("rpy")
            values = None
            if xyz is not None and rpy is not None and "_" not in xyz and "_" not in rpy \
                    and xyz.isascii() and rpy.isascii():  # float() reads other scripts' digits too
                # the common case: two plain triples of finite numbers
                words = xyz.split()
                if len(words) == 3:
                    more = rpy.split()
                    if len(more) == 3:
                        try:
                            values = tuple(map(float, words + more))
                        except ValueError:
                            values = None
                        else:
                            total = sum(values)
                            if total - total != 0.0:
                                values = None
            if values is None:  # anything else: the general path, with its messages
                values = self.floats(o, "xyz", 3, _ZERO3) + self.floats(o, "rpy", 3, _ZERO3)
            self._origins.append(values)
        self._placed.append((obj, attr, o))

    def _arrays(self, joints: dict[str, Joint]) -> None:
        """Turn the numbers gathered while reading into numpy arrays, one vectorised pass per quantity; each
        object receives its own row (a view of the file's array)."""
        if self._placed:
            origins = np.array(self._origins, dtype=float)
            far = np.flatnonzero(np.abs(origins[:, :3]).max(axis=1) > MAX_LENGTH)
            if far.size:
                node = self._placed[int(far[0])][2]
                self.fail("urdf.magnitude", f"<origin xyz={node.get('xyz')!r}> places a frame "
                          f"{np.abs(origins[far[0], :3]).max():g} m from its parent; positions are within "
                          f"±{MAX_LENGTH:g} m: check the units", node)
            X = _transforms(origins)
            for (obj, attr, _), x in zip(self._placed, X, strict=True):
                setattr(obj, attr, x)
        if self._inertials:
            I = np.array(self._inertias, dtype=float)[:, (0, 1, 2, 1, 3, 4, 2, 4, 5)].reshape(-1, 3, 3)
            for inertial, i in zip(self._inertials, I, strict=True):
                inertial.inertia = i
        if joints:
            axes = np.array([j.axis for j in joints.values()], dtype=float)  # tuples while reading
            for joint, axis in zip(joints.values(), axes, strict=True):
                joint.axis = axis

    def name_of(self, node: ET.Element, what: str) -> str:
        name = node.get("name")
        if not name:
            self.fail("urdf.missing-attribute", f"a <{what}> has no name=; give every {what} a unique name",
                      node)
        return name

    # -- elements ----------------------------------------------------------------------------------
    def rgba(self, mat: ET.Element | None, owner: str = "") -> tuple[tuple | None, str | None]:
        if mat is None:
            return None, None
        name = mat.get("name")
        color = mat.find("color")
        if color is not None:
            values = self.floats(color, "rgba", 4)
            if not all(0.0 <= v <= 1.0 for v in values):
                self.report.warn("urdf.color", f"colour rgba={color.get('rgba')!r} of material {name!r} is "
                                 "outside [0, 1]; it is clipped", self.line(color))
                values = tuple(min(max(v, 0.0), 1.0) for v in values)
            return values, name
        if owner and not len(mat) and name not in self.materials and name not in self._warned_materials:
            self._warned_materials.add(name)
            self.report.warn("urdf.material", f"the visual of link {owner!r} names material {name!r}, which "
                             "is not declared with a colour; it is drawn in the default colour",
                             self.line(mat))
        return self.materials.get(name), name

    def visual_materials(self, links: list[ET.Element]) -> None:
        """Named colours declared inside visuals, so that any visual can name them (as RViz and urdfdom
        resolve them): a name declared at the robot level keeps that colour; otherwise the first visual that
        gives the name a colour, in document order. A colour that does not read is skipped here; the visual
        that holds it reports it."""
        for link in links:
            for visual in link.iterfind("visual"):
                mat = visual.find("material")
                if mat is None:
                    continue
                name, color = mat.get("name"), mat.find("color")
                if not name or color is None or self.materials.get(name) is not None:
                    continue
                try:
                    words = (color.get("rgba") or "").replace(",", " ").split()  # commas: see commas()
                    values = tuple(parse_float(v) for v in words)
                except ValueError:
                    continue
                if len(values) == 4 and all(math.isfinite(v) for v in values):
                    self.materials[name] = tuple(min(max(v, 0.0), 1.0) for v in values)

    def geometry(self, node: ET.Element, owner: str):
        what = _local(node.tag)
        g = node.find("geometry")
        if g is None:
            return self.undrawable("none", f"a <{what}> of link {owner!r} has no <geometry>; add a box, "
                                   "cylinder, sphere, capsule or mesh", node)
        shapes = [c for c in g if isinstance(c.tag, str) and c.tag[:1] != "{"]
        if not shapes:
            return self.undrawable("none", f"the <geometry> of a <{what}> of link {owner!r} has no shape; "
                                   "add a box, cylinder, sphere, capsule or mesh", g)
        if len(shapes) > 1:
            self.report.warn("urdf.geometry-extra", f"the <geometry> of a <{what}> of link {owner!r} holds "
                             f"{len(shapes)} shapes; only the first, <{shapes[0].tag}>, is kept",
                             self.line(g))
        shape = shapes[0]
        tag = shape.tag
        if tag in ("box", "cylinder", "sphere"):
            self.check_sizes(shape, owner)
        if tag == "box":
            size = self.floats(shape, "size", 3)
            if min(size) < 0:
                return self.undrawable(tag, f"<box> size {size} of link {owner!r} is negative; sizes are "
                                       ">= 0", shape)
            return Box(size)
        if tag in ("cylinder", "capsule"):
            r, length = self.scalar(shape, "radius"), self.scalar(shape, "length")
            if r < 0 or length < 0:
                return self.undrawable(tag, f"<{tag}> of link {owner!r} has a negative radius or length; "
                                       "sizes are >= 0", shape)
            return Cylinder(r, length) if tag == "cylinder" else Capsule(r, length)
        if tag == "sphere":
            r = self.scalar(shape, "radius")
            if r < 0:
                return self.undrawable(tag, f"<sphere> of link {owner!r} has a negative radius", shape)
            return Sphere(r)
        if tag == "mesh":
            return self.mesh(shape, owner)
        return self.undrawable(tag, f"<{tag}> in a <{what}> of link {owner!r} is a geometry this reader does "
                               "not know; use box, cylinder, sphere, capsule or mesh", shape)

    def undrawable(self, kind: str, message: str, where) -> UnknownGeometry:
        """A shape that cannot be drawn: an error that blocks its drawing (a marked placeholder stands in)."""
        self.defect("urdf.geometry", message + "; it is drawn as a marked placeholder", where, "drawing")
        return UnknownGeometry(kind, message)

    def mesh(self, shape: ET.Element, owner: str):
        uri = (shape.get("filename") or "").strip()
        if not uri:
            return self.undrawable("mesh", f"a <mesh> of link {owner!r} has no filename=; give the mesh file "
                                   "(package://, file:// or a path relative to the URDF)", shape)
        raw_scale = shape.get("scale")
        if raw_scale is not None and len(raw_scale.replace(",", " ").split()) == 1:  # a uniform scale
            scale = self.floats(shape, "scale", 1) * 3
        else:
            scale = self.floats(shape, "scale", 3, _ONE3)
        if max(map(abs, scale)) > MAX_FACTOR:
            self.fail("urdf.magnitude", f"<mesh> scale {raw_scale!r} of link {owner!r} is beyond "
                      f"±{MAX_FACTOR:g}; check the units", shape)
        found, tried = self.resolve(uri)
        if found is None and uri not in self._warned_meshes:
            self._warned_meshes.add(uri)
            self.report.warn("urdf.mesh-unresolved", f"mesh {uri!r} of link {owner!r} was not found; "
                             f"{self.resolve.advice(uri, tried)}; the robot loads without it",
                             self.line(shape))
        return Mesh(uri, scale, found, tried)

    def check_sizes(self, shape: ET.Element, owner: str) -> None:
        """Refuse a primitive size beyond :data:`MAX_LENGTH` (its volume and inertia would overflow)."""
        for attr in ("size", "radius", "length"):
            raw = shape.get(attr)
            if raw is None:
                continue
            values = self.floats(shape, attr, 3 if attr == "size" else 1)
            if max(map(abs, values)) > MAX_LENGTH:
                self.fail("urdf.magnitude", f"<{shape.tag}> {attr}={raw!r} of link {owner!r} is beyond "
                          f"{MAX_LENGTH:g} m; check the units", shape)

    def shape(self, node: ET.Element, owner: str, with_material: bool) -> Shape:
        rgba, material = self.rgba(node.find("material"), owner) if with_material else (None, None)
        shape = Shape(self.geometry(node, owner), None, rgba, material, node.get("name"),
                      self.lines.get(node, 0))
        self.place(shape, "link_X_shape", node)
        return shape

    def inertial(self, node: ET.Element, owner: str) -> Inertial:
        errors: list[str] = []
        mass_node = node.find("mass")
        if mass_node is None:
            mass = 0.0
            errors.append(self.nonphysical(f"the <inertial> of link {owner!r} has no <mass value=...>; give "
                                           "the mass in kg", node))
        else:
            mass = self.scalar(mass_node, "value")
            if mass < 0:
                errors.append(self.nonphysical(f"link {owner!r} has a negative mass {mass}; a mass is >= 0",
                                               mass_node))
        if mass > MAX_MASS:
            self.fail("urdf.magnitude", f"link {owner!r} has a mass of {mass:g} kg; a link's mass is at most "
                      f"{MAX_MASS:g} kg: check the units", mass_node)
        inertia_node = node.find("inertia")
        if inertia_node is None:
            six = _ZERO6
        else:
            scalar = self.scalar
            xx, xy, xz = scalar(inertia_node, "ixx", 0.0), scalar(inertia_node, "ixy", 0.0), \
                scalar(inertia_node, "ixz", 0.0)
            yy, yz, zz = scalar(inertia_node, "iyy", 0.0), scalar(inertia_node, "iyz", 0.0), \
                scalar(inertia_node, "izz", 0.0)
            six = (xx, xy, xz, yy, yz, zz)
            if max(abs(xx), abs(xy), abs(xz), abs(yy), abs(yz), abs(zz)) > MAX_INERTIA:
                self.fail("urdf.magnitude", f"the <inertia> of link {owner!r} has a component of "
                          f"{max(map(abs, six)):g} kg m2; components are at most {MAX_INERTIA:g} kg m2: "
                          "check the units", inertia_node)
            a, b, c = principal = principal_moments(xx, yy, zz, xy, xz, yz)
            tol = 1e-6 * max(abs(a), abs(c)) + 1e-12
            if a < -tol:
                moments = ", ".join(f"{m:.4g}" for m in principal)
                errors.append(self.nonphysical(
                    f"the <inertia> of link {owner!r} is not positive semi-definite (principal moments "
                    f"{moments}); check the signs and values of ixx..izz", inertia_node))
            elif a + b < c - tol:
                # No rigid body has such an inertia, yet widely used descriptions (PR2 among them) carry
                # one; the algorithms stay well-defined, so it is a coded warning rather than a refusal.
                moments = ", ".join(f"{m:.4g}" for m in principal)
                self.report.warn("urdf.inertial-triangle", f"the <inertia> of link {owner!r} breaks the "
                                 f"triangle inequality (principal moments {moments}: the two smaller must "
                                 "add up to at least the largest); no rigid body has it, check the values",
                                 self.lines.get(inertia_node, 0))
        inertial = Inertial(mass, None, None, self.lines.get(node, 0), "; ".join(errors))
        self.place(inertial, "link_X_com", node)
        self._inertials.append(inertial)
        self._inertias.append(six)
        return inertial

    def nonphysical(self, message: str, where) -> str:
        """A link's mass properties that no body has: an error that blocks the dynamics; the message."""
        self.defect("urdf.inertial", message + "; the robot loads for viewing and kinematics, its dynamics "
                    "are blocked", where, "dynamics")
        line = self.line(where)
        return f"{message} ({self.file}:{line})" if line else message

    def link(self, node: ET.Element) -> Link:
        name = self.name_of(node, "link")
        inertial = node.find("inertial")
        return Link(name, None if inertial is None else self.inertial(inertial, name),
                    [self.shape(v, name, True) for v in node.findall("visual")],
                    [self.shape(c, name, False) for c in node.findall("collision")],
                    self.lines.get(node, 0))

    def joint(self, node: ET.Element) -> Joint:
        name = self.name_of(node, "joint")
        jtype = node.get("type")
        if not jtype:
            self.fail("urdf.joint-type", f"joint {name!r} has no type=; use revolute, continuous, prismatic "
                      "or fixed", node, kind="robot/joint@type")
        if jtype in ("floating", "planar"):
            self.fail("urdf.joint-type", f"joint {name!r} is {jtype}; only revolute, continuous, prismatic "
                      "and fixed joints are accepted. Model a free base as a separate segment, or fix it",
                      node, kind=f"robot/joint@type={jtype}")
        if jtype not in JOINT_TYPES:
            self.fail("urdf.joint-type", f"joint {name!r} has an unknown type {jtype!r}; use revolute, "
                      "continuous, prismatic or fixed", node, kind=f"robot/joint@type={jtype}")
        parent, child = node.find("parent"), node.find("child")
        if parent is None or not parent.get("link"):
            self.fail("urdf.missing-link", f"joint {name!r} has no <parent link=...>; name the link it hangs "
                      "from", node)
        if child is None or not child.get("link"):
            self.fail("urdf.missing-link", f"joint {name!r} has no <child link=...>; name the link it moves",
                      node)
        joint = Joint(name, jtype, parent.get("link"), child.get("link"), None, _X_AXIS,
                      line=self.lines.get(node, 0))
        origin = node.find("origin") if self._unknown_origins else None
        if origin is not None and origin in self._unknown_origins:
            self._unplaced[name] = origin
            self._origins.append(_ZERO6)  # never used: the joint is left out
            self._placed.append((joint, "parent_X_joint", origin))
        else:
            self.place(joint, "parent_X_joint", node)
        if jtype != "fixed":
            axis_node = node.find("axis")
            axis = (1.0, 0.0, 0.0) if axis_node is None else self.floats(axis_node, "xyz", 3, (1.0, 0.0, 0.0))
            norm = math.sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
            if norm == math.inf:  # a component beyond 1e154 overflows its square: scale it down first
                big = max(abs(axis[0]), abs(axis[1]), abs(axis[2]))
                axis = (axis[0] / big, axis[1] / big, axis[2] / big)
                norm = math.sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
            if norm < 1e-12:
                self.fail("urdf.axis", f"joint {name!r} has a zero <axis>; give a direction such as "
                          "xyz=\"0 0 1\"", axis_node)
            joint.axis = (axis[0] / norm, axis[1] / norm, axis[2] / norm)
            self.limits(node, joint)
            dyn = node.find("dynamics")
            if dyn is not None:
                joint.damping = self.scalar(dyn, "damping", 0.0)
                joint.friction = self.scalar(dyn, "friction", 0.0)
                for what, value in (("damping", joint.damping), ("friction", joint.friction)):
                    if value < 0:
                        self.fail("urdf.value", f"the <dynamics> {what} {value} of joint {name!r} is "
                                  f"negative; a {what} coefficient is >= 0", dyn)
        mimic = node.find("mimic")
        if mimic is not None:
            master = mimic.get("joint")
            if not master:
                self.defect("urdf.mimic", f"the <mimic> of joint {name!r} names no joint=; name the joint it "
                            "follows. The joint moves on its own", mimic, "mimic")
                return joint
            if jtype == "fixed":
                # Reduced models fix followers and keep their <mimic> (Talos); a fixed joint follows nothing.
                self.ignore("robot/joint/mimic (on a fixed joint)", self.line(mimic),
                            "a fixed joint follows nothing")
                return joint
            joint.mimic = Mimic(master, self.scalar(mimic, "multiplier", 1.0),
                                self.scalar(mimic, "offset", 0.0), self.line(mimic))
        return joint

    def limits(self, node: ET.Element, joint: Joint) -> None:
        name, jtype = joint.name, joint.type
        limit = node.find("limit")
        if limit is None:
            effort = velocity = math.inf
        else:
            effort = self.scalar(limit, "effort", math.inf)
            velocity = self.scalar(limit, "velocity", math.inf)
            if effort < 0 or velocity < 0:
                self.fail("urdf.limit", f"the <limit> of joint {name!r} has a negative effort or velocity "
                          f"({effort}, {velocity}); they are magnitudes, >= 0", limit)
        if jtype == "continuous":
            joint.limit = Limit(-math.inf, math.inf, effort, velocity)
            return
        if limit is None or limit.get("lower") is None or limit.get("upper") is None:
            hint = ", or declare it continuous if it turns freely" if jtype == "revolute" else ""
            self.report.warn("urdf.limit-default", f"{jtype} joint {name!r} has no lower/upper limit; the "
                             f"URDF default 0 is used, which holds it still. Add <limit lower=... upper=...>"
                             f"{hint}", self.line(limit if limit is not None else node))
        lower = self.scalar(limit, "lower", 0.0) if limit is not None else 0.0
        upper = self.scalar(limit, "upper", 0.0) if limit is not None else 0.0
        if lower > upper:
            self.fail("urdf.limit", f"joint {name!r} has lower {lower} > upper {upper} in its <limit>; swap "
                      "them", limit)
        joint.limit = Limit(lower, upper, effort, velocity)

    def transmission(self, node: ET.Element, complex_: list[str]) -> Transmission | None:
        name = node.get("name") or f"transmission@{self.line(node)}"
        joints = node.findall("joint")
        actuators = node.findall("actuator")
        # only a simple transmission (one joint, at most one actuator) has one reduction to reflect through
        if len(joints) != 1 or len(actuators) > 1 or not joints[0].get("name"):
            complex_.append(name)
            self.report.add("robot/transmission (not simple)", IGNORED, self.line(node),
                            "not one joint with at most one actuator")
            return None
        joint = joints[0]
        actuator = actuators[0] if actuators else None
        reduction_node = actuator.find("mechanicalReduction") if actuator is not None else None
        if reduction_node is None:
            reduction_node = node.find("mechanicalReduction")
        reduction, error = self.reduction(reduction_node, name) if reduction_node is not None else (1.0, "")
        return Transmission(name, joint.get("name"), actuator.get("name") if actuator is not None else None,
                            reduction, self.line(node), error)

    def reduction(self, node: ET.Element, name: str) -> tuple[float | None, str]:
        """The ``<mechanicalReduction>`` of transmission ``name``; ``(None, why)`` when it is not a finite,
        non-zero number (an error that blocks only the armature reflected through it)."""
        text = (node.text or "").strip()
        try:
            reduction = parse_float(text)
        except ValueError:
            if _XACRO_SUBST.search(text):
                self.fail("urdf.xacro", f"mechanicalReduction {text!r} of transmission {name!r} holds an "
                          "unexpanded xacro substitution; run xacro first", node)
            code = "urdf.value"
            why = f"<mechanicalReduction> {text!r} of transmission {name!r} is not a number"
        else:
            if math.isfinite(reduction) and reduction != 0:
                return reduction, ""
            code = "urdf.non-finite"
            why = f"<mechanicalReduction> {text!r} of transmission {name!r} is not a finite, non-zero number"
        self.defect(code, why + "; no armature can be reflected through it (declare the joint's armature "
                    "instead, or write the reduction)", node, "armature")
        line = self.line(node)
        return None, f"{why} ({self.file}:{line})" if line else why

    # -- the whole robot ---------------------------------------------------------------------------
    def read(self, root: ET.Element) -> MultibodyTree:
        if root.tag != "robot":
            self.fail("urdf.xml", f"the top element is <{_local(root.tag)}>, expected <robot>; is this a "
                      "URDF?", root)
        self.account(root, self.may_hold_xacro)
        top = self._top
        for m in top["material"]:
            rgba, name = self.rgba(m)
            if name in self.materials and self.materials[name] != rgba and rgba is not None:
                self.report.warn("urdf.material", f"material {name!r} is declared twice with different "
                                 "colours; the last one is used", self.line(m))
            if rgba is not None or name not in self.materials:
                self.materials[name or ""] = rgba
        self.visual_materials(top["link"])
        links: dict[str, Link] = {}
        joints: dict[str, Joint] = {}
        for node in top["link"]:
            link = self.link(node)
            if link.name in links:
                self.fail("urdf.duplicate-name", f"link {link.name!r} is declared twice (first at line "
                          f"{links[link.name].line}); rename one", node)
            links[link.name] = link
        for node in top["joint"]:
            joint = self.joint(node)
            if joint.name in joints:
                self.fail("urdf.duplicate-name", f"joint {joint.name!r} is declared twice (first at line "
                          f"{joints[joint.name].line}); rename one", node)
            joints[joint.name] = joint
        if len(self._unplaced) != len(self._unknown_origins):  # a joint's second <origin>, not read
            node = next(o for o in self._unknown_origins if o not in self._unplaced.values())
            attr, value = self._unknown_origins[node]
            self.fail("urdf.xacro", f"attribute {attr}={value!r} of <origin> holds an unexpanded xacro "
                      "substitution; run xacro first", node, kind=f"robot/joint/origin@{attr}")
        if not links:
            self.fail("urdf.missing-link", "the <robot> has no <link>, so it describes nothing to load "
                      "(xacro writes such a file from a file of macros alone); open the description that "
                      "declares the links", root)
        self.check_structure(links, joints)
        roots = [name for name in links if name not in self._child_of]
        tree = MultibodyTree(name=root.get("name", ""), links=links, joints=joints, root=roots[0],
                             source=self.file, report=self.report)
        order = tree.link_order()
        if len(order) != len(links):
            reachable = set(order)
            loose = [name for name in links if name not in reachable]
            self.fail("urdf.closed-chain", f"links {loose[:6]} are joined in a loop, detached from the root "
                      f"{tree.root!r}; remove a joint of the loop and attach them to the tree",
                      links[loose[0]].line)
        if self._unplaced:
            self.leave_out(tree, order)
        self.check_mimic(joints)
        complex_: list[str] = []
        for node in top["transmission"]:
            t = self.transmission(node, complex_)
            if t is not None:
                tree.transmissions[t.name] = t
        if complex_:
            more = " …" if len(complex_) > 6 else ""
            names = ", ".join(complex_[:6]) + more
            self.report.warn("urdf.transmission", f"{len(complex_)} transmission(s) are not simple (one "
                             f"<joint>, at most one <actuator>; e.g. differentials): {names}; they are "
                             "recognised and not used, so no armature is reflected through them",
                             self.line(top["transmission"][0]))
        self._arrays(joints)
        if self._commas:
            self.warn_commas()
        return tree

    def check_structure(self, links: dict[str, Link], joints: dict[str, Joint]) -> None:
        child_of: dict[str, Joint] = {}
        for joint in joints.values():
            for role, link in (("parent", joint.parent), ("child", joint.child)):
                if link not in links:
                    self.fail("urdf.missing-link", f"joint {joint.name!r} names {role} link {link!r}, which "
                              f"is not declared; declare <link name=\"{link}\"/> or fix the name", joint.line)
            if joint.parent == joint.child:
                self.fail("urdf.closed-chain", f"joint {joint.name!r} joins link {joint.child!r} to itself; "
                          "a joint joins two different links", joint.line)
            if joint.child in child_of:
                self.fail("urdf.closed-chain", f"link {joint.child!r} has two parents (joints "
                          f"{child_of[joint.child].name!r} and {joint.name!r}); closed chains are not "
                          "supported: remove one joint", joint.line)
            child_of[joint.child] = joint
        roots = [name for name in links if name not in child_of]
        if len(roots) > 1:
            self.fail("urdf.multiple-roots", f"the links {roots[:6]}{' …' if len(roots) > 6 else ''} have no "
                      "parent joint; a description has one root: join the others to the tree with joints",
                      links[roots[1]].line)
        if not roots:
            first = next(iter(joints.values()))
            self.fail("urdf.closed-chain", "every link has a parent joint, so the joints form a loop; remove "
                      "one joint of the loop", first.line)
        self._child_of = child_of

    def leave_out(self, tree: MultibodyTree, order: list[str]) -> None:
        """Leave out each joint whose ``<origin>`` holds an unexpanded xacro substitution, with every link and
        joint below it: where it places them is not known, and ROS has no transform for such frames either, so
        nothing is drawn, mounted or driven there at a guessed pose. An error (``urdf.xacro``) blocks those
        frames; when the links left out carry mass, a second one blocks the dynamics of the articulation they
        hang from (marked on their parent link's mass), whose mass properties would be incomplete."""
        children: dict[str, list[Joint]] = {}
        for j in tree.joints.values():
            children.setdefault(j.parent, []).append(j)
        depth = {name: i for i, name in enumerate(order)}
        unplaced = sorted((tree.joints[n] for n in self._unplaced), key=lambda j: depth[j.child])
        gone: set[str] = set()
        for joint in unplaced:  # outermost first: one below another is already left out with it
            origin = self._unplaced[joint.name]
            below, stack = [], [joint.child]
            while stack:
                link = stack.pop()
                below.append(link)
                stack.extend(j.child for j in reversed(children.get(link, ())))
            attr, value = self._unknown_origins[origin]
            listed = ", ".join(repr(n) for n in below[:6]) + (" …" if len(below) > 6 else "")
            self.defect("urdf.xacro", f"{attr}={value!r} of the <origin> of {joint.type} joint "
                        f"{joint.name!r} holds an unexpanded xacro substitution, so where it places link "
                        f"{joint.child!r} is not known: the joint and the link(s) it places ({listed}) are "
                        "left out. Write the numbers (run xacro on the source with its arguments or "
                        "environment variables set)", origin, "frames")
            if joint.parent in gone:
                continue
            mass = sum(tree.links[n].inertial.mass for n in below if tree.links[n].inertial is not None)
            if mass > 0:
                self.mass_left_out(tree, joint, below, mass, origin)
            gone.update(below)
            del tree.joints[joint.name]
            for link in below:
                del tree.links[link]
                for j in children.get(link, ()):
                    del tree.joints[j.name]

    def mass_left_out(self, tree: MultibodyTree, joint: Joint, below: list[str], mass: float, origin) -> None:
        """The links ``below`` joint ``joint``, left out, carry ``mass``: the articulation of its parent link
        lacks it. An error blocks that articulation's dynamics, marked on the parent link's mass."""
        message = (f"the links left out with joint {joint.name!r} ({', '.join(map(repr, below[:6]))}"
                   f"{' …' if len(below) > 6 else ''}) carry {mass:g} kg, so the mass properties of the "
                   f"articulation of link {joint.parent!r} are incomplete; write the numbers of the joint's "
                   "<origin> to bring them back")
        self.defect("urdf.xacro", message, origin, "dynamics")
        line = self.line(origin)
        why = f"{message} ({self.file}:{line})" if line else message
        parent = tree.links[joint.parent]
        if parent.inertial is None:  # a massless stand-in that carries the mark
            parent.inertial = Inertial(0.0, np.eye(4), np.zeros((3, 3)), line, why)
        else:
            parent.inertial.error = "; ".join(e for e in (parent.inertial.error, why) if e)

    def check_mimic(self, joints: dict[str, Joint]) -> None:
        """A mimic that names no movable joint, or whose chain of mimics loops, is an error: the joint keeps
        its own degree of freedom (its <mimic> is dropped). Every other chain ends at an independent movable
        joint, and its folded multiplier and offset (``a = m1 b + o1``, ``b = m2 c + o2`` gives
        ``a = m1 m2 c + m1 o2 + o1``) stay within :data:`MAX_FACTOR`. Each joint is walked once, so n mimics
        cost O(n) however they are chained."""
        folded: dict[str, tuple[float, float]] = {}  # joint -> (multiplier, offset) onto its root
        for joint in joints.values():
            if joint.mimic is None or joint.name in folded:
                continue
            path: list[Joint] = []  # the joints walked up from `joint`, not folded yet
            on_path: set[str] = set()
            k = joint
            while k.mimic is not None and k.name not in folded:
                if k.name in on_path:
                    names = [j.name for j in path]
                    self.drop_mimic(k, f"the <mimic> joints {names[names.index(k.name):]} follow each other "
                                    "in a loop; one of them must be independent")
                    break
                on_path.add(k.name)
                path.append(k)
                master = joints.get(k.mimic.joint)
                if master is None or not master.movable:
                    what = "not a joint" if master is None else "a fixed joint"
                    self.drop_mimic(k, f"joint {k.name!r} mimics {k.mimic.joint!r}, which is {what} of this "
                                    "robot; name a movable joint in <mimic joint=...>")
                    break
                k = master
            multiplier, offset = folded.get(k.name, (1.0, 0.0))
            for j in reversed(path):  # each joint's master is the one folded just before it
                m = j.mimic
                if m is None:  # dropped above: it is a root now
                    multiplier, offset = 1.0, 0.0
                    folded[j.name] = (multiplier, offset)
                    continue
                multiplier, offset = m.multiplier * multiplier, m.multiplier * offset + m.offset
                if not (abs(multiplier) <= MAX_FACTOR and abs(offset) <= MAX_FACTOR):
                    self.fail("urdf.magnitude", f"joint {j.name!r} follows its independent joint with a "
                              f"multiplier of {multiplier:g} and an offset of {offset:g} (its <mimic> chain "
                              f"multiplied out); both must be within ±{MAX_FACTOR:g}", m.line or j.line)
                folded[j.name] = (multiplier, offset)

    def drop_mimic(self, joint: Joint, message: str) -> None:
        self.defect("urdf.mimic", message + f". Joint {joint.name!r} moves on its own", joint.mimic.line
                    or joint.line, "mimic")
        joint.mimic = None


def read_urdf(source, package_dirs=(), strict: bool = False) -> MultibodyTree:
    """Read a URDF into a :class:`MultibodyTree`.

    ``source`` is a path (``str`` or path-like) or the URDF text (``str`` starting with ``<`` or holding
    ``<robot``, or ``bytes``). ``package_dirs`` are folders used to resolve ``package://`` mesh URIs (each a
    folder of packages or a package folder), searched before the process's own (``resolve.set_package_dirs``).
    Raises :class:`UrdfError` with a stable code on a refused file. A defect confined to one element loads as
    an error in ``tree.report`` (``report.errors``) that blocks only the use it breaks; ``strict=True``
    refuses the file at the first such defect instead.
    """
    base: Path | None
    if isinstance(source, bytes | bytearray):
        data, file, base = bytes(source), "<string>", None
    elif isinstance(source, str) and ("<robot" in source or source.lstrip("\ufeff \t\r\n").startswith("<")):
        data, file, base = source.encode(), "<string>", None
    else:
        path = Path(os.fspath(source))
        file = str(path)
        try:
            data = inputs.read_bytes(path, "urdf")  # a regular file within the size limit, or refused
        except inputs.FileError as exc:
            raise UrdfError(exc.code, exc.message, file) from None
        except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the path
            raise UrdfError("urdf.io", f"cannot read the file ({getattr(exc, 'strerror', None) or exc}); "
                            "check the path", file) from None
        base = resolved(path).parent
    enabled = gc.isenabled()
    gc.disable()  # the reader allocates many small objects and no cycles: collecting them is wasted time
    try:
        root, lines, may_hold_xacro = _parse_xml(data, file)
        return _Reader(file, base, package_dirs, lines, may_hold_xacro, strict).read(root)
    finally:
        if enabled:
            gc.enable()
