"""The view state's contracts, pinned as a whole:

* which segment an item is on: a part, magnet or probe fixed in the world is on no segment (whatever name is
  asked), and one mounted on ``<segment>.<frame>`` is on the segment before the first dot, even when the
  frame's own name has a dot in it;
* its refusals (an unknown item, an unknown layer) carry their code, the exact message and no file;
* the centre of mass, while its layer is shown, goes with every push of items: when a document is shown,
  after an edit, and when segments move with no item riding on them (and nothing is pushed then while it is
  hidden);
* an item hidden before a view is attached is pushed to it as hidden with ``visible`` the bool False (the
  :class:`~mime_gui.session.renderer.Renderer` protocol's type).
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Box, Part, PermanentMagnet, Probe
from mime_gui.session import AddItem, FakeRenderer, ItemRef, Session, SessionError, SetValue
from mime_gui.session.mass_properties import document_mass_table
from mime_gui.session.renderer import LAYERS
from mime_gui.session.view_state import has_item

DEMO = RESOURCES / "demo" / "demo.rig.json"
HOLDER = ItemRef("", "part", "holder")


def demo() -> Session:
    session = Session()
    session.open(DEMO)
    return session


def world_com(session: Session) -> np.ndarray:
    return np.asarray(document_mass_table(session.document).total.com, dtype=float)


# -- which segment an item is on ------------------------------------------------------------------------


def test_an_item_fixed_in_the_world_is_on_no_segment():
    session = demo()
    session.apply(AddItem("parts", "plate", Part(Box((0.01, 0.01, 0.01)), material="aluminium")))
    session.apply(AddItem("magnets", "bar", PermanentMagnet(Box((0.01, 0.01, 0.01)), material="NdFeB-N42",
                                                            magnetisation=(0.0, 0.0, 1.0))))
    session.apply(AddItem("probes", "spot", Probe((0.1, 0.0, 0.0))))
    doc = session.document
    for kind, name in (("part", "plate"), ("magnet", "bar"), ("probe", "spot")):
        assert has_item(doc, ItemRef("", kind, name))  # selected by itself
        # no mount: on none of the rig's segments, nor on any other name asked
        for segment in ("arm", "motor", "world", "None"):
            assert not has_item(doc, ItemRef(segment, kind, name)), (kind, segment)
    session.select(ItemRef("", "part", "plate"))
    assert session.view.selection == ItemRef("", "part", "plate")


def test_an_item_on_a_frame_named_with_a_dot_is_on_the_segment_before_the_first_dot(tmp_path):
    # segment names have no dots, a URDF link's name may: "arm.tool.0" is frame "tool.0" of segment "arm"
    shutil.copytree(DEMO.parent, tmp_path / "demo")
    urdf = tmp_path / "demo" / "arm.urdf"
    urdf.write_text(urdf.read_text().replace('"tool0"', '"tool.0"'))
    rig = tmp_path / "demo" / "demo.rig.json"
    rig.write_text(rig.read_text().replace('"tool0"', '"tool.0"'))
    session = Session()
    session.open(rig)
    assert "tool.0" in session.segment("arm").articulation.frame_names
    session.apply(AddItem("parts", "tip", Part(Box((0.01, 0.01, 0.01)), material="aluminium",
                                               mount="arm.tool.0")))
    session.apply(AddItem("probes", "dot", Probe((0.0, 0.0, 0.01), mount="arm.tool.0")))
    doc = session.document
    for kind, name in (("part", "tip"), ("probe", "dot")):
        assert has_item(doc, ItemRef("arm", kind, name))
        assert has_item(doc, ItemRef("", kind, name))
        assert not has_item(doc, ItemRef("arm.tool", kind, name))
        assert not has_item(doc, ItemRef("motor", kind, name))
    # the part selected on its segment's row stays selected after an edit (prune keeps it)
    session.select(ItemRef("arm", "part", "tip"))
    session.apply(SetValue("parts.tip.at", (0.0, 0.0, 0.02)))
    assert session.view.selection == ItemRef("arm", "part", "tip")


# -- refusals -----------------------------------------------------------------------------------------------


def test_the_refusal_of_an_unknown_item_has_its_code_and_message_and_no_file():
    session = demo()
    announced = []
    session.error.connect(announced.append)
    with pytest.raises(SessionError) as err:
        session.select(ItemRef("arm", "part", "nope"))
    assert (err.value.code, err.value.message, err.value.file) == (
        "session.item", "no part 'nope' in segment 'arm'", "")
    assert str(err.value) == "error[session.item] no part 'nope' in segment 'arm'"
    assert announced == [err.value]  # announced on the error event, then raised
    with pytest.raises(SessionError) as err:
        session.set_item_visible(ItemRef("", "probe", "nope"), False)
    assert str(err.value) == "error[session.item] no probe 'nope' in segment ''"


def test_the_refusal_of_an_unknown_layer_lists_the_layers():
    session = demo()
    with pytest.raises(SessionError) as err:
        session.set_layer_visible("shadows", True)
    assert err.value.code == "session.layer" and err.value.file == ""
    assert err.value.message == ("unknown layer 'shadows'; layers: visual, collision, frames, frame_labels, "
                                 "joint_axes, com, inertia, grid, parts")
    assert err.value.message.endswith(", ".join(LAYERS))


# -- the centre of mass with the items ------------------------------------------------------------------


def test_the_centre_of_mass_goes_with_the_items_shown_and_updated_while_its_layer_is_on():
    session = demo()
    session.set_layer_visible("com", True)
    renderer = FakeRenderer()
    session.attach_renderer(renderer)  # the document shown in the view
    shown = renderer.item_changes[-1]
    assert shown.com is not None
    np.testing.assert_allclose(shown.com, world_com(session), rtol=0, atol=1e-15)
    before = world_com(session)
    session.apply(SetValue("parts.holder.at", (0.0, 0.0, 0.05)))  # moves the apparatus's centre of mass
    updated = renderer.item_changes[-1]
    assert renderer.calls.count("update_items") == 1 and updated.com is not None
    np.testing.assert_allclose(updated.com, world_com(session), rtol=0, atol=1e-15)
    assert not np.allclose(updated.com, before)


def test_segments_moving_with_no_item_on_them_push_the_centre_of_mass_only_while_shown():
    session = demo()
    # every item moved off the motor: turning its shaft moves no item
    for path in ("parts.holder.mount", "magnets.m1.mount", "probes.sample.mount"):
        session.apply(SetValue(path, "arm.link_6"))
    renderer = FakeRenderer()
    session.attach_renderer(renderer)
    renderer.calls.clear()
    session.set_joint_positions("motor", {"shaft": 0.5})
    assert "set_frame_poses" in renderer.calls
    assert "set_item_poses" not in renderer.calls  # no pose moved and no centre of mass shown: nothing
    session.set_layer_visible("com", True)
    renderer.calls.clear()
    renderer.com = None
    session.set_joint_positions("motor", {"shaft": 1.0})
    assert renderer.calls.count("set_item_poses") == 1  # the centre of mass, with no pose
    np.testing.assert_allclose(renderer.com, world_com(session), rtol=0, atol=1e-15)


# -- what is hidden, pushed to a view attached later --------------------------------------------------


class VisibilityRecorder(FakeRenderer):
    """A renderer that keeps the exact ``visible`` values it is given."""

    def __init__(self):
        super().__init__()
        self.visibility: list = []

    def set_item_visible(self, item, visible):
        self.visibility.append((item, visible))
        super().set_item_visible(item, visible)


def test_an_item_hidden_before_a_view_is_attached_is_pushed_to_it_as_hidden():
    session = demo()
    session.set_item_visible(HOLDER, False)
    renderer = VisibilityRecorder()
    session.attach_renderer(renderer)
    assert renderer.visibility == [(HOLDER, False)]
    assert renderer.visibility[0][1] is False  # the protocol's bool, not merely something falsy
    assert renderer.hidden == {HOLDER}
