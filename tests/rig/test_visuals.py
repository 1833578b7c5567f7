"""Grafted parts carry their geometry as a visual, so views draw parts and magnets where they ride."""

import numpy as np

from mime_gui import RESOURCES
from mime_gui.multibody import frame_poses
from mime_gui.multibody import tree as description
from mime_gui.rig import load
from mime_gui.rig.visuals import part_rgba


def test_demo_parts_are_drawn_on_their_grafted_links():
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    built = rig.build()
    motor = built.segments["motor"]
    for name, part in [*rig.parts.items(), *rig.magnets.items()]:
        link = motor.tree.links["part:" + name]
        assert "part:" + name in motor.tree.part_links
        (shape,) = link.visuals
        assert isinstance(shape.geometry, description.Cylinder)
        assert shape.geometry.radius == part.geometry.radius
        assert shape.geometry.length == part.geometry.length
        assert shape.rgba == part_rgba(part)
    # the magnet is drawn in the magnet colour, the aluminium holder in another
    assert part_rgba(rig.magnets["m1"]) != part_rgba(rig.parts["holder"])


def test_grafted_visual_sits_at_the_part_centroid():
    rig = load(RESOURCES / "demo" / "demo.rig.json")
    motor = rig.build().segments["motor"]
    art = motor.articulation
    poses = frame_poses(art, np.zeros(art.nq))
    rotor = poses[art.frame_index("rotor")]
    magnet = poses[art.frame_index("part:m1")]
    np.testing.assert_allclose(np.linalg.solve(rotor, magnet)[:3, 3], rig.magnets["m1"].at, atol=1e-12)
