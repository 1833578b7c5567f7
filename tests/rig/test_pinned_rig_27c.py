"""Rig answers pinned down: an export header's segment line names its package and version apart, a
palette magnet is of the magnets' grade, an arm's torque rows are timed after each step, a part of no known
material family takes the default colour, and a ring drawn as triangles reads with its sizes."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import spinner_urdf

from mime_gui import __version__
from mime_gui.multibody import read_urdf
from mime_gui.rig import Apparatus, Arm, Box, Part, PermanentMagnet
from mime_gui.rig.geometries import Ring
from mime_gui.rig.simulators import header_lines, whole
from mime_gui.rig.templates import MAGNET_MATERIAL, kind_templates
from mime_gui.rig.torques import arm_torques
from mime_gui.rig.visuals import part_rgba, part_shape


def test_the_header_s_segment_line_names_the_package_and_its_version_apart(tmp_path):
    (tmp_path / "a.urdf").write_text(spinner_urdf(1.0))
    rig = Apparatus("r", base=tmp_path, chain={"arm": Arm.Dynamic(description="a.urdf")})
    lines = header_lines(whole(rig, tmp_path), "URDF")
    # a built-in kind is registered by mime_gui itself, at this version
    line = f"segment arm: Arm.Dynamic (mime_gui {__version__}, rung dynamic), servo time constant 0.0 s"
    assert line in lines


def test_every_palette_magnet_is_of_the_magnets_grade_and_valid_as_dropped():
    magnets = [t for t in kind_templates() if t.collection == "magnets"]
    assert magnets
    for t in magnets:
        magnet = t.make(None)
        assert isinstance(magnet, PermanentMagnet)
        assert magnet.material == MAGNET_MATERIAL == "NdFeB-N42"
        # its remanence comes from its grade: a dropped magnet needs no more to be valid
        assert Apparatus("r", magnets={"m": magnet}).validate() == [], t.key


def test_an_arm_s_torque_rows_are_timed_at_the_end_of_each_step_after_the_start():
    art = read_urdf(spinner_urdf(1.0)).compile()
    q = np.array([[0.0], [0.1], [0.2]])
    found = arm_torques(art, q, np.zeros(1), 0.25, start=2.0)
    # row n is the state after step n: start + (n + 1) dt (exact in binary)
    np.testing.assert_array_equal(found.time, [2.25, 2.5, 2.75])


@pytest.mark.parametrize("material", ["oak", "", None])
def test_a_part_of_no_known_material_family_takes_the_default_grey(material):
    part = Part(Box((0.01, 0.01, 0.01)), material=material)
    assert part_rgba(part) == (0.70, 0.72, 0.76, 1.0)


def test_a_known_family_and_a_magnet_keep_their_own_colours():
    assert part_rgba(Part(Box((0.01, 0.01, 0.01)), material="Aluminium 6061")) == (0.80, 0.82, 0.85, 1.0)
    assert part_rgba(PermanentMagnet(Box((0.01, 0.01, 0.01)), material="oak")) == (0.80, 0.12, 0.16, 1.0)


def test_a_ring_drawn_as_triangles_reads_with_its_radii_and_length():
    part = Part(Ring(0.005, 0.01, 0.004), material="aluminium")
    shape = part_shape(part, (0.0, 0.0, 0.0))
    assert shape.geometry.kind == "ring"
    assert shape.geometry.text == "ring r=0.005–0.01 m, length 0.004 m"
    assert shape.geometry.vertices.shape[1] == 3 and shape.geometry.faces.shape[1] == 3
