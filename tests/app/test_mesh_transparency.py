"""A mesh is drawn see-through only where a material says so (the URDF colour's alpha, the file material's
opacity), never because its texture image has transparent pixels.

Runs under ``xvfb-run -a`` (the view needs an X server)."""

from __future__ import annotations

import numpy as np
import pytest

from mime_gui.multibody import read_urdf

pytestmark = pytest.mark.timeout(120)


def _box():
    """A 0.1 m cube cut into 192 triangles, with UVs from its y and z (the faces seen from the front, +x, and
    the back sample the whole texture)."""
    import trimesh

    box = trimesh.creation.box((0.1, 0.1, 0.1)).subdivide().subdivide()
    v = np.asarray(box.vertices)
    uv = (v[:, 1:] + 0.05) / 0.1
    return v, np.asarray(box.faces), uv


def _texture(folder, alpha: bool, colours: int = 64):
    """A 16x16 texture: ``colours`` reds (64: more than a mesh is cut into pieces for, so the mesh is drawn
    with per-point colours; 2: a few pieces), a 3x3 corner of transparent pixels when ``alpha`` (the same
    image without its alpha channel otherwise)."""
    from PIL import Image

    img = np.zeros((16, 16, 4), np.uint8)
    img[..., 0] = 120 + (np.arange(256).reshape(16, 16) % colours) * (120 // max(colours - 1, 1))
    img[..., 1], img[..., 2], img[..., 3] = 40, 30, 255
    img[:3, :3, 3] = 0
    image = Image.fromarray(img, "RGBA")
    (image if alpha else image.convert("RGB")).save(folder / "skin.png")


def _obj(folder, alpha: bool, mtl_extra: str = "", colours: int = 64):
    folder.mkdir(exist_ok=True)
    _texture(folder, alpha, colours)
    v, f, uv = _box()
    lines = ["mtllib body.mtl", "usemtl skin"]
    lines += [f"v {x:.6f} {y:.6f} {z:.6f}" for x, y, z in v]
    lines += [f"vt {a:.6f} {b:.6f}" for a, b in uv]
    lines += ["f " + " ".join(f"{i + 1}/{i + 1}" for i in face) for face in f]
    (folder / "body.obj").write_text("\n".join(lines) + "\n")
    (folder / "body.mtl").write_text("newmtl skin\nKd 1 1 1\nmap_Kd skin.png\n" + mtl_extra)
    return folder / "body.obj"


def _dae(folder, alpha: bool, transparent: str = ""):
    """A textured COLLADA cube; ``transparent`` is the effect's ``<transparent>`` colour, if any."""
    folder.mkdir(exist_ok=True)
    _texture(folder, alpha)
    v, f, uv = _box()
    transparent = f"<transparent><color>{transparent}</color></transparent>" if transparent else ""
    (folder / "body.dae").write_text(f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <library_images><image id="skin-image"><init_from>skin.png</init_from></image></library_images>
  <library_effects><effect id="skin-effect"><profile_COMMON>
    <newparam sid="skin-surface"><surface type="2D"><init_from>skin-image</init_from></surface></newparam>
    <newparam sid="skin-sampler"><sampler2D><source>skin-surface</source></sampler2D></newparam>
    <technique sid="common"><phong><diffuse><texture texture="skin-sampler" texcoord="UV"/></diffuse>
      {transparent}</phong></technique></profile_COMMON></effect></library_effects>
  <library_materials><material id="skin-material"><instance_effect url="#skin-effect"/></material>
  </library_materials>
  <library_geometries><geometry id="body-mesh"><mesh>
    <source id="body-positions"><float_array id="p" count="{v.size}">{" ".join(map(str, v.ravel()))}
      </float_array><technique_common><accessor source="#p" count="{len(v)}" stride="3"><param name="X"
      type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common>
    </source>
    <source id="body-uv"><float_array id="t" count="{uv.size}">{" ".join(map(str, uv.ravel()))}</float_array>
      <technique_common><accessor source="#t" count="{len(uv)}" stride="2"><param name="S" type="float"/>
      <param name="T" type="float"/></accessor></technique_common></source>
    <vertices id="body-vertices"><input semantic="POSITION" source="#body-positions"/></vertices>
    <triangles material="skin" count="{len(f)}"><input semantic="VERTEX" source="#body-vertices" offset="0"/>
      <input semantic="TEXCOORD" source="#body-uv" offset="0" set="0"/><p>{" ".join(map(str, f.ravel()))}</p>
    </triangles></mesh></geometry></library_geometries>
  <library_visual_scenes><visual_scene id="Scene"><node id="body">
    <instance_geometry url="#body-mesh"><bind_material><technique_common>
      <instance_material symbol="skin" target="#skin-material"><bind_vertex_input semantic="UV"
        input_semantic="TEXCOORD" input_set="0"/></instance_material>
    </technique_common></bind_material></instance_geometry></node></visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#Scene"/></scene>
</COLLADA>
""")
    return folder / "body.dae"


def _robot(mesh, material: str = ""):
    """A trunk (the textured mesh) in front of a green wall 0.1 m behind it (seen from the front, +x)."""
    path = mesh.parent / "r.urdf"
    path.write_text(f'<robot name="r"><link name="trunk"><visual><geometry><mesh filename="{mesh.name}"/>'
                    f'</geometry>{material}</visual></link><link name="wall"><visual><geometry>'
                    '<box size="0.01 0.3 0.3"/></geometry><material name="green"><color rgba="0 1 0 1"/>'
                    '</material></visual></link><joint name="behind" type="fixed"><parent link="trunk"/>'
                    '<child link="wall"/><origin xyz="-0.1 0 0"/></joint></robot>')
    return read_urdf(path)


def _draw(view, tree):
    """The trunk's actors and the rendered picture (RGB) of the robot seen from the front."""
    view.show_segments({"r": tree})
    actors = [a for a in view.actors("r", "visual") if view.item_of(a).name == "trunk"]
    view.view_standard("front")
    view.render_now()
    return actors, np.asarray(view.plotter.screenshot(None, return_img=True))[..., :3].astype(int)


def _alphas(actor) -> np.ndarray:
    """The alpha of every colour the actor's mapper draws from a point array (empty: one actor colour)."""
    pd = actor.GetMapper().GetInput()
    array = pd.GetPointData().GetArray("RGBA") if actor.GetMapper().GetScalarVisibility() else None
    if array is None:
        return np.empty(0)
    from vtkmodules.util.numpy_support import vtk_to_numpy

    return vtk_to_numpy(array)[:, 3]


@pytest.fixture
def make_view(make_scene_view):
    return lambda: make_scene_view(size=(500, 400))


@pytest.mark.parametrize(("kind", "colours"), [("obj", 64), ("obj", 2), ("dae", 64)],
                         ids=["obj, point colours", "obj, colour pieces", "dae"])
def test_transparent_texture_pixels_leave_the_mesh_solid(make_view, tmp_path, kind, colours):
    if kind == "obj":
        alpha_mesh = _obj(tmp_path / "alpha", True, colours=colours)
        plain_mesh = _obj(tmp_path / "plain", False, colours=colours)
    else:
        alpha_mesh, plain_mesh = _dae(tmp_path / "alpha", True), _dae(tmp_path / "plain", False)
    view = make_view()
    actors, seen = _draw(view, _robot(alpha_mesh))
    assert actors
    for actor in actors:
        assert actor.GetProperty().GetOpacity() == 1.0
        assert not actor.HasTranslucentPolygonalGeometry()  # VTK's own test for drawing it in the blend pass
        alphas = _alphas(actor)
        assert (alphas == 255).all(), np.unique(alphas)
    # the independent route: the same robot with the texture's alpha channel dropped draws the same picture
    _, solid = _draw(view, _robot(plain_mesh))
    assert np.abs(seen - solid).max() <= 2
    green = (seen[..., 1] > 150) & (seen[..., 0] < 60)
    centre = np.asarray(seen.shape[:2]) // 2
    assert not green[centre[0] - 10:centre[0] + 10, centre[1] - 10:centre[1] + 10].any()  # the wall is hidden


@pytest.mark.parametrize("case", ["obj d", "obj Tr", "dae transparent", "urdf alpha", "urdf alpha, pieces"])
def test_a_material_that_says_half_transparent_is_drawn_at_half(make_view, tmp_path, case):
    material = ""
    if case == "obj d":
        mesh = _obj(tmp_path / "m", True, "d 0.5\n")
    elif case == "obj Tr":
        mesh = _obj(tmp_path / "m", True, "Tr 0.5\n")
    elif case == "dae transparent":
        mesh = _dae(tmp_path / "m", True, "0 0 0 0.5")
    else:  # the URDF colour's alpha applies to a textured mesh that keeps its own colours
        mesh = _obj(tmp_path / "m", True, colours=2 if case.endswith("pieces") else 64)
        material = '<material name="glass"><color rgba="1 1 1 0.5"/></material>'
    view = make_view()
    actors, seen = _draw(view, _robot(mesh, material))
    assert actors
    for actor in actors:
        alphas = _alphas(actor)
        if alphas.size:  # per-point colours: the material's alpha on every point (or on the actor)
            own = np.unique(alphas) / 255.0
            drawn = own * actor.GetProperty().GetOpacity()
            assert drawn == pytest.approx([0.5], abs=1 / 255), (own, actor.GetProperty().GetOpacity())
        else:
            assert actor.GetProperty().GetOpacity() == pytest.approx(0.5, abs=1 / 255)
        assert actor.HasTranslucentPolygonalGeometry()
    centre = np.asarray(seen.shape[:2]) // 2
    patch = seen[centre[0] - 5:centre[0] + 5, centre[1] - 5:centre[1] + 5]
    assert (patch[..., 1] > patch[..., 2] + 40).all()  # the green wall shows through the trunk


def test_material_alpha_reads_each_formats_opacity():
    from types import SimpleNamespace

    from mime_gui.app.scene.meshes import material_alpha

    grey = np.array([200, 200, 200, 255], np.uint8)
    assert material_alpha(SimpleNamespace(diffuse=grey, kwargs={})) == 255
    assert material_alpha(SimpleNamespace(diffuse=grey, kwargs={"d": ["0.25"]})) == 64
    assert material_alpha(SimpleNamespace(diffuse=grey, kwargs={"tr": ["0.25"]})) == 191
    assert material_alpha(SimpleNamespace(diffuse=grey, kwargs={"d": ["1"], "tr": ["1"]})) == 255  # d wins
    assert material_alpha(SimpleNamespace(diffuse=grey, kwargs={"d": ["nan"]})) == 255
    half = np.array([255, 255, 255, 128], np.uint8)
    assert material_alpha(SimpleNamespace(baseColorFactor=half, alphaMode=None)) == 128
    assert material_alpha(SimpleNamespace(baseColorFactor=half, alphaMode="BLEND")) == 128
    assert material_alpha(SimpleNamespace(baseColorFactor=half, alphaMode="OPAQUE")) == 255  # glTF ignores it
    assert material_alpha(SimpleNamespace(baseColorFactor=(1.0, 1.0, 1.0, 0.5))) == 128
    assert material_alpha(None) == 255
