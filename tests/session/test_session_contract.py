"""The Session's contract through its public API: a caller's array is copied, every element is checked, what
survives an open, a reload, a close and a refusal, and the payload of every event."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mime_gui import RESOURCES, rig
from mime_gui.multibody import frame_poses
from mime_gui.session import FakeRenderer, ItemRef, Session, SessionError

TWO_JOINTS = """<robot name="{name}">
  <link name="base"/><link name="upper"/><link name="lower"/>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="{lo}" upper="{hi}" effort="1" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="lower"/>
    <origin xyz="0.2 0 0"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""


def write(path, name="two", lo=-2.0, hi=2.0, extra_joint=False):
    text = TWO_JOINTS.format(name=name, lo=lo, hi=hi)
    if extra_joint:
        text = text.replace("</robot>", """<link name="tip"/>
  <joint name="wrist" type="revolute"><parent link="lower"/><child link="tip"/><axis xyz="1 0 0"/>
    <limit lower="0.25" upper="1" effort="1" velocity="1"/></joint></robot>""")
    path.write_text(text)
    return path


class Events:
    """Every event of a session, in order, with its payload."""

    NAMES = ("document_changed", "poses_changed", "selection_changed", "layers_changed",
             "visibility_changed", "error")

    def __init__(self, session: Session):
        self.log: list[tuple] = []
        for name in self.NAMES:
            getattr(session, name).connect(lambda *args, _n=name: self.log.append((_n, *args)))

    def take(self) -> list[tuple]:
        out, self.log = self.log, []
        return out


@pytest.fixture
def opened(tmp_path):
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open(write(tmp_path / "two.urdf"))
    return s


# -- joint positions -----------------------------------------------------------------------------------------
def test_the_callers_array_is_copied_not_kept(opened):
    q = np.array([0.5, -0.25])
    opened.set_joint_positions("two", q)
    pose = opened.frame_world_pose("two", "lower")
    q[:] = [1.5, 0.75]  # the caller reuses its buffer
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.5, -0.25])
    np.testing.assert_array_equal(opened.frame_world_pose("two", "lower"), pose)
    opened.set_joint_positions("two", {"elbow": 0.1})  # a later partial update starts from the copy
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.5, 0.1])


def test_what_the_session_hands_out_is_a_copy(opened):
    opened.set_joint_positions("two", [0.5, -0.25])
    opened.joint_positions("two")[:] = 9.0
    opened.frame_world_pose("two", "lower")[:] = 0.0
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.5, -0.25])
    art = opened.segment("two").articulation
    expected = frame_poses(art, np.array([0.5, -0.25]))[art.frame_index("lower")]
    np.testing.assert_allclose(opened.frame_world_pose("two", "lower"), expected, atol=1e-15)


@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_every_element_must_be_finite(opened, index, bad):
    opened.set_joint_positions("two", [0.5, -0.25])
    events = Events(opened)
    q = [0.1, 0.2]
    q[index] = bad
    with pytest.raises(SessionError) as info:
        opened.set_joint_positions("two", q)
    assert info.value.code == "session.q-non-finite"
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.5, -0.25])
    assert events.take() == [("error", info.value)]


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_named_value_must_be_finite_too(opened, bad):
    with pytest.raises(SessionError) as info:
        opened.set_joint_positions("two", {"elbow": bad})
    assert info.value.code == "session.q-non-finite"
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.0, 0.0])


@pytest.mark.parametrize("q", [[0.1], [0.1, 0.2, 0.3], [[0.1, 0.2]], 0.1])
def test_an_array_of_another_shape_is_refused(opened, q):
    with pytest.raises(SessionError) as info:
        opened.set_joint_positions("two", q)
    assert info.value.code == "session.q-shape"
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.0, 0.0])


def test_an_unknown_joint_or_segment_is_refused_by_code(opened):
    with pytest.raises(SessionError) as info:
        opened.set_joint_positions("two", {"knee": 0.1})
    assert info.value.code == "session.joint"
    with pytest.raises(SessionError) as info:
        opened.set_joint_positions("three", [0.0, 0.0])
    assert info.value.code == "session.segment"
    assert info.value.message == "no segment 'three'; segments: two"


def test_positions_are_forwarded_as_the_poses_they_give(opened):
    r = opened.renderer
    renders = r.renders
    opened.set_joint_positions("two", [0.3, 0.4])
    art = opened.segment("two").articulation
    np.testing.assert_allclose(r.poses["two"], frame_poses(art, np.array([0.3, 0.4])), atol=1e-15)
    assert r.renders == renders + 1


# -- events --------------------------------------------------------------------------------------------------
def test_open_announces_the_document_then_the_selection(tmp_path):
    s = Session()
    events = Events(s)
    doc = s.open(write(tmp_path / "a.urdf"))
    assert events.take() == [("document_changed", doc), ("selection_changed", None)]
    assert s.document is doc


def test_each_setter_announces_its_own_change_once_and_nothing_when_nothing_changes(opened):
    events = Events(opened)
    item = ItemRef("two", "link", "upper")
    opened.set_joint_positions("two", [0.1, 0.2])
    opened.select(item)
    opened.select(item)
    opened.set_layer_visible("frames", True)
    opened.set_layer_visible("frames", 1)
    opened.set_item_visible(item, False)
    opened.set_item_visible(item, 0)
    opened.set_item_visible(item, True)
    opened.select(None)
    assert events.take() == [
        ("poses_changed", "two"),
        ("selection_changed", item),
        ("layers_changed", "frames", True),
        ("visibility_changed", item, False),
        ("visibility_changed", item, True),
        ("selection_changed", None),
    ]
    assert type(opened.layers["frames"]) is bool


def test_riders_are_announced_after_their_mount():
    s = Session()
    demo = rig.Apparatus("bench", chain={
        "arm": rig.Arm.Kinematic(description=str(RESOURCES / "demo" / "arm.urdf")),
        "motor": rig.Motor.Kinematic(mount="link_6"),
        "spinner": rig.Motor.Kinematic(mount="rotor"),
    })
    s.open_apparatus(demo)
    events = Events(s)
    s.set_joint_positions("motor", [0.3])
    assert events.take() == [("poses_changed", "motor"), ("poses_changed", "spinner")]
    s.set_joint_positions("spinner", [0.3])
    assert events.take() == [("poses_changed", "spinner")]
    s.set_joint_positions("arm", np.zeros(6))
    assert events.take() == [("poses_changed", name) for name in ("arm", "motor", "spinner")]


@pytest.mark.parametrize("call, code", [
    (lambda s: s.select(ItemRef("two", "link", "nope")), "session.item"),
    (lambda s: s.select(ItemRef("other", "link", "upper")), "session.item"),
    (lambda s: s.set_item_visible(ItemRef("two", "joint", "upper"), False), "session.item"),
    (lambda s: s.set_layer_visible("labels", True), "session.layer"),
])
def test_a_refused_command_emits_one_error_and_changes_nothing(opened, call, code):
    events = Events(opened)
    before = (opened.selection, dict(opened.layers), set(opened.hidden))
    with pytest.raises(SessionError) as info:
        call(opened)
    assert info.value.code == code
    assert events.take() == [("error", info.value)]
    assert (opened.selection, opened.layers, opened.hidden) == before


def test_items_are_checked_by_kind(opened):
    assert opened.has_item(ItemRef("two", "link", "upper"))
    assert opened.has_item(ItemRef("two", "joint", "elbow"))
    assert opened.has_item(ItemRef("two", "frame", "lower"))
    assert not opened.has_item(ItemRef("two", "link", "elbow"))
    assert not opened.has_item(ItemRef("two", "joint", "upper"))
    assert not opened.has_item(ItemRef("two", "frame", "elbow"))
    assert not opened.has_item(ItemRef("two", "bolt", "upper"))


# -- what survives -------------------------------------------------------------------------------------------
def test_a_refused_open_keeps_document_selection_hidden_items_and_positions(opened, tmp_path):
    item = ItemRef("two", "link", "lower")
    opened.set_joint_positions("two", [0.3, 0.4])
    opened.select(item)
    opened.set_item_visible(item, False)
    doc = opened.document
    events = Events(opened)
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'/><joint name='j' type='revolute'/></robot>")
    for path, code in [(bad, "urdf.missing-link"), (tmp_path, "file.kind"), (tmp_path / "none.urdf",
                                                                            "file.not-found"),
                       (tmp_path / "two.txt", "file.not-found")]:
        with pytest.raises(SessionError) as info:
            opened.open(path)
        assert info.value.code == code
        assert events.take() == [("error", info.value)]
    assert opened.document is doc
    assert (opened.selection, opened.hidden) == (item, {item})
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.3, 0.4])


def test_a_folder_is_refused_as_a_folder_even_when_named_like_a_file(opened, tmp_path):
    folder = tmp_path / "looks.urdf"
    folder.mkdir()
    with pytest.raises(SessionError) as info:
        opened.open(folder)
    assert info.value.code == "file.kind"
    assert "folder" in info.value.message


def test_opening_another_file_keeps_the_items_it_also_has(opened, tmp_path):
    kept, lost = ItemRef("two", "joint", "elbow"), ItemRef("two", "link", "upper")
    opened.set_item_visible(kept, False)
    opened.set_item_visible(lost, False)
    opened.select(lost)
    renamed = tmp_path / "other.urdf"
    renamed.write_text(TWO_JOINTS.format(name="two", lo=-2, hi=2).replace('"upper"', '"arm"'))
    opened.open(renamed)
    assert opened.hidden == {kept}
    assert opened.selection is None
    assert opened.renderer.hidden == {kept}  # the new scene is told what stays hidden
    assert opened.renderer.highlighted is None


def test_a_closed_document_leaves_nothing_hidden_or_selected_for_the_next(opened, tmp_path):
    item = ItemRef("two", "link", "upper")
    opened.set_item_visible(item, False)
    opened.select(item)
    events = Events(opened)
    opened.close()
    assert events.take() == [("document_changed", None), ("selection_changed", None)]
    assert (opened.document, opened.selection, opened.hidden) == (None, None, set())
    opened.open(tmp_path / "two.urdf")  # the same file again
    assert opened.hidden == set() and opened.selection is None
    assert opened.is_item_visible(item)


def test_reload_keeps_positions_hidden_items_and_selection(opened):
    item = ItemRef("two", "link", "lower")
    opened.set_joint_positions("two", [0.3, 0.4])
    opened.set_item_visible(item, False)
    opened.select(item)
    doc = opened.reload()
    assert doc is opened.document
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.3, 0.4])
    assert (opened.selection, opened.hidden) == (item, {item})
    art = opened.segment("two").articulation
    np.testing.assert_allclose(opened.renderer.poses["two"], frame_poses(art, np.array([0.3, 0.4])))


@pytest.mark.parametrize("q, lo, hi, expected", [
    (1.5, -0.5, 0.5, 0.5), (-1.5, -0.5, 0.5, -0.5), (0.5, -0.5, 0.5, 0.5), (0.25, -0.5, 0.5, 0.25),
    (0.25, 0.3, 0.5, 0.3),
])
def test_reload_clips_kept_positions_into_the_new_limits(opened, tmp_path, q, lo, hi, expected):
    opened.set_joint_positions("two", [q, 0.2])
    write(tmp_path / "two.urdf", lo=lo, hi=hi)
    opened.reload()
    np.testing.assert_array_equal(opened.joint_positions("two"), [expected, 0.2])
    art = opened.segment("two").articulation
    np.testing.assert_allclose(opened.renderer.poses["two"], frame_poses(art, np.array([expected, 0.2])))


def test_reload_starts_a_new_joint_inside_its_limits_and_forgets_a_removed_one(opened, tmp_path):
    opened.set_joint_positions("two", [0.3, 0.4])
    write(tmp_path / "two.urdf", extra_joint=True)
    opened.reload()
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.3, 0.4, 0.25])
    write(tmp_path / "two.urdf")
    opened.reload()
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.3, 0.4])


def test_reload_of_a_renamed_robot_starts_from_its_initial_positions(opened, tmp_path):
    opened.set_joint_positions("two", [0.3, 0.4])
    write(tmp_path / "two.urdf", name="renamed")
    opened.reload()
    assert list(opened.segments) == ["renamed"]
    np.testing.assert_array_equal(opened.joint_positions("renamed"), [0.0, 0.0])


def test_a_refused_reload_keeps_everything(opened, tmp_path):
    opened.set_joint_positions("two", [0.3, 0.4])
    doc = opened.document
    (tmp_path / "two.urdf").write_text("<robot")
    with pytest.raises(SessionError) as info:
        opened.reload()
    assert info.value.code == "urdf.xml"
    assert opened.document is doc
    np.testing.assert_array_equal(opened.joint_positions("two"), [0.3, 0.4])


def test_nothing_to_reload_without_a_document():
    s = Session()
    events = Events(s)
    assert s.reload() is None
    assert events.take() == []


def test_a_late_renderer_receives_layers_hidden_items_highlight_and_poses(opened):
    item = ItemRef("two", "link", "lower")
    opened.set_layer_visible("com", True)
    opened.set_item_visible(item, False)
    opened.select(item)
    opened.set_joint_positions("two", [0.3, 0.4])
    late = FakeRenderer()
    opened.attach_renderer(late)
    assert late.layers["com"] is True and late.layers["collision"] is False
    assert late.hidden == {item} and late.highlighted == item
    art = opened.segment("two").articulation
    np.testing.assert_allclose(late.poses["two"], frame_poses(art, np.array([0.3, 0.4])))
