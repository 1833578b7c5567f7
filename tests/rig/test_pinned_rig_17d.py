"""Rig contracts pinned down: an OBJ's undecodable ``mtllib`` line is skipped (its other libraries still
referenced and renamed), a ``package://`` mesh whose rest holds ``://`` keeps its package folder, a long
joint listing counts the joints it leaves out, a sample's and a fixed target's refusal texts, the whole
tree's roles (a description's links are plain links, with no role comment in the URDF), the palette's base
names of the kinds' templates, a spin's angle up its ramp, a lab joint without limits written with
``<limit>`` 0 (as docs/simulators.md says), and a kind drawn as its triangles describing a vector field."""

from __future__ import annotations

import math
import re
import shutil
from dataclasses import dataclass

import numpy as np
import pytest
from rig_helpers import DEMO_RIG

from mime_gui.multibody.tree import Joint, Link, MultibodyTree, Solid
from mime_gui.rig import (
    Apparatus,
    Arm,
    LabSegment,
    Part,
    Sample,
    Spin,
    load,
    register_dynamics,
    unregister_dynamics,
)
from mime_gui.rig.geometries import KINDS
from mime_gui.rig.geometries.registry import Field, GeometryKind, register
from mime_gui.rig.provenance import referenced_files, renamed_libraries
from mime_gui.rig.simulators import whole
from mime_gui.rig.targets import FieldTarget, TargetError
from mime_gui.rig.templates import kind_templates
from mime_gui.rig.urdf_export import export_urdf
from mime_gui.rig.visuals import part_shape


@pytest.fixture
def demo(tmp_path):
    """A copy of the demo folder (its URDF, meshes, package.xml and rig file)."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, folder)
    return folder


# -- provenance ----------------------------------------------------------------------------------------
def test_an_obj_s_undecodable_mtllib_line_is_skipped_and_its_other_library_still_referenced(demo):
    obj = demo / "meshes" / "wrist.obj"
    body = obj.read_bytes()
    # a name that is not UTF-8 names no file here; the next line names one that exists
    obj.write_bytes(b"mtllib \xff\xfe.mtl\nmtllib wrist.mtl\n" + body)
    (demo / "meshes" / "wrist.mtl").write_text("newmtl steel\nKd 0.5 0.5 0.5\n")
    found = {r.path: r.role for r in referenced_files(load(demo / "demo.rig.json"))}
    assert found[demo / "meshes" / "wrist.mtl"] == "chain.arm.link_5"  # as the mesh that names it
    # a bundle's copy renames the library that exists and leaves the other line as it is
    data = obj.read_bytes()
    renamed = renamed_libraries(obj, data, lambda lib: "copy_" + lib.name)
    assert renamed == b"mtllib \xff\xfe.mtl\nmtllib copy_wrist.mtl\n" + body


def test_a_package_mesh_whose_rest_holds_a_scheme_separator_keeps_its_package_folder(demo):
    # package://demo/meshes/v2://base.stl: the scheme is what comes before the first "://"
    (demo / "meshes" / "v2:").mkdir()
    shutil.copy(demo / "meshes" / "base.stl", demo / "meshes" / "v2:" / "base.stl")
    urdf = demo / "arm.urdf"
    urdf.write_text(urdf.read_text().replace("package://demo/meshes/base.stl",
                                             "package://demo/meshes/v2://base.stl"))
    roots = {r.path: r.package_root for r in referenced_files(load(demo / "demo.rig.json"))}
    assert roots[demo / "meshes" / "v2:" / "base.stl"] == demo


# -- rules ---------------------------------------------------------------------------------------------
def _chain_urdf(joints: int) -> str:
    links = "".join(f'<link name="l{i:02d}"/>' for i in range(joints + 1))
    chain = "".join(
        f'<joint name="j{i:02d}" type="revolute"><parent link="l{i - 1:02d}"/><child link="l{i:02d}"/>'
        f'<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        for i in range(1, joints + 1))
    return f'<robot name="long">{links}{chain}</robot>'


def test_an_unknown_initial_position_lists_sixteen_movable_joints_and_counts_the_rest(tmp_path):
    (tmp_path / "long.urdf").write_text(_chain_urdf(18))
    rig = Apparatus("r", chain={"arm": Arm.Kinematic(description=str(tmp_path / "long.urdf"),
                                                     initial_positions={"nope": 0.0})})
    [finding] = [f for f in rig.validate() if f.code == "chain.initial-positions"]
    shown = ", ".join(f"j{i:02d}" for i in range(1, 17))
    assert finding.message == f"'nope' is not a movable joint of 'long'; movable joints: {shown} … (2 more)"


# -- constructors' refusals ----------------------------------------------------------------------------
def test_a_sample_s_magnetisation_of_two_numbers_is_refused_naming_it():
    with pytest.raises(TypeError) as info:
        Sample(magnetisation=(0.0, 1.0))
    assert str(info.value) == "magnetisation must be 3 numbers, got (0.0, 1.0)"


def test_a_sample_s_orientation_that_is_not_text_is_refused_listing_the_orientations():
    with pytest.raises(TypeError) as info:
        Sample(orientation=3)
    assert str(info.value) == "orientation is one of fixed, follows, got 3"


def test_a_fixed_target_given_a_frequency_is_refused_at_its_frequency():
    with pytest.raises(TargetError) as info:
        FieldTarget("probes.p", direction=(0.0, 0.0, 1.0), frequency=5.0)
    e = info.value
    assert (e.code, e.file) == ("target.kind", "frequency")
    assert e.message == "a fixed field has no frequency; give an axis for a rotating one"


# -- the whole tree and its URDF -----------------------------------------------------------------------
def test_a_description_s_links_are_plain_links_and_carry_no_role_comment(tmp_path):
    w = whole(load(DEMO_RIG), tmp_path)
    plain = [name for name in w.roles if name.startswith(("arm/", "motor/")) and ":" not in name]
    assert len(plain) == 10  # the arm's 8 links, the motor's stator and rotor
    assert {w.roles[name] for name in plain} == {"link"}
    assert (w.roles["motor/part:holder"], w.roles["motor/part:m1"]) == ("part", "magnet")
    # in the URDF only a link with a role other than "link" says it, in a comment first thing inside it
    text = export_urdf(load(DEMO_RIG), tmp_path / "rig.urdf").read_text()
    said = dict(re.findall(r'<link name="([^"]+)">\n    <!-- (\w+) -->', text))
    assert said == {"motor/part:holder": "part", "motor/part:m1": "magnet", "motor/probe:sample": "probe"}


def _bare_stage() -> MultibodyTree:
    """A lab's frames: one prismatic joint made by hand without a limit."""
    slide = Joint("slide", "prismatic", "base", "carriage", np.eye(4), axis=np.array([1.0, 0.0, 0.0]))
    return MultibodyTree(name="stage", links={"base": Link("base"), "carriage": Link("carriage")},
                         joints={"slide": slide}, root="base", source="<stage>")


@pytest.fixture
def bare_stage():
    register_dynamics("bare-stage-17d", _bare_stage)
    yield "bare-stage-17d"
    unregister_dynamics("bare-stage-17d")


def test_a_lab_joint_without_limits_is_written_with_a_limit_of_zeros(tmp_path, bare_stage):
    rig = Apparatus("r", chain={"stage": LabSegment(kind=bare_stage)})
    assert rig.validate() == []
    text = export_urdf(rig, tmp_path / "rig.urdf").read_text()
    [joint] = re.findall(r'<joint name="stage/slide" type="prismatic">.*</joint>', text)
    # "0 where the description gives none" (docs/simulators.md): a bound, an effort and a speed
    assert joint.endswith('<limit lower="0.0" upper="0.0" effort="0.0" velocity="0.0"/></joint>')


# -- templates, trajectories, visuals ------------------------------------------------------------------
def test_each_kind_template_s_new_item_is_named_after_its_kind_or_magnet():
    # made afresh (the palette's TEMPLATES are made at import): a part after its kind, a magnet "magnet"
    names = {t.key: t.base_name for t in kind_templates()}
    assert names == {"part.box": "box", "part.cylinder": "cylinder", "part.ring": "ring",
                     "part.sphere": "sphere", "part.mesh": "mesh", "magnet.block": "magnet",
                     "magnet.cylinder": "magnet", "magnet.ring": "magnet", "magnet.sphere": "magnet",
                     "magnet.arc": "magnet"}


@pytest.mark.parametrize("tau", [0.5, 1.0, 1.5])
def test_a_spin_s_angle_up_its_ramp_is_half_the_acceleration_times_the_time_squared(tau):
    spin = Spin(1.0, ramp=2.0, hold=1.0)  # 2π rad/s reached in 2 s: π rad/s²
    assert spin.acceleration == pytest.approx(math.pi, rel=1e-15)
    assert float(spin.angle(tau)) == pytest.approx(0.5 * math.pi * tau**2, rel=1e-15)


@dataclass(frozen=True)
class Slab:
    """A box-like kind with no primitive of its own (``drawn`` None): it is drawn as its triangles."""

    size: tuple[float, float, float]
    kind = "slab17d"

    def problems(self, base=None) -> list[str]:
        return []


def _slab_mesh(g, base=None):
    corners = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], dtype=float) - 0.5
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
             [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    return corners * np.asarray(g.size), np.asarray(faces)


@pytest.fixture
def slab():
    kind = register(GeometryKind(
        "slab17d", Slab, (Field("size", "Size", size=3),), text="slab {size} m", summary="a slab",
        mesh=_slab_mesh, inside=lambda g, p: None, source=lambda g, J, base=None: None))
    yield kind
    del KINDS["slab17d"]


def test_a_kind_drawn_as_triangles_reads_its_vector_field_as_numbers_times_numbers(slab):
    shape = part_shape(Part(Slab((0.01, 0.02, 0.0305)), material="aluminium"), (0.0, 0.0, 0.0))
    assert isinstance(shape.geometry, Solid) and shape.geometry.kind == "slab17d"
    assert shape.geometry.text == "slab 0.01 × 0.02 × 0.0305 m"  # each to 3 significant digits
    assert shape.geometry.vertices.shape == (8, 3) and shape.geometry.faces.shape == (12, 3)
