"""The parts of the window share one services object and the registry's docks: none finds another through an
attribute looked up on the window or set on it (an AST walk over ``mime_gui/app``), and the window makes
every dock from the registry with the same services."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "mime_gui" / "app"
WINDOW = APP / "main_window.py"
#: how the parts name the window they are given
WINDOW_NAMES = {"window", "w", "win", "self.window", "self.window()", "self.panel.window()"}


def _is_window(node) -> bool:
    return ast.unparse(node) in WINDOW_NAMES or ast.unparse(node).endswith(".window()")


def reaches_through_window(source: str, *, own_window: bool = False) -> list[str]:
    """Lookups on the window (``getattr(window, …)``, ``hasattr``, ``setattr``) and, unless the module is
    the window's own, attributes set on it."""
    found = []
    for node in ast.walk(ast.parse(source)):
        lookup = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("getattr", "hasattr", "setattr")
        if lookup and node.args and _is_window(node.args[0]):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else []
        for target in targets:
            if not own_window and isinstance(target, ast.Attribute) and _is_window(target.value):
                found.append(f"{node.lineno}: {ast.unparse(target)} = …")
    return found


def test_no_part_of_the_window_reaches_another_through_the_window():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(APP.rglob("*.py"))
             for line in reaches_through_window(path.read_text(encoding="utf-8"), own_window=path == WINDOW)]
    assert found == [], "use the services (app/services.py) or the registry's docks:\n" + "\n".join(found)


def test_the_window_keeps_its_parts_from_its_constructor_only():
    tree = ast.parse(WINDOW.read_text(encoding="utf-8"))
    window = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MainWindow")
    parts = {"services", "docks", "assembly", "driving", "field_views", "file_watch"}
    where = {}
    for method in (n for n in window.body if isinstance(n, ast.FunctionDef)):
        for node in ast.walk(method):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and ast.unparse(target.value) == "self" \
                            and target.attr in parts:
                        where.setdefault(target.attr, set()).add(method.name)
    assert where == {part: {"__init__"} for part in parts}


@pytest.mark.parametrize(("source", "count"), [
    ("x = getattr(window, 'assembly', None)", 1),
    ("x = getattr(getattr(window, 'assembly', None), 'validation', None)", 1),
    ("x = getattr(self.panel.window(), 'field_views', None)", 1),
    ("ok = hasattr(self.window, 'driving')", 1),
    ("window.driving = Driving(window)", 1),
    ("w = self.window\nw.extra: int = 1", 1),
    ("x = getattr(window.scene, 'plotter', None)", 0),  # the view's own optional parts: not another part
    ("self.driving = Driving(window)", 0),
])
def test_the_walk_sees_a_lookup_or_an_attribute_set_on_the_window(source, count):
    assert len(reaches_through_window(source)) == count


def test_every_dock_comes_from_the_registry_with_the_window_s_services(window):
    from mime_gui.app.docks import registry

    assert list(window.docks) == [d.name for d in registry.DOCKS]
    for entry in registry.DOCKS:
        dock = window.docks[entry.name]
        assert isinstance(dock, registry.factory(entry)) and dock.parent() is window
    services = window.services
    assert window.driving.transport is services.transport and window.driving.clock is services.clock
    assert window.driving.player.transport is services.transport
    assert window.field_views.plane_action is services.field_plane
    assert window.properties_dock.forms.field_plane is services.field_plane
