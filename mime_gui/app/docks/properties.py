"""Properties of the selection: the editable form of the rig, a segment, a part or a magnet (see
:mod:`mime_gui.app.docks.forms`), and the read-only properties of a description's link (its inertial), joint
(its parameters) or frame (its world pose)."""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QSignalBlocker, Qt
from PySide6.QtWidgets import QDockWidget, QHeaderView, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from mime_gui.app.docks.forms import FormPanel
from mime_gui.app.docks.registry import declare
from mime_gui.multibody.spatial import quaternion_of, rpy_of
from mime_gui.multibody.tree import Box, Cylinder, Mesh, Solid, Sphere
from mime_gui.session import ItemRef, Session


def _vec(v, digits: int = 4) -> str:
    return "  ".join(f"{round(float(x), digits) + 0.0:+.{digits}f}" for x in v)  # no "-0.0000"


def _gvec(v) -> str:
    return ", ".join(f"{float(x):.4g}" for x in v)


def _num(v: float, unit: str = "") -> str:
    v = float(v)
    if not math.isfinite(v):
        return ("∞" if v > 0 else "−∞") + (f" {unit}" if unit else "")
    return f"{v:.6g}" + (f" {unit}" if unit else "")


def _angle(v: float) -> str:
    """Radians with degrees beside them."""
    v = float(v)
    if not math.isfinite(v):
        return _num(v, "rad")
    return f"{v:.6g} rad  ({math.degrees(v):.1f}°)"


def geometry_text(g) -> str:
    if isinstance(g, Box):
        return "box " + " × ".join(f"{s:.3g}" for s in g.size) + " m"
    if isinstance(g, Cylinder):
        return f"cylinder r {g.radius:.3g} m, length {g.length:.3g} m"
    if isinstance(g, Solid):  # a rig part's kind with no primitive: its kind's own text
        return g.text
    if isinstance(g, Sphere):
        return f"sphere r {g.radius:.3g} m"
    if isinstance(g, Mesh):
        scale = "" if tuple(g.scale) == (1.0, 1.0, 1.0) else "  scale " + " ".join(f"{s:g}" for s in g.scale)
        return f"mesh {g.uri.rsplit('/', 1)[-1]}{scale}" + ("" if g.filename else "  (not found)")
    return type(g).__name__


class PropertiesDock(QDockWidget):
    def __init__(self, session: Session, bridge, services, parent=None):
        super().__init__(parent)
        declare(self, "PropertiesDock")  # its title and object name: the dock registry
        self.session = session
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.forms = FormPanel(session, body, field_plane=services.field_plane,
                               keepout_surface=services.keepout_surface)
        self.tree = QTreeWidget(body)
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels(["Property", "Value"])
        self.tree.setUniformRowHeights(True)
        self.tree.setIndentation(12)
        self.tree.setTextElideMode(Qt.ElideMiddle)  # a long path keeps its file name in sight
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        # small minimums: the dock shares its column with the joint sliders, and a short window keeps its size
        self.forms.setMinimumHeight(60)
        self.tree.setMinimumHeight(40)
        layout.addWidget(self.forms, 3)
        layout.addWidget(self.tree, 2)
        self.setWidget(body)
        self._pose_rows: dict[str, QTreeWidgetItem] = {}
        self._position_row: QTreeWidgetItem | None = None
        self.rebuilds = 0  # whole-content rebuilds (tests count them)
        self._summary = None  # the document summary shown (its rows), None when another item's rows are
        self._ref: ItemRef | None = None  # the item whose rows are shown
        bridge.selection_changed.connect(self.show_item)
        bridge.document_changed.connect(self._document_changed)
        bridge.rig_changed.connect(self._rig_changed)
        bridge.findings_changed.connect(self._findings_changed)
        bridge.poses_changed.connect(self._poses_changed)
        self.show_item(session.selection)

    # -- helpers -----------------------------------------------------------------------------------
    def _section(self, title: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self.tree, [title, ""])
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setFirstColumnSpanned(True)
        item.setExpanded(True)
        return item

    def _row(self, parent: QTreeWidgetItem, name: str, value: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent, [name, value])
        item.setToolTip(1, value)
        return item

    def values(self) -> dict[str, str]:
        """Every ``section/property → value`` shown (for tests and copy-paste)."""
        out = {}
        for i in range(self.tree.topLevelItemCount()):
            section = self.tree.topLevelItem(i)
            for j in range(section.childCount()):
                row = section.child(j)
                out[f"{section.text(0)}/{row.text(0)}"] = row.text(1)
        return out

    # -- content -----------------------------------------------------------------------------------
    def show_item(self, ref: ItemRef | None) -> None:
        """The form of ``ref`` (the rig when None, a segment, a part or magnet) and, for the rig and for a
        description's link, joint or frame, the read-only properties."""
        has_form = self.forms.show(ref if ref is None or self.session.has_item(ref) else None)
        self.forms.setVisible(has_form)
        read_only = not has_form or ref is None or not self.session.has_item(ref)
        self.tree.setVisible(read_only)
        layout = self.widget().layout()
        layout.setStretch(0, 0 if read_only else 3)  # the rig's short form, whole; its summary takes the rest
        layout.setStretch(1, 3 if read_only else 2)
        self._show_tree(ref)

    def _show_tree(self, ref: ItemRef | None) -> None:
        summary = self._document_rows() if ref is None or not self.session.has_item(ref) else None
        if summary is not None and self._ref is None and self._summary is not None \
                and [(t, [k for k, _ in rows]) for t, rows in summary] == \
                [(t, [k for k, _ in rows]) for t, rows in self._summary]:
            self._update_summary(summary)  # the same sections and rows: new values in place
            return
        self.rebuilds += 1
        with QSignalBlocker(self.tree):
            self.tree.clear()
            self._pose_rows = {}
            self._position_row = None
            self._summary = None
            self._ref = ref
            if summary is not None:
                self._fill_summary(summary)
                placeholder = QTreeWidgetItem(self.tree, ["Select a link, joint or frame", ""])
                placeholder.setFirstColumnSpanned(True)
                placeholder.setDisabled(True)
                return
            if ref.kind not in ("link", "joint", "frame"):
                return  # a segment, part or magnet: its form says it all
            seg = self.session.segment(ref.segment)
            if ref.kind == "link":
                self._link(seg, ref.name)
            elif ref.kind == "joint":
                self._joint(seg, ref.name)
            if ref.kind in ("link", "frame"):
                self._frame(seg, ref.name)

    def _document_rows(self) -> list[tuple[str, list[tuple[str, str]]]]:
        """The open document's summary: ``(section title, [(property, value), …])`` in order."""
        doc = self.session.document
        if doc is None:
            return []
        rows = [("opened from", "a URDF (a one-segment rig)" if doc.kind == "urdf" else "a rig file"),
                ("file", str(doc.path or "(not saved)"))]
        if doc.kind == "urdf":
            rows.append(("saves as", str(self.session.suggested_path())))
        rows.append(("rules", f"{len(doc.findings)} finding{'s' if len(doc.findings) != 1 else ''}"
                     if doc.findings else "all pass"))
        out = [(f"Document {doc.name}", rows)]
        for name, seg in doc.segments.items():
            tree, art = seg.tree, seg.articulation
            rows = [("kind", seg.kind)]
            if seg.mount is not None:
                rows.append(("mounted on", f"{seg.mount[0]}.{seg.mount[1]}"))
            movable = sum(1 for j in tree.joints.values() if j.movable)
            fixed = len(tree.joints) - movable
            mass = sum(link.inertial.mass for link in tree.links.values() if link.inertial is not None)
            rows += [("links", str(len(tree.links))),
                     ("joints", f"{len(tree.joints)} ({movable} movable, {fixed} fixed)"),
                     ("degrees of freedom", str(art.nq)), ("frames", str(art.nframes)),
                     ("total mass", _num(mass, "kg")), ("warnings", str(len(tree.report.warnings)))]
            out.append((f"Segment {name}", rows))
        return out

    def _fill_summary(self, summary) -> None:
        for title, rows in summary:
            s = self._section(title)
            for name, value in rows:
                self._row(s, name, value)
        self._summary = summary

    def _update_summary(self, summary) -> None:
        """Set the values that changed (the summary's sections and rows are those shown)."""
        for i, ((_, rows), (_, shown)) in enumerate(zip(summary, self._summary, strict=True)):
            section = self.tree.topLevelItem(i)
            for j, ((_, value), (_, old)) in enumerate(zip(rows, shown, strict=True)):
                if value != old:
                    section.child(j).setText(1, value)
                    section.child(j).setToolTip(1, value)
        self._summary = summary

    def _link(self, seg, name: str) -> None:
        link = seg.tree.links[name]
        s = self._section(f"Link {name}")
        self._row(s, "segment", seg.name)
        joint = seg.tree.parent_joint(name)
        self._row(s, "parent joint", joint.name if joint else "(root)")
        self._row(s, "child joints", ", ".join(j.name for j in seg.tree.child_joints(name)) or "—")
        s = self._section("Inertial")
        if link.inertial is None:
            self._row(s, "mass", "none (massless)")
        else:
            inertial = link.inertial
            X = inertial.link_X_com
            self._row(s, "mass", _num(inertial.mass, "kg"))
            self._row(s, "COM xyz", _vec(X[:3, 3]) + " m")
            rpy = rpy_of(X[:3, :3])
            if np.any(np.abs(rpy) > 1e-12):
                self._row(s, "COM rpy", _vec(rpy) + " rad")
            I = inertial.inertia
            self._row(s, "Ixx, Iyy, Izz", _gvec(np.diag(I)) + " kg·m²")
            self._row(s, "Ixy, Ixz, Iyz", _gvec([I[0, 1], I[0, 2], I[1, 2]]) + " kg·m²")
            self._row(s, "principal", _gvec(np.linalg.eigvalsh(I)) + " kg·m²")
        for title, shapes in (("Visuals", link.visuals), ("Collisions", link.collisions)):
            if not shapes:
                continue
            s = self._section(f"{title} ({len(shapes)})")
            for i, shape in enumerate(shapes):
                label = shape.name or f"#{i + 1}"
                text = geometry_text(shape.geometry)
                if shape.rgba is not None:
                    text += "  rgba " + " ".join(f"{c:.2g}" for c in shape.rgba)
                row = self._row(s, label, text)
                if isinstance(shape.geometry, Mesh):
                    row.setToolTip(1, f"{shape.geometry.uri}\n{shape.geometry.filename or 'not found'}")

    def _joint(self, seg, name: str) -> None:
        joint = seg.tree.joints[name]
        art = seg.articulation
        s = self._section(f"Joint {name}")
        self._row(s, "type", joint.type)
        self._row(s, "parent → child", f"{joint.parent} → {joint.child}")
        X = joint.parent_X_joint
        self._row(s, "origin xyz", _vec(X[:3, 3]) + " m")
        self._row(s, "origin rpy", _vec(rpy_of(X[:3, :3])) + " rad")
        if not joint.movable:
            return
        unit = "m" if joint.type == "prismatic" else "rad"
        pos = (lambda v: _num(v, "m")) if unit == "m" else _angle
        i = art.joint_index(name)
        self._row(s, "axis", _vec(art.axis[i], 3))
        self._position_row = self._row(s, "position", pos(seg.q[i]))
        self._position_format = pos
        s = self._section("Limits")
        self._row(s, "lower", pos(art.lower[i]))
        self._row(s, "upper", pos(art.upper[i]))
        self._row(s, "effort", _num(art.effort_limit[i], "N" if unit == "m" else "N·m"))
        self._row(s, "velocity", _num(art.velocity_limit[i], f"{unit}/s"))
        s = self._section("Dynamics")
        self._row(s, "damping", _num(art.damping[i], "N·s/m" if unit == "m" else "N·m·s/rad"))
        self._row(s, "friction", _num(art.friction[i], "N" if unit == "m" else "N·m"))
        self._row(s, "armature", _num(art.armature[i], "kg" if unit == "m" else "kg·m²"))
        if joint.mimic is not None:
            m = joint.mimic
            self._row(s, "mimic", f"{m.joint} × {m.multiplier:g} + {m.offset:g}")

    def _frame(self, seg, name: str) -> None:
        art = seg.articulation
        i = art.frame_index(name)
        s = self._section(f"Frame {name}")
        self._row(s, "body", art.body_names[int(art.frame_body[i])])
        s = self._section("World pose")
        self._pose_rows = {
            "xyz": self._row(s, "xyz", ""),
            "rpy": self._row(s, "rpy", ""),
            "deg": self._row(s, "rpy (degrees)", ""),
            "quat": self._row(s, "quat xyzw", ""),
        }
        self._update_pose()

    def _update_pose(self) -> None:
        ref = self._ref
        if not self._pose_rows or ref is None:
            return
        X = self.session.frame_world_pose(ref.segment, ref.name)
        self._pose_rows["xyz"].setText(1, _vec(X[:3, 3]) + " m")
        rpy = rpy_of(X[:3, :3])
        self._pose_rows["rpy"].setText(1, _vec(rpy) + " rad")
        self._pose_rows["deg"].setText(1, _vec(np.degrees(rpy), 1) + " °")
        self._pose_rows["quat"].setText(1, _vec(quaternion_of(X[:3, :3])[[1, 2, 3, 0]]))  # shown x, y, z, w

    def _poses_changed(self, segments) -> None:
        """A pose event changes text only: the joint's position or the frame's world pose."""
        self.forms.poses_changed()
        ref = self._ref
        if ref is None or ref.segment not in segments or not self.session.has_item(ref):
            return
        if self._position_row is not None:
            seg = self.session.segment(ref.segment)
            text = self._position_format(seg.q[seg.articulation.joint_index(ref.name)])
            if self._position_row.text(1) != text:
                self._position_row.setText(1, text)
        self._update_pose()

    def _document_changed(self, _doc) -> None:
        self.forms.reset()  # another file (or the same one read again): no form of the last one stays
        self.show_item(self.session.selection)

    def _rig_changed(self, change) -> None:
        ref = self._ref
        if self.forms.form is not None and ref == self.session.selection \
                and (ref is None or self.session.has_item(ref)):
            self.forms.rig_changed()  # in place: the field being typed in keeps its focus
            if ref is None:
                self._show_tree(None)
            return
        if ref is None or ref.segment in change.changed | change.added | change.removed \
                or not self.session.has_item(ref):
            self.show_item(self.session.selection)

    def _findings_changed(self, findings) -> None:
        self.forms.findings_changed(findings)
        if self._ref is None:
            self._show_tree(None)
