"""Small answers of the rig modules: refusals of values of the wrong kind, geometries that are not solids, a
rig path through a mapping into a quantity, a pointer past the end of a list, an excess as plain data, and
two magnets at one point."""

from __future__ import annotations

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, spinner_urdf

from mime_gui.rig import Apparatus, Arc, Arm, LabSegment, Mesh, PermanentMagnet, Quantity, Sphere, load
from mime_gui.rig.limits import EFFORT, excesses
from mime_gui.rig.paths import DELETE, replace
from mime_gui.rig.pointers import line_of
from mime_gui.session import SetValue

#: a tetrahedron (volume 1/6) whose triangles face outwards, then the same turned inside out
TETRA = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
OUTWARD = TETRA + "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
INSIDE_OUT = TETRA + "f 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n"


def test_a_lab_segment_whose_kind_is_not_a_name_is_refused():
    with pytest.raises(TypeError, match=r"kind is the name of a registered segment kind, got 3"):
        LabSegment(kind=3)


def test_a_quantity_whose_reason_is_not_text_is_refused():
    with pytest.raises(TypeError, match=r"a reason is text, got 2024"):
        Quantity(2.0, "kg", reason=2024)


def _holder_findings(geometry) -> list:
    rig = load(DEMO_RIG)
    rig.parts["holder"].geometry = geometry
    return [f for f in rig.validate() if f.where == "parts.holder.geometry"]


def test_an_arc_whose_inner_radius_reaches_its_outer_is_a_geometry_finding():
    (found,) = _holder_findings(Arc(0.009, 0.009, 0.006, 0.0, 90.0))
    assert found.code == "part.geometry"
    assert "inner radius must be smaller than its outer radius" in found.message
    assert "inner_radius=0.009, outer_radius=0.009" in found.message


@pytest.mark.parametrize("sizes", [(0.004, 0.009, -0.006), (0.0, 0.009, 0.006), (0.004, float("inf"), 0.006)],
                         ids=["negative-length", "zero-inner-radius", "infinite-outer-radius"])
def test_an_arc_whose_size_is_not_a_finite_positive_length_is_a_geometry_finding(sizes):
    (found,) = _holder_findings(Arc(*sizes, 0.0, 90.0))
    assert found.code == "part.geometry"
    assert "an arc needs a finite, positive inner radius, outer radius and length" in found.message
    r, big_r, h = sizes
    assert f"inner_radius={r}, outer_radius={big_r}, length={h}" in found.message


def test_a_mesh_turned_inside_out_is_a_geometry_finding(tmp_path):
    (tmp_path / "good.obj").write_text(OUTWARD)
    (tmp_path / "inverted.obj").write_text(INSIDE_OUT)
    assert _holder_findings(Mesh(str(tmp_path / "good.obj"))) == []
    (found,) = _holder_findings(Mesh(str(tmp_path / "inverted.obj")))
    assert found.code == "part.geometry"
    assert "has no positive volume (inside out?)" in found.message and "inverted.obj" in found.message


def test_a_mesh_file_of_points_only_is_a_geometry_finding_saying_it_has_no_triangles(tmp_path):
    (tmp_path / "points.obj").write_text(TETRA)
    (found,) = _holder_findings(Mesh(str(tmp_path / "points.obj")))
    assert found.code == "part.geometry"
    assert "cannot read mesh" in found.message and "no triangles in the file" in found.message


def test_a_path_through_a_mapping_into_a_quantity_replaces_that_field_only():
    rig = load(DEMO_RIG)
    old = rig.chain["arm"].armature["joint_6"]
    new = replace(rig, "chain.arm.armature.joint_6.reason", "measured on the bench")
    assert new.chain["arm"].armature["joint_6"] == Quantity(old.value, old.unit, "measured on the bench")
    assert rig.chain["arm"].armature["joint_6"] is old  # the rig the path was read in is unchanged
    assert new.chain["arm"].armature.keys() == rig.chain["arm"].armature.keys()


def test_delete_reads_as_its_name_in_an_edit():
    assert repr(DELETE) == "DELETE"
    assert repr(SetValue("chain.arm.armature.joint_6", DELETE)) == \
        "SetValue(path='chain.arm.armature.joint_6', value=DELETE)"


@pytest.mark.parametrize("pointer, line", [("/a/1", 3), ("/a/2", 0), ("/a/4", 0)],
                         ids=["last-element", "one-past-the-end", "three-past-the-end"])
def test_a_pointer_past_the_end_of_a_list_has_no_line(pointer, line):
    text = '{"a": [\n  1,\n  2\n]}\n'
    assert line_of(text, pointer) == line


def test_an_excess_as_plain_data_holds_its_run_its_peak_and_its_margin():
    t = np.array([0.0, 0.1, 0.2, 0.3])
    tau = np.array([[1.0], [12.0], [-15.0], [2.0]])
    (found,) = excesses(("arm.j",), t, tau, np.zeros_like(tau), [10.0], [np.inf])
    assert found.to_dict() == {"code": EFFORT, "joint": "arm.j", "step": 1, "time": 0.1, "peak_step": 2,
                               "peak_time": 0.2, "value": 15.0, "limit": 10.0, "margin": -5.0, "steps": 2,
                               "unit": "N·m"}


def _ball(mount, direction) -> PermanentMagnet:
    return PermanentMagnet(Sphere(radius=0.005), material="NdFeB-N42", magnetisation=direction, mount=mount)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # no numpy warning reaches the user's terminal
def test_two_magnets_at_one_point_pull_on_nothing_and_add_no_joint_torque(tmp_path):
    """A ball on the spinner's axis and a ball fixed in the world at the same point: their pair is computed,
    but two centres at one point have no pull, so the torques are those of the arm with its ball alone."""
    urdf = tmp_path / "spinner.urdf"
    urdf.write_text(spinner_urdf(0.01))
    arm = Arm.Dynamic(description=str(urdf))
    q = np.array([[0.0], [0.2], [0.5], [0.6]])
    alone = Apparatus("s", chain={"arm": arm}, magnets={"on_axis": _ball("arm.arm", (1.0, 0.0, 0.0))}).build()
    both = Apparatus("s", chain={"arm": arm}, magnets={"on_axis": _ball("arm.arm", (1.0, 0.0, 0.0)),
                                                       "fixed": _ball(None, (0.0, 1.0, 0.0))}).build()
    expected = alone.torques(alone.play(q, 0.01))
    torques = both.torques(both.play(q, 0.01))
    assert [pair[:2] for pair in torques.magnet_pull.pairs] == [("on_axis", "fixed")]
    np.testing.assert_array_equal(torques.magnet_torques, 0.0)
    np.testing.assert_allclose(torques.joint_torques, expected.joint_torques, rtol=0, atol=1e-15)
    assert np.any(expected.joint_torques != 0)  # the arm is swung: its own torques are not nothing
