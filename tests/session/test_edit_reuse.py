"""An edit does again only what it touches: a part's new shape keeps the chain node of the segment it is
mounted on (its kinematics are the same, only its masses differ) and that segment's state, while an edit of
the segment's joints makes a new one; what is kept gives what a session opened on the edited rig gives. The
build's report and payload are made when first read."""

from __future__ import annotations

import dataclasses

import numpy as np

from mime_gui import RESOURCES
from mime_gui.multibody import _model
from mime_gui.multibody.articulation import compile_tree
from mime_gui.rig import Cylinder, load
from mime_gui.rig import payload as payload_module
from mime_gui.session import Session, SetValue

DEMO = RESOURCES / "demo" / "demo.rig.json"


def test_a_parts_new_shape_keeps_the_node_and_state_of_its_segment():
    session = Session()
    session.open(str(DEMO))
    node = session.motion._node.nodes["motor"]
    state = session.state("motor")
    art = session.segment("motor").articulation
    session.apply(SetValue("parts.holder.geometry", Cylinder(radius=0.015, length=0.02)))
    assert session.segment("motor").articulation is not art  # the holder's mass changed
    assert session.segment("motor").articulation.mass_of_body[-1] != art.mass_of_body[-1]
    assert session.motion._node.nodes["motor"] is node and session.state("motor") is state
    fresh = Session()
    fresh.open_apparatus(session.rig)
    for name in ("arm", "motor"):
        np.testing.assert_array_equal(session.state(name).frame_poses, fresh.state(name).frame_poses)
    # the motor's axis is its kinematics: a new node, and the state it gives
    session.apply(SetValue("chain.motor.axis", (1.0, 0.0, 0.0)))
    assert session.motion._node.nodes["motor"] is not node
    fresh = Session()
    fresh.open_apparatus(session.rig)
    np.testing.assert_array_equal(session.state("motor").frame_poses, fresh.state("motor").frame_poses)


def test_kinematics_keys_tell_kinematics_from_masses():
    built = load(DEMO).build()
    tree = built.segments["motor"].tree
    art = compile_tree(tree)
    assert compile_tree(tree).kinematics_key == art.kinematics_key
    heavier = tree.copy()
    link = next(iter(heavier.part_links))
    heavier.links[link] = dataclasses.replace(
        heavier.links[link], inertial=dataclasses.replace(heavier.links[link].inertial, mass=9.0))
    heavy = compile_tree(heavier)
    assert heavy.kinematics_key == art.kinematics_key and heavy.mass_of_body[-1] != art.mass_of_body[-1]
    arm = built.segments["arm"].articulation
    for field, value in (("lower", arm.lower - 1.0), ("upper", arm.upper + 1.0),
                         ("axis", arm.axis[:, ::-1].copy()), ("parent_X_joint", arm.parent_X_joint * 2.0),
                         ("body_X_frame", arm.body_X_frame * 2.0), ("frame_names", arm.frame_names[::-1]),
                         ("mimic_offset", arm.mimic_offset + 1.0)):
        assert dataclasses.replace(arm, **{field: value}).kinematics_key != arm.kinematics_key, field
    for field in ("mass_of_body", "com", "armature", "damping", "friction"):  # not kinematics
        other = dataclasses.replace(arm, **{field: getattr(arm, field) + 1.0})
        assert other.kinematics_key == arm.kinematics_key, field
    # the engine's model of the heavier one shares the kinematic constants and has its own masses
    m, h = _model.model(art), _model.model(heavy)
    assert h.parent_axis_X_axis0 is m.parent_axis_X_axis0
    np.testing.assert_array_equal(h.mass[1:], heavy.mass_of_body[1:])
    _model._KINEMATIC.clear()
    alone = _model._build(heavy)
    for field in ("mass", "com", "inertia_com", "A", "axis_X_frame"):
        np.testing.assert_array_equal(getattr(h, field), getattr(alone, field))
    np.testing.assert_array_equal(h.batch_constants.I, alone.batch_constants.I)


def test_the_build_report_and_payload_wait_until_read(monkeypatch):
    calls = []
    original = payload_module.riders
    monkeypatch.setattr(payload_module, "riders", lambda *a: calls.append(a[0]) or original(*a))
    built = load(DEMO).build()
    assert calls == [] and "report" not in vars(built)
    report = built.report
    assert calls == ["arm", "motor"]  # each segment's riders, once, for the report
    assert report["segments"][0]["payload"]["riders"][0]["segment"] == "motor"
    assert built.segments["arm"].riders[0].segment == "motor" and calls == ["arm", "motor"]
    assert built.report is report


def test_the_kinematic_cache_is_shared_by_threads_and_bounded():
    from concurrent.futures import ThreadPoolExecutor

    from mime_gui.multibody import frame_poses

    art = load(DEMO).build().segments["arm"].articulation
    variants = [dataclasses.replace(art, lower=art.lower - k) for k in range(3 * _model._KINEMATIC_SIZE)]

    def poses(a):
        return frame_poses(a, np.zeros(a.nq))

    with ThreadPoolExecutor(8) as pool:  # more structures than kept, from many threads at once
        results = list(pool.map(poses, variants * 4))
    for r in results:
        np.testing.assert_array_equal(r, results[0])  # the limits move nothing at zero
    assert len(_model._KINEMATIC) <= _model._KINEMATIC_SIZE


def test_a_large_articulations_constants_are_not_kept(monkeypatch):
    art = load(DEMO).build().segments["arm"].articulation
    _model._KINEMATIC.clear()
    monkeypatch.setattr(_model, "_KINEMATIC_MAX_BODIES", art.nbodies - 1)
    _model._build(art)
    assert len(_model._KINEMATIC) == 0
    monkeypatch.setattr(_model, "_KINEMATIC_MAX_BODIES", art.nbodies)
    _model._build(art)
    assert len(_model._KINEMATIC) == 1
