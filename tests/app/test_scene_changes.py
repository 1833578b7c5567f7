"""The 3D scene updating in place: ``SceneView.update_segments`` keeps the actors of what did not change,
builds exactly the new ones, removes exactly the gone ones and leaves the camera alone; a pose update creates
nothing. A grafted part is the link ``part:<name>`` of the segment it mounts on.

Runs under ``xvfb-run -a`` (QtInteractor needs an X server)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from robot_data import robot_urdf

from mime_gui import RESOURCES
from mime_gui.multibody import frame_poses
from mime_gui.rig import Apparatus, Arm, Box, Cylinder, Mesh, Part, Sphere, load
from mime_gui.session.renderer import LAYERS, ItemRef

pytestmark = pytest.mark.timeout(120)

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
OPTIONAL_LAYERS = ("collision", "frames", "frame_labels", "joint_axes", "com", "inertia")
EXTRA = Part(Box(size=(0.03, 0.02, 0.01)), material="aluminium", at=(0.0, 0.02, 0.05), mount="arm.link_3")




def scene_of(built, *names) -> dict:
    return {name: (s.tree, s.articulation) for name, s in built.segments.items()
            if not names or name in names}


def with_parts(rig: Apparatus, **parts) -> Apparatus:
    return Apparatus(rig.name, chain=rig.chain, parts={**rig.parts, **parts}, magnets=rig.magnets,
                     base=rig.base)


def snapshot(view) -> dict:
    """(segment, layer) → the actors, in order."""
    return {(seg, layer): view.actors(seg, layer) for seg in view.segment_names() for layer in LAYERS}


def props(view) -> list:
    """Every prop of every renderer of the window (the scene's and the overlay's)."""
    out = []
    renderers = view.plotter.ren_win.GetRenderers()
    renderers.InitTraversal()
    for _ in range(renderers.GetNumberOfItems()):
        collection = renderers.GetNextItem().GetViewProps()
        out += [collection.GetItemAsObject(i) for i in range(collection.GetNumberOfItems())]
    return out


def camera(view) -> tuple:
    cam = view.plotter.renderer.GetActiveCamera()
    return cam.GetPosition(), cam.GetFocalPoint(), cam.GetViewUp(), cam.GetViewAngle(), cam.GetParallelScale()


def same_objects(a: list, b: list) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def translation(p) -> np.ndarray:
    X = np.eye(4)
    X[:3, 3] = p
    return X


def random_poses(art, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return frame_poses(art, rng.uniform(-1.0, 1.0, art.nq))


def shape_local(shape) -> np.ndarray:
    """Where a shape's actor hangs in its link: at ``link_X_shape``, and a box, cylinder or sphere (a shared
    unit mesh) sized by its matrix."""
    from mime_gui.app.scene.geometry import unit_primitive

    unit = unit_primitive(shape.geometry)
    return shape.link_X_shape if unit is None else shape.link_X_shape @ unit[1]


def drawn_in(actor, frame_X_world: np.ndarray) -> np.ndarray:
    """The actor's points as drawn (through its matrix), in another frame."""
    pts = np.asarray(actor.GetMapper().GetInput().GetPoints().GetData(), dtype=float)
    world = pts @ actor.user_matrix[:3, :3].T + actor.user_matrix[:3, 3]
    return world @ frame_X_world[:3, :3].T + frame_X_world[:3, 3]


def check_placement(view, segment: str, tree, art, poses) -> int:
    """Every actor of the segment sits where its item says, to 1e-12; returns how many were checked."""
    checked = 0
    for layer in ("visual", "collision", "parts"):
        kind = "visuals" if layer != "collision" else "collisions"
        for actor in view.actors(segment, layer):
            name = view.item_of(actor).name
            world = poses[art.frame_index(name)]
            shapes = getattr(tree.links[name], kind)
            assert any(np.allclose(actor.user_matrix, world @ shape_local(s), rtol=0, atol=1e-12)
                       for s in shapes), (layer, name)
            checked += 1
    for actor in view.actors(segment, "frames"):
        assert np.allclose(actor.user_matrix, poses[art.frame_index(view.item_of(actor).name)],
                           rtol=0, atol=1e-12)
        checked += 1
    for actor in view.actors(segment, "com"):
        name = view.item_of(actor).name
        expected = poses[art.frame_index(name)] @ translation(tree.links[name].inertial.link_X_com[:3, 3])
        assert np.allclose(actor.user_matrix, expected, rtol=0, atol=1e-12), name
        checked += 1
    for actor in view.actors(segment, "inertia"):  # the box's centre is the centre of mass
        name = view.item_of(actor).name
        com = poses[art.frame_index(name)] @ tree.links[name].inertial.link_X_com
        assert np.allclose(actor.user_matrix[:3, 3], com[:3, 3], rtol=0, atol=1e-12), name
        checked += 1
    for actor in view.actors(segment, "joint_axes"):  # the arrow (+x) lies along the joint's axis
        joint = tree.joints[view.item_of(actor).name]
        world = poses[art.frame_index(joint.child)]
        axis = world[:3, :3] @ (joint.axis / np.linalg.norm(joint.axis))
        assert np.allclose(actor.user_matrix[:3, 3], world[:3, 3], rtol=0, atol=1e-12)
        assert np.allclose(actor.user_matrix[:3, 0], axis, rtol=0, atol=1e-12)
        checked += 1
    for label, name in zip(view.actors(segment, "frame_labels"), art.frame_names, strict=True):
        assert label.GetInput() == name
        assert np.allclose(label.GetPosition()[:2], poses[art.frame_index(name)][:2, 3], rtol=0, atol=1e-12)
    return checked


def show_demo(view, built):
    view.show_segments(scene_of(built))
    for layer in OPTIONAL_LAYERS:
        view.set_layer_visible(layer, True)
    for name, seg in built.segments.items():
        view.set_frame_poses(name, random_poses(seg.articulation, 1))


# -- a part added, changed, removed -------------------------------------------------------------------

def test_adding_a_part_adds_exactly_its_actors_and_removing_it_removes_them(make_view):
    rig = load(DEMO_RIG)
    built = rig.build()
    view = make_view()
    show_demo(view, built)
    cam = camera(view)
    before, counts, n_props = snapshot(view), view.actor_counts(), len(props(view))

    bigger = with_parts(rig, extra=EXTRA).build()
    arm = bigger.segments["arm"]
    part = arm.tree.links["part:extra"]
    assert part.inertial is not None and part.inertial.mass > 0  # the arm is dynamic: the part has mass
    view.update_segments(scene_of(bigger, "arm"))

    after = snapshot(view)
    added = {"parts": len(part.visuals), "frames": 1, "frame_labels": 1, "com": 1, "inertia": 1}
    for (seg, layer), old in before.items():
        new = after[(seg, layer)]
        if seg == "motor":
            assert same_objects(new, old), layer  # the untouched segment: the same actors
            continue
        kept = {id(a) for a in old}
        assert kept <= {id(a) for a in new}, layer  # every old actor kept, the same Python object
        fresh = [a for a in new if id(a) not in kept]
        assert len(fresh) == added.get(layer, 0), layer
        if layer == "frame_labels":
            assert [a.GetInput() for a in fresh] == ["part:extra"]
        else:
            kind = "frame" if layer == "frames" else "link"
            assert {view.item_of(a) for a in fresh} <= {ItemRef("arm", kind, "part:extra")}
    assert view.actor_counts() == {layer: counts[layer] + added.get(layer, 0) for layer in LAYERS}
    assert len(props(view)) == n_props + sum(added.values())
    assert camera(view) == cam

    # the next pose update places the new actors (and the kept ones, re-indexed) exactly
    poses = random_poses(arm.articulation, 2)
    view.set_frame_poses("arm", poses)
    checked = check_placement(view, "arm", arm.tree, arm.articulation, poses)
    assert checked == sum(len(view.actors("arm", layer)) for layer in LAYERS if layer != "frame_labels")
    (box,) = [a for a in view.actors("arm", "parts") if view.item_of(a).name == "part:extra"]
    world_X_shape = poses[arm.articulation.frame_index("part:extra")] @ part.visuals[0].link_X_shape
    expected = world_X_shape @ shape_local(part.visuals[0])
    assert np.max(np.abs(box.user_matrix - expected)) <= 1e-12
    # drawn at the part's size, centred on its shape frame
    local = drawn_in(box, np.linalg.inv(world_X_shape))
    assert np.allclose(local.max(axis=0) - local.min(axis=0), EXTRA.geometry.size, rtol=1e-6, atol=0)
    assert np.allclose(local.max(axis=0) + local.min(axis=0), 0, atol=1e-7)

    # removing it again removes exactly its actors: the original ones remain, in order
    view.update_segments(scene_of(built, "arm"))
    again = snapshot(view)
    for key, old in before.items():
        assert same_objects(again[key], old), key
    assert view.actor_counts() == counts
    assert len(props(view)) == n_props
    assert camera(view) == cam
    assert not any(view.item_of(p) is not None and view.item_of(p).name == "part:extra" for p in props(view))


def test_a_resized_part_keeps_its_actors_and_a_recoloured_one_rebuilds_only_its_shape(make_view):
    from mime_gui.app.scene.view import equivalent_box

    rig = load(DEMO_RIG)
    built = rig.build()
    view = make_view()
    show_demo(view, built)
    view.view_standard("left")
    view.render_now()
    cam = camera(view)
    before, n_props, created = snapshot(view), len(props(view)), view._registry.created

    # a dimension: the same actors, re-sized (a matrix each), nothing created
    holder = rig.parts["holder"]
    wider = dataclasses.replace(holder, geometry=Cylinder(radius=2 * holder.geometry.radius,
                                                          length=holder.geometry.length))
    motor = with_parts(rig, holder=wider).build().segments["motor"]
    view.update_segments({"motor": (motor.tree, motor.articulation)})
    after = snapshot(view)
    assert all(same_objects(after[key], old) for key, old in before.items())
    assert view._registry.created == created and len(props(view)) == n_props
    assert camera(view) == cam
    poses = random_poses(motor.articulation, 3)
    view.set_frame_poses("motor", poses)
    check_placement(view, "motor", motor.tree, motor.articulation, poses)
    # drawn at the new size: in the shape's frame the cylinder's axis is z
    holder_ref = ItemRef("motor", "link", "part:holder")
    (shape,) = [a for a in view.actors("motor", "parts") if view.item_of(a) == holder_ref]
    link = motor.tree.links["part:holder"]
    world_X_link = poses[motor.articulation.frame_index("part:holder")]
    local = drawn_in(shape, np.linalg.inv(world_X_link @ link.visuals[0].link_X_shape))
    extent = local.max(axis=0) - local.min(axis=0)
    assert extent[0] == pytest.approx(4 * holder.geometry.radius, rel=1e-6)
    assert extent[2] == pytest.approx(holder.geometry.length, rel=1e-6)
    # and so is its equivalent inertia box, along its principal axes
    (box,) = [a for a in view.actors("motor", "inertia") if view.item_of(a) == holder_ref]
    sides, axes = equivalent_box(link.inertial.mass, link.inertial.inertia)
    com_X_box = np.eye(4)
    com_X_box[:3, :3] = axes
    local = drawn_in(box, np.linalg.inv(world_X_link @ link.inertial.link_X_com @ com_X_box))
    assert np.allclose(local.max(axis=0) - local.min(axis=0), sides, rtol=1e-6, atol=0)

    # a material: a new colour, so a new shape actor; its markers stay (mass scales, the box does not)
    brass = dataclasses.replace(wider, material="brass")
    motor = with_parts(rig, holder=brass).build().segments["motor"]
    refs = {id(a): view.item_of(a) for actors in after.values() for a in actors}
    view.update_segments({"motor": (motor.tree, motor.articulation)})
    again = snapshot(view)
    for key, old in after.items():
        if key != ("motor", "parts"):
            assert same_objects(again[key], old), key
            continue
        assert same_objects([a for a in old if refs[id(a)] != holder_ref],
                            [a for a in again[key] if view.item_of(a) != holder_ref])
        (gone,) = [a for a in old if refs[id(a)] == holder_ref]
        (fresh,) = [a for a in again[key] if view.item_of(a) == holder_ref]
        assert fresh is not gone and view.item_of(gone) is None  # the old one is forgotten
        rgba = motor.tree.links["part:holder"].visuals[0].rgba
        assert fresh.GetProperty().GetColor() == pytest.approx(rgba[:3])
    assert view._registry.created == created + 1 and len(props(view)) == n_props
    assert camera(view) == cam


def test_a_removed_segment_leaves_no_actor_and_a_new_one_gets_all(make_view):
    rig = load(DEMO_RIG)
    built = rig.build()
    view = make_view()
    show_demo(view, built)
    cam = camera(view)
    n_props = len(props(view))
    motor_actors = [a for layer in LAYERS for a in view.actors("motor", layer)]
    assert motor_actors
    view.update_segments({}, removed=["motor"])
    assert view.segment_names() == ["arm"]
    assert len(props(view)) == n_props - len(motor_actors)
    remaining = {id(p) for p in props(view)}
    assert not any(id(a) in remaining for a in motor_actors)
    assert all(view.item_of(p) is None or view.item_of(p).segment == "arm" for p in props(view))
    assert view.actor_counts()["parts"] == 0  # both parts rode on the motor
    with pytest.raises(KeyError):
        view.actors("motor", "visual")
    assert camera(view) == cam

    # back as a new segment: every actor it had, fresh
    view.update_segments(scene_of(built, "motor"))
    assert view.segment_names() == ["arm", "motor"]
    assert len(props(view)) == n_props
    fresh = [a for layer in LAYERS for a in view.actors("motor", layer)]
    assert len(fresh) == len(motor_actors) and not {id(a) for a in fresh} & {id(a) for a in motor_actors}
    assert view.actor_counts()["parts"] == len(rig.parts) + len(rig.magnets)
    assert camera(view) == cam


def test_markers_and_grid_grow_with_a_large_new_part_only(make_view):
    rig = load(DEMO_RIG)
    view = make_view()
    show_demo(view, rig.build())
    cam, size = camera(view), view.model_size()
    triad = view.actors("arm", "frames")[0]
    scale = triad.GetScale()[0]
    view.update_segments(scene_of(with_parts(rig, extra=EXTRA).build(), "arm"))  # a small part
    assert view.model_size() == size and triad.GetScale()[0] == scale
    big = Part(Box(size=(3 * size, 0.01, 0.01)), material="aluminium", mount="arm.base_link")
    view.update_segments(scene_of(with_parts(rig, big=big).build(), "arm"))
    assert view.model_size() > 2.5 * size
    assert triad.GetScale()[0] == pytest.approx(scale * view.model_size() / size)
    assert view.actor_counts()["grid"] == 1
    assert camera(view) == cam


# -- what carries over -----------------------------------------------------------------------------------

def test_hidden_items_layers_opacity_and_detail_carry_over_an_update(make_view, qtbot):
    rig = load(DEMO_RIG)
    built = rig.build()
    view = make_view()
    show_demo(view, built)
    view.set_layer_visible("inertia", False)
    view.set_visual_opacity(0.5)
    hidden = [ItemRef("arm", "link", "link_2"), ItemRef("arm", "frame", "link_3"),
              ItemRef("arm", "joint", "joint_4"), ItemRef("motor", "part", "part:holder")]
    for item in hidden:
        view.set_item_visible(item, False)
    view.set_frame_visible("arm", "link_5", False)
    full_before, _ = view.triangle_counts()

    moved = dataclasses.replace(rig.parts["holder"], at=(0.0, 0.0, 0.02))
    bigger = with_parts(rig, extra=EXTRA, holder=moved)
    built2 = bigger.build()
    with qtbot.waitSignal(view.detail_changed, timeout=2000) as blocker:
        view.update_segments(scene_of(built2))

    def shown(segment, layer, name):
        return [a.GetVisibility() for a in view.actors(segment, layer) if view.item_of(a).name == name]

    assert all(not view.item_visible(item) for item in hidden)
    assert shown("arm", "visual", "link_2") and not any(shown("arm", "visual", "link_2"))
    assert shown("arm", "collision", "link_2") and not any(shown("arm", "collision", "link_2"))
    assert not any(shown("arm", "frames", "link_3")) and not any(shown("arm", "frames", "link_5"))
    assert all(shown("arm", "frames", "link_4"))
    labels = dict(zip(built2.segments["arm"].articulation.frame_names, view.actors("arm", "frame_labels"),
                      strict=True))
    assert not labels["link_3"].GetVisibility() and labels["part:extra"].GetVisibility()
    assert not any(shown("arm", "joint_axes", "joint_4")) and all(shown("arm", "joint_axes", "joint_5"))
    assert shown("motor", "parts", "part:holder") and not any(shown("motor", "parts", "part:holder"))
    assert all(shown("arm", "parts", "part:extra")) and all(shown("arm", "com", "part:extra"))
    # a layer that was off stays off for the new actors too
    assert not view.layer_visible("inertia")
    assert not any(a.GetVisibility() for a in view.actors("arm", "inertia"))
    # the robot opacity applies to the new part
    (extra,) = [a for a in view.actors("arm", "parts") if view.item_of(a).name == "part:extra"]
    assert extra.GetProperty().GetOpacity() == pytest.approx(0.5)
    # the face counts follow: the new box's faces are drawn, the window was told
    full, shown_faces = view.triangle_counts()
    assert full == full_before + extra.GetMapper().GetInput().GetNumberOfCells()
    assert blocker.args == [full, shown_faces]


def test_a_hidden_part_that_is_removed_is_forgotten(make_view):
    rig = load(DEMO_RIG)
    view = make_view()
    view.show_segments(scene_of(rig.build()))
    extra = ItemRef("arm", "link", "part:extra")
    link = ItemRef("arm", "link", "link_2")
    view.update_segments(scene_of(with_parts(rig, extra=EXTRA).build(), "arm"))
    view.set_item_visible(extra, False)
    view.set_item_visible(link, False)
    view.update_segments(scene_of(rig.build(), "arm"))  # removed: as the Session does, forget it
    assert view.item_visible(extra) and not view.item_visible(link)
    view.update_segments(scene_of(with_parts(rig, extra=EXTRA).build(), "arm"))  # added again: shown
    (part,) = [a for a in view.actors("arm", "parts") if view.item_of(a) == extra]
    assert part.GetVisibility()
    view.set_item_visible(ItemRef("motor", "frame", "rotor"), False)
    view.update_segments({}, removed=["motor"])
    assert view.item_visible(ItemRef("motor", "frame", "rotor"))


def test_a_highlighted_part_stays_highlighted_when_it_is_rebuilt(make_view):
    from mime_gui.app.scene.highlight import HIGHLIGHT_RGB

    rig = load(DEMO_RIG)
    view = make_view()
    view.show_segments(scene_of(rig.build()))
    view.highlight(ItemRef("motor", "link", "part:holder"))
    holder = rig.parts["holder"]
    longer = dataclasses.replace(holder, geometry=Cylinder(radius=holder.geometry.radius, length=0.05))
    view.update_segments(scene_of(with_parts(rig, holder=longer).build(), "motor"))
    (actor,) = [a for a in view.actors("motor", "parts") if view.item_of(a).name == "part:holder"]
    assert actor.GetProperty().GetColor() == pytest.approx(HIGHLIGHT_RGB)
    view.highlight(None)
    assert actor.GetProperty().GetColor() != pytest.approx(HIGHLIGHT_RGB)


def test_a_scaled_unit_primitive_renders_as_the_sized_mesh():
    """Normals go through the inverse transpose of the actor's matrix: a unit cylinder scaled (r, r, L) and
    turned shades exactly as the cylinder meshed at that size."""
    import pyvista as pv

    from mime_gui.app.scene import meshes

    images = []
    turn = pv.transformations.axis_angle_rotation((1, 1, 0), 50)
    for pd, size in ((meshes.cylinder_polydata(0.3, 1.2), (1.0, 1.0, 1.0)),
                     (meshes.cylinder_polydata(1.0, 1.0), (0.3, 0.3, 1.2))):
        plotter = pv.Plotter(off_screen=True, window_size=(300, 300))
        actor = plotter.add_mesh(pd, color="lightgrey", smooth_shading=True)
        actor.user_matrix = turn @ np.diag((*size, 1.0))
        plotter.camera_position = [(3, 2, 1.5), (0, 0, 0), (0, 0, 1)]
        images.append(np.asarray(plotter.screenshot(return_img=True), dtype=int))
        plotter.close()
    drawn = np.any(images[0] != images[0][0, 0], axis=2)
    assert drawn.sum() > 5000  # the cylinder fills a good part of the image
    assert np.abs(images[0] - images[1]).max() <= 2


# -- poses -----------------------------------------------------------------------------------------------

def test_pose_updates_create_no_actor_and_the_view_keeps_its_own_copy(make_view):
    rig = load(DEMO_RIG)
    built = rig.build()
    view = make_view()
    show_demo(view, built)
    art = built.segments["arm"].articulation
    ids, created = {id(p) for p in props(view)}, view._registry.created
    actors = snapshot(view)
    rng = np.random.default_rng(4)
    qs = rng.uniform(-1.0, 1.0, (600, art.nq))
    poses = np.empty((art.nframes, 4, 4))
    for q in qs:
        frame_poses(art, q, out=poses)  # one array rewritten in place, as the Session does
        view.set_frame_poses("arm", poses)
    assert view._registry.created == created
    assert {id(p) for p in props(view)} == ids
    assert all(same_objects(view.actors(seg, layer), old) for (seg, layer), old in actors.items())
    check_placement(view, "arm", built.segments["arm"].tree, art, frame_poses(art, qs[-1]))

    # the caller rewrites its array after the call: a hidden layer catches up to what was sent
    view.set_layer_visible("frames", False)
    sent = frame_poses(art, qs[0])
    view.set_frame_poses("arm", sent)
    expected = sent.copy()
    sent[:] = np.eye(4)
    view.set_layer_visible("frames", True)
    for actor in view.actors("arm", "frames"):
        assert np.array_equal(actor.user_matrix, expected[art.frame_index(view.item_of(actor).name)])


# -- a part with a mesh, loaded off the GUI thread ------------------------------------------------------

def test_a_mesh_part_loads_off_the_gui_thread_and_the_camera_stays(make_view, qtbot, tmp_path):
    import trimesh

    from mime_gui.app.scene import meshes

    stl = tmp_path / "puck.stl"
    trimesh.creation.cylinder(radius=0.02, height=0.01, sections=24).export(stl)
    rig = load(DEMO_RIG)
    view = make_view(async_meshes=True)
    with qtbot.waitSignal(view.meshes_loaded, timeout=30000):
        view.show_segments(scene_of(rig.build()))
    view.view_standard("top")
    cam = camera(view)
    before = snapshot(view)
    puck = Part(Mesh(str(stl)), material="aluminium", at=(0.0, 0.0, 0.06), mount="arm.link_6")
    built = with_parts(rig, puck=puck).build()
    meshes.clear_cache()
    with qtbot.waitSignal(view.meshes_loaded, timeout=30000) as blocker:
        view.update_segments(scene_of(built, "arm"))
        assert view.loading  # the mesh is on its way; the rest is drawn already
        assert [view.item_of(a).name for a in view.actors("arm", "frames")][-1] == "part:puck"
        assert len(view.actors("arm", "parts")) == len(before[("arm", "parts")])
    assert blocker.args == [[]] and not view.loading
    (actor,) = [a for a in view.actors("arm", "parts") if view.item_of(a).name == "part:puck"]
    assert actor.GetMapper().GetInput().GetNumberOfCells() > 12
    assert camera(view) == cam  # the meshes of an update do not move the camera
    for key, old in before.items():
        assert {id(a) for a in old} <= {id(a) for a in view.actors(*key)}, key


def test_a_mesh_whose_link_changes_before_it_arrives_is_dropped(make_view, qtbot, tmp_path):
    import trimesh

    from mime_gui.app.scene import meshes

    stl = tmp_path / "late.stl"
    trimesh.creation.box(extents=(0.02, 0.02, 0.02)).export(stl)
    rig = load(DEMO_RIG)
    view = make_view(async_meshes=True)
    with qtbot.waitSignal(view.meshes_loaded, timeout=30000):
        view.show_segments(scene_of(rig.build()))
    meshes.clear_cache()
    late = Part(Mesh(str(stl)), material="aluminium", at=(0.0, 0.0, 0.06), mount="arm.link_6")
    with qtbot.waitSignal(view.meshes_loaded, timeout=30000):
        view.update_segments(scene_of(with_parts(rig, late=late).build(), "arm"))
        view.update_segments(scene_of(rig.build(), "arm"))  # removed before the mesh arrives
    assert not view.loading
    assert not any(view.item_of(a).name == "part:late" for layer in ("parts", "frames")
                   for a in view.actors("arm", layer))


# -- PR2 with a part on its gripper ------------------------------------------------------------------------

def test_pr2_with_a_part_on_its_gripper(make_view):
    pr2 = robot_urdf("pr2_description/urdf/pr2.urdf")
    tool = Part(Box(size=(0.04, 0.03, 0.02)), material="aluminium", at=(0.08, 0.0, 0.0),
                mount="arm.r_gripper_palm_link")
    rig = Apparatus("pr2", chain={"arm": Arm.Kinematic(description=str(pr2))}, parts={"tool": tool})
    built = rig.build()
    view = make_view()
    view.show_segments(scene_of(built))
    for layer in OPTIONAL_LAYERS:
        view.set_layer_visible(layer, True)
    view.set_frame_poses("arm", random_poses(built.segments["arm"].articulation, 5))
    cam = camera(view)
    before, n_props = snapshot(view), len(props(view))
    refs = {id(a): view.item_of(a) for actors in before.values() for a in actors}

    # the tool grows (its actor is re-sized), and a second part appears on the other gripper
    rig2 = Apparatus("pr2", chain=rig.chain, parts={
        "tool": dataclasses.replace(tool, geometry=Box(size=(0.06, 0.03, 0.02))),
        "spare": Part(Sphere(radius=0.015), material="aluminium", mount="arm.l_gripper_palm_link")})
    seg = rig2.build().segments["arm"]
    view.update_segments({"arm": (seg.tree, seg.articulation)})
    after = snapshot(view)
    assert camera(view) == cam
    for key, old in before.items():
        new = after[key]
        old_ids = {id(a) for a in old}
        assert old_ids <= {id(a) for a in new}, key
        assert all(view.item_of(a) == refs[id(a)] for a in old), key
        fresh = [a for a in new if id(a) not in old_ids]
        if key[1] == "frame_labels":
            assert [a.GetInput() for a in fresh] == ["part:spare"]
        else:
            expected = ["part:spare"] if key[1] in ("parts", "frames") else []
            assert [view.item_of(a).name for a in fresh] == expected, key
    assert len(props(view)) == n_props + 3  # the spare's sphere, triad and label
    poses = random_poses(seg.articulation, 6)
    view.set_frame_poses("arm", poses)
    check_placement(view, "arm", seg.tree, seg.articulation, poses)
    (box,) = [a for a in view.actors("arm", "parts") if view.item_of(a).name == "part:tool"]
    link = seg.tree.links["part:tool"]
    world_X_shape = poses[seg.articulation.frame_index("part:tool")] @ link.visuals[0].link_X_shape
    local = drawn_in(box, np.linalg.inv(world_X_shape))
    assert np.allclose(local.max(axis=0) - local.min(axis=0), (0.06, 0.03, 0.02), rtol=1e-6, atol=0)



def test_a_resize_that_makes_no_actor_leaves_every_actors_visibility_as_it_was(make_view):
    rig = load(DEMO_RIG)
    view = make_view()
    show_demo(view, rig.build())
    view.set_layer_visible("inertia", False)
    view.set_item_visible(ItemRef("arm", "link", "link_2"), False)
    view.set_frame_visible("arm", "link_5", False)
    view.highlight(ItemRef("motor", "link", "part:m1"))
    before = {id(a): a.GetVisibility() for a in props(view)}
    created = view._registry.created
    holder = rig.parts["holder"]
    wider = dataclasses.replace(holder, geometry=Cylinder(radius=0.013, length=holder.geometry.length))
    view.update_segments(scene_of(with_parts(rig, holder=wider).build(), "motor"))
    assert view._registry.created == created  # resized in place
    assert {id(a): a.GetVisibility() for a in props(view)} == before
    view.highlight(None)
    assert not any(a.GetVisibility() for a in view.actors("arm", "inertia"))
    link_2 = [a for a in view.actors("arm", "visual") if view.item_of(a).name == "link_2"]
    assert link_2 and not any(a.GetVisibility() for a in link_2)
