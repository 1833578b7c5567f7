"""The 3D view draws from the session's Renderer pushes only: no module of ``mime_gui/app/scene`` listens to
the window's bridge, and the marks and field drawings of parts, magnets and probes never read the session
(they draw from the view's pushed items). Under the window, an edit of one world part makes only its actor
again."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

import mime_gui.app.scene as scene_package
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import Box, Part
from mime_gui.session import AddItem, SetValue

SCENE = Path(scene_package.__file__).parent
#: what draws parts, magnets, probes and the field: from the pushed items only
PUSHED = ("items.py", "world_parts.py", "part_marks.py", "probe_marks.py", "field_plane.py")
#: what these may import of the session: its values, never the Session
SESSION_VALUES = {"mime_gui.session.renderer", "mime_gui.session.items"}


def _names(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return out


def test_no_scene_module_listens_to_the_bridge():
    offenders = [path.name for path in sorted(SCENE.glob("*.py"))
                 if "bridge" in _names(ast.parse(path.read_text(encoding="utf-8")))]
    assert offenders == []


def test_the_marks_and_field_drawings_read_pushed_items_not_the_session():
    for name in PUSHED:
        tree = ast.parse((SCENE / name).read_text(encoding="utf-8"))
        assert "session" not in _names(tree), name
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {m for m in imported if m and m.startswith("mime_gui.session")} - SESSION_VALUES, name
        assert not {m for m in imported if m and m.startswith("mime_gui.app.docks")}, name


def test_an_edit_of_one_world_part_makes_only_its_actor_again(window, demo_copy):
    assert window.open_file(str(demo_copy / "demo.rig.json"))
    wait_until_ready(window)
    session = window.session
    for name, at in (("a", (0.4, 0.0, 0.1)), ("b", (0.4, 0.2, 0.1))):
        session.apply(AddItem("parts", name, Part(Box((0.02, 0.02, 0.02)), material="aluminium", at=at)))
    world = window.assembly.world_parts
    a, b = world.actors["a"], world.actors["b"]
    session.apply(SetValue("parts.a.at", (0.5, 0.0, 0.1)))
    assert world.actors["b"] is b and world.actors["a"] is not a
    np.testing.assert_allclose(np.asarray(world.actors["a"].user_matrix)[:3, 3], (0.5, 0.0, 0.1))
