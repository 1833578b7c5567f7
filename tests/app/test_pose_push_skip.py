"""Poses pushed again unchanged (an edit of a part on one segment pushes every segment's poses) move no
actor and ask for no frame; every shown actor still stands at its frame's pose times its offset, and the
next changed poses move them all."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Cylinder
from mime_gui.session import Session, SetValue

pytestmark = pytest.mark.timeout(120)


def placed_as_posed(view) -> None:
    for name, seg in view._registry.segments.items():
        for layer, group in seg.layers.items():
            if not view._visibility.layers[layer]:
                continue
            for actor, frame, local, _, _ in group.entries():
                np.testing.assert_allclose(np.asarray(actor.user_matrix), seg.poses[frame] @ local,
                                           atol=1e-12, err_msg=f"{name} {layer}")


def test_unchanged_poses_move_nothing_and_changed_ones_move_everything(make_scene_view, monkeypatch):
    view = make_scene_view()
    session = Session()
    session.attach_renderer(view)
    session.open(str(RESOURCES / "demo" / "demo.rig.json"))
    placed, frames = [], []
    original = view._registry.place
    monkeypatch.setattr(view._registry, "place", lambda seg, group: placed.append(seg.name) or original(seg,
                                                                                                        group))
    monkeypatch.setattr(view, "request_render", lambda: frames.append(1))
    arm = view._registry.segments["arm"].poses.copy()
    view.set_frame_poses("arm", arm)
    assert placed == [] and frames == []
    session.apply(SetValue("parts.holder.geometry", Cylinder(radius=0.014, length=0.02)))
    assert "arm" not in placed  # the holder is on the motor: the arm stands as it stood
    placed_as_posed(view)
    placed.clear()
    moved = session.state("arm").frame_poses.copy()
    moved[:, :3, 3] += 0.01
    view.set_frame_poses("arm", moved)
    assert "arm" in placed and frames
    placed_as_posed(view)
