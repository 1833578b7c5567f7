"""Where the scene puts every actor after a pose change: the engine's pose of its frame times its own local
transform, computed here from the description's numbers (origins, axes, centres of mass), for visuals,
collision meshes, frame triads, joint axes, COM markers, inertia boxes, labels and rig parts; and each layer
toggles exactly its own actors.

Runs under ``xvfb-run -a`` (QtInteractor needs an X server)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from mime_gui.multibody import frame_poses, read_urdf
from mime_gui.session.renderer import LAYERS, ItemRef

pytestmark = pytest.mark.timeout(60)

VISUAL_BASE = ((0.1, 0.02, -0.03), (0.3, 0.0, 0.0))
COLLISION_BASE = ((-0.05, 0.01, 0.02), (0.0, 0.4, 0.0))
VISUAL_ARM = ((0.0, 0.03, 0.1), (0.0, 0.0, 0.7))
COLLISION_ARM = ((0.02, 0.0, 0.03), (0.1, 0.2, 0.3))
COM_ARM = (0.2, -0.1, 0.05)
COM_TIP = (0.0, 0.0, 0.07)
SHOULDER_AXIS = (0.0, 1.0, 1.0)

PROBE = """<robot name="probe">
  <link name="base">
    <visual><origin xyz="{vb[0][0]} {vb[0][1]} {vb[0][2]}" rpy="{vb[1][0]} {vb[1][1]} {vb[1][2]}"/>
      <geometry><box size="0.1 0.05 0.02"/></geometry></visual>
    <collision><origin xyz="{cb[0][0]} {cb[0][1]} {cb[0][2]}" rpy="{cb[1][0]} {cb[1][1]} {cb[1][2]}"/>
      <geometry><mesh filename="cube.stl"/></geometry></collision>
  </link>
  <link name="arm">
    <inertial><origin xyz="{ca[0]} {ca[1]} {ca[2]}" rpy="0 0 0.5"/><mass value="1.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>
    <visual><origin xyz="{va[0][0]} {va[0][1]} {va[0][2]}" rpy="{va[1][0]} {va[1][1]} {va[1][2]}"/>
      <geometry><mesh filename="cube.stl" scale="1 2 1"/></geometry></visual>
    <collision><origin xyz="{xa[0][0]} {xa[0][1]} {xa[0][2]}" rpy="{xa[1][0]} {xa[1][1]} {xa[1][2]}"/>
      <geometry><cylinder radius="0.02" length="0.1"/></geometry></collision>
  </link>
  <link name="tip">
    <inertial><origin xyz="{ct[0]} {ct[1]} {ct[2]}"/><mass value="0.2"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.3" rpy="0.2 0 0"/><axis xyz="{ax[0]} {ax[1]} {ax[2]}"/>
    <limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <joint name="slide" type="prismatic"><parent link="arm"/><child link="tip"/>
    <origin xyz="0.4 0 0" rpy="0 0 0.6"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.2" effort="1" velocity="1"/>
  </joint>
</robot>
"""


def rpy(r, p, y) -> np.ndarray:
    """URDF's fixed-axis roll, pitch, yaw: Rz(y) · Ry(p) · Rx(r)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    return rz @ ry @ rx


def transform(xyz, angles=(0.0, 0.0, 0.0)) -> np.ndarray:
    x = np.eye(4)
    x[:3, :3] = rpy(*angles)
    x[:3, 3] = xyz
    return x


@pytest.fixture
def probe(tmp_path):
    trimesh.creation.box((0.02, 0.02, 0.02)).export(tmp_path / "cube.stl")
    path = tmp_path / "probe.urdf"
    path.write_text(PROBE.format(vb=VISUAL_BASE, cb=COLLISION_BASE, va=VISUAL_ARM, xa=COLLISION_ARM,
                                 ca=COM_ARM, ct=COM_TIP, ax=SHOULDER_AXIS))
    tree = read_urdf(path)
    return tree, tree.compile()


@pytest.fixture
def make_view(make_scene_view):
    return lambda: make_scene_view(size=(800, 600))


def shown_and_moved(make_view, tree, art, q):
    view = make_view()
    view.show_segments({"probe": (tree, art)})
    assert not view.loading and view.warnings == []
    for layer in LAYERS:
        view.set_layer_visible(layer, True)
    poses = frame_poses(art, np.asarray(q, dtype=float))
    view.set_frame_poses("probe", poses)
    return view, poses


def by_item(view, layer):
    out = {}
    for actor in view.actors("probe", layer):
        out.setdefault(view.item_of(actor), []).append(actor)
    return out


Q = (0.7, 0.15)


def size_matrix(x, y, z) -> np.ndarray:
    return np.diag((x, y, z, 1.0))


#: the primitives' sizes as the description gives them: a box's edges; a cylinder's radius twice and length
BASE_BOX = size_matrix(0.1, 0.05, 0.02)
ARM_CYLINDER = size_matrix(0.02, 0.02, 0.1)


def drawn_points(actor, shape_pose) -> np.ndarray:
    """The actor's points as drawn (its data through its user_matrix), in the frame ``shape_pose`` places."""
    import pyvista as pv

    points = np.asarray(pv.wrap(actor.GetMapper().GetInput()).points, dtype=float)
    world = points @ np.asarray(actor.user_matrix)[:3, :3].T + np.asarray(actor.user_matrix)[:3, 3]
    return (world - shape_pose[:3, 3]) @ shape_pose[:3, :3]


def test_geometry_sits_at_its_links_pose_times_its_origin(make_view, probe):
    """A primitive is the shared unit mesh of its kind scaled by its size: pose · origin · size; a mesh is
    drawn at its own size: pose · origin. Either way its points, drawn, span the description's sizes."""
    tree, art = probe
    view, poses = shown_and_moved(make_view, tree, art, Q)

    def pose(link):
        return poses[art.frame_index(link)]

    visual = by_item(view, "visual")
    assert set(visual) == {ItemRef("probe", "link", "base"), ItemRef("probe", "link", "arm")}
    (base_box,) = visual[ItemRef("probe", "link", "base")]
    at = pose("base") @ transform(*VISUAL_BASE)
    np.testing.assert_allclose(base_box.user_matrix, at @ BASE_BOX, atol=1e-12)
    local = drawn_points(base_box, at)
    np.testing.assert_allclose(local.min(axis=0), [-0.05, -0.025, -0.01], atol=1e-9)
    np.testing.assert_allclose(local.max(axis=0), [0.05, 0.025, 0.01], atol=1e-9)
    for actor in visual[ItemRef("probe", "link", "arm")]:  # a mesh: one actor per colour, all alike
        at = pose("arm") @ transform(*VISUAL_ARM)
        np.testing.assert_allclose(actor.user_matrix, at, atol=1e-12)
        local = drawn_points(actor, at)  # the 2 cm cube, scaled 1 2 1 in the description
        np.testing.assert_allclose(local.min(axis=0), [-0.01, -0.02, -0.01], atol=1e-7)
        np.testing.assert_allclose(local.max(axis=0), [0.01, 0.02, 0.01], atol=1e-7)

    collision = by_item(view, "collision")
    (base_mesh,) = collision[ItemRef("probe", "link", "base")]
    np.testing.assert_allclose(base_mesh.user_matrix, pose("base") @ transform(*COLLISION_BASE), atol=1e-12)
    (arm_cylinder,) = collision[ItemRef("probe", "link", "arm")]
    at = pose("arm") @ transform(*COLLISION_ARM)
    np.testing.assert_allclose(arm_cylinder.user_matrix, at @ ARM_CYLINDER, atol=1e-12)
    local = drawn_points(arm_cylinder, at)  # along z, centred on its origin
    np.testing.assert_allclose(np.hypot(local[:, 0], local[:, 1]).max(), 0.02, atol=1e-9)
    np.testing.assert_allclose((local[:, 2].min(), local[:, 2].max()), (-0.05, 0.05), atol=1e-9)


def test_frame_triads_sit_on_their_frames(make_view, probe):
    tree, art = probe
    view, poses = shown_and_moved(make_view, tree, art, Q)
    triads = by_item(view, "frames")
    assert set(triads) == {ItemRef("probe", "frame", f) for f in art.frame_names}
    for ref, (actor,) in triads.items():
        np.testing.assert_allclose(actor.user_matrix, poses[art.frame_index(ref.name)], atol=1e-12)


def test_joint_axes_point_along_the_axis_from_the_child_frame(make_view, probe):
    tree, art = probe
    view, poses = shown_and_moved(make_view, tree, art, Q)
    axes = by_item(view, "joint_axes")
    assert set(axes) == {ItemRef("probe", "joint", "shoulder"), ItemRef("probe", "joint", "slide")}
    for name, child, axis in (("shoulder", "arm", SHOULDER_AXIS), ("slide", "tip", (0, 0, 1))):
        (actor,) = axes[ItemRef("probe", "joint", name)]
        m = np.asarray(actor.user_matrix)
        child_pose = poses[art.frame_index(child)]
        np.testing.assert_allclose(m[:3, 3], child_pose[:3, 3], atol=1e-12)
        unit = np.asarray(axis, float) / np.linalg.norm(axis)
        np.testing.assert_allclose(m[:3, 0], child_pose[:3, :3] @ unit, atol=1e-12)  # the arrow is along +x
        np.testing.assert_allclose(m[:3, :3] @ m[:3, :3].T, np.eye(3), atol=1e-12)


def test_com_markers_and_inertia_boxes_sit_at_the_centre_of_mass(make_view, probe):
    tree, art = probe
    view, poses = shown_and_moved(make_view, tree, art, Q)
    com = by_item(view, "com")
    boxes = by_item(view, "inertia")
    assert set(com) == set(boxes) == {ItemRef("probe", "link", "arm"), ItemRef("probe", "link", "tip")}
    for link, c in (("arm", COM_ARM), ("tip", COM_TIP)):
        pose = poses[art.frame_index(link)]
        expected = (pose @ np.r_[c, 1.0])[:3]
        (marker,) = com[ItemRef("probe", "link", link)]
        (box,) = boxes[ItemRef("probe", "link", link)]
        np.testing.assert_allclose(np.asarray(marker.user_matrix)[:3, 3], expected, atol=1e-12)
        np.testing.assert_allclose(np.asarray(marker.user_matrix)[:3, :3], pose[:3, :3], atol=1e-12)
        np.testing.assert_allclose(np.asarray(box.user_matrix)[:3, 3], expected, atol=1e-12)


def test_labels_follow_their_frames_while_the_triads_are_hidden(make_view, probe):
    tree, art = probe
    view = make_view()
    view.show_segments({"probe": (tree, art)})
    view.set_layer_visible("frame_labels", True)
    assert not view.layer_visible("frames")
    offsets = []
    for q in ((0.0, 0.0), Q):
        poses = frame_poses(art, np.asarray(q, float))
        view.set_frame_poses("probe", poses)
        labels = view.actors("probe", "frame_labels")
        assert len(labels) == art.nframes
        for label, pose in zip(labels, poses, strict=True):
            x, y, z = label.GetPosition()
            np.testing.assert_allclose((x, y), pose[:2, 3], atol=1e-12)
            offsets.append(z - pose[2, 3])
    assert np.ptp(offsets) < 1e-12 and offsets[0] >= 0  # one fixed lift above each frame


def test_a_hidden_layer_placed_later_catches_up_to_the_last_pose(make_view, probe):
    tree, art = probe
    view = make_view()
    view.show_segments({"probe": (tree, art)})
    poses = frame_poses(art, np.asarray(Q, float))
    view.set_frame_poses("probe", poses)
    view.set_layer_visible("joint_axes", True)
    view.set_layer_visible("com", True)
    (actor,) = by_item(view, "joint_axes")[ItemRef("probe", "joint", "slide")]
    np.testing.assert_allclose(np.asarray(actor.user_matrix)[:3, 3], poses[art.frame_index("tip")][:3, 3],
                               atol=1e-12)
    (marker,) = by_item(view, "com")[ItemRef("probe", "link", "tip")]
    expected = (poses[art.frame_index("tip")] @ np.r_[COM_TIP, 1.0])[:3]
    np.testing.assert_allclose(np.asarray(marker.user_matrix)[:3, 3], expected, atol=1e-12)
    view.set_layer_visible("frame_labels", True)
    for label, pose in zip(view.actors("probe", "frame_labels"), poses, strict=True):
        np.testing.assert_allclose(label.GetPosition()[:2], pose[:2, 3], atol=1e-12)


def visibility(view) -> dict:
    return {(layer, i): bool(a.GetVisibility()) for layer in LAYERS if layer != "grid"
            for i, a in enumerate(view.actors("probe", layer))}


@pytest.mark.parametrize("layer", [layer for layer in LAYERS if layer not in ("grid", "parts")])
def test_each_layer_toggles_exactly_its_own_actors(make_view, probe, layer):
    tree, art = probe
    view = make_view()
    view.show_segments({"probe": (tree, art)})
    for start in (True, False):  # from all shown, and from all hidden
        for other in LAYERS:
            view.set_layer_visible(other, start)
        before = visibility(view)
        assert set(before.values()) == {start}
        view.set_layer_visible(layer, not start)
        after = visibility(view)
        changed = {key for key in before if before[key] != after[key]}
        assert changed == {key for key in before if key[0] == layer}
        assert changed, layer


def test_a_rig_part_is_drawn_in_the_parts_layer_with_its_centroid_at_its_place(make_view, tmp_path):
    from mime_gui import RESOURCES, rig

    stl = tmp_path / "offset.stl"
    mesh = trimesh.creation.box((0.02, 0.01, 0.04))
    mesh.apply_translation((0.05, -0.02, 0.01))
    mesh.export(stl)
    at = (0.03, -0.01, 0.02)
    apparatus = rig.Apparatus("r", chain={
        "arm": rig.Arm.Kinematic(description=str(RESOURCES / "demo" / "arm.urdf")),
        "motor": rig.Motor.Kinematic(mount="link_6")},
        parts={"holder": rig.Part(rig.Mesh(str(stl)), material="aluminium", at=at, mount="motor.rotor")})
    motor = apparatus.build().segments["motor"]
    tree, art = motor.tree, motor.articulation
    view = make_view()
    view.show_segments({"motor": (tree, art)})
    q = np.zeros(art.nq)
    q[art.joint_index("shaft")] = 0.9
    poses = frame_poses(art, q)
    view.set_frame_poses("motor", poses)
    parts = [a for a in view.actors("motor", "parts") if view.item_of(a).name == "part:holder"]
    assert parts
    centroid = trimesh.load(stl).center_mass
    rotor = poses[art.frame_index("rotor")]
    for actor in parts:
        np.testing.assert_allclose(actor.user_matrix, rotor @ transform(at) @ transform(-centroid), atol=1e-9)
    shown = view.actor_counts()["parts"]
    view.set_layer_visible("parts", False)
    assert shown >= 1 and view.actor_counts()["parts"] == 0
    assert not any(a.GetVisibility() for a in view.actors("motor", "parts"))
    assert all(a.GetVisibility() for a in view.actors("motor", "visual"))
