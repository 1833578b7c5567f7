"""The session as a composition: four components, each with its own state and events; the session's events
are its components'; nothing outside the session package writes a component's state."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from mime_gui import RESOURCES
from mime_gui.session import ItemRef, Session
from mime_gui.session.documents import Documents
from mime_gui.session.editing import Editing
from mime_gui.session.events import Event
from mime_gui.session.motion import Motion
from mime_gui.session.view_state import ViewState

PACKAGE = Path(__file__).resolve().parents[2] / "mime_gui"
EVENTS = {
    "documents": ("document_changed",),
    "editing": ("rig_changed", "findings_changed", "history_changed"),
    "motion": ("poses_changed", "stepped", "drive_changed"),
    "view": ("selection_changed", "layers_changed", "visibility_changed", "measures_changed"),
}


def test_each_event_is_its_components_own():
    session = Session()
    assert (type(session.documents), type(session.editing), type(session.motion), type(session.view)) == \
        (Documents, Editing, Motion, ViewState)
    seen = set()
    for component, names in EVENTS.items():
        for name in names:
            event = getattr(getattr(session, component), name)
            assert getattr(session, name) is event and event.name == name
            seen.add(name)
    others = {n for n, v in vars(session).items() if type(v).__name__ == "Event"} - seen
    assert others == {"error"}  # the one every component refuses through


@pytest.mark.parametrize("name", ["document", "selection", "layers", "hidden", "history", "renderer"])
def test_the_state_is_read_only_from_outside(name):
    session = Session()
    with pytest.raises(AttributeError):
        setattr(session, name, None)


def test_what_the_session_hands_out_is_no_handle_on_its_state():
    session = Session()
    session.open(RESOURCES / "demo" / "demo.rig.json")
    session.layers["frames"] = not session.layers["frames"]
    assert session.layers == session.view.layers and session.layers["frames"] == session.view.layers["frames"]
    item = ItemRef("arm", "link", next(iter(session.segment("arm").tree.links)))
    session.set_item_visible(item, False)
    assert session.hidden == {item}
    with pytest.raises(AttributeError):
        session.hidden.add(ItemRef("arm", "segment", "arm"))  # a frozenset


def test_a_document_read_but_not_yet_shown_holds_a_4x4_pose_for_each_frame():
    # read, it is drawn; the chain node puts its frames only once it is shown: until then each segment
    # still holds a (frames, 4, 4) stack of transforms, the shape every reader of the poses takes
    doc = Documents(Event("error")).read(str(RESOURCES / "demo" / "demo.rig.json"))
    assert set(doc.segments) == {"arm", "motor"}
    for seg in doc.segments.values():
        assert seg.world_X_frame.shape == (seg.articulation.nframes, 4, 4)


def _assigned_session_attributes(tree: ast.AST) -> list[str]:
    """``session.x = …`` and ``self.session.x = …`` (also augmented), and ``session.component.x = …``."""
    out = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            if not isinstance(target, ast.Attribute):
                continue
            text = ast.unparse(target.value)
            if text.split(".")[-1] == "session" or ".session." in f".{text}." and text.endswith(
                    tuple(f"session.{p}" for p in EVENTS)):
                out.append(ast.unparse(target))
    return out


def test_nothing_outside_the_session_writes_its_state():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "session":
            continue
        for text in _assigned_session_attributes(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(PACKAGE)}: {text}")
    assert found == []


def test_the_walk_finds_such_writes():
    tree = ast.parse("self.session.recording = True\nsession.selection = None\nself.session.view.x += 1\n"
                     "self.sessions = 1\nwidget.session = s\n")
    assert _assigned_session_attributes(tree) == ["self.session.recording", "session.selection",
                                                  "self.session.view.x"]
