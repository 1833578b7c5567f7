"""The 3D scene on its own: mesh loading (STL, OBJ, DAE, negative scale, missing files), layer toggles,
pose updates by matrix only, coalesced renders, highlight, picking, display detail.

Runs under ``xvfb-run -a`` (QtInteractor needs an X server)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from gestures import after_posted_events

from mime_gui import RESOURCES
from mime_gui.multibody import frame_poses, read_urdf
from mime_gui.multibody.tree import Mesh
from mime_gui.session.renderer import LAYERS, ItemRef

pytestmark = pytest.mark.timeout(60)

DEMO = RESOURCES / "demo" / "arm.urdf"
PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"
ROBOTS = (Path(sys.prefix) / "lib" / PYVER / "site-packages" / "cmeel.prefix" / "share" / "example-robot-data"
          / "robots")


def robot(name: str):
    if name == "demo":
        return read_urdf(DEMO)
    if not ROBOTS.is_dir():
        pytest.skip("example-robot-data is not installed")
    rel = {"pr2": "pr2_description/urdf/pr2.urdf", "panda": "panda_description/urdf/panda.urdf"}[name]
    return read_urdf(ROBOTS / rel, package_dirs=[ROBOTS])


def mesh_requests(tree, kinds=("visuals", "collisions")):
    from mime_gui.app.scene.meshes import MeshRequest

    out = []
    for link in tree.links.values():
        for kind in kinds:
            for shape in getattr(link, kind):
                if isinstance(shape.geometry, Mesh):
                    g = shape.geometry
                    out.append(MeshRequest(g.filename, tuple(g.scale), g.uri))
    return out


def signed_volume(pd) -> float:
    """Divergence-theorem volume: positive when the faces wind outward."""
    tri = pd.triangulate()
    faces = tri.faces.reshape(-1, 4)[:, 1:]
    p = np.asarray(tri.points)[faces]
    return float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0)




# -- meshes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["demo", "pr2", "panda"])
def test_every_mesh_of_real_robots_loads(name):
    from mime_gui.app.scene import meshes

    tree = robot(name)
    requests = mesh_requests(tree)
    assert requests
    with warnings.catch_warnings():
        warnings.simplefilter("error", meshes.MeshLoadWarning)
        results, problems = meshes.load_all(requests)
    assert problems == []
    exts = {Path(r.filename).suffix.lower() for r in requests}
    for asset in results.values():
        assert not asset.placeholder
        assert asset.n_faces > 0
        assert "Normals" in asset.polydata.point_data
    if name == "panda":
        assert ".dae" in exts
        dae = [a for k, a in results.items() if k[0].endswith(".dae")]
        assert all(a.has_colors for a in dae)
        # link0.dae has parts in several colours (white body, dark details): kept per part
        link0 = next(a for k, a in results.items() if k[0].endswith("visual/link0.dae"))
        colours = np.unique(link0.polydata.point_data["RGBA"], axis=0)
        assert len(colours) >= 2
    if name == "demo":
        assert exts == {".stl", ".obj"}
    # loaded once per (file, scale): a second load returns the cached object
    first = next(iter(results.values()))
    again = meshes.load_mesh(first.key[0], first.key[1])
    assert again is first


def test_negative_and_non_uniform_scale_keep_faces_outward():
    from mime_gui.app.scene import meshes

    stl = str(RESOURCES / "demo" / "meshes" / "base.stl")
    plain = meshes.load_mesh(stl)
    mirrored = meshes.load_mesh(stl, (1.0, -2.0, 0.5))
    b0, b1 = np.array(plain.polydata.bounds), np.array(mirrored.polydata.bounds)
    assert b1[2] == pytest.approx(-2.0 * b0[3], rel=1e-6)
    assert b1[3] == pytest.approx(-2.0 * b0[2], rel=1e-6)
    assert b1[5] == pytest.approx(0.5 * b0[5], rel=1e-6)
    v0, v1 = signed_volume(plain.polydata), signed_volume(mirrored.polydata)
    assert v0 > 0
    assert v1 == pytest.approx(v0 * 1.0, rel=1e-6)  # |det| = 1 and still positive: winding fixed
    # normals follow the fixed winding: they point away from the centre on average
    pd = mirrored.polydata
    outward = np.einsum("ij,ij->i", pd.point_data["Normals"], pd.points - pd.center)
    assert outward.mean() > 0


def test_missing_mesh_gives_placeholder_and_warning():
    from mime_gui.app.scene import meshes

    with pytest.warns(meshes.MeshLoadWarning, match="nope.stl"):
        asset = meshes.load_mesh("/does/not/exist/nope.stl")
    assert asset.placeholder
    assert asset.polydata.n_points == 8 and asset.polydata.n_cells == 12  # a wire box
    with pytest.warns(meshes.MeshLoadWarning):
        assert meshes.load_mesh(None, uri="package://x/y.dae").placeholder


def test_unreadable_mesh_gives_placeholder(tmp_path):
    from mime_gui.app.scene import meshes

    bad = tmp_path / "broken.dae"
    bad.write_text("<COLLADA>not really</COLLADA>")
    with pytest.warns(meshes.MeshLoadWarning, match="broken.dae"):
        assert meshes.load_mesh(str(bad)).placeholder


def test_loader_runs_off_the_gui_thread_with_progress(qtbot):
    import threading

    from mime_gui.app.scene import meshes

    meshes.clear_cache()
    loader = meshes.MeshLoader()
    requests = mesh_requests(robot("demo"))
    seen, threads = [], set()
    orig = meshes._build

    def spy(path, scale, *rest):
        threads.add(threading.get_ident())
        return orig(path, scale, *rest)

    meshes._build = spy
    try:
        loader.progress.connect(lambda done, total, name: seen.append((done, total)))
        with qtbot.waitSignal(loader.finished, timeout=20000) as blocker:
            loader.load(requests)
    finally:
        meshes._build = orig
        loader.shutdown()
    _, results, problems = blocker.args
    assert len(results) == 2 and problems == []
    assert seen[-1] == (2, 2)
    assert threading.get_ident() not in threads


# -- the view ---------------------------------------------------------------------------------------

def counts_expected(tree):
    art = tree.compile()
    visual = sum(len(link.visuals) for link in tree.links.values())
    collision = sum(len(link.collisions) for link in tree.links.values())
    inertials = sum(1 for link in tree.links.values() if link.inertial is not None and link.inertial.mass > 0)
    return art, visual, collision, inertials


def test_layer_toggles_add_and_remove_the_right_actors(make_view):
    view = make_view()
    tree = robot("demo")
    art, visual, collision, inertials = counts_expected(tree)
    view.show_segments({"arm": tree})
    counts = view.actor_counts()
    assert set(counts) == set(LAYERS)
    assert counts["visual"] == visual == 9
    assert counts["grid"] == 1
    assert counts["collision"] == counts["frames"] == counts["joint_axes"] == 0

    expected = {"collision": collision, "frames": art.nframes, "frame_labels": art.nframes,
                "joint_axes": art.nq, "com": inertials, "inertia": inertials}
    for layer, n in expected.items():
        view.set_layer_visible(layer, True)
        assert view.actor_counts()[layer] == n, layer
    view.set_layer_visible("visual", False)
    view.set_layer_visible("grid", False)
    counts = view.actor_counts()
    assert counts["visual"] == 0 and counts["grid"] == 0
    assert counts["collision"] == collision

    # per-frame visibility and the name filter
    view.set_frame_visible("arm", "link_3", False)
    assert view.actor_counts()["frames"] == art.nframes - 1
    view.set_frame_filter("link_*")
    assert view.actor_counts()["frames"] == 5  # link_1..link_6 without link_3
    view.set_frame_filter("TOOL")
    assert view.actor_counts()["frames"] == 1
    view.set_frame_filter("")
    view.set_frame_visible("arm", "link_3", True)
    assert view.actor_counts()["frames"] == art.nframes
    with pytest.raises(ValueError, match="unknown layer"):
        view.set_layer_visible("ghosts", True)


def test_pose_updates_only_assign_user_matrices(make_view, qtbot):
    view = make_view()
    tree = robot("demo")
    art = tree.compile()
    view.show_segments({"arm": (tree, art)})
    for layer in ("frames", "joint_axes", "com", "collision"):
        view.set_layer_visible(layer, True)
    layers = ("visual", "collision", "frames", "joint_axes", "com")
    before = {layer: view.actors("arm", layer) for layer in layers}
    n_props = view.plotter.renderer.GetViewProps().GetNumberOfItems()
    polydata = [a.GetMapper().GetInput() for a in before["visual"]]

    q = np.linspace(-0.8, 0.9, art.nq)
    poses = frame_poses(art, q)
    view.set_frame_poses("arm", poses)
    for layer in layers:
        after = view.actors("arm", layer)
        assert len(after) == len(before[layer])
        assert all(a is b for a, b in zip(after, before[layer], strict=True))
    assert view.plotter.renderer.GetViewProps().GetNumberOfItems() == n_props
    assert all(a.GetMapper().GetInput() is p for a, p in zip(before["visual"], polydata, strict=True))

    # each visual is placed at world_X_link @ link_X_shape (a box, cylinder or sphere sized by its matrix)
    from mime_gui.app.scene.geometry import unit_primitive

    def local(s):
        unit = unit_primitive(s.geometry)
        return s.link_X_shape if unit is None else s.link_X_shape @ unit[1]

    visuals = [(name, s) for name, link in tree.links.items() for s in link.visuals]
    expected = {id(a): poses[art.frame_index(view.item_of(a).name)] for a in before["visual"]}
    for actor in before["visual"]:
        ref = view.item_of(actor)
        shapes = [s for name, s in visuals if name == ref.name]
        world = expected[id(actor)]
        assert any(np.allclose(actor.user_matrix, world @ local(s)) for s in shapes), ref
    # a frame triad sits at its frame's pose
    for actor in before["frames"]:
        ref = view.item_of(actor)
        assert np.allclose(actor.user_matrix, poses[art.frame_index(ref.name)])
    with pytest.raises(ValueError, match="frames"):
        view.set_frame_poses("arm", poses[:-1])


def test_hidden_layers_catch_up_when_shown(make_view):
    view = make_view()
    tree = robot("demo")
    art = tree.compile()
    view.show_segments({"arm": tree})
    poses = frame_poses(art, np.full(art.nq, 0.5))
    view.set_frame_poses("arm", poses)
    view.set_layer_visible("frames", True)
    for actor in view.actors("arm", "frames"):
        assert np.allclose(actor.user_matrix, poses[art.frame_index(view.item_of(actor).name)])


def test_many_render_requests_in_one_turn_give_one_render(make_view, qtbot):
    view = make_view()
    tree = robot("demo")
    art = tree.compile()
    view.show_segments({"arm": tree})
    qtbot.waitUntil(lambda: view.render_count > 0, timeout=5000)
    after_posted_events(qtbot)  # the first show's render is done
    start = view.render_count
    for k in range(40):
        view.set_frame_poses("arm", frame_poses(art, np.full(art.nq, 0.01 * k)))
        view.request_render()
    assert view.render_count == start  # nothing rendered synchronously
    qtbot.waitUntil(lambda: view.render_count > start, timeout=5000)
    after_posted_events(qtbot)  # a second render, had one been posted, would have come by now
    assert view.render_count == start + 1


def test_async_meshes_arrive_with_progress(make_view, qtbot):
    from mime_gui.app.scene import meshes

    meshes.clear_cache()
    view = make_view(async_meshes=True)
    tree = robot("panda")
    progress = []
    view.meshes_progress.connect(lambda d, t, n: progress.append((d, t)))
    with qtbot.waitSignal(view.meshes_loaded, timeout=30000) as blocker:
        view.show_segments({"panda": tree})
        assert view.actor_counts()["visual"] < sum(len(link.visuals) for link in tree.links.values())
    assert blocker.args == [[]]
    assert progress and progress[-1][0] == progress[-1][1]
    assert view.actor_counts()["visual"] == sum(len(link.visuals) for link in tree.links.values())
    full, shown = view.triangle_counts()
    assert full == shown > 100_000


def test_missing_mesh_in_a_robot_shows_a_placeholder(make_view, tmp_path):
    urdf = tmp_path / "lost.urdf"
    urdf.write_text("""<?xml version="1.0"?>
<robot name="lost">
  <link name="base"><visual><geometry><mesh filename="meshes/gone.stl" scale="-1 1 1"/></geometry></visual>
    <visual><geometry><box size="0.1 0.1 0.1"/></geometry></visual></link>
</robot>""")
    view = make_view()
    tree = read_urdf(urdf)
    with pytest.warns(UserWarning, match="gone.stl"):
        view.show_segments({"lost": tree})
    assert view.actor_counts()["visual"] == 2
    assert any("gone.stl" in w for w in view.warnings)
    placeholder = [a for a in view.actors("lost", "visual")
                   if a.GetMapper().GetInput().GetNumberOfPolys() == 0]
    assert len(placeholder) == 1


def test_highlight_and_restore(make_view):
    view = make_view()
    tree = robot("demo")
    view.show_segments({"arm": tree})
    actors = [a for a in view.actors("arm", "visual") if view.item_of(a).name == "link_2"]
    assert len(actors) == 2
    before = [a.GetProperty().GetColor() for a in actors]
    view.highlight(ItemRef("arm", "link", "link_2"))
    assert all(a.GetProperty().GetColor() != c for a, c in zip(actors, before, strict=True))
    others = [a for a in view.actors("arm", "visual") if view.item_of(a).name != "link_2"]
    others_colors = [a.GetProperty().GetColor() for a in others]
    view.highlight(ItemRef("arm", "joint", "joint_3"))  # switches: link_2 restored, link_3 lit
    assert [a.GetProperty().GetColor() for a in actors] == before
    assert any(a.GetProperty().GetColor() != c for a, c in zip(others, others_colors, strict=True))
    view.highlight(None)
    assert [a.GetProperty().GetColor() for a in others] == others_colors


def test_click_pick_emits_the_item(make_view, qtbot):
    view = make_view()
    tree = robot("demo")
    view.show_segments({"arm": tree})
    view.view_standard("front")
    view.render_now()
    ren = view.plotter.renderer
    box = next(a for a in view.actors("arm", "visual") if view.item_of(a).name == "link_2"
               and a.GetMapper().GetInput().GetNumberOfCells() == 12)
    b = box.GetBounds()
    ren.SetWorldPoint((b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2, 1.0)
    ren.WorldToDisplay()
    x, y, _ = ren.GetDisplayPoint()
    with qtbot.waitSignal(view.picked, timeout=2000) as blocker:
        ref = view.pick(x, y)
    assert ref == ItemRef("arm", "link", "link_2") == blocker.args[0]
    with qtbot.waitSignal(view.picked, timeout=2000) as blocker:
        assert view.pick(3, 3) is None
    assert blocker.args == [None]


def test_display_detail_decimates_for_display_only(make_view):
    view = make_view()
    tree = robot("panda")
    view.show_segments({"panda": tree})
    full, shown = view.triangle_counts()
    assert full == shown > 100_000
    view.set_display_detail(30_000)
    full2, shown2 = view.triangle_counts()
    assert full2 == full
    assert 10_000 < shown2 <= 33_000
    # the cached full mesh is untouched
    from mime_gui.app.scene import meshes
    g = next(s.geometry for link in tree.links.values() for s in link.visuals if isinstance(s.geometry, Mesh))
    asset = meshes.cached(g.filename, g.scale)
    assert asset.polydata.n_cells == asset.n_faces
    assert not any(a.GetMapper().GetInput() is asset.polydata for a in view.actors("panda", "visual"))
    view.set_display_detail(None)
    assert view.triangle_counts() == (full, full)


def test_cameras_and_antialiasing(make_view):
    view = make_view()
    view.show_segments({"arm": robot("demo")})
    view.render_now()
    assert view.gl_renderer
    if view.software_rendering:
        assert not view.antialiasing()
    view.set_antialiasing(True)
    assert view.antialiasing()
    view.set_antialiasing(False)
    assert not view.antialiasing()
    cam = view.plotter.renderer.GetActiveCamera()
    view.view_standard("top")
    d = np.array(cam.GetFocalPoint()) - np.array(cam.GetPosition())
    assert d[2] < 0 and np.allclose(d[:2], 0, atol=1e-9 * np.linalg.norm(d) + 1e-12)
    view.view_standard("left")
    d = np.array(cam.GetFocalPoint()) - np.array(cam.GetPosition())
    assert d[1] < 0 and abs(d[0]) < 1e-9 and abs(d[2]) < 1e-9
    view.set_orthographic(True)
    assert cam.GetParallelProjection() and view.is_orthographic()
    view.set_orthographic(False)
    assert not cam.GetParallelProjection()
    with pytest.raises(ValueError):
        view.view_standard("sideways")
    view.focus(ItemRef("arm", "link", "link_6"))
    focal = np.array(cam.GetFocalPoint())
    tool = next(a for a in view.actors("arm", "visual") if view.item_of(a).name == "link_6")
    b = tool.GetBounds()
    assert np.allclose(focal, [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2])


def test_equivalent_inertia_box_recovers_a_box():
    from mime_gui.app.scene.view import equivalent_box

    m, (a, b, c) = 2.0, (0.3, 0.2, 0.1)
    inertia = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    R = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])
    sides, axes = equivalent_box(m, R @ inertia @ R.T)
    assert np.linalg.det(axes) == pytest.approx(1.0)
    assert sorted(sides) == pytest.approx(sorted((a, b, c)))
    # the longest side lies along the rotated x axis (world y)
    assert abs(axes[:, int(np.argmax(sides))] @ R[:, 0]) == pytest.approx(1.0)


def test_rig_parts_are_drawn_in_the_parts_layer(make_view):
    from mime_gui.rig import load

    rig = load(RESOURCES / "demo" / "demo.rig.json")
    built = rig.build()
    view = make_view()
    view.show_segments({name: (seg.tree, seg.articulation) for name, seg in built.segments.items()})
    n_parts = len(rig.parts) + len(rig.magnets)
    assert view.actor_counts()["parts"] == n_parts
    view.set_layer_visible("parts", False)
    assert view.actor_counts()["parts"] == 0
    assert view.actor_counts()["visual"] > 0  # the arm stays
    view.set_layer_visible("parts", True)
    assert view.actor_counts()["parts"] == n_parts


def test_multi_colour_meshes_draw_one_actor_per_colour_without_point_scalars(make_view):
    from mime_gui.app.scene import meshes

    view = make_view()
    tree = robot("panda")
    view.show_segments({"panda": tree})
    link0 = [a for a in view.actors("panda", "visual") if view.item_of(a).name == "panda_link0"]
    assert len(link0) >= 2  # white body and dark details
    assert not any(a.GetMapper().GetScalarVisibility() for a in link0)
    colours = {tuple(round(c, 3) for c in a.GetProperty().GetColor()) for a in link0}
    assert len(colours) == len(link0)
    # the pieces hold every face of the file once, and share one placement
    g = next(s.geometry for s in tree.links["panda_link0"].visuals)
    asset = meshes.cached(g.filename, g.scale)
    assert sum(p.n_faces for p in asset.pieces) == asset.n_faces
    assert all(np.array_equal(a.user_matrix, link0[0].user_matrix) for a in link0)
    # counted once as a shape; welded vertices (DAE repeats a vertex per face)
    assert view.actor_counts()["visual"] == sum(len(link.visuals) for link in tree.links.values())
    assert asset.polydata.n_points < asset.n_faces


def test_flat_shading_only_where_it_looks_the_same():
    import pyvista as pv

    from mime_gui.app.scene import meshes

    fine = pv.Sphere(theta_resolution=180, phi_resolution=120).compute_normals()  # ~40k faces
    assert not meshes.shades_flat(meshes.sphere_polydata(1.0))  # 32 × 20: smooth shading shows
    coarse = meshes.cylinder_polydata(0.1, 0.5, resolution=12)
    assert meshes.shades_flat(fine)
    assert not meshes.shades_flat(coarse)
    assert meshes.shades_flat(meshes.box_polydata((1, 2, 3)))  # split normals: every face flat already


def test_automatic_display_detail_follows_the_frame_time(make_view, qtbot):
    from mime_gui.app.scene import view as V

    view = make_view(display_detail="auto")
    view.show_segments({"panda": robot("panda")})
    assert view.display_detail() == "auto" and view.face_budget() is None
    full, shown = view.triangle_counts()
    assert full == shown > 100_000
    view._auto_restart(skip=0)
    # frames three times too slow: the budget drops to about a third, and the counts are announced
    with qtbot.waitSignal(view.detail_changed, timeout=2000) as blocker:
        for _ in range(V.AUTO_SAMPLES):
            view._auto_step(3 * V.AUTO_TARGET_S)
    budget = view.face_budget()
    assert budget is not None and full / 4 < budget < full / 2.5
    full2, shown2 = blocker.args
    assert full2 == full and shown2 <= budget * 1.1
    assert view.detail_summary() == f"{shown2:,} of {full:,} faces (auto)"
    # frames within the band: no change
    view._auto_restart(skip=0)
    for _ in range(V.AUTO_SAMPLES):
        view._auto_step(0.5 * (V.AUTO_SLOW_S + V.AUTO_FAST_S))
    assert view.face_budget() == budget
    # very fast frames: back to full detail
    for _ in range(8 * V.AUTO_SAMPLES):
        view._auto_step(V.AUTO_FAST_S / 10)
    assert view.face_budget() is None and view.triangle_counts() == (full, full)
    # a fixed setting ends the automatic one
    view.set_display_detail(50_000)
    view._auto_restart(skip=0)
    for _ in range(V.AUTO_SAMPLES):
        view._auto_step(1.0)
    assert view.face_budget() == 50_000 and view.display_detail() == 50_000
    with pytest.raises(ValueError):
        view.set_display_detail("some")


def test_antialiasing_state_is_announced_after_detection(make_view, qtbot):
    view = make_view()
    view.show_segments({"arm": robot("demo")})
    with qtbot.waitSignal(view.antialiasing_changed, timeout=5000) as blocker:
        view.render_now()
    assert blocker.args == [view.antialiasing()] == [not view.software_rendering]
    with qtbot.waitSignal(view.antialiasing_changed, timeout=2000) as blocker:
        view.set_antialiasing(not view.antialiasing())
    assert blocker.args == [view.antialiasing()]
    assert view.plotter.renderer.GetUseFXAA() == view.antialiasing()


def test_hide_and_show_single_links_frames_and_joints(make_view):
    view = make_view()
    tree = robot("demo")
    view.show_segments({"arm": tree})
    for layer in ("collision", "frames", "frame_labels", "joint_axes", "com", "inertia"):
        view.set_layer_visible(layer, True)
    link = ItemRef("arm", "link", "link_2")

    def visible(layer, name):
        return [a.GetVisibility() for a in view.actors("arm", layer) if view.item_of(a).name == name]

    before = view.actor_counts()
    full, _ = view.triangle_counts()
    view.set_item_visible(link, False)
    assert not view.item_visible(link)
    for layer in ("visual", "collision", "com", "inertia"):
        assert visible(layer, "link_2") and not any(visible(layer, "link_2")), layer
    assert all(visible("visual", "link_3"))
    after = view.actor_counts()
    assert after["visual"] == before["visual"] - len(tree.links["link_2"].visuals)
    assert after["frames"] == before["frames"]  # the link's frame is its own item
    assert view.triangle_counts()[0] < full
    # the layer toggle does not bring a hidden link back; showing it again does
    view.set_layer_visible("visual", False)
    view.set_layer_visible("visual", True)
    assert not any(visible("visual", "link_2"))
    view.highlight(link)  # a highlighted hidden link stays hidden
    assert not any(visible("visual", "link_2"))
    view.highlight(None)
    view.set_item_visible(link, True)
    assert view.actor_counts() == before

    frame = ItemRef("arm", "frame", "link_3")
    view.set_item_visible(frame, False)
    assert not any(visible("frames", "link_3"))
    labels = dict(zip(tree.compile().frame_names, view.actors("arm", "frame_labels"), strict=True))
    assert not labels["link_3"].GetVisibility() and labels["link_2"].GetVisibility()
    assert all(visible("visual", "link_3"))  # the frame, not the link
    joint = ItemRef("arm", "joint", "joint_3")
    view.set_item_visible(joint, False)
    assert not any(visible("joint_axes", "joint_3")) and all(visible("joint_axes", "joint_2"))
    view.set_item_visible(frame, True)
    view.set_item_visible(joint, True)
    assert view.actor_counts() == before


def test_session_hides_items_through_the_view(make_view):
    from mime_gui.session import Session

    view = make_view()
    session = Session()
    session.attach_renderer(view)
    session.open(DEMO)
    seg = next(iter(session.segments))
    ref = ItemRef(seg, "link", "link_4")
    n = view.actor_counts()["visual"]
    session.set_item_visible(ref, False)
    assert view.actor_counts()["visual"] == n - len(session.segments[seg].tree.links["link_4"].visuals)
    session.open(DEMO)  # a reload keeps the item hidden
    assert not view.item_visible(ref)
    session.set_item_visible(ref, True)
    assert view.actor_counts()["visual"] == n


def test_collision_is_a_translucent_overlay_drawn_in_front_of_the_visual(make_view):
    import vtk

    def offset(mapper):
        factor, units = vtk.reference(0.0), vtk.reference(0.0)
        mapper.GetRelativeCoincidentTopologyPolygonOffsetParameters(factor, units)
        return float(factor), float(units)

    view = make_view()
    view.show_segments({"panda": robot("panda")})
    view.set_layer_visible("collision", True)
    collision = view.actors("panda", "collision")
    assert collision
    for actor in collision:
        prop, mapper = actor.GetProperty(), actor.GetMapper()
        assert prop.GetRepresentation() == vtk.VTK_SURFACE
        assert 0.2 < prop.GetOpacity() < 0.7
        assert mapper.GetResolveCoincidentTopology() == vtk.VTK_RESOLVE_POLYGON_OFFSET
        factor, units = offset(mapper)
        assert factor < 0 and units < 0  # pulled towards the camera: wins where it meets the visual
    for actor in view.actors("panda", "visual"):
        assert offset(actor.GetMapper()) == (0.0, 0.0)
        assert actor.GetProperty().GetOpacity() == 1.0


# -- the scene in the main window (View menu and status bar) ---------------------------------------------

def test_window_follows_the_scene_antialiasing_and_shows_triangle_counts(make_window, qtbot):
    window = make_window()
    scene = window.scene
    window.session.open(DEMO)
    qtbot.waitUntil(lambda: not window.loading and scene.render_count > 0 and bool(scene.gl_renderer),
                    timeout=10000)
    # after detection the checkbox shows the real state (off on a software renderer)
    assert window.act_aa.isChecked() == scene.antialiasing() == (not scene.software_rendering)
    toggled = []
    window.act_aa.toggled.connect(toggled.append)
    scene.set_antialiasing(not scene.antialiasing())  # from the scene: synced without a toggle loop
    assert window.act_aa.isChecked() == scene.antialiasing()
    assert toggled == []
    window.act_aa.toggle()  # from the menu: reaches the scene
    assert scene.antialiasing() == window.act_aa.isChecked()
    # faces in the status bar, and the automatic detail is the window's default
    full, shown = scene.triangle_counts()
    assert scene.display_detail() == "auto"
    qtbot.waitUntil(lambda: window.status_faces.text() == scene.detail_summary(), timeout=5000)
    assert f"{full:,}" in window.status_faces.text()
    wide = window.status_faces.width()
    scene.set_display_detail(1_000)
    assert window.status_faces.text().startswith(f"{scene.triangle_counts()[1]:,} of {full:,} faces")
    # a shorter count keeps the label's size: a new level repaints the label, it does not lay out the bar
    label = window.status_faces
    assert label.minimumSize() == label.maximumSize() and label.maximumWidth() >= wide


def test_orientation_axes_follow_the_camera(make_view):
    view = make_view()
    view.show_segments({"arm": robot("demo")})
    view.view_standard("front")  # looking along -x, z up: y to the right, x towards the viewer
    view.render_now()
    d = view._axes.directions()
    assert np.allclose(d[2], [0, 1], atol=1e-6) and np.allclose(d[1], [1, 0], atol=1e-6)
    assert np.allclose(d[0], [0, 0], atol=1e-6)
    view.view_standard("top")  # looking down, x up on the screen
    view.render_now()
    d = view._axes.directions()
    assert np.allclose(d[0], [0, 1], atol=1e-6) and np.allclose(d[2], [0, 0], atol=1e-6)
    # drawn in the main renderer: no extra renderer pass for the axes
    assert view.plotter.ren_win.GetRenderers().GetNumberOfItems() == 2  # the scene and the overlay


def test_robot_opacity_makes_visuals_and_parts_see_through(make_view):
    from mime_gui.rig import load

    built = load(RESOURCES / "demo" / "demo.rig.json").build()
    view = make_view()
    view.show_segments({name: (seg.tree, seg.articulation) for name, seg in built.segments.items()})

    def opacities(layer):
        return [a.GetProperty().GetOpacity() for seg in built.segments for a in view.actors(seg, layer)]

    assert set(opacities("visual")) == {1.0} and set(opacities("parts")) == {1.0}
    frames_before = opacities("frames")
    view.set_visual_opacity(0.5)
    assert set(opacities("visual")) == {0.5} and set(opacities("parts")) == {0.5}
    assert opacities("frames") == frames_before  # markers inside stay solid
    # a new document keeps the setting
    view.show_segments({"arm": robot("demo")})
    assert set(a.GetProperty().GetOpacity() for a in view.actors("arm", "visual")) == {0.5}
    view.set_visual_opacity(1.0)
    assert set(a.GetProperty().GetOpacity() for a in view.actors("arm", "visual")) == {1.0}
    with pytest.raises(ValueError, match="outside"):
        view.set_visual_opacity(0.0)
