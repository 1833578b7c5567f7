"""Collision geometry at its edges: a capsule link against its closed form, a flat mesh, and shapes that give
no solid (a mesh of three points, a mesh not found, a kind with no collision geometry, a mesh removed after
the build), each listed with why."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from mime_gui.multibody import tree as description
from mime_gui.rig import Apparatus, Arm, Mesh, Part, Sample, Sphere
from mime_gui.rig.collision import Body, clearance_model, pair_distances, shape_pieces

R, LENGTH = 0.01, 0.05  # the capsule link's radius and the length of its straight part


def _mesh(path, vertices, faces) -> str:
    trimesh.Trimesh(vertices=vertices, faces=faces, process=False).export(path)
    return str(path)


@pytest.fixture
def odd_links(tmp_path) -> Apparatus:
    flat = _mesh(tmp_path / "flat.stl", [[0, 0, 0], [0.01, 0, 0], [0.01, 0.01, 0], [0, 0.01, 0]],
                 [[0, 1, 2], [0, 2, 3]])
    three = _mesh(tmp_path / "three.stl", [[0, 0, 0], [0.01, 0, 0], [0, 0.01, 0]], [[0, 1, 2]])
    links = {"base": f'<capsule radius="{R}" length="{LENGTH}"/>', "flat": f'<mesh filename="{flat}"/>',
             "three": f'<mesh filename="{three}"/>', "lost": f'<mesh filename="{tmp_path}/nowhere.stl"/>',
             "cone": '<cone radius="0.01" length="0.02"/>'}
    text = '<robot name="odd">' + "".join(
        f'<link name="{n}"><collision><origin xyz="{0.5 * i} 0 0"/><geometry>{g}</geometry></collision>'
        "</link>"
        for i, (n, g) in enumerate(links.items())) + "".join(
        f'<joint name="to_{n}" type="fixed"><parent link="base"/><child link="{n}"/></joint>'
        for n in list(links)[1:]) + "</robot>"
    (tmp_path / "odd.urdf").write_text(text)
    return Apparatus("odd", chain={"s": Arm.Kinematic(description=str(tmp_path / "odd.urdf"))})


def test_a_capsule_link_is_its_radius_from_the_side_and_half_its_length_more_from_the_end(odd_links):
    model = clearance_model(odd_links.build())
    capsule = next(b for b in model.bodies if b.label == "s.base")
    pieces, _ = shape_pieces(description.Shape(description.Sphere(0.002), np.eye(4)), np.eye(4), "ball")
    ball = Body("ball", "part", "parts.ball", 1, np.eye(4), tuple(pieces), 1)
    at = np.array([[0.05, 0.0, 0.0], [0.0, 0.0, 0.06], [0.03, 0.0, -0.04]])
    X = np.broadcast_to(np.eye(4), (len(at), 2, 4, 4)).copy()
    X[:, 1, :3, 3] = at
    d = pair_distances([capsule, ball], X, np.array([[0, 1]]), cutoff=np.inf)[:, 0]
    # the nearest point of the axis segment z in [-L/2, L/2], then less both radii
    axis_point = np.column_stack([0 * at[:, 0], 0 * at[:, 0], np.clip(at[:, 2], -LENGTH / 2, LENGTH / 2)])
    expected = np.linalg.norm(at - axis_point, axis=1) - R - 0.002
    np.testing.assert_allclose(d, expected, atol=1e-7)


def test_a_flat_mesh_is_a_thin_solid_and_shapes_without_a_solid_are_listed_with_why(odd_links, tmp_path):
    model = clearance_model(odd_links.build())
    labels = [b.label for b in model.bodies]
    assert labels == ["s.base", "s.flat"]
    skipped = dict(model.skipped)
    assert set(skipped) == {"s.three", "s.lost", "s.cone"}
    assert skipped["s.three"] == "cannot read the mesh (no solid in the file)"
    assert skipped["s.lost"] == f"mesh '{tmp_path}/nowhere.stl' was not found"
    assert skipped["s.cone"] == "a cone shape has no collision geometry"


def test_meshes_removed_after_the_build_are_listed_as_missing(tmp_path):
    def box(name: str) -> str:
        return _mesh(tmp_path / name, *(lambda m: (m.vertices, m.faces))(trimesh.creation.box((0.01,) * 3)))

    (tmp_path / "link.urdf").write_text(
        f'<robot name="one"><link name="body"><collision><geometry><mesh filename="{box("link.stl")}"/>'
        "</geometry></collision></link></robot>")
    rig = Apparatus("r", chain={"s": Arm.Kinematic(description=str(tmp_path / "link.urdf"))},
                    parts={"on": Part(Mesh(box("on.stl")), material="aluminium", at=(0, 0, 0.1),
                                      mount="s.body"),
                           "off": Part(Mesh(box("off.stl")), material="aluminium", at=(0.3, 0, 0))})
    built = rig.build()
    for name in ("link.stl", "on.stl", "off.stl"):
        (tmp_path / name).unlink()
    model = clearance_model(built)
    assert model.bodies == ()
    # a world part's shape is looked for again when the model is made: its file is not found
    missing = "the mesh file is missing"
    assert dict(model.skipped) == {"s.body": missing, "parts.on": missing,
                                   "parts.off": f"mesh '{tmp_path / 'off.stl'}' was not found"}


def test_a_world_sample_held_fixed_is_its_shape_in_the_world():
    rig = Apparatus("r", samples={"grain": Sample(at=(0.1, 0.2, 0.3), geometry=Sphere(radius=0.001),
                                                  material="NdFeB-N42")})
    (body,) = clearance_model(rig.build()).bodies
    assert (body.label, body.frame) == ("samples.grain", -1)
    np.testing.assert_allclose(body.frame_X_body[:3, 3], (0.1, 0.2, 0.3))
