"""One door each, enforced: an AST walk over ``mime_gui/`` finds every call that reads a file without
:mod:`mime_gui.inputs` (regular files only, within a size limit), writes one without
:func:`mime_gui.files.write_atomic` (FIFOs refused, links written through, any legal name) or turns text
into a number without :func:`mime_gui.magnitudes.parse_float`.

The few calls that are legitimate are in :data:`ALLOWED`, each with why; an entry that no longer matches a
call fails too, so the list cannot rot. The checker itself is tried on small sources, one per kind of bypass,
so a blind spot in it fails here rather than letting a real bypass through.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "mime_gui"
#: the bundled data, installed as mime_gui.resources: its scripts ship in the package too
RESOURCES = ROOT / "resources"

#: where each door is: the one place its kind of call belongs
DOORS = {"read": "mime_gui/inputs.py", "write": "mime_gui/files.py",
         "number": "mime_gui/magnitudes.py"}

#: (module, kind, the call as ast.unparse writes it) → why it may bypass the door
ALLOWED = {
    ("mime_gui/_package.py", "read", "pyproject.read_text(encoding='utf-8')"):
        "the version of a source tree never installed, from the project's own pyproject.toml",
    ("mime_gui/_package.py", "read", "entry.read_bytes()"):
        "the package's own resources, read from its zip archive",
    ("mime_gui/_package.py", "write", "(target / entry.name).write_bytes(entry.read_bytes())"):
        "the package's resources copied out of a zip import into a new folder of its own (mkdtemp)",
    ("mime_gui/rig/actuators.py", "read", "ACTUATORS_FILE.read_text(encoding='utf-8')"):
        "the bundled example actuators shipped inside the package",
    ("mime_gui/rig/materials.py", "read", "MATERIALS_FILE.read_text(encoding='utf-8')"):
        "the bundled materials table shipped inside the package",
    ("mime_gui/rig/bundle.py", "write", "target.write_bytes(inputs.read_bytes(ref.path, ref.kind))"):
        "staging a bundle in a new folder of its own (TemporaryDirectory), read through inputs",
    ("mime_gui/rig/bundle.py", "write", "(stage / RIG_NAME).write_text(dumps_export(bundled, stage), "
                                        "encoding='utf-8')"):
        "staging a bundle in a new folder of its own (TemporaryDirectory)",
    ("mime_gui/rig/bundle.py", "read", "(stage / name).read_bytes()"):
        "the staged copies just written into the bundle's own temporary folder",
    ("mime_gui/rig/bundle.py", "write", "os.open(target, flags, 420)"):
        "extracting into a new folder of its own with O_EXCL | O_NOFOLLOW: it never replaces a file",
    ("mime_gui/rig/bundle.py", "write", "os.fdopen(fd, 'wb')"):
        "the file just made with O_EXCL | O_NOFOLLOW in the bundle's own new folder",
    ("mime_gui/files.py", "read", "os.open(folder, os.O_RDONLY)"):
        "the writer opens the folder it renamed into, to flush the rename (fsync); no file is read",
    ("mime_gui/rig/bundle.py", "read", "zipfile.ZipFile(path)"):
        "the zip is examined with inputs.check first; zipfile needs to seek, so it gets the path",
}

#: modules not walked, with why
SKIPPED = {
    "resources/demo/make_commands.py": "a maintainer's script that writes the demo's command files; "
                                       "the program never runs it",
}

_READ_CALLS = {"io.open", "np.load", "numpy.load", "np.loadtxt", "numpy.loadtxt", "np.genfromtxt",
               "numpy.genfromtxt", "np.fromfile", "numpy.fromfile", "json.load", "tomllib.load",
               "pickle.load", "trimesh.load", "trimesh.load_mesh", "pv.read", "pyvista.read", "Image.open",
               "PIL.Image.open", "imageio.imread", "imageio.v3.imread", "ET.parse", "ElementTree.parse",
               "etree.parse"}
_WRITE_CALLS = {"np.save", "numpy.save", "np.savez", "numpy.savez", "np.savez_compressed",
                "numpy.savez_compressed", "np.savetxt", "numpy.savetxt", "json.dump", "pickle.dump",
                "shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.move",
                "shutil.copyfileobj", "os.replace", "os.rename", "os.link", "os.fdopen"}
_READ_METHODS = {"read_text", "read_bytes"}
_WRITE_METHODS = {"write_text", "write_bytes", "tofile"}
#: receivers whose ``.save()`` is the project's own (a session, its documents, a recording): write_atomic
_OWN_SAVERS = {"session", "documents", "rec", "recorder"}
#: receivers whose ``.open()`` shows a window, not a file (QDialog.open)
_WINDOW = re.compile(r"(dialog|box)$", re.IGNORECASE)
#: methods that give text
_TEXT_METHODS = {"strip", "lstrip", "rstrip", "group", "text", "decode", "lower", "upper", "replace",
                 "removeprefix", "removesuffix", "readline", "toPlainText", "currentText", "getenv"}
_NUMBER_TYPES = {"float", "int", "np.float64", "np.int64", "numpy.float64", "numpy.int64"}
_MEMORY = {"BytesIO", "StringIO", "wrap_as_stream", "QBuffer"}


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _mode(call: ast.Call, position: int) -> str | None:
    """The mode string of an ``open``-like call (positional ``position`` or ``mode=``); None when unset,
    '?' when it is not a literal."""
    node = call.args[position] if len(call.args) > position else next(
        (k.value for k in call.keywords if k.arg == "mode"), None)
    if node is None:
        return None
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else "?"


def _writes(mode: str | None) -> bool:
    return mode is not None and (mode == "?" or any(c in mode for c in "wax+"))


def _only_text(annotation) -> bool:
    """An annotation that admits text and nothing else but None (``str``, ``str | None``)."""
    kinds = {k.strip() for k in ast.unparse(annotation).strip("'\"").split("|")} - {"None"}
    return kinds == {"str"}


def _in_memory(call: ast.Call) -> bool:
    first = call.args[0] if call.args else None
    return isinstance(first, ast.Call) and _dotted(first.func).split(".")[-1] in _MEMORY


class _Module:
    def __init__(self, source: str):
        self.tree = ast.parse(source)
        self.parent: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
        self.callbacks = self._atomic_callbacks()
        self._scopes: dict[ast.AST, dict] = {}

    def _atomic_callbacks(self) -> set[ast.AST]:
        """Lambdas and functions handed to write_atomic (or files.stage): they write to the file object it
        gives them."""
        names, out = set(), set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and _dotted(node.func).split(".")[-1] in ("write_atomic", "stage"):
                for arg in node.args[1:]:
                    if isinstance(arg, ast.Lambda):
                        out.add(arg)
                    elif isinstance(arg, ast.Name):
                        names.add(arg.id)
        out |= {n for n in ast.walk(self.tree) if isinstance(n, ast.FunctionDef) and n.name in names}
        return out

    def ancestors(self, node):
        while node in self.parent:
            node = self.parent[node]
            yield node

    def scope(self, node) -> ast.AST:
        return next((a for a in self.ancestors(node) if isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef
                                                                   | ast.Lambda)), self.tree)

    def in_callback(self, call: ast.Call) -> bool:
        """Inside a write_atomic callback and handed the callback's file object."""
        for a in self.ancestors(call):
            if a in self.callbacks:
                params = {p.arg for p in a.args.args}
                return any(isinstance(x, ast.Name) and x.id in params for x in call.args)
        return False

    def bindings(self, scope: ast.AST) -> dict:
        """name → what it is bound to in ``scope``: ('param', annotation), ('value', expr) or ('item',
        iterable)."""
        if scope in self._scopes:
            return self._scopes[scope]
        out: dict[str, list] = {}
        if not isinstance(scope, ast.Module):
            for p in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]:
                out.setdefault(p.arg, []).append(("param", p.annotation))
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    self._bind(out, t, ("value", node.value))
            elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and node.value is not None:
                self._bind(out, node.target, ("value", node.value))
            elif isinstance(node, ast.For | ast.comprehension):
                self._bind(out, node.target, ("item", node.iter))
        self._scopes[scope] = out
        return out

    @staticmethod
    def _bind(out: dict, target, how) -> None:
        if isinstance(target, ast.Name):
            out.setdefault(target.id, []).append(how)
        elif isinstance(target, ast.Tuple | ast.List):
            value = how[1]
            if how[0] == "value" and isinstance(value, ast.Tuple | ast.List) \
                    and len(value.elts) == len(target.elts):
                for t, v in zip(target.elts, value.elts, strict=True):  # a, b = x, y: pair by pair
                    _Module._bind(out, t, ("value", v))
            else:
                for t in target.elts:  # unpacked: each name holds an item of the value
                    _Module._bind(out, t, ("item", value))

    def text_like(self, node, scope, seen=frozenset()) -> bool:
        """Whether ``node`` holds text (a typed or read number before it is parsed)."""
        if isinstance(node, ast.Constant | ast.JoinedStr):
            return False  # the program's own text ('inf', 'nan'), not a user's
        if isinstance(node, ast.BoolOp):
            return any(self.text_like(v, scope, seen) for v in node.values)
        if isinstance(node, ast.IfExp):
            return self.text_like(node.body, scope, seen) or self.text_like(node.orelse, scope, seen)
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name in ("input", "str", "os.getenv", "os.environ.get", "environ.get"):
                return True
            return isinstance(node.func, ast.Attribute) and node.func.attr in _TEXT_METHODS
        if isinstance(node, ast.Subscript):
            if _dotted(node.value) in ("os.environ", "environ", "sys.argv"):
                return True
            return self._items_text(node.value, scope, seen)
        if isinstance(node, ast.Name) and node.id not in seen:
            for how, what in self.bindings(scope).get(node.id, []):
                if how == "param" and what is not None and _only_text(what):
                    return True
                if how == "value" and self.text_like(what, scope, seen | {node.id}):
                    return True
                if how == "item" and self._items_text(what, scope, seen | {node.id}):
                    return True
        return False

    def _items_text(self, node, scope, seen) -> bool:
        """Whether the items of ``node`` are text (``text.split()``, ``sys.argv``, a list of strings)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("split", "rsplit", "splitlines", "groups", "partition", "rpartition"):
            return True
        if _dotted(node) == "sys.argv":
            return True
        if isinstance(node, ast.List | ast.Tuple):
            return any(self.text_like(e, scope, seen) for e in node.elts)
        if isinstance(node, ast.Name) and node.id not in seen:
            return any(how == "value" and self._items_text(what, scope, seen | {node.id})
                       for how, what in self.bindings(scope).get(node.id, []))
        return False

    def _memory(self, node, scope) -> bool:
        """Whether ``node`` is an in-memory stream (``io.BytesIO()``, ``QBuffer``) or a name bound to one."""
        if isinstance(node, ast.Call):
            return _dotted(node.func).split(".")[-1] in _MEMORY
        bound = self.bindings(scope).get(node.id, []) if isinstance(node, ast.Name) else []
        return any(how == "value" and self._memory(what, scope) for how, what in bound)

    def findings(self) -> list[tuple[str, str]]:
        """(kind, call) of every call that bypasses a door: kind is 'read', 'write' or 'number'."""
        out = []
        for call in ast.walk(self.tree):
            if isinstance(call, ast.Call):
                kind = self._kind(call)
                if kind == "write" and self.in_callback(call):
                    kind = None
                if kind is not None:
                    out.append((kind, ast.unparse(call)))
        return out

    def _kind(self, call: ast.Call) -> str | None:
        name = _dotted(call.func)
        method = call.func.attr if isinstance(call.func, ast.Attribute) else ""
        if name == "open":
            return "write" if _writes(_mode(call, 1)) else "read"
        if name == "os.open":
            flags = call.args[1] if len(call.args) > 1 else None
            if isinstance(flags, ast.Name):  # flags = os.O_RDONLY | ...: what the name was bound to
                bound = self.bindings(self.scope(call)).get(flags.id, [])
                text = " ".join(ast.unparse(what) for how, what in bound if how == "value") or "?"
            else:
                text = ast.unparse(flags) if flags is not None else ""
            return "write" if re.search(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|\?", text) else "read"
        if name in ("zipfile.ZipFile", "ZipFile"):
            if _writes(_mode(call, 1)):
                return "write"
            return None if _in_memory(call) else "read"
        if name in ("inputs.read_bytes", "inputs.check"):
            return None
        if name in _READ_CALLS:
            return None if _in_memory(call) else "read"
        if name in _WRITE_CALLS:
            return "write"
        if method in _READ_METHODS:
            return "read"
        if method in _WRITE_METHODS:
            return "write"
        if method == "open" and name != "open":
            receiver = ast.unparse(call.func.value)
            mode = _mode(call, 0)
            if mode == "?" and call.args:
                mode = None  # session.open(path), zip.open(member): not a mode
            if mode is not None or any(k.arg in ("encoding", "newline", "errors") for k in call.keywords):
                return "write" if _writes(mode) else "read"
            if call.args or call.keywords:
                return None
            return None if _WINDOW.search(receiver) else "read"  # Path.open(): a file read as text
        if method == "save" and call.args:
            if self._memory(call.args[0], self.scope(call)):
                return None  # encoded into a buffer: the bytes go to a door after
            receiver = call.func.value
            last = receiver.attr if isinstance(receiver, ast.Attribute) else _dotted(receiver)
            return None if last in _OWN_SAVERS else "write"
        if name in ("float", "int") and len(call.args) == 1 \
                and self.text_like(call.args[0], self.scope(call)):
            return "number"
        if name in ("np.array", "np.asarray", "numpy.array", "numpy.asarray") and call.args \
                and any(k.arg == "dtype" and ast.unparse(k.value) in _NUMBER_TYPES for k in call.keywords) \
                and self._items_text(call.args[0], self.scope(call), frozenset()):
            return "number"  # numpy reads '1_000' as float() does
        return None


def scan(source: str) -> list[tuple[str, str]]:
    return _Module(source).findings()


def _package_findings() -> list[tuple[str, str, str]]:
    out = []
    for path in sorted([*PACKAGE.rglob("*.py"), *RESOURCES.rglob("*.py")]):
        module = path.relative_to(ROOT).as_posix()
        if module in SKIPPED:
            continue
        for kind, call in scan(path.read_text(encoding="utf-8")):
            if DOORS[kind] != module:
                out.append((module, kind, call))
    return out


def test_every_file_read_written_or_number_parsed_goes_through_its_door():
    found = _package_findings()
    bypasses = [f"{module}: {kind}: {call}" for module, kind, call in found
                if (module, kind, call) not in ALLOWED]
    assert bypasses == [], "calls that bypass a door (fix them, or allow them in ALLOWED with why):\n" \
        + "\n".join(bypasses)


def test_every_allowed_entry_still_names_a_call_and_says_why():
    found = set(_package_findings())
    stale = [key for key in ALLOWED if key not in found]
    assert stale == [], f"ALLOWED entries that match no call any more (remove them): {stale}"
    assert all(len(why) > 20 for why in [*ALLOWED.values(), *SKIPPED.values()])
    assert all((ROOT / module).is_file() for module in SKIPPED)


# -- the checker sees each kind of bypass ------------------------------------------------------------------
@pytest.mark.parametrize(("source", "expected"), [
    ("from pathlib import Path\ntext = Path(p).read_text()", [("read", "Path(p).read_text()")]),
    ("data = path.read_bytes()", [("read", "path.read_bytes()")]),
    ("with open(p) as fh:\n    pass", [("read", "open(p)")]),
    ("with open(p, 'rb') as fh:\n    pass", [("read", "open(p, 'rb')")]),
    ("with path.open() as fh:\n    pass", [("read", "path.open()")]),
    ("with path.open(encoding='utf-8') as fh:\n    pass", [("read", "path.open(encoding='utf-8')")]),
    ("import numpy as np\na = np.load(p)", [("read", "np.load(p)")]),
    ("import json\nd = json.load(fh)", [("read", "json.load(fh)")]),
    ("import zipfile\nz = zipfile.ZipFile(p)", [("read", "zipfile.ZipFile(p)")]),
    ("import os\nfd = os.open(p, os.O_RDONLY)", [("read", "os.open(p, os.O_RDONLY)")]),
    ("with open(p, 'w') as fh:\n    pass", [("write", "open(p, 'w')")]),
    ("with open(p, mode='ab') as fh:\n    pass", [("write", "open(p, mode='ab')")]),
    ("with path.open('w') as fh:\n    pass", [("write", "path.open('w')")]),
    ("path.write_text(t)", [("write", "path.write_text(t)")]),
    ("path.write_bytes(b)", [("write", "path.write_bytes(b)")]),
    ("import numpy as np\nnp.savez(p, a=a)", [("write", "np.savez(p, a=a)")]),
    ("import shutil\nshutil.copy(a, b)", [("write", "shutil.copy(a, b)")]),
    ("import os\nos.replace(a, b)", [("write", "os.replace(a, b)")]),
    ("import zipfile\nz = zipfile.ZipFile(p, 'w')", [("write", "zipfile.ZipFile(p, 'w')")]),
    ("image.save(path)", [("write", "image.save(path)")]),
    ("import os\nfd = os.open(p, os.O_WRONLY | os.O_CREAT)",
     [("write", "os.open(p, os.O_WRONLY | os.O_CREAT)")]),
    ("import os\nflags = os.O_RDONLY | os.O_NONBLOCK\nfd = os.open(p, flags)",
     [("read", "os.open(p, flags)")]),
    ("import os\nflags = os.O_WRONLY\nfd = os.open(p, flags)", [("write", "os.open(p, flags)")]),
    ("def f(text: str):\n    return float(text)", [("number", "float(text)")]),
    ("def f(text: str | None):\n    return int(text)", [("number", "int(text)")]),
    ("import os\nx = float(os.environ.get('X', 1))", [("number", "float(os.environ.get('X', 1))")]),
    ("import os\nx = int(os.environ['X'])", [("number", "int(os.environ['X'])")]),
    ("x = float(edit.text())", [("number", "float(edit.text())")]),
    ("x = float(m.group(1))", [("number", "float(m.group(1))")]),
    ("w, h = (int(v) for v in size.split('x'))", [("number", "int(v)")]),
    ("def f(raw):\n    s = raw.strip()\n    return float(s)", [("number", "float(s)")]),
    ("import numpy as np\na = np.array(line.split(','), dtype=float)",
     [("number", "np.array(line.split(','), dtype=float)")]),
    ("cells = line.split(',')\na = np.asarray(cells, dtype=np.float64)",
     [("number", "np.asarray(cells, dtype=np.float64)")]),
])
def test_the_checker_finds_each_kind_of_bypass(source, expected):
    assert scan(source) == expected


@pytest.mark.parametrize("source", [
    "import io, numpy as np\na = np.load(io.BytesIO(data))",
    "import io, zipfile\nz = zipfile.ZipFile(io.BytesIO(data))",
    "data = inputs.read_bytes(p, 'rig')",
    "import numpy as np\nwrite_atomic(p, lambda fh: np.savez(fh, a=a))",
    "import zipfile\ndef write(fh):\n    with zipfile.ZipFile(fh, 'w') as z:\n        pass\n"
    "write_atomic(p, write)",
    "import shutil\nwrite_atomic(p, lambda out: shutil.copyfileobj(src, out))",
    "session.save(path)\nself.session.save(path)",
    "dialog.open()\nbox.open()\nself.session.open(path)",
    "import numpy as np\ndef f(value: float, values):\n"
    "    return float(value) + float(np.sum(values)) + int(len(values))",
    "def f(item: dict):\n    return float(item['x'])",
    "x = parse_float(text)",
    "x = float('inf')",
    "kind, x = 'box', size\ny = float(x)",
    "def f(budget: int | str | None):\n    return int(budget)",
    "self.session.open(path)\nz.open(info)",
    "buffer = QBuffer(data)\nimage.save(buffer, 'PNG')",
    "import io\nimage.save(io.BytesIO(), format='PNG')",
    "import numpy as np\nfiles.stage(real, lambda fh: np.savez(fh, a=a))",
])
def test_the_checker_leaves_what_goes_through_a_door(source):
    assert scan(source) == []


def test_the_checker_does_not_excuse_a_write_beside_the_callbacks_handle():
    source = "import numpy as np\ndef write(fh):\n    np.savez(other, a=a)\nwrite_atomic(p, write)"
    assert scan(source) == [("write", "np.savez(other, a=a)")]


#: modules that may call ``Path.resolve()`` → why (a loop of symbolic links raises RuntimeError there)
RESOLVE_ALLOWED = {
    "mime_gui/_package.py": "the package's own folder, from __file__: no user's path, no loop of links",
}


def _resolve_calls(source: str) -> list[str]:
    return [ast.unparse(node) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "resolve" and not node.args and not node.keywords]


def test_every_path_made_absolute_goes_through_inputs_resolved():
    """``Path.resolve()`` raises a bare RuntimeError on Python 3.11 for a loop of symbolic links (a traceback
    where the read that follows would refuse the file with its code): the package resolves with
    ``inputs.resolved``."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        calls = _resolve_calls(path.read_text(encoding="utf-8"))
        if calls and module not in RESOLVE_ALLOWED:
            found[module] = calls
    assert found == {}
    assert all(_resolve_calls((ROOT / m).read_text(encoding="utf-8")) for m in RESOLVE_ALLOWED)
    assert _resolve_calls("p = (base / name).resolve().parent\nq = mesh.resolve(base)") == \
        ["(base / name).resolve()"]
