"""The camera: fit bounds keeping the view direction, the standard views, focus on an item, orthographic."""

from __future__ import annotations

import numpy as np

from mime_gui.app.scene.actors import ActorRegistry, union_bounds
from mime_gui.session.renderer import ItemRef

STANDARD_VIEWS = {  # camera direction (from the focal point towards the camera) and view-up
    "iso": ((1.0, 0.8, 0.6), (0, 0, 1)),
    "front": ((1, 0, 0), (0, 0, 1)),
    "back": ((-1, 0, 0), (0, 0, 1)),
    "left": ((0, 1, 0), (0, 0, 1)),
    "right": ((0, -1, 0), (0, 0, 1)),
    "top": ((0, 0, 1), (1, 0, 0)),
    "bottom": ((0, 0, -1), (1, 0, 0)),
}


class Camera:
    def __init__(self, renderer, registry: ActorRegistry):
        self.renderer = renderer
        self.registry = registry

    def reset(self) -> None:
        """Fit the geometry (the grid aside), keeping the view direction."""
        self.fit(self.registry.scene_bounds())

    def fit(self, bounds, margin: float = 1.08) -> None:
        ren = self.renderer
        if bounds is None:
            ren.ResetCamera()
            ren.ResetCameraClippingRange()
            return
        cam = ren.GetActiveCamera()
        lo = np.array(bounds[0::2], dtype=float)
        hi = np.array(bounds[1::2], dtype=float)
        centre = (lo + hi) / 2
        forward = np.array(cam.GetFocalPoint()) - np.array(cam.GetPosition())
        forward /= np.linalg.norm(forward) or 1.0
        up = np.array(cam.GetViewUp(), dtype=float)
        up -= forward * np.dot(up, forward)
        if np.linalg.norm(up) < 1e-9:
            up = np.array([0.0, 0.0, 1.0]) if abs(forward[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
            up -= forward * np.dot(up, forward)
        up /= np.linalg.norm(up)
        right = np.cross(forward, up)
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                            for z in (lo[2], hi[2])])
        rel = corners - centre
        half_w = float(np.abs(rel @ right).max())
        half_h = float(np.abs(rel @ up).max())
        depth = float(np.abs(rel @ forward).max())
        w, h = ren.GetSize()
        aspect = (w / h) if w > 0 and h > 0 else 1.0
        half_h = max(half_h, half_w / aspect, 1e-3) * margin
        tan = np.tan(np.radians(cam.GetViewAngle()) / 2)
        dist = half_h / tan + depth
        cam.SetFocalPoint(*centre)
        cam.SetPosition(*(centre - forward * dist))
        cam.SetViewUp(*up)
        cam.SetParallelScale(half_h)
        ren.ResetCameraClippingRange()

    def focus(self, item: ItemRef, size: float) -> None:
        """Fit ``item``'s actors, or a box of ``size / 5`` around its frame when it draws nothing."""
        actors = [a for a in self.registry.actors_of(item) if a.GetMapper() is not None]
        bounds = union_bounds(actors)
        if bounds is None:
            seg = self.registry.segments.get(item.segment)
            if seg is None:
                return
            frame = item.name if item.kind != "joint" else seg.tree.joints[item.name].child
            try:
                origin = seg.poses[seg.art.frame_index(frame)][:3, 3]
            except KeyError:
                return
            h = 0.1 * size
            lo, hi = origin - h, origin + h
            bounds = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
        self.fit(bounds, margin=1.3)

    def view_standard(self, name: str) -> None:
        if name not in STANDARD_VIEWS:
            raise ValueError(f"unknown view {name!r}; views: {', '.join(STANDARD_VIEWS)}")
        direction, up = STANDARD_VIEWS[name]
        cam = self.renderer.GetActiveCamera()
        focal = np.array(cam.GetFocalPoint())
        dist = cam.GetDistance()
        d = np.asarray(direction, dtype=float)
        d /= np.linalg.norm(d)
        cam.SetFocalPoint(*focal)
        cam.SetPosition(*(focal + d * dist))
        cam.SetViewUp(*up)
        self.reset()

    def set_orthographic(self, on: bool) -> None:
        self.renderer.GetActiveCamera().SetParallelProjection(bool(on))
        self.reset()

    def is_orthographic(self) -> bool:
        return bool(self.renderer.GetActiveCamera().GetParallelProjection())
