"""Mesh colours as the file says, meshes with non-geometric defects, each file's problem once and in the read
report, the bounded mesh caches, capsules and shapes that cannot be drawn.

Runs under ``xvfb-run -a`` (the view needs an X server)."""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from robot_data import ROBOTS

from mime_gui.multibody import read_urdf
from mime_gui.multibody.tree import Mesh

pytestmark = pytest.mark.timeout(120)

CUBE_OBJ = """mtllib {mtl}
v -0.05 -0.05 -0.05
v 0.05 -0.05 -0.05
v 0.05 0.05 -0.05
v -0.05 0.05 -0.05
v -0.05 -0.05 0.05
v 0.05 -0.05 0.05
v 0.05 0.05 0.05
v -0.05 0.05 0.05
usemtl {first}
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
usemtl {second}
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
"""
MTL = """newmtl default_grey
Kd 0.8 0.8 0.8
newmtl blue
Kd 0.0 0.0 1.0
"""


def _cube(folder, name="cube", second="default_grey"):
    """An OBJ cube whose material library gives it the exporter's light grey (or, with ``second="blue"``,
    two colours of its own)."""
    (folder / "cube.mtl").write_text(MTL)
    path = folder / f"{name}.obj"
    path.write_text(CUBE_OBJ.format(mtl="cube.mtl", first="default_grey", second=second))
    return path


def _urdf(folder, mesh: str, material: str = "", name: str = "r.urdf"):
    path = folder / name
    path.write_text(f'<robot name="r"><link name="a"><visual><geometry><mesh filename="{mesh}"/></geometry>'
                    f'{material}</visual></link></robot>')
    return read_urdf(path)


RED = '<material name="red"><color rgba="1 0 0 1"/></material>'


@pytest.fixture
def make_view(make_scene_view):
    return lambda: make_scene_view(size=(500, 400))


def _centre_pixel(view, actor) -> np.ndarray:
    """The rendered colour at the centre of ``actor`` on the screen (RGB, 0..255)."""
    view.view_standard("front")
    view.render_now()
    ren = view.plotter.renderer
    b = actor.GetBounds()
    ren.SetWorldPoint((b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2, 1.0)
    ren.WorldToDisplay()
    x, y, _ = ren.GetDisplayPoint()
    image = view.plotter.screenshot(None, return_img=True)
    return np.asarray(image)[image.shape[0] - 1 - int(round(y)), int(round(x)), :3].astype(int)


def test_the_urdf_colour_wins_over_the_files_default_material(make_view, tmp_path):
    from mime_gui.app.scene import meshes

    tree = _urdf(tmp_path, _cube(tmp_path).name, RED)
    view = make_view()
    view.show_segments({"r": tree})
    (actor,) = view.actors("r", "visual")
    assert actor.GetProperty().GetColor() == (1.0, 0.0, 0.0)
    r, g, b = _centre_pixel(view, actor)
    assert r > 80 and r > 3 * max(g, b, 1), (r, g, b)  # drawn red, not the file's light grey
    asset = meshes.cached(str(tmp_path / "cube.obj"))
    assert asset.default_material
    # without a URDF colour the file's own default material is used
    view.show_segments({"r": _urdf(tmp_path, "cube.obj", name="plain.urdf")})
    (actor,) = view.actors("r", "visual")
    assert actor.GetProperty().GetColor() == pytest.approx((0.8, 0.8, 0.8), abs=1 / 255)
    r, g, b = _centre_pixel(view, actor)
    assert max(r, g, b) - min(r, g, b) <= 12 and r > 60  # grey (the lights tint it a little)


def test_a_files_own_colours_are_kept(make_view, tmp_path):
    tree = _urdf(tmp_path, _cube(tmp_path, "two", second="blue").name, RED)
    view = make_view()
    view.show_segments({"r": tree})
    colours = sorted(a.GetProperty().GetColor() for a in view.actors("r", "visual"))
    assert colours == [(0.0, 0.0, 1.0), pytest.approx((0.8, 0.8, 0.8), abs=1 / 255)]


def test_a_named_material_declared_in_one_visual_colours_another_link(make_view, tmp_path):
    path = tmp_path / "hand.urdf"
    path.write_text('<robot name="hand"><link name="palm"><visual><geometry><box size="0.1 0.1 0.1"/>'
                    '</geometry><material name="blue"><color rgba="0 0 1 1"/></material></visual></link>'
                    '<link name="finger"><visual><geometry><box size="0.1 0.1 0.1"/></geometry>'
                    '<material name="blue"/></visual></link>'
                    '<joint name="j" type="fixed"><parent link="palm"/><child link="finger"/></joint>'
                    '</robot>')
    view = make_view()
    view.show_segments({"hand": read_urdf(path)})
    finger = [a for a in view.actors("hand", "visual") if view.item_of(a).name == "finger"]
    assert [a.GetProperty().GetColor() for a in finger] == [(0.0, 0.0, 1.0)]


BROKEN_DAE = """<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <library_effects>
    <effect id="grey-effect"><profile_COMMON><technique sid="common"><phong>
      <diffuse><color sid="diffuse">0.5 0.5 0.5 1</color></diffuse></phong></technique></profile_COMMON>
    </effect>
    <effect id="carbon-effect"><profile_COMMON>
      <newparam sid="carbon-sampler"><sampler2D><source>no-such-surface</source></sampler2D></newparam>
      <technique sid="common"><phong><diffuse><texture texture="carbon-sampler" texcoord="UV"/></diffuse>
      </phong></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials>
    <material id="grey-material"><instance_effect url="#grey-effect"/></material>
    <material id="carbon-material"><instance_effect url="#carbon-effect"/></material>
  </library_materials>
  <library_geometries>
    <geometry id="tetra-mesh"><mesh>
      <source id="tetra-positions">
        <float_array id="tetra-array" count="12">0 0 0 0.1 0 0 0 0.1 0 0 0 0.1</float_array>
        <technique_common><accessor source="#tetra-array" count="4" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="tetra-vertices"><input semantic="POSITION" source="#tetra-positions"/></vertices>
      <triangles material="grey" count="2"><input semantic="VERTEX" source="#tetra-vertices" offset="0"/>
        <p>0 2 1 0 1 3</p></triangles>
      <triangles material="carbon" count="2"><input semantic="VERTEX" source="#tetra-vertices" offset="0"/>
        <p>0 3 2 1 2 3</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="Scene"><node id="tetra">
      <instance_geometry url="#tetra-mesh"><bind_material><technique_common>
        <instance_material symbol="grey" target="#grey-material"/>
        <instance_material symbol="carbon" target="#carbon-material"/>
      </technique_common></bind_material></instance_geometry>
    </node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
"""


def test_a_dae_with_a_broken_texture_reference_loads_its_triangles(tmp_path):
    from mime_gui.app.scene import meshes

    path = tmp_path / "foot.dae"
    path.write_text(BROKEN_DAE)
    with pytest.warns(meshes.MeshLoadWarning, match="broken reference") as caught:
        asset = meshes.load_mesh(str(path))
    assert not asset.placeholder
    assert asset.n_faces == 4
    (note,) = asset.notes
    assert "'carbon-material'" in note and "no-such-surface" in note
    assert str(path) in str(caught[0].message)
    # the other material still colours its triangles
    assert [tuple(p.rgba) for p in asset.pieces if p.rgba is not None] == [(128, 128, 128, 255)]


@pytest.mark.skipif(ROBOTS is None, reason="example-robot-data is not installed")
def test_anymals_feet_are_drawn_not_replaced_by_placeholders():
    from mime_gui.app.scene import meshes

    foot = ROBOTS / "anymal_b_simple_description" / "meshes" / "foot" / "anymal_foot.dae"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", meshes.MeshLoadWarning)
        asset = meshes.load_mesh(str(foot))
    assert not asset.placeholder and asset.n_faces == 4604
    assert "carbon_fibre_001-material" in asset.notes[0]


def test_each_files_problem_counts_once_and_lands_in_the_read_report(tmp_path):
    from mime_gui.app.scene import meshes

    (tmp_path / "foot.dae").write_text(BROKEN_DAE)
    (tmp_path / "bad.stl").write_text("not a mesh at all")
    path = tmp_path / "legs.urdf"
    legs = "".join(
        f'<link name="{n}"><visual><geometry><mesh filename="{f}" scale="{s}"/></geometry></visual></link>'
        for n, f, s in (("a", "foot.dae", "1 1 1"), ("b", "foot.dae", "2 2 2"), ("c", "bad.stl", "1 1 1"),
                        ("d", "bad.stl", "-1 1 1"), ("e", "package://gone/x.stl", "1 1 1"),
                        ("f", "package://gone/y.stl", "1 1 1")))
    joints = "".join(f'<joint name="j{n}" type="fixed"><parent link="a"/><child link="{n}"/></joint>'
                     for n in "bcdef")
    path.write_text(f'<robot name="legs">\n{legs}\n{joints}\n</robot>')
    tree = read_urdf(path)
    requests = [meshes.MeshRequest(s.geometry.filename, tuple(s.geometry.scale), s.geometry.uri)
                for link in tree.links.values() for s in link.visuals]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", meshes.MeshLoadWarning)
        results, problems = meshes.load_all(requests)
    assert len(results) == 6  # every request its own, the unresolved ones by URI
    assert len(problems) == 4  # foot.dae, bad.stl, and the two unresolved URIs: each once
    assert sum(str(tmp_path / "bad.stl") in p for p in problems) == 1
    assert any("package://gone/x.stl" in p for p in problems) and any("gone/y.stl" in p for p in problems)
    for _ in range(2):  # recorded again: replaced, not repeated
        meshes.record_problems([tree], results)
        mesh_warnings = [w for w in tree.report.warnings if w.code.startswith("mesh.")]
        assert [(w.code, w.line) for w in mesh_warnings] == [("mesh.defect", 2), ("mesh.placeholder", 2)]
    defect, placeholder = mesh_warnings
    assert str(tmp_path / "foot.dae") in defect.message and "broken reference" in defect.message
    assert str(tmp_path / "bad.stl") in placeholder.message and "link 'c'" in placeholder.message
    unresolved = [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"]
    assert len(unresolved) == 2  # the reader's own, with the paths it tried


def test_mesh_caches_are_bounded_keyed_by_modification_and_cleared(tmp_path, monkeypatch):
    from mime_gui.app.scene import meshes

    meshes.clear_caches()
    assert meshes.cache_sizes() == (0, 0)
    monkeypatch.setattr(meshes._raws, "size", 2)
    monkeypatch.setattr(meshes._assets, "size", 3)
    files = [_cube(tmp_path, f"c{i}") for i in range(3)]
    first = meshes.load_mesh(str(files[0]))
    assert meshes.load_mesh(str(files[0])) is first  # cached
    meshes.load_mesh(str(files[0]), (2, 2, 2))
    meshes.load_mesh(str(files[1]))
    assert meshes.cache_sizes() == (2, 3)
    meshes.load_mesh(str(files[2]))  # the least recently used file and mesh are dropped
    assert meshes.cache_sizes() == (2, 3)
    assert meshes.cached(str(files[0])) is None and meshes.cached(str(files[2])) is not None
    # a file changed on disk is read again
    again = meshes.load_mesh(str(files[2]))
    text = files[2].read_text().replace("0.05", "0.5")
    files[2].write_text(text)
    os.utime(files[2], ns=(1, 10**18))
    changed = meshes.load_mesh(str(files[2]))
    assert changed is not again and changed.polydata.bounds[1] == pytest.approx(0.5)
    meshes.clear_caches()
    assert meshes.cache_sizes() == (0, 0) and meshes.cached(str(files[2])) is None


def test_capsules_are_drawn_and_unknown_shapes_are_marked_placeholders(make_view, tmp_path):
    from mime_gui.app.scene import meshes

    pd = meshes.capsule_polydata(0.05, 0.2)
    assert pd.bounds[4] == pytest.approx(-0.15, abs=1e-6) and pd.bounds[5] == pytest.approx(0.15, abs=1e-6)
    assert pd.bounds[1] == pytest.approx(0.05, abs=1e-6) and pd.is_all_triangles
    path = tmp_path / "pill.urdf"
    path.write_text('<robot name="pill"><link name="a"><visual><geometry>'
                    '<capsule radius="0.05" length="0.2"/></geometry></visual><collision><geometry>'
                    '<heightmap size="1 1 1"/></geometry></collision></link></robot>')
    tree = read_urdf(path)
    view = make_view()
    view.show_segments({"pill": tree})
    (capsule,) = view.actors("pill", "visual")
    assert capsule.GetMapper().GetInput().GetNumberOfPolys() == pd.n_cells
    assert capsule.GetBounds()[5] == pytest.approx(0.15, abs=1e-6)
    (marked,) = view.actors("pill", "collision")
    assert marked.GetMapper().GetInput().GetNumberOfPolys() == 0  # a wire box
    assert marked.GetProperty().GetColor() == meshes.PLACEHOLDER_RGBA[:3]
    assert [e.code for e in tree.report.errors] == ["urdf.geometry"]


def test_unresolved_meshes_are_each_their_own_placeholder(make_view, tmp_path):
    path = tmp_path / "lost.urdf"
    path.write_text('<robot name="lost"><link name="a">'
                    '<visual><geometry><mesh filename="package://gone/x.stl"/></geometry></visual>'
                    '<visual><geometry><mesh filename="package://gone/y.stl"/></geometry></visual>'
                    '</link></robot>')
    tree = read_urdf(path)
    assert all(isinstance(s.geometry, Mesh) and s.geometry.filename is None for s in tree.links["a"].visuals)
    view = make_view()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view.show_segments({"lost": tree})
    assert len(view.actors("lost", "visual")) == 2
    assert len(view.warnings) == 2


def test_the_window_counts_each_files_problem_once_and_lists_it_in_the_read_report(make_window, tmp_path):
    from mime_gui.app.docks.report import ROLE_CODE
    from mime_gui.app.main import wait_until_ready

    (tmp_path / "foot.dae").write_text(BROKEN_DAE)
    (tmp_path / "bad.stl").write_text("not a mesh at all")
    legs = "".join(f'<link name="{n}"><visual><geometry><mesh filename="{f}"/></geometry></visual></link>'
                   for n, f in (("a", "foot.dae"), ("b", "foot.dae"), ("c", "bad.stl"), ("d", "bad.stl")))
    joints = "".join(f'<joint name="j{n}" type="fixed"><parent link="a"/><child link="{n}"/></joint>'
                     for n in "bcd")
    path = tmp_path / "legs.urdf"
    path.write_text(f'<robot name="legs">\n{legs}\n{joints}\n</robot>')
    window = make_window()
    messages = []
    window.statusBar().messageChanged.connect(messages.append)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert window.open_file(str(path))
        wait_until_ready(window)
    assert any(m.startswith("2 mesh problem(s): ") for m in messages), messages
    groups = window.report_dock.groups()
    rows = [groups["warnings"].child(i) for i in range(groups["warnings"].childCount())]
    codes = sorted(row.data(0, ROLE_CODE) for row in rows if row.data(0, ROLE_CODE).startswith("mesh."))
    assert codes == ["mesh.defect", "mesh.placeholder"]


def test_missing_texture_images_and_material_libraries_are_named(tmp_path):
    from mime_gui.app.scene import meshes
    from mime_gui.app.scene.mesh_defects import missing_textures

    dae = BROKEN_DAE.replace("<library_effects>", '<library_images><image id="carbon-image">'
                             "<init_from>textures/carbon%20fibre.jpg</init_from></image></library_images>"
                             "<library_effects>")
    path = tmp_path / "skin.dae"
    path.write_text(dae)
    (note,) = missing_textures(str(path), dae.encode())
    assert "'textures/carbon%20fibre.jpg'" in note and str(tmp_path) in note
    (tmp_path / "textures").mkdir()
    (tmp_path / "textures" / "carbon fibre.jpg").write_bytes(b"\xff\xd8")  # found under its unquoted name
    assert missing_textures(str(path), dae.encode()) == []
    obj = _cube(tmp_path)
    assert missing_textures(str(obj), obj.read_bytes()) == []
    (tmp_path / "cube.mtl").write_text(MTL + "map_Kd -s 1 1 1 skin.png\n")
    (note,) = missing_textures(str(obj), obj.read_bytes())
    assert "'skin.png'" in note and "'cube.mtl'" in note
    (tmp_path / "cube.mtl").unlink()
    (note,) = missing_textures(str(obj), obj.read_bytes())
    assert "material library 'cube.mtl'" in note
    # the geometry loads all the same, with the note
    with pytest.warns(meshes.MeshLoadWarning, match="material library 'cube.mtl'"):
        asset = meshes.load_mesh(str(obj))
    assert not asset.placeholder and asset.n_faces == 12
