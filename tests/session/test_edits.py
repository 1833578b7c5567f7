"""One door for change: edits through Session.apply, headless undo/redo, merging, the modified mark, live
findings, commands apart from state, and the view updated in place (counted with the fake renderer)."""

from __future__ import annotations

import gc
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mime_gui import RESOURCES
from mime_gui.rig import Box, Cylinder, Part, kg, kg_m2, load, rigfile
from mime_gui.rig.paths import DELETE, RigPathError, get, replace
from mime_gui.session import (
    AddItem,
    Event,
    FakeRenderer,
    ItemRef,
    Remount,
    RemoveItem,
    RenameItem,
    Session,
    SessionError,
    SetArmature,
    SetValue,
)

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def saved_bytes(rig, folder: Path) -> bytes:
    target = folder / "probe.rig.json"
    rigfile.save(rig, target)
    return target.read_bytes()


@pytest.fixture
def session():
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open(DEMO_RIG)
    return s


# -- rig paths ------------------------------------------------------------------------------------------
def test_paths_get_and_replace_return_a_new_rig_and_share_the_rest():
    rig = load(DEMO_RIG)
    assert get(rig, "parts.holder.at") == rig.parts["holder"].at
    new = replace(rig, "parts.holder.at", (0.0, 0.0, 0.5))
    assert new.parts["holder"].at == (0.0, 0.0, 0.5) and rig.parts["holder"].at != (0.0, 0.0, 0.5)
    assert new.chain["arm"] is rig.chain["arm"]  # untouched values are shared, not copied
    assert new.magnets is not rig.magnets or new.magnets == rig.magnets
    deeper = replace(rig, "chain.arm.armature.joint_6", kg_m2(1e-4, reason="test"))
    assert deeper.chain["arm"].armature["joint_6"].value == 1e-4
    assert rig.chain["arm"].armature["joint_6"].value == 2e-4
    gone = replace(rig, "chain.arm.armature.joint_6", DELETE)
    assert "joint_6" not in gone.chain["arm"].armature and "joint_6" in rig.chain["arm"].armature
    assert replace(rig, "name", "other").name == "other" and rig.name == "demo"
    for bad in ("parts.nowhere.at", "parts.holder.colour", "wheels.x", "", "chain.arm.armature.joint_9"):
        with pytest.raises(RigPathError):
            get(rig, bad)


def test_a_name_with_a_dot_still_has_a_path():
    rig = load(DEMO_RIG)
    odd = replace(rig, "parts.holder", DELETE)
    odd = AddItem("parts", "a.b", rig.parts["holder"]).apply(odd)
    assert get(odd, "parts.a.b.at") == rig.parts["holder"].at


# -- apply, undo, redo -------------------------------------------------------------------------------------
def test_apply_undo_redo_and_the_modified_mark(session, tmp_path):
    original = saved_bytes(session.rig, tmp_path)
    names = []
    session.history_changed.connect(lambda: names.append(session.history.undo_name))
    assert not session.modified and not session.can_undo
    change = session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.02)))
    assert change.paths == {"parts.holder"} and change.changed == {"motor"} and not change.added
    assert session.modified and session.can_undo and names[-1] == "Set parts.holder.at"
    session.undo()
    assert not session.modified and saved_bytes(session.rig, tmp_path) == original
    assert session.can_redo and not session.can_undo
    session.redo()
    assert session.rig.parts["holder"].at == (0.0, 0.0, 0.02) and session.modified
    saved = session.save(tmp_path / "out.rig.json")
    assert not session.modified and session.path == saved
    session.undo()
    assert session.modified  # undoing past the save is a change again


def test_undo_and_redo_of_a_renamed_rig_report_the_name_as_changed(session):
    old = session.rig.name
    assert session.apply(SetValue("name", "bench")).paths == {"name"}
    undone = session.undo()
    assert session.rig.name == old and undone.paths == {"name"}
    redone = session.redo()
    assert session.rig.name == "bench" and redone.paths == {"name"}


def test_same_field_edits_merge_into_one_step_until_sealed(session):
    before = session.rig.parts["holder"].geometry
    for r in (0.011, 0.012, 0.013, 0.014):  # dragging the radius
        session.apply(SetValue("parts.holder.geometry", Cylinder(radius=r, length=0.02)))
    assert len(session.history) == 1
    session.undo()
    assert session.rig.parts["holder"].geometry == before
    session.redo()
    assert session.rig.parts["holder"].geometry.radius == 0.014
    session.select(ItemRef("motor", "link", "rotor"))  # a new selection seals the step
    session.apply(SetValue("parts.holder.geometry", Cylinder(radius=0.02, length=0.02)))
    assert len(session.history) == 2


def test_a_refused_edit_changes_nothing_and_says_why(session):
    rig = session.rig
    errors = []
    session.error.connect(errors.append)
    with pytest.raises(SessionError) as err:
        session.apply(SetValue("parts.nowhere.at", (0, 0, 0)))
    assert err.value.code == "edit.path" and "holder" in err.value.message
    with pytest.raises(SessionError) as err:
        session.apply(SetValue("parts.holder.at", "up"))
    assert err.value.code == "edit.value"
    with pytest.raises(SessionError) as err:
        session.apply(AddItem("parts", "holder", rig.parts["holder"]))
    assert err.value.code == "edit.name-taken"
    assert session.rig is rig and not session.can_undo and len(errors) == 3


def test_findings_follow_every_edit_and_the_view_keeps_the_parts_it_can_draw(session):
    seen = []
    session.findings_changed.connect(seen.append)
    session.apply(SetValue("parts.holder.material", "unobtainium"))
    assert [f.code for f in session.findings] == ["part.material"] and seen[-1] == session.findings
    assert session.document.built is not None  # the last good build stays for export and play
    assert "part:holder" in session.segment("motor").tree.links  # still drawn while being fixed
    with pytest.raises(SessionError):
        session.export_python("/tmp/never-written.py")
    session.undo()
    assert session.findings == () and seen[-1] == ()


def test_a_rig_file_with_a_dangling_mount_opens_is_fixed_with_one_edit_and_saves(tmp_path):
    folder = tmp_path / "demo"  # the demo names its meshes package://demo/…
    shutil.copytree(DEMO_RIG.parent, folder)
    path = folder / "demo.rig.json"
    path.write_text(path.read_text().replace('"mount": "motor.rotor"', '"mount": "motor.rotorr"', 1))
    s = Session()
    doc = s.open(path)
    assert [(f.code, f.where) for f in doc.findings][0][0] == "part.mount"
    assert doc.built is None
    s.apply(Remount("parts", doc.findings[0].where.split(".")[1], "motor.rotor"))
    assert s.findings == () and s.document.built is not None
    assert s.save() == str(path)
    assert load(path).validate() == []


def test_rename_a_segment_renames_the_mounts_that_name_it(session):
    session.apply(RenameItem("chain", "motor", "spindle"))
    assert list(session.rig.chain) == ["arm", "spindle"]
    assert all(p.mount.startswith("spindle.") for _, _, p in session.rig.solids() if p.mount)
    assert session.findings == ()
    session.undo()
    assert list(session.rig.chain) == ["arm", "motor"] and session.findings == ()


def test_armature_source_edits(session):
    session.apply(SetArmature("arm", "joint_6", None))
    assert "joint_6" not in session.rig.chain["arm"].armature
    rows = {j["joint"]: j for j in session.document.built.report.data["segments"][0]["joints"]}
    assert rows["joint_6"]["source"] == "none"
    session.apply(SetArmature("arm", "joint_6", kg_m2(3e-4, reason="new rotor")))
    rows = {j["joint"]: j for j in session.document.built.report.data["segments"][0]["joints"]}
    assert rows["joint_6"]["source"] == "declared" and rows["joint_6"]["value"] == pytest.approx(3e-4)


def test_has_item_knows_which_parts_exist(session):
    assert session.has_item(ItemRef("motor", "part", "holder"))
    assert not session.has_item(ItemRef("arm", "part", "zzz"))
    assert not session.has_item(ItemRef("arm", "part", "holder"))  # it rides on the motor
    with pytest.raises(SessionError):
        session.select(ItemRef("arm", "part", "zzz"))


# -- random sequences ------------------------------------------------------------------------------------
FRAMES = ["motor.rotor", "motor.stator", "arm.link_3", "arm.tool0", "arm.nowhere", None]
ops = st.lists(st.one_of(
    st.tuples(st.just("at"), st.floats(-0.2, 0.2, allow_nan=False), st.integers(0, 3)),
    st.tuples(st.just("material"), st.sampled_from(["aluminium", "steel", "unobtainium", None]),
              st.integers(0, 3)),
    st.tuples(st.just("add"), st.floats(0.001, 0.05), st.integers(0, 99)),
    st.tuples(st.just("remove"), st.integers(0, 3)),
    st.tuples(st.just("rename"), st.integers(0, 3), st.integers(0, 99)),
    st.tuples(st.just("mount"), st.sampled_from(FRAMES), st.integers(0, 3)),
    st.tuples(st.just("armature"), st.sampled_from(["joint_1", "joint_6", "joint_9"]),
              st.one_of(st.none(), st.floats(0, 1e-3))),
    st.tuples(st.just("servo"), st.floats(0, 0.2)),
), min_size=1, max_size=12)


def _edit(rig, op):
    parts = list(rig.parts)
    kind = op[0]
    pick = (lambda i: parts[i % len(parts)]) if parts else None
    if kind == "at" and pick:
        return SetValue(f"parts.{pick(op[2])}.at", (op[1], 0.0, 0.01))
    if kind == "material" and pick:
        return SetValue(f"parts.{pick(op[2])}.material", op[1])
    if kind == "add":
        return AddItem("parts", f"p{op[2]}", Part(Box((op[1], op[1], op[1])), mass=kg(0.01, reason="scale"),
                                                  mount="motor.rotor"))
    if kind == "remove" and pick:
        return RemoveItem("parts", pick(op[1]))
    if kind == "rename" and pick:
        return RenameItem("parts", pick(op[1]), f"r{op[2]}")
    if kind == "mount" and pick:
        return Remount("parts", pick(op[2]), op[1])
    if kind == "armature":
        return SetArmature("arm", op[1], None if op[2] is None else kg_m2(op[2], reason="sweep"))
    if kind == "servo":
        return SetValue("chain.arm.servo_time_constant", op[1])
    return None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(ops)
def test_undo_all_restores_the_saved_file_byte_for_byte_and_redo_all_the_last(tmp_path, ops):
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open(DEMO_RIG)
    original = saved_bytes(s.rig, tmp_path)
    for op in ops:
        edit = _edit(s.rig, op)
        if edit is None:
            continue
        try:
            s.apply(edit)
        except SessionError as err:
            assert err.code.startswith("edit.")
        s.history.seal()  # one step per edit: the test counts steps
    final = saved_bytes(s.rig, tmp_path)
    steps = len(s.history)
    while s.can_undo:
        s.undo()
    assert saved_bytes(s.rig, tmp_path) == original and not s.modified
    for _ in range(steps):
        s.redo()
    assert saved_bytes(s.rig, tmp_path) == final and not s.can_redo
    # the view matches the rig after all that: one drawn graft per part mounted on a frame that exists
    drawn = {link for seg in s.segments.values() for link in seg.tree.part_links}
    valid_mounts = {f"{n}.{f}" for n, seg in s.segments.items() for f in seg.articulation.frame_names}
    expected = {"part:" + n for _, n, p in s.rig.solids() if p.mount in valid_mounts}
    assert expected <= drawn


# -- time: commands apart from state ---------------------------------------------------------------------
def test_commands_lag_through_the_servo_and_teleport_places_at_once(session):
    arm = session.segment("arm")
    tau = session.rig.chain["arm"].servo_time_constant
    assert tau > 0
    names = session.command_names("arm")
    start = session.joint_positions("arm")[arm.articulation.joint_index("joint_1")]
    session.set_command("arm", {"joint_1": start + 0.5})
    assert session.joint_positions("arm")[arm.articulation.joint_index("joint_1")] == start  # not yet
    session.tick(tau)
    moved = session.joint_positions("arm")[arm.articulation.joint_index("joint_1")]
    assert moved - start == pytest.approx(0.5 * (1 - np.exp(-1.0)), rel=1e-12)  # exact first-order lag
    for _ in range(200):
        session.tick(tau / 4)
    j1 = arm.articulation.joint_index("joint_1")
    assert session.joint_positions("arm")[j1] == pytest.approx(start + 0.5)
    q = session.joint_positions("arm")
    q[arm.articulation.joint_index("joint_2")] = 0.1
    session.set_joint_positions("arm", q)
    assert session.command("arm")[names.index("joint_2")] == pytest.approx(0.1)
    assert session.joint_positions("arm")[arm.articulation.joint_index("joint_2")] == pytest.approx(0.1)


def test_the_caller_array_is_not_aliased_and_the_view_gets_a_fresh_array(session):
    q = session.joint_positions("arm")
    poses = session.segment("arm").world_X_frame
    session.set_joint_positions("arm", q)
    q += 1.0
    assert not np.allclose(session.joint_positions("arm"), q)
    session.set_joint_positions("arm", q - 0.9)
    assert session.segment("arm").world_X_frame is not poses  # replaced, never rewritten in place


def test_the_motor_rides_on_the_arm_while_time_runs(session):
    session.set_command("arm", {"joint_1": 0.8})
    for _ in range(20):
        session.tick(0.01)
    arm, motor = session.segment("arm"), session.segment("motor")
    mount = arm.frame_pose(motor.mount[1]) @ motor.placement
    np.testing.assert_allclose(motor.frame_pose("stator"), mount, atol=1e-12)


# -- the view updated in place ------------------------------------------------------------------------------
def test_an_edit_updates_only_the_changed_segment_and_poses_rebuild_nothing(session):
    r = session.renderer
    r.calls.clear()
    session.apply(AddItem("parts", "extra", Part(Box((0.01, 0.01, 0.01)), material="aluminium",
                                                 mount="arm.link_3")))
    assert r.calls.count("update_segments") == 1 and "show_segments" not in r.calls
    assert "part:extra" in r.segments["arm"][0].links
    r.calls.clear()
    for i in range(600):
        session.set_joint_positions("arm", {"joint_1": 0.001 * i})
    assert set(r.calls) == {"set_frame_poses", "set_item_poses"}
    # placing the arm moves the motor riding on it too: two pose updates per event, nothing rebuilt; the
    # parts and magnets riding on them move in one item push per event
    assert r.calls.count("set_frame_poses") == 1200 and r.calls.count("set_item_poses") == 600


def test_editing_where_a_segment_stands_moves_it_without_rebuilding_it(session):
    r = session.renderer
    tree = session.segment("motor").tree
    change = session.apply(SetValue("chain.motor.at", (0.0, 0.0, 0.05)))
    assert change.changed == set() and session.segment("motor").tree is tree
    np.testing.assert_allclose(session.segment("motor").placement[:3, 3], (0, 0, 0.05))
    np.testing.assert_allclose(r.poses["motor"], session.segment("motor").world_X_frame)


# -- events ----------------------------------------------------------------------------------------------
def test_events_hold_bound_methods_weakly_and_isolate_a_failing_listener():
    event = Event("probe")
    calls = []

    class Listener:
        def on(self, x):
            calls.append(("method", x))

    listener = Listener()
    event.connect(listener.on)

    def boom(x):
        raise RuntimeError("listener fault")

    event.connect(boom)
    event.connect(lambda x: calls.append(("after", x)))
    with pytest.raises(RuntimeError, match="listener fault"):
        event.emit(1)
    assert calls == [("method", 1), ("after", 1)]  # the one after the failure still ran
    event.disconnect(boom)
    del listener
    gc.collect()
    event.emit(2)
    assert calls[-1] == ("after", 2) and ("method", 2) not in calls and len(event) == 1
    with event.blocked():
        event.emit(3)
    assert calls[-1] == ("after", 2)


def test_a_rig_being_fixed_draws_no_shape_or_place_that_breaks_a_rule(session):
    """The lenient drawing never draws a shape that breaks a rule: a part is drawn as it last was (its
    shape before the edit) and stands in dimmed, and a misplaced segment stands at the origin, so a huge
    value cannot reach the view's bounds (NaN grid) while the user fixes it."""
    before = session.rig.parts["holder"].geometry
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    session.apply(SetValue("parts.holder.geometry", Cylinder(radius=1e300, length=0.02)))
    assert [f.code for f in session.findings] == ["part.geometry"]
    drawn = session.segment("motor").tree.links["part:holder"].visuals[0].geometry
    assert drawn.radius == before.radius and drawn.length == before.length
    stood_in = {ItemRef("motor", "link", "part:holder")}
    assert session.documents.stand_ins.refs == stood_in and renderer.dimmed == stood_in  # drawn dimmed
    session.apply(SetValue("parts.holder.geometry", Cylinder(radius=0.01, length=0.02)))
    assert renderer.dimmed == frozenset()  # fixed: drawn as the robot's opacity says again
    session.apply(SetValue("chain.arm.at", (1e300, 0.0, 0.0)))
    assert [f.code for f in session.findings] == ["chain.placement"]
    assert np.all(np.isfinite(session.segment("arm").world_X_frame))
    np.testing.assert_allclose(session.segment("arm").placement, np.eye(4))


def test_before_any_rig_is_open_nothing_stands_in():
    # a view asking what to draw dimmed before the first rig is told: nothing
    assert Session().documents.stand_ins.refs == frozenset()


def test_a_part_never_drawn_valid_is_left_out_while_its_shape_breaks_a_rule(tmp_path):
    from mime_gui.session import Session

    folder = tmp_path / "demo"
    shutil.copytree(DEMO_RIG.parent, folder)
    path = folder / "broken.rig.json"
    path.write_text(DEMO_RIG.read_text().replace('"radius": 0.01,', '"radius": -0.01,', 1))
    s = Session()
    s.open(path)
    assert "part.geometry" in [f.code for f in s.findings]
    assert "part:holder" not in s.segment("motor").tree.links and not s.documents.stand_ins.refs


def test_renaming_a_segment_touches_what_is_mounted_on_it_and_renaming_a_part_only_the_part():
    rig = load(RESOURCES / "demo" / "demo.rig.json")  # holder, m1 on motor.rotor; the probe on motor.stator
    assert RenameItem("chain", "motor", "spindle").touched(rig) == {
        "chain.motor", "chain.spindle", "parts.holder", "magnets.m1", "probes.sample"}
    assert RenameItem("chain", "arm", "reach").touched(rig) == {"chain.arm", "chain.reach"}  # motor: on tool0
    assert RenameItem("parts", "holder", "clamp").touched(rig) == {"parts.holder", "parts.clamp"}


def test_a_failing_listener_is_logged_under_its_events_name(caplog):
    def boom():
        raise RuntimeError("listener fault")

    for name, shown in (("rig_changed", "rig_changed"), ("", "an event")):
        event = Event(name)
        event.connect(boom)
        caplog.clear()
        with caplog.at_level(logging.ERROR, logger="mime_gui.session"), pytest.raises(RuntimeError):
            event.emit()
        assert [r.getMessage() for r in caplog.records] == [f"a listener of {shown} failed"]


def test_an_edit_that_changes_nothing_records_no_step_and_draws_nothing(session):
    """A field left with its own value (the same type, equal) or a mount set to where the part already is:
    no undo step, no change set, nothing drawn again; a value of another type or another value is an edit."""
    r = session.renderer
    seen: list = []
    session.rig_changed.connect(seen.append)
    holder = session.rig.parts["holder"]
    calls = len(r.calls)
    for edit in (SetValue("parts.holder.at", tuple(holder.at)),
                 SetValue("parts.holder.geometry", holder.geometry), Remount("parts", "holder", holder.mount),
                 SetValue("name", session.rig.name)):
        change = session.apply(edit)
        assert change.paths == change.added == change.changed == change.removed == frozenset()
    assert not session.can_undo and seen == [] and len(r.calls) == calls
    moved = (holder.at[0] + 0.001, *holder.at[1:])
    session.apply(SetValue("parts.holder.at", moved))
    session.seal()
    session.apply(SetValue("parts.holder.at", moved))  # the same again: still one step
    assert len(seen) == 1
    session.undo()  # one step back is where it began
    assert not session.can_undo and tuple(session.rig.parts["holder"].at) == tuple(holder.at)
    session.redo()
    session.apply(SetValue("parts.holder.at", list(moved)))  # another type: an edit (the rig file may differ)
    assert len(seen) == 4 and session.can_undo
