"""Every URDF of example-robot-data: it loads (a defect confined to one element is an error in its report,
not a refusal), and its kinematics agree with Pinocchio's wherever Pinocchio loads the file too.

Pinocchio ignores <mimic> and stores a continuous joint's angle as (cos, sin); joints and frames are matched
by name.
"""

from __future__ import annotations

import numpy as np
import pytest
from robot_data import ALL_URDFS, ROBOTS

from mime_gui.multibody import DynamicsError, UrdfError, frame_poses, mass_matrix, read_urdf

pytestmark = pytest.mark.skipif(ROBOTS is None, reason="example-robot-data is not installed")

# Files that load with errors (checked by hand in the files), with the codes of their errors.
LOADED_WITH_ERRORS = {
    # the <mimic> of each hand's second phalanges names "index_q1" while the joints are "Left_index_q1" …
    "alex_description/urdf/alex_psyonic_hands.urdf": {"urdf.mimic"},
    # an inertia with a negative principal moment
    "romeo_description/urdf/romeo_laas_small.urdf": {"urdf.inertial"},
    "tiago_description/robots/tiago.urdf": {"urdf.inertial"},
    "tiago_description/robots/tiago_dual.urdf": {"urdf.inertial"},
    "tiago_description/robots/tiago_no_hand.urdf": {"urdf.inertial"},
}
# An empty <robot> (its xacro expanded to nothing): no tree can be built from it.
REFUSED = {"ur_description/urdf/ur3.urdf": "urdf.missing-link"}


def _rel(path) -> str:
    return path.relative_to(ROBOTS).as_posix()


@pytest.fixture(scope="module")
def trees():
    out, refused = {}, {}
    for path in ALL_URDFS:
        try:
            out[_rel(path)] = read_urdf(path, package_dirs=[ROBOTS])
        except UrdfError as exc:
            refused[_rel(path)] = exc
    return out, refused


def test_every_urdf_loads_with_its_errors(trees):
    loaded, refused = trees
    assert len(ALL_URDFS) >= 69
    assert {rel: exc.code for rel, exc in refused.items()} == REFUSED
    with_errors = {rel: {e.code for e in tree.report.errors} for rel, tree in loaded.items()
                   if tree.report.errors}
    assert with_errors == LOADED_WITH_ERRORS
    for rel, tree in loaded.items():
        art = tree.compile()
        assert set(art.frame_names) == set(tree.links), rel
        assert all(art.parent[i] < i for i in range(1, art.nbodies)), rel
        assert all(e.line > 0 and e.file == str(ROBOTS / rel) for e in tree.report.errors), rel
        # dynamics are blocked exactly where an inertia is not physical, and say which link
        bad_links = [name for name, link in tree.links.items()
                     if link.inertial is not None and link.inertial.error]
        assert bool(bad_links) == ("urdf.inertial" in with_errors.get(rel, set())), rel
        if bad_links:
            with pytest.raises(DynamicsError) as info:
                mass_matrix(art, np.zeros(art.nq))
            assert repr(bad_links[0]) in info.value.message
    # the strict reading refuses the files that load with errors, with the code of the first
    for rel, codes in LOADED_WITH_ERRORS.items():
        with pytest.raises(UrdfError) as info:
            read_urdf(ROBOTS / rel, package_dirs=[ROBOTS], strict=True)
        assert info.value.code in codes


def test_the_refused_file_is_refused_by_pinocchio_too():
    pin = pytest.importorskip("pinocchio")
    for rel in REFUSED:
        with pytest.raises(ValueError):
            pin.buildModelFromUrdf(str(ROBOTS / rel))


def _pin_q(model, art, q):
    """Our q (one angle per joint) as Pinocchio's configuration vector."""
    out = np.array(model.referenceConfigurations["neutral"]) if "neutral" in model.referenceConfigurations \
        else np.zeros(model.nq)
    for j, name in enumerate(art.joint_names):
        joint = model.joints[model.getJointId(name)]
        if joint.nq == 2:
            out[joint.idx_q], out[joint.idx_q + 1] = np.cos(q[j]), np.sin(q[j])
        else:
            out[joint.idx_q] = q[j]
    return out


def test_kinematics_agree_with_pinocchio(trees):
    """Every frame's pose at 5 random configurations, on every file Pinocchio also loads."""
    pin = pytest.importorskip("pinocchio")
    loaded, _ = trees
    rng = np.random.default_rng(12)
    compared = 0
    for rel, tree in sorted(loaded.items()):
        model = pin.buildModelFromUrdf(str(ROBOTS / rel))
        art = tree.compile()
        assert model.nv == art.nv, rel
        data = model.createData()
        fids = [model.getFrameId(name, pin.FrameType.BODY) for name in art.frame_names]
        assert max(fids) < model.nframes, rel
        lo = np.where(np.isfinite(art.lower), art.lower, -np.pi)
        hi = np.where(np.isfinite(art.upper), art.upper, np.pi)
        for q in rng.uniform(lo, hi, (5, art.nq)):
            pin.framesForwardKinematics(model, data, _pin_q(model, art, q))
            ref = np.array([data.oMf[f].homogeneous for f in fids])
            ours = frame_poses(art, q)
            scale = max(1.0, float(np.abs(ref[:, :3, 3]).max()))
            err = float(np.abs(ours - ref).max())
            assert err <= 1e-9 * scale, f"{rel}: frame poses differ by {err:.3e}"
        compared += 1
    assert compared == len(loaded)
