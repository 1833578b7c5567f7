"""Every arrow points down: an AST walk over ``mime_gui/`` finds every import of the package's own modules
(at the top of a module or inside a function) and fails on one from a higher layer, and on any cycle between
modules. The layers, lowest first, are :data:`LAYERS`; a module in no layer fails too, so a new one is placed
on purpose.

A grafted part's link is named ``part:<name>`` by the build alone; what a link stands for is read from the
build's map (``BuiltSegment.grafts``, the session's ``Segment.item_of``), never decoded from its name.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mime_gui"
#: where each installed package's source lives: the bundled data sits at the top of the repository
FOLDERS = {"mime_gui": PACKAGE, "mime_gui.resources": ROOT / "resources"}

#: lowest first; a module may import its own layer's modules and any lower layer's, never a higher one's
LAYERS = (
    # the doors and the coded error, below everything
    ("mime_gui", "mime_gui._package", "mime_gui.errors", "mime_gui.magnitudes", "mime_gui.inputs",
     "mime_gui.files", "mime_gui.mesh_files"),
    ("mime_gui.multibody",),
    ("mime_gui.nodes",),
    ("mime_gui.rig",),
    ("mime_gui.field",),  # the magnets' field: reads a built rig
    ("mime_gui.sweep",),  # design sweeps: variants of a rig evaluated for findings, field and torques
    ("mime_gui.session",),
    ("mime_gui.cli", "mime_gui.app"),  # the two front ends (the command line opens the window)
    ("mime_gui.__main__", "mime_gui.resources"),  # the entry point; the package's data and its scripts
)


def _modules() -> dict[str, Path]:
    out = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = [*package.split("."), *path.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = _modules()


def _layer(module: str) -> int | None:
    """The layer of ``module``: that of the longest name in :data:`LAYERS` it is or lies under."""
    best, found = -1, None
    for i, names in enumerate(LAYERS):
        for name in names:
            under = module == name or (name != "mime_gui" and module.startswith(name + "."))
            if under and len(name) > best:
                best, found = len(name), i
    return found


def _imports(module: str, path: Path) -> list[tuple[str, int]]:
    """``(imported module, line)`` of every import of the package in ``module``; ``from a import b`` is
    ``a.b`` when that is a module, else ``a``."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "mime_gui"]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            if base.split(".")[0] != "mime_gui":
                continue
            out += [(f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base, node.lineno)
                    for a in node.names]
    return out


GRAPH = {m: {t for t, _ in _imports(m, p) if t in MODULES and t != m} for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer(m) is None] == []


def test_no_module_imports_from_a_higher_layer():
    upward = [f"{MODULES[m].relative_to(ROOT)}:{line} imports {target} (layer {_layer(target)} > {_layer(m)})"
              for m in MODULES for target, line in _imports(m, MODULES[m])
              if target in MODULES and (_layer(target) or 0) > (_layer(m) or 0)]
    assert upward == []


def test_no_import_cycle_between_modules():
    assert _cycles(GRAPH) == []


def test_the_checks_see_an_arrow_up_and_a_cycle():
    assert _layer("mime_gui.multibody._kernels") < _layer("mime_gui.rig.torques")
    assert _layer("mime_gui.rig.build") == _layer("mime_gui.rig") and _layer("mime_gui.errors") == 0
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


#: decoding a part's name from its link's name: what BuiltSegment.grafts and Segment.item_of are for
DECODING = re.compile(r"len\(GRAFT_PREFIX\)|removeprefix\(GRAFT_PREFIX|startswith\(GRAFT_PREFIX"
                      r"|GRAFT_PREFIX\)\s*:|[\"']part:[\"']")


def test_only_the_build_spells_or_decodes_a_graft_link_name():
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for path in MODULES.values() if path != PACKAGE / "rig" / "build.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if DECODING.search(line)]
    assert found == []
    assert DECODING.search('name[len(GRAFT_PREFIX):]') and DECODING.search('link.startswith(GRAFT_PREFIX)')
    assert DECODING.search('name.removeprefix(GRAFT_PREFIX)') and DECODING.search('link = "part:" + name')


def test_a_built_segment_knows_what_its_graft_links_stand_for():
    from mime_gui.rig import load
    from mime_gui.rig.build import build, display_segments

    rig = load(ROOT / "resources" / "demo" / "demo.rig.json")
    built = rig.build()
    mounted = {(c, n) for c, n, p in rig.solids() if p.mount is not None}
    assert mounted and {item for s in built.segments.values() for item in s.grafts.values()} == mounted
    for segment in built.segments.values():
        assert set(segment.grafts) == segment.tree.part_links
        for link, item in segment.grafts.items():
            assert segment.link_of(item) == link
            assert getattr(rig, item[0])[item[1]].mount.startswith(segment.name + ".")
    assert {n: s.grafts for n, s in display_segments(rig).items()} == {n: s.grafts for n, s in
                                                                       built.segments.items()}
    reuse = {n: (s.tree, s.articulation) for n, s in built.segments.items()}
    assert {n: s.grafts for n, s in build(rig, reuse=reuse).segments.items()} == \
        {n: s.grafts for n, s in built.segments.items()}


def test_the_warm_up_compiles_the_version_every_caller_uses():
    """The kernels' warm-up (``python -m mime_gui.multibody._kernels``) builds its own arguments so it
    imports nothing above its layer; the node's, the torques' and the inverse kinematics' calls then find
    its version."""
    from mime_gui.multibody import _kernels
    from mime_gui.multibody.urdf import read_urdf
    from mime_gui.nodes.dynamic import DynamicArmNode
    from mime_gui.rig.torques import segment_torques

    _kernels.warm()
    art = read_urdf(_kernels._WARM_URDF).compile()
    for integrator in ("euler", "rk4"):
        DynamicArmNode(art, integrator=integrator).play(np.zeros((2, art.nq)), 1e-3)
    segment_torques(art, np.zeros((2, art.nq)), np.zeros(art.nq), 1e-3)
    segment_torques(art, np.zeros((2, art.nq)), np.zeros(art.nq), 1e-3, np.tile(np.eye(4), (2, 1, 1)),
                    np.eye(4), np.zeros((2, 3)))
    assert len(_kernels.forward_rollout.signatures) == 1
    assert len(_kernels.rnea_rollout.signatures) == 1
    # inverse kinematics: one articulation's frame, position only, and a frame riding on another
    from mime_gui.multibody import frame_poses
    from mime_gui.multibody import inverse_kinematics as ik

    target = frame_poses(art, [0.3])[art.frame_index("arm")]
    assert ik.solve(art, [0.0], "arm", target).converged
    ik.solve(art, [0.0], "arm", target[:3, 3], orientation=False)
    rider = ik.Mounted(ik.ArticulationFrame(art, "arm"), np.eye(4), ik.ArticulationFrame(art, "arm"))
    assert ik.solve_frame(rider, [0.0, 0.0], frame_poses(art, [0.6])[art.frame_index("arm")]).converged
    for kernel in (_kernels.ik_frame, _kernels.ik_error, _kernels.ik_step):
        assert len(kernel.signatures) == 1, kernel
