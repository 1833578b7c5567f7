"""A fixed sample of one-line bugs in the 3D scene, each run against the scene tests (docs/mutation.md).

    xvfb-run -a python tools/scene_mutations.py

mutmut covers the headless core; the scene needs a display and a Qt event loop, which mutmut's forked
workers do not give, so its mutants are written here by hand: realistic one-line bugs in where actors are
placed and which layer shows them (run by tools/hand_mutations.py).
"""

from __future__ import annotations

import sys

from hand_mutations import run_sample

VIEW = "mime_gui/app/scene/view.py"
TESTS = ["tests/app/test_scene_placement.py", "tests/app/test_scene.py"]

# (what the bug does, text in VIEW, its replacement); each text occurs once in VIEW
MUTANTS = [
    ("actors placed without their local transform",
     "matrices = np.matmul(seg.poses[frames], local)", "matrices = seg.poses[frames]"),
    ("local transform applied on the wrong side",
     "matrices = np.matmul(seg.poses[frames], local)", "matrices = np.matmul(local, seg.poses[frames])"),
    ("joint axis drawn on the parent's frame",
     "frame = art.frame_index(joint.child)", "frame = art.frame_index(joint.parent)"),
    ("joint axis not turned to the joint's axis",
     "local[:3, :3] = _rotation_to(joint.axis)", "pass"),
    ("COM marker without its offset",
     "local[:3, 3] = inertial.link_X_com[:3, 3]", "pass"),
    ("collision mesh without its origin",
     "            self._style_geometry(actor, layer)\n"
     "            self._register(seg, layer, actor, frame, shape.link_X_shape, ref)\n            return",
     "            self._style_geometry(actor, layer)\n"
     "            self._register(seg, layer, actor, frame, np.eye(4), ref)\n            return"),
    ("labels moved only when the frames layer is shown",
     'if self._layers["frame_labels"]:\n            self._place_labels(seg)',
     'if self._layers["frames"]:\n            self._place_labels(seg)'),
    ("labels not caught up when their layer is shown",
     'if layer == "frame_labels":\n                    self._place_labels(seg)',
     'if layer == "frames":\n                    self._place_labels(seg)'),
    ("a shown layer not caught up to the last pose",
     "                self._place(seg, seg.layers[layer])\n", ""),
    ("the frames layer ignoring the per-frame toggle",
     "a.SetVisibility(on and bool(shown[f]) and ref not in hidden)",
     "a.SetVisibility(on and ref not in hidden)"),
    ("parts drawn in the visual layer",
     'layer = "parts" if (link_name in part_links and kind == "visual") else kind', "layer = kind"),
    ("primitive geometry without its origin",
     "self._register(seg, layer, actor, frame, shape.link_X_shape, ref)\n        # visual meshes",
     "self._register(seg, layer, actor, frame, np.eye(4), ref)\n        # visual meshes"),
    ("inertia box without the centre of mass offset",
     "local = np.asarray(inertial.link_X_com, dtype=float).copy()", "local = np.eye(4)"),
]


def main() -> int:
    return run_sample(VIEW, TESTS, MUTANTS)


if __name__ == "__main__":
    sys.exit(main())
