"""What the view draws besides the robot's shapes: frame triads and labels, joint axes, centre-of-mass
markers, equivalent inertia boxes, the floor grid and the orientation axes in the corner.

Triads, axes and markers share one mapper per kind and are sized from the model (its bounding-box diagonal),
so they rescale, without being rebuilt, when meshes arrive and the model turns out larger.
"""

from __future__ import annotations

import numpy as np
import pyvista as pv
import vtk

from mime_gui.app.scene import meshes as M
from mime_gui.app.scene.actors import ActorRegistry, SegmentActors, color_mapper, diagonal
from mime_gui.session.renderer import ItemRef

INERTIA_RGBA = (0.55, 0.85, 0.45, 0.35)
REVOLUTE_AXIS_RGB = (0.98, 0.82, 0.25)
PRISMATIC_AXIS_RGB = (0.35, 0.85, 0.95)
TRIAD_FRACTION = 0.07  # triad length as a fraction of the model's bounding-box diagonal
AXIS_SCALE = 1.6 * TRIAD_FRACTION  # joint axis arrows, same fraction
COM_SCALE = 0.22 * TRIAD_FRACTION  # centre-of-mass spheres, same fraction


def rotation_to(axis) -> np.ndarray:
    """A rotation taking +x to ``axis``."""
    a = np.asarray(axis, dtype=float)
    a = a / (np.linalg.norm(a) or 1.0)
    x = np.array([1.0, 0.0, 0.0])
    v = np.cross(x, a)
    c = float(np.dot(x, a))
    if np.linalg.norm(v) < 1e-12:
        return np.eye(3) if c > 0 else np.diag([-1.0, -1.0, 1.0])
    vx = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    return np.eye(3) + vx + vx @ vx * (1.0 / (1.0 + c))


def triad_polydata() -> pv.PolyData:
    """Unit-length RGB axes as slim arrows, coloured by a ``RGB`` cell array."""
    parts = []
    for i, color in enumerate(((230, 64, 64), (80, 200, 90), (70, 120, 240))):
        d = np.zeros(3)
        d[i] = 1.0
        arrow = pv.Arrow(start=(0, 0, 0), direction=d, tip_length=0.24, tip_radius=0.085, shaft_radius=0.034,
                         tip_resolution=10, shaft_resolution=8, scale=1.0).triangulate()
        arrow.cell_data["RGB"] = np.tile(np.array(color, dtype=np.uint8), (arrow.n_cells, 1))
        parts.append(arrow)
    merged = parts[0].merge(parts[1:], merge_points=False)
    return merged.compute_normals(split_vertices=True, feature_angle=50)


def com_polydata() -> pv.PolyData:
    """A unit sphere in the black-and-yellow octant pattern used for centres of mass."""
    s = pv.Sphere(radius=1.0, theta_resolution=24, phi_resolution=16)
    c = s.cell_centers().points
    sign = np.sign(c[:, 0]) * np.sign(c[:, 1]) * np.sign(c[:, 2])
    rgb = np.where(sign[:, None] > 0, np.array([245, 200, 40]), np.array([25, 25, 25])).astype(np.uint8)
    s.cell_data["RGB"] = rgb
    return s


def arrow_polydata() -> pv.PolyData:
    arrow = pv.Arrow(start=(0, 0, 0), direction=(1, 0, 0), tip_length=0.25, tip_radius=0.07,
                     shaft_radius=0.025, tip_resolution=16, shaft_resolution=12, scale=1.0)
    return arrow.triangulate().compute_normals(split_vertices=True, feature_angle=50)


def equivalent_box(mass: float, inertia: np.ndarray):
    """Sides and axes of the uniform box with the same mass and principal moments:
    ``(sides (3,), R (3, 3))``."""
    moments, axes = np.linalg.eigh(0.5 * (inertia + inertia.T))
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    a, b, c = moments
    sq = np.array([b + c - a, a + c - b, a + b - c]) * 6.0 / mass
    return np.sqrt(np.clip(sq, 0.0, None)), axes


def inertial_key(link) -> tuple | None:
    """The values a link's inertial markers are drawn from (cheap to compare; None: no inertial)."""
    inertial = link.inertial
    if inertial is None:
        return None
    return (float(inertial.mass), np.asarray(inertial.link_X_com, dtype=float).tobytes(),
            np.asarray(inertial.inertia, dtype=float).tobytes())


def inertial_drawing(link) -> tuple:
    """``(structure, placements, key)`` of a link's centre-of-mass marker and equivalent inertia box.
    ``structure`` is None when the link has no mass (nothing is drawn), else whether the box is drawn;
    ``placements`` are the marker's and the box's (a unit box scaled by its sides) in the link frame; ``key``
    is :func:`inertial_key`. Equal structures mean the same actors can draw the link's inertial at the new
    placements."""
    inertial = link.inertial
    key = inertial_key(link)
    if inertial is None or not inertial.mass > 0:
        return None, None, key
    link_X_com = np.asarray(inertial.link_X_com, dtype=float)
    com = np.eye(4)
    com[:3, 3] = link_X_com[:3, 3]
    sides, axes = equivalent_box(inertial.mass, np.asarray(inertial.inertia, dtype=float))
    if not np.all(np.isfinite(sides)) or sides.max() <= 0:
        return (False,), (com, None), key
    sides = np.maximum(sides, 1e-3 * max(sides.max(), 1e-6))
    box = link_X_com.copy()
    box[:3, :3] = link_X_com[:3, :3] @ axes @ np.diag(sides)
    return (True,), (com, box), key


def joint_signature(joint) -> tuple:
    """What a joint's axis arrow is drawn from."""
    return (joint.type, joint.child, np.asarray(joint.axis, dtype=float).tobytes())


class Decorations:
    """Builds and sizes the per-segment markers (in the overlay renderer, over the geometry, except the
    inertia boxes) and owns the floor grid. ``size`` is the model size the markers are scaled to, the diagonal
    of ``bounds``."""

    def __init__(self, registry: ActorRegistry):
        self.registry = registry
        self.size = 1.0
        self.bounds = None
        self.grid_actor = None
        self._triad = self._shared(triad_polydata(), "RGB")
        self._com = self._shared(com_polydata(), "RGB")
        self._arrow = self._shared(arrow_polydata(), None)
        self._box = self._shared(M.box_polydata((1.0, 1.0, 1.0)), None)  # inertia boxes: scaled by placement

    @staticmethod
    def _shared(pd, colors):
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pd)
        color_mapper(mapper, colors)
        return mapper

    # -- building ----------------------------------------------------------------------------------
    def build(self, seg: SegmentActors) -> None:
        """Every marker of ``seg``: a triad and a label per frame, an axis per movable joint, a centre of
        mass and an inertia box per link with mass."""
        for i, fname in enumerate(seg.art.frame_names):
            self.add_triad(seg, i, fname)
            seg.labels.append(self.new_label(fname))
        for jname in seg.art.joint_names:
            self.add_joint_axis(seg, jname)
        for link_name in seg.tree.links:
            self.add_inertial(seg, link_name)

    def add_triad(self, seg: SegmentActors, index: int, fname: str) -> None:
        triad = self.registry.new_actor(None, None, mapper=self._triad, overlay=True)
        triad.SetScale(TRIAD_FRACTION * self.size)
        triad.GetProperty().SetSpecular(0.1)
        self.registry.register(seg, "frames", triad, index, np.eye(4), ItemRef(seg.name, "frame", fname))

    def new_label(self, fname: str):
        """A frame's name, screen-aligned (placed by :meth:`place_labels`)."""
        label = vtk.vtkBillboardTextActor3D()
        label.SetInput(fname)
        tp = label.GetTextProperty()
        tp.SetFontSize(13)
        tp.SetColor(0.95, 0.95, 0.95)
        tp.SetBackgroundColor(0.1, 0.1, 0.12)
        tp.SetBackgroundOpacity(0.55)
        label.SetDisplayOffset(6, 6)
        label.SetPickable(False)
        self.registry.overlay.AddActor(label)
        return label

    def add_joint_axis(self, seg: SegmentActors, jname: str) -> None:
        joint = seg.tree.joints[jname]
        seg.drawn[("joint", jname)] = joint_signature(joint)
        local = np.eye(4)
        local[:3, :3] = rotation_to(joint.axis)
        color = PRISMATIC_AXIS_RGB if joint.type == "prismatic" else REVOLUTE_AXIS_RGB
        actor = self.registry.new_actor(None, color, mapper=self._arrow, overlay=True)
        actor.SetScale(AXIS_SCALE * self.size)
        self.registry.register(seg, "joint_axes", actor, seg.art.frame_index(joint.child), local,
                               ItemRef(seg.name, "joint", jname))

    def add_inertial(self, seg: SegmentActors, link_name: str) -> None:
        """The centre-of-mass marker and the equivalent inertia box of a link with mass (else nothing)."""
        drawing = seg.drawn[("inertial", link_name)] = inertial_drawing(seg.tree.links[link_name])
        structure, (com_local, box_local) = drawing[0], drawing[1] or (None, None)
        if structure is None:
            return
        frame = seg.art.frame_index(link_name)
        ref = ItemRef(seg.name, "link", link_name)
        com = self.registry.new_actor(None, None, mapper=self._com, overlay=True)
        com.SetScale(COM_SCALE * self.size)
        self.registry.register(seg, "com", com, frame, com_local, ref)
        if box_local is None:
            return
        box = self.registry.new_actor(None, INERTIA_RGBA, mapper=self._box)
        box.GetProperty().SetSpecular(0.0)
        self.registry.register(seg, "inertia", box, frame, box_local, ref)

    # -- sizing and placing ------------------------------------------------------------------------
    def measure(self, bounds) -> bool:
        """Take the model's size from ``bounds``; True when it changed (then :meth:`rescale`)."""
        old = self.size
        self.bounds = bounds
        self.size = diagonal(bounds)
        return abs(self.size - old) > 1e-9 * max(old, 1.0)

    def rescale(self, size: float) -> None:
        self.size = size
        for seg in self.registry.segments.values():
            for a in seg.layers["frames"].actors:
                a.SetScale(TRIAD_FRACTION * size)
            for a in seg.layers["joint_axes"].actors:
                a.SetScale(AXIS_SCALE * size)
            for a in seg.layers["com"].actors:
                a.SetScale(COM_SCALE * size)

    def place_labels(self, seg: SegmentActors) -> None:
        # labels are screen-aligned text: placed by their anchor point
        lift = TRIAD_FRACTION * self.size * 0.3
        for label, pose in zip(seg.labels, seg.poses, strict=True):
            p = pose[:3, 3]
            label.SetPosition(p[0], p[1], p[2] + lift)

    # -- the floor grid ----------------------------------------------------------------------------
    def rebuild_grid(self, visible: bool) -> None:
        """A floor grid under the model's bounds (major lines every fifth), at z = 0 or below the model."""
        ren = self.registry.renderer
        if self.grid_actor is not None:
            ren.RemoveActor(self.grid_actor)
            self.grid_actor = None
        bounds = self.registry.scene_bounds()
        if bounds is None:
            bounds = (-0.5, 0.5, -0.5, 0.5, 0.0, 0.0)
        cx, cy = (bounds[0] + bounds[1]) / 2, (bounds[2] + bounds[3]) / 2
        extent = max(bounds[1] - bounds[0], bounds[3] - bounds[2], self.size, 0.2) * 1.6
        step = nice_step(extent / 16)
        n = int(np.ceil(extent / step / 2)) + 1
        half = n * step
        x0, y0 = np.floor(cx / step) * step, np.floor(cy / step) * step
        z = min(0.0, bounds[4])
        ticks = np.arange(-n, n + 1) * step
        pts, lines, colors = [], [], []
        for t in ticks:
            major = abs(round(t / step)) % 5 == 0
            c = (110, 117, 128) if major else (76, 82, 91)  # opaque: a translucent pass costs a lot here
            segments = (((x0 + t, y0 - half), (x0 + t, y0 + half)),
                        ((x0 - half, y0 + t), (x0 + half, y0 + t)))
            for a, b in segments:
                i = len(pts)
                pts += [(a[0], a[1], z), (b[0], b[1], z)]
                lines += [2, i, i + 1]
                colors.append(c)
        pd = pv.PolyData(np.array(pts, dtype=float), lines=np.array(lines))
        # colours on the points (each line has its own two): cell colours cost a texture lookup per fragment
        pd.point_data["RGB"] = np.repeat(np.array(colors, dtype=np.uint8), 2, axis=0)
        mapper = vtk.vtkPolyDataMapper()
        mapper.SetInputData(pd)
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray("RGB")
        mapper.SetColorModeToDirectScalars()
        mapper.ScalarVisibilityOn()
        actor = pv.Actor(mapper=mapper)
        actor.GetProperty().LightingOff()
        actor.SetPickable(False)
        ren.AddActor(actor)
        self.grid_actor = actor
        self.grid_actor.SetVisibility(visible)


def nice_step(x: float) -> float:
    if x <= 0:
        return 0.1
    e = 10.0 ** np.floor(np.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * e >= x:
            return float(m * e)
    return float(10 * e)


class OrientationAxes:
    """The world axes in the bottom-left corner, drawn as 2D lines in the main renderer and re-aimed from
    the camera before each render. (PyVista's orientation widget draws the same in a renderer of its own: a
    second pass that cost ~5 % of a PR2 frame on a software renderer.)"""

    COLORS = ((0.93, 0.30, 0.30), (0.38, 0.82, 0.42), (0.35, 0.55, 1.0))
    LENGTH = 42.0  # pixels
    ORIGIN = (58.0, 58.0)

    def __init__(self, renderer):
        self.renderer = renderer
        pts = vtk.vtkPoints()
        pts.SetNumberOfPoints(4)
        lines = vtk.vtkCellArray()
        colors = vtk.vtkUnsignedCharArray()
        colors.SetNumberOfComponents(3)
        colors.SetName("RGB")
        for i, c in enumerate(self.COLORS):
            lines.InsertNextCell(2)
            lines.InsertCellPoint(0)
            lines.InsertCellPoint(i + 1)
            colors.InsertNextTuple3(*(255 * v for v in c))
        self.polydata = vtk.vtkPolyData()
        self.polydata.SetPoints(pts)
        self.polydata.SetLines(lines)
        self.polydata.GetCellData().SetScalars(colors)
        mapper = vtk.vtkPolyDataMapper2D()
        mapper.SetInputData(self.polydata)
        mapper.SetScalarModeToUseCellData()
        mapper.SetColorModeToDirectScalars()
        self.actor = vtk.vtkActor2D()
        self.actor.SetMapper(mapper)
        self.actor.GetProperty().SetLineWidth(2.5)
        self.actor.SetPickable(False)
        renderer.AddViewProp(self.actor)
        self.labels = []
        for name, c in zip("XYZ", self.COLORS, strict=True):
            label = vtk.vtkTextActor()
            label.SetInput(name)
            tp = label.GetTextProperty()
            tp.SetFontSize(13)
            tp.SetBold(True)
            tp.SetColor(*c)
            tp.SetJustificationToCentered()
            tp.SetVerticalJustificationToCentered()
            label.SetPickable(False)
            renderer.AddViewProp(label)
            self.labels.append(label)
        renderer.AddObserver("StartEvent", self.update)
        self.update()

    def update(self, *_args) -> None:
        cam = self.renderer.GetActiveCamera()
        m = cam.GetViewTransformMatrix()
        ox, oy = self.ORIGIN
        pts = self.polydata.GetPoints()
        pts.SetPoint(0, ox, oy, 0.0)
        for i, label in enumerate(self.labels):
            dx, dy = m.GetElement(0, i), m.GetElement(1, i)  # world axis i in view coordinates
            pts.SetPoint(i + 1, ox + self.LENGTH * dx, oy + self.LENGTH * dy, 0.0)
            label.SetPosition(ox + (self.LENGTH + 11) * dx, oy + (self.LENGTH + 11) * dy)
        pts.Modified()

    def directions(self) -> np.ndarray:
        """The drawn axes' screen directions (3, 2), for tests."""
        pts = np.array([self.polydata.GetPoints().GetPoint(i)[:2] for i in range(4)])
        return (pts[1:] - pts[0]) / self.LENGTH
