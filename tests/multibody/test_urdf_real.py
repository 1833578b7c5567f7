"""Robots written by others (example-robot-data), cross-checked against yourdfpy and Pinocchio."""

from __future__ import annotations

import numpy as np
import pytest
from robot_data import ALL_URDFS, ROBOTS

from mime_gui.multibody import PRISMATIC, read_urdf
from mime_gui.multibody.tree import Box, Cylinder, Mesh, Sphere
from mime_gui.multibody.urdf import _defused_parse, _fast_parse, _prepare

pytestmark = pytest.mark.skipif(ROBOTS is None, reason="example-robot-data is not installed")

REAL = {
    "pr2": "pr2_description/urdf/pr2.urdf",
    "panda": "panda_description/urdf/panda.urdf",
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "talos_reduced": "talos_data/robots/talos_reduced.urdf",
    "talos_full_v2": "talos_data/robots/talos_full_v2.urdf",
    "double_pendulum_continuous": "double_pendulum_description/urdf/double_pendulum_continuous.urdf",
}

def _path(key):
    return ROBOTS / REAL[key]


def _resolve_independently(uri: str, urdf_dir):
    """Resolve a mesh URI without the reader: package names are folders of the robots folder or of share/."""
    if uri.startswith("package://"):
        rest = uri[len("package://"):].lstrip("/")
        for root in (ROBOTS, ROBOTS.parent.parent):
            if (root / rest).is_file():
                return str(root / rest)
        return None
    path = urdf_dir / uri
    return str(path) if path.is_file() else None


@pytest.fixture(scope="module", params=sorted(REAL))
def robot(request):
    yourdfpy = pytest.importorskip("yourdfpy")
    path = _path(request.param)
    tree = read_urdf(path, package_dirs=[ROBOTS])
    theirs = yourdfpy.URDF.load(str(path), load_meshes=False, build_scene_graph=False,
                                load_collision_meshes=False,
                                filename_handler=lambda fname: _resolve_independently(fname, path.parent))
    return request.param, path, tree, theirs


def _limits(j):
    lim = j.limit
    return tuple(np.nan if v is None else float(v) for v in (lim.lower, lim.upper, lim.effort, lim.velocity))


def test_links_joints_and_types_match_yourdfpy(robot):
    _, _, tree, theirs = robot
    assert list(tree.links) == [link.name for link in theirs.robot.links]
    assert list(tree.joints) == [j.name for j in theirs.robot.joints]
    assert tree.name == theirs.robot.name
    for j in theirs.robot.joints:
        ours = tree.joints[j.name]
        assert (ours.type, ours.parent, ours.child) == (j.type, j.parent, j.child)
        np.testing.assert_allclose(ours.parent_X_joint, j.origin if j.origin is not None else np.eye(4),
                                   atol=1e-12)
        if ours.movable:
            axis = np.array([1.0, 0, 0]) if j.axis is None else np.asarray(j.axis, float)
            np.testing.assert_allclose(ours.axis, axis / np.linalg.norm(axis), atol=1e-12)


def test_limits_dynamics_and_mimic_match_yourdfpy(robot):
    name, _, tree, theirs = robot
    mimics = 0
    for j in theirs.robot.joints:
        ours = tree.joints[j.name]
        if not ours.movable:
            continue
        if j.limit is not None:
            lower, upper, effort, velocity = _limits(j)
            assert (ours.limit.effort, ours.limit.velocity) == (effort, velocity)
            if ours.type == "continuous":
                assert (ours.limit.lower, ours.limit.upper) == (-np.inf, np.inf)
            else:
                assert (ours.limit.lower, ours.limit.upper) == (lower, upper)
        if j.dynamics is not None:
            assert ours.damping == float(j.dynamics.damping or 0.0)
            assert ours.friction == float(j.dynamics.friction or 0.0)
        if j.mimic is not None:
            mimics += 1
            assert ours.mimic.joint == j.mimic.joint
            assert ours.mimic.multiplier == float(1.0 if j.mimic.multiplier is None else j.mimic.multiplier)
            assert ours.mimic.offset == float(0.0 if j.mimic.offset is None else j.mimic.offset)
        else:
            assert ours.mimic is None
    assert mimics == sum(j.mimic is not None for j in tree.joints.values())


def test_inertials_match_yourdfpy(robot):
    _, _, tree, theirs = robot
    for link in theirs.robot.links:
        ours = tree.links[link.name].inertial
        if link.inertial is None:
            assert ours is None
            continue
        assert ours.mass == pytest.approx(link.inertial.mass, abs=0)
        origin = np.eye(4) if link.inertial.origin is None else link.inertial.origin
        np.testing.assert_allclose(ours.link_X_com, origin, atol=1e-12)
        np.testing.assert_allclose(ours.inertia, link.inertial.inertia, atol=0)


def _geometry_key(g):
    if g.box is not None:
        return ("box", tuple(map(float, g.box.size)))
    if g.cylinder is not None:
        return ("cylinder", (float(g.cylinder.radius), float(g.cylinder.length)))
    if g.sphere is not None:
        return ("sphere", (float(g.sphere.radius),))
    scale = g.mesh.scale
    scale = (1.0, 1.0, 1.0) if scale is None else tuple(np.broadcast_to(np.asarray(scale, float), 3))
    return ("mesh", (g.mesh.filename, scale))


def _our_key(g):
    if isinstance(g, Box):
        return ("box", g.size)
    if isinstance(g, Cylinder):
        return ("cylinder", (g.radius, g.length))
    if isinstance(g, Sphere):
        return ("sphere", (g.radius,))
    assert isinstance(g, Mesh)
    return ("mesh", (g.uri, g.scale))


def test_geometry_and_resolved_meshes_match(robot):
    _, path, tree, theirs = robot
    meshes = 0
    for link in theirs.robot.links:
        ours = tree.links[link.name]
        for mine, yours in ((ours.visuals, link.visuals), (ours.collisions, link.collisions)):
            assert len(mine) == len(yours)
            for a, b in zip(mine, yours, strict=True):
                assert _our_key(a.geometry) == _geometry_key(b.geometry)
                np.testing.assert_allclose(a.link_X_shape, np.eye(4) if b.origin is None else b.origin,
                                           atol=1e-12)
                if isinstance(a.geometry, Mesh):
                    meshes += 1
                    expected = _resolve_independently(b.geometry.mesh.filename, path.parent)
                    assert expected is not None
                    assert a.geometry.filename == expected
    assert not [w for w in tree.report.warnings if w.code == "urdf.mesh-unresolved"]
    if "pendulum" not in str(path):
        assert meshes > 0


def _pin_axis(jm, pin, model):
    """Pinocchio's joint axis from its motion subspace (``[linear; angular]``)."""
    data = jm.createData()
    jm.calc(data, pin.neutral(model))
    S = np.asarray(data.S).reshape(6)
    return S[:3] if np.linalg.norm(S[:3]) > 0.5 else S[3:]


@pytest.mark.parametrize("key", sorted(REAL))
def test_structure_placements_and_inertias_match_pinocchio(key):
    pin = pytest.importorskip("pinocchio")
    path = _path(key)
    art = read_urdf(path, package_dirs=[ROBOTS]).compile()
    model = pin.buildModelFromUrdf(str(path))
    assert model.njoints - 1 == art.nq
    assert model.nv == art.nv
    body_joint = ["universe", *art.joint_names]  # the joint that moves each body
    for j, name in enumerate(art.joint_names):
        jid = model.getJointId(name)
        assert jid < model.njoints, name
        assert model.names[model.parents[jid]] == body_joint[art.parent[j + 1]]
        np.testing.assert_allclose(model.jointPlacements[jid].homogeneous, art.parent_X_joint[j], atol=1e-10)
        jm = model.joints[jid]
        assert jm.shortname().startswith("JointModelP") == (art.joint_type[j] == PRISMATIC)
        np.testing.assert_allclose(_pin_axis(jm, pin, model), art.axis[j], atol=1e-10)
        b = j + 1
        inertia = model.inertias[jid]
        assert inertia.mass == pytest.approx(art.mass_of_body[b], rel=1e-12, abs=1e-12)
        np.testing.assert_allclose(inertia.lever, art.com[b], atol=1e-9)
        np.testing.assert_allclose(inertia.inertia, art.inertia_com[b], atol=1e-9)
    # every link is a frame of pinocchio's, fixed to the same joint with the same placement
    for f, name in enumerate(art.frame_names):
        fid = model.getFrameId(name, pin.FrameType.BODY)
        assert fid < model.nframes, name
        frame = model.frames[fid]
        assert model.names[frame.parentJoint] == body_joint[art.frame_body[f]]
        np.testing.assert_allclose(frame.placement.homogeneous, art.body_X_frame[f], atol=1e-10)


def test_talos_reduced_loads_with_its_fixed_gripper_mimics_set_aside():
    tree = read_urdf(_path("talos_reduced"), package_dirs=[ROBOTS])
    ignored = {e.kind: e for e in tree.report.ignored}
    assert ignored["robot/joint/mimic (on a fixed joint)"].count > 0
    assert all(j.mimic is None for j in tree.joints.values() if not j.movable)


def test_pr2_warns_about_its_inertias_and_loads():
    tree = read_urdf(_path("pr2"), package_dirs=[ROBOTS])
    codes = [w.code for w in tree.report.warnings]
    assert "urdf.inertial-triangle" in codes
    assert len(tree.links) == 82
    kinds = [w.message.split(">")[0] for w in tree.report.warnings if w.code == "urdf.not-used"]
    assert len(kinds) == len(set(kinds))  # one warning per kind not used


def test_element_lines_do_not_depend_on_the_parser():
    """For every file, the fast path's lines equal expat's own line numbers (the defused path)."""
    for path in ALL_URDFS:
        data, offset = _prepare(path.read_bytes())
        fast = _fast_parse(data, offset)
        assert fast is not None, path
        root, lines, may_hold_xacro = fast
        root2, lines2, _ = _defused_parse(data, offset, str(path))
        got = [lines.get(e) for e in root.iter()]
        expected = [lines2.get(e) for e in root2.iter()]
        assert got == expected, path
        if not may_hold_xacro:  # the fast scan may skip the xacro search only when no attribute holds a $
            assert not any("$" in v for e in root.iter() for v in e.attrib.values()), path
