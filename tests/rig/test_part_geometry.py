"""Where a part is drawn: a mesh whose own origin is away from its centroid is shifted so its centroid
sits at the part's ``at`` in the mount frame. Checked by moving the mesh's vertices into the world and asking
trimesh for the centroid, against the mount frame's pose applied to ``at``."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import trimesh
from rig_helpers import snippet_rig

from mime_gui.multibody import frame_poses
from mime_gui.multibody import tree as description
from mime_gui.rig import Box, Cylinder, Mesh, Part, Ring, Sphere
from mime_gui.rig.visuals import part_shape


def offset_box(tmp_path, centre, size=(0.02, 0.01, 0.04)):
    """An STL box whose centroid is at ``centre`` in its own file coordinates."""
    mesh = trimesh.creation.box(size)
    mesh.apply_translation(centre)
    path = tmp_path / "offset_box.stl"
    mesh.export(path)
    return path, trimesh.load(path)  # as stored: STL keeps single-precision vertices


def drawn_vertices(shape, world_X_link, mesh) -> np.ndarray:
    """The mesh's vertices where a view draws them: world_X_link · link_X_shape · v."""
    v = np.c_[mesh.vertices, np.ones(len(mesh.vertices))]
    return (world_X_link @ shape.link_X_shape @ v.T).T[:, :3]


@pytest.mark.parametrize("centre", [(0.05, -0.02, 0.01), (-0.3, 0.0, 0.2), (0.0, 0.0, 0.0)])
@pytest.mark.parametrize("q_shaft", [0.0, 1.1])
def test_a_mesh_part_is_drawn_with_its_centroid_at_its_place(tmp_path, centre, q_shaft):
    path, mesh = offset_box(tmp_path, centre)
    rig = snippet_rig()
    at = (0.03, -0.01, 0.02)
    rig.parts["holder"] = Part(Mesh(str(path)), material="aluminium", at=at, mount="motor.rotor")
    assert rig.validate() == []
    motor = rig.build().segments["motor"]
    art = motor.articulation
    q = np.zeros(art.nq)
    q[art.joint_index("shaft")] = q_shaft
    poses = frame_poses(art, q)
    (shape,) = motor.tree.links["part:holder"].visuals
    world = drawn_vertices(shape, poses[art.frame_index("part:holder")], mesh)
    drawn = trimesh.Trimesh(world, mesh.faces)
    expected = (poses[art.frame_index("rotor")] @ np.r_[at, 1.0])[:3]
    np.testing.assert_allclose(drawn.center_mass, expected, atol=1e-9)
    # the drawn box keeps its size and orientation relative to the rotor: only shifted
    rotor = poses[art.frame_index("rotor")]
    local = (np.linalg.inv(rotor) @ np.c_[world, np.ones(len(world))].T).T[:, :3]
    np.testing.assert_allclose(local, mesh.vertices - mesh.center_mass + np.asarray(at), atol=1e-12)


def test_a_primitive_part_is_drawn_centred_on_its_link():
    rig = snippet_rig()
    rig.parts["holder"] = Part(Box((0.02, 0.01, 0.04)), material="aluminium", at=(0.03, 0, 0),
                               mount="motor.rotor")
    (shape,) = rig.build().segments["motor"].tree.links["part:holder"].visuals
    np.testing.assert_array_equal(shape.link_X_shape, np.eye(4))
    assert shape.geometry.size == (0.02, 0.01, 0.04)


def test_a_scaled_mesh_keeps_its_file_and_scale_and_is_shifted_by_the_scaled_centroid(tmp_path):
    path, mesh = offset_box(tmp_path, (0.01, 0.02, 0.03))
    rig = snippet_rig()
    rig.parts["holder"] = Part(Mesh(str(path), scale=(2.0, 1.0, 1.0)), material="aluminium",
                               mount="motor.rotor")
    built = rig.build()
    (shape,) = built.segments["motor"].tree.links["part:holder"].visuals
    assert shape.geometry.scale == (2.0, 1.0, 1.0)
    assert shape.geometry.filename == str(path.resolve())
    np.testing.assert_allclose(shape.link_X_shape[:3, 3], [-0.02, -0.02, -0.03], atol=1e-9)


@pytest.mark.parametrize("geometry, drawn", [
    (Box((0.02, 0.01, 0.04)), description.Box((0.02, 0.01, 0.04))),
    (Cylinder(0.01, 0.03), description.Cylinder(0.01, 0.03)),
    (Sphere(0.005), description.Sphere(0.005)),
], ids=["box", "cylinder", "sphere"])
def test_a_primitive_parts_visual_has_its_sizes(geometry, drawn):
    assert part_shape(Part(geometry, material="aluminium"), (0.0, 0.0, 0.0)).geometry == drawn


def test_a_ring_parts_visual_has_its_walls_at_its_two_radii_and_its_caps_half_its_length_each_side():
    drawn = part_shape(Part(Ring(0.003, 0.006, 0.004), material="aluminium"), (0.0, 0.0, 0.0)).geometry
    v = drawn.vertices
    assert drawn.kind == "ring"
    np.testing.assert_allclose(sorted(set(np.round(np.hypot(v[:, 0], v[:, 1]), 12))), [0.003, 0.006])
    assert sorted(set(v[:, 2].tolist())) == [-0.002, 0.002]


def test_a_mesh_parts_visual_names_its_file_as_written_its_scale_and_the_file_found(tmp_path):
    path, _ = offset_box(tmp_path, (0.0, 0.0, 0.0))
    shape = part_shape(Part(Mesh(path.name, scale=(2.0, 2.0, 0.5)), material="aluminium"), (0.0, 0.0, 0.0),
                       tmp_path)
    assert shape.geometry == description.Mesh(path.name, (2.0, 2.0, 0.5), str(path.resolve()), (str(path),))
    gone = part_shape(Part(Mesh("gone.stl"), material="aluminium"), (0.0, 0.0, 0.0), tmp_path)
    assert gone.geometry == description.Mesh("gone.stl", (1.0, 1.0, 1.0), None, (str(tmp_path / "gone.stl"),))


def test_a_mesh_scaled_past_the_largest_number_weighs_as_not_finite_without_a_numpy_warning(tmp_path):
    """The rules refuse the scale; asked directly, the mesh answers a volume its caller refuses, quietly:
    no numpy overflow warning (an error where warnings are errors)."""
    path = tmp_path / "cube.obj"
    trimesh.creation.box((0.01, 0.01, 0.01)).export(path)
    mesh = Mesh(str(path), scale=1e300)
    assert "a mesh scale must be finite, positive and at most" in mesh.problems()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        props = mesh.mass_properties()
    assert props.volume == math.inf  # (0.01 · 1e300)³ = 1e894 m³, past the largest float (1.8e308)
