"""The headless side of assembling: the edits the app's forms and docks add (kind switch, reorder, whole-item
and whole-rig replacement), the palette's templates and names, mass properties, and recovery files."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Arm, Box, Cylinder, Motor, Part, kg, load
from mime_gui.rig.templates import TEMPLATES, copy_name, segment_mount, unique_name
from mime_gui.session import (
    AddItem,
    FakeRenderer,
    ItemRef,
    MoveItem,
    ReplaceItem,
    ReplaceRig,
    Session,
    SessionError,
    SetKind,
    SetValue,
)
from mime_gui.session.mass_properties import mass_table
from mime_gui.session.recovery import RecoveryStore

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


@pytest.fixture
def session():
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open(DEMO_RIG)
    return s


# -- edits ----------------------------------------------------------------------------------------------
def test_set_kind_switches_within_the_family_keeping_shared_fields_and_undo_restores_the_dropped(session):
    arm = session.rig.chain["arm"]
    session.apply(SetKind("arm", "Arm.Kinematic"))
    kinematic = session.rig.chain["arm"]
    assert type(kinematic) is Arm.Kinematic
    assert (kinematic.description, kinematic.initial_positions, kinematic.servo_time_constant) == \
        (arm.description, arm.initial_positions, arm.servo_time_constant)
    assert session.history.undo_name == "Make arm kinematic"
    session.apply(SetKind("arm", "Arm.Dynamic"))
    assert session.rig.chain["arm"].armature == {}  # going kinematic dropped it
    session.undo()
    session.undo()
    assert session.rig.chain["arm"] == arm  # the declarations come back with undo
    with pytest.raises(SessionError) as err:
        session.apply(SetKind("arm", "Motor.Dynamic"))
    assert err.value.code == "edit.value" and "Arm.Kinematic" in err.value.message
    assert session.rig.chain["arm"] == arm


def test_set_kind_of_a_motor_drops_its_inertia_and_the_rules_ask_for_it_back(session):
    session.apply(SetKind("motor", "Motor.Kinematic"))
    assert type(session.rig.chain["motor"]) is Motor.Kinematic and not session.findings
    session.apply(SetKind("motor", "Motor.Dynamic"))
    assert [(f.code, f.where) for f in session.findings] == [("chain.motor", "chain.motor.inertia")]


def test_move_item_reorders_and_the_rules_judge_the_new_order(session):
    session.apply(MoveItem("chain", "motor", 0))
    assert list(session.rig.chain) == ["motor", "arm"]
    codes = {(f.code, f.where) for f in session.findings}
    assert ("chain.mount-first", "chain.motor.mount") in codes  # the first segment takes no mount
    assert ("chain.mount", "chain.arm.mount") in codes  # the arm now needs one
    session.undo()
    assert list(session.rig.chain) == ["arm", "motor"] and not session.findings
    session.apply(MoveItem("magnets", "m1", 99))  # clamped to the end
    assert list(session.rig.magnets) == ["m1"]
    with pytest.raises(SessionError) as err:
        session.apply(MoveItem("parts", "nope", 0))
    assert err.value.code == "edit.path"
    assert err.value.file == "parts.nope" and "'nope'" in err.value.message  # the place: the item moved


def test_replace_item_is_one_step_with_its_label_and_does_not_merge(session):
    holder = session.rig.parts["holder"]
    declared = Part(holder.geometry, material=holder.material, at=holder.at, mount=holder.mount,
                    mass=kg(0.01, reason="weighed"))
    steps = len(session.history)
    session.apply(ReplaceItem("parts", "holder", declared, "Mass of holder: declared"))
    session.apply(ReplaceItem("parts", "holder", holder, "Mass of holder: material"))
    assert len(session.history) == steps + 2
    assert session.history.undo_name == "Mass of holder: material"
    with pytest.raises(SessionError):
        session.apply(ReplaceItem("parts", "ghost", declared))


def test_replace_rig_is_one_step_back_to_the_rig_on_disk(session, tmp_path):
    original = session.rig
    other = load(DEMO_RIG)
    other.name = "recovered"
    session.apply(ReplaceRig(other, "Recover autosave"))
    assert session.rig.name == "recovered" and session.modified
    session.undo()
    assert session.rig == original and not session.modified


# -- templates and names -------------------------------------------------------------------------------
def test_every_template_mounts_a_valid_item_on_the_frame(session, tmp_path):
    for key, template in TEMPLATES.items():
        if template.collection == "chain":
            mount = segment_mount(session.rig, "motor", "rotor")
        else:
            mount = "arm.link_3"
        path = {"mesh": str(RESOURCES / "demo" / "meshes" / "base.stl"),
                "urdf": str(RESOURCES / "demo" / "arm.urdf")}.get(template.needs_path)
        value = template.make(mount, path)
        name = unique_name(session.rig, template.base_name)
        session.apply(AddItem(template.collection, name, value))
        assert not session.findings, (key, session.findings)
        if template.collection == "chain":
            assert session.segments[name].mount == ("motor", "rotor")
        else:
            assert session.has_item(ItemRef("arm", template.collection[:-1], name))
        session.undo()


def test_templates_that_need_a_file_refuse_without_one():
    with pytest.raises(ValueError, match="mesh file"):
        TEMPLATES["part.mesh"].make("arm.link_1")
    with pytest.raises(ValueError, match="urdf file"):
        TEMPLATES["segment.arm"].make("tool0")


def test_names_are_unique_across_segments_parts_and_magnets(session):
    rig = session.rig
    assert unique_name(rig, "bracket") == "bracket"
    assert unique_name(rig, "motor") == "motor_2"  # a segment's name is taken for parts too
    assert copy_name(rig, "holder") == "holder_2"
    session.apply(AddItem("parts", "holder_2", rig.parts["holder"]))
    assert copy_name(session.rig, "holder_2") == "holder_3"
    assert copy_name(session.rig, "m1") == "m1_2"


def test_segment_mount_names_the_last_segments_frames_bare():
    rig = load(DEMO_RIG)
    assert segment_mount(rig, "motor", "rotor") == "rotor"
    assert segment_mount(rig, "arm", "link_3") == "arm.link_3"


# -- mass properties -----------------------------------------------------------------------------------
def test_mass_table_sums_links_and_parts_and_weights_the_centre_of_mass(session):
    table = mass_table(session)
    built = session.document.built.report
    arm = next(t for t in table.segments if t.name == "arm")
    assert arm.own == pytest.approx(built.segment("arm")["mass"]["own"], rel=1e-12)
    holder = next(r for r in table.rows if r.name == "holder")
    assert holder.mass == pytest.approx(built.part("holder")["mass"], rel=1e-12)
    assert holder.segment == "motor" and holder.link == "rotor" and holder.kind == "part"
    rotor = session.frame_world_pose("motor", "rotor")
    np.testing.assert_allclose(holder.com, rotor[:3, :3] @ np.array([0, 0, 0.01]) + rotor[:3, 3], atol=1e-12)
    assert table.total.mass == pytest.approx(sum(t.mass for t in table.segments))
    weighted = sum(r.mass * r.com for r in table.rows if r.mass) / table.total.mass
    np.testing.assert_allclose(table.total.com, weighted, atol=1e-12)


def test_mass_table_follows_the_pose_and_counts_a_world_part_and_an_unknown_mass(session):
    before = mass_table(session).total.com
    session.set_joint_positions("arm", {"joint_1": 1.0})
    assert not np.allclose(mass_table(session).total.com, before)
    session.apply(AddItem("parts", "weight", Part(Box((0.1, 0.1, 0.1)), mass=kg(2.0, reason="scale"),
                                                  at=(1.0, 0.0, 0.0))))
    session.apply(AddItem("parts", "ghost", Part(Cylinder(0.01, 0.01), material="unobtainium",
                                                 mount="arm.link_2")))
    table = mass_table(session)
    weight = next(r for r in table.rows if r.name == "weight")
    assert weight.segment == "" and weight.mass == 2.0
    np.testing.assert_allclose(weight.com, [1.0, 0.0, 0.0])
    ghost = next(r for r in table.rows if r.name == "ghost")
    assert ghost.mass is None and "findings" in ghost.source


def test_mass_table_flags_parts_on_a_kinematic_segment_as_not_carried(session):
    session.apply(SetKind("arm", "Arm.Kinematic"))
    session.apply(AddItem("parts", "bracket", Part(Box((0.02, 0.02, 0.01)), material="aluminium",
                                                   mount="arm.link_3")))
    row = next(r for r in mass_table(session).rows if r.name == "bracket")
    assert row.carried is False and row.mass > 0


# -- recovery ------------------------------------------------------------------------------------------
def test_recovery_file_reads_back_equal_and_is_not_pending_while_its_process_lives(tmp_path, session):
    store = RecoveryStore(tmp_path / "rec")
    session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.03)))
    store.write(session.rig, session.path, session.kind)
    assert store.rig_file.is_file() and store.pending() == []  # this process is alive
    meta = store.meta_file.read_text()
    assert str(DEMO_RIG.resolve()) in meta
    store.discard()
    assert not store.rig_file.exists() and not store.meta_file.exists()


def test_recovery_left_by_a_dead_process_is_pending_and_loads_against_its_original_folder(tmp_path):
    folder = tmp_path / "rec"
    code = (f"from mime_gui.rig import load\nfrom mime_gui.session.recovery import RecoveryStore\n"
            f"rig = load({str(DEMO_RIG)!r}); rig.name = 'edited'\n"
            f"RecoveryStore({str(folder)!r}).write(rig, {str(DEMO_RIG)!r}, 'rig')\n")
    subprocess.run([sys.executable, "-c", code], check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    (pending,) = RecoveryStore(folder).pending()
    assert pending.original == str(DEMO_RIG.resolve()) and pending.kind == "rig"
    assert pending.saved_at <= time.time()
    rig = pending.load()
    expected = load(DEMO_RIG)
    expected.name = "edited"
    assert rig == expected  # arm.urdf resolves beside the original, not in the recovery folder
    pending.discard()
    assert RecoveryStore(folder).pending() == []


def test_a_damaged_sidecar_is_skipped_not_fatal(tmp_path):
    folder = tmp_path / "rec"
    folder.mkdir()
    (folder / "1-1.json").write_text("{not json")
    (folder / "1-1.rig.json").write_text("{}")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    (folder / "2-2.json").write_text(f'{{"pid": {gone}, "original": ""}}')  # its rig file is missing
    assert RecoveryStore(folder).pending() == []
    (folder / "2-2.rig.json").write_text("{}")
    assert [r.pid for r in RecoveryStore(folder).pending()] == [int(gone)]


def _mount_on_link_3(session, template) -> str:
    return segment_mount(session.rig, "arm", "link_3") if template.collection == "chain" else "arm.link_3"


def test_every_collection_the_palette_adds_to_shares_the_names_the_rules_keep_apart():
    """The namespace ``unique_name`` and the forms' rename tip use is the one the rules check: for every two
    collections the palette adds to, an item of the second named as one of the first breaks a rule, and
    ``unique_name`` never offers a name taken in any of them."""
    from mime_gui.rig.names import NAMESPACE, NAMESPACE_TEXT

    firsts = {}
    for key, template in TEMPLATES.items():
        if not template.needs_path and not key.startswith("lab."):
            firsts.setdefault(template.collection, template)
    assert set(firsts) == set(NAMESPACE)
    for word in NAMESPACE.values():
        assert word in NAMESPACE_TEXT
    for held, first in firsts.items():
        for added, second in firsts.items():
            session = Session()
            session.open(RESOURCES / "demo" / "demo.rig.json")
            session.apply(AddItem(held, "thing", first.make(_mount_on_link_3(session, first), None)))
            assert unique_name(session.rig, "thing") == "thing_2", held
            item = second.make(_mount_on_link_3(session, second), None)
            # an edit refuses a name taken in any of the collections ...
            with pytest.raises(SessionError) as refused:
                session.apply(AddItem(added, "thing", item))
            assert refused.value.code == "edit.name-taken", (held, added)
            if held == added:
                continue
            # ... and a file that holds such a clash breaks a rule
            rig = copy.copy(session.rig)
            setattr(rig, added, {**getattr(rig, added), "thing": item})
            assert any(f.where.startswith(f"{added}.thing") or f.where.startswith(f"{held}.thing")
                       for f in rig.validate() if "name" in f.code), (held, added)
