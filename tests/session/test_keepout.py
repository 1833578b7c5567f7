"""The keep-out grid of a rig without magnets: there is no field, so no box and no grid."""

from __future__ import annotations

import numpy as np

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.session import Session
from mime_gui.session.keepout import grid_box, keepout_grid


def test_a_rig_without_magnets_has_no_keep_out_box_or_grid():
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    del rig.magnets["m1"]
    session = Session()
    session.open_apparatus(rig)
    built = session.document.built
    assert session.findings == () and not built.apparatus.magnets
    poses = np.stack([session.frame_world_pose(*n.split(".", 1)) for n in built.frame_names])
    assert grid_box(built, poses, 5e-4) is None
    assert keepout_grid(built, poses, 5e-4) is None
