"""Where a lab's actuators come from besides Python: entry points and ``actuators.json`` files.

:func:`discover` gathers, in this order, and hands to :mod:`mime_gui.rig.actuators`:

- the entry-point group ``mime_gui.actuators``: each entry point names a list of records, or a function that
  returns one (``[{"name": ..., "rotor_inertia": 1.2e-5, "unit": "kg m2", "source": "datasheet ..."}]``,
  or :class:`~mime_gui.rig.actuators.ActuatorRecord` objects);
- ``actuators.json`` in the user's config folder (``MIME_GUI_CONFIG_DIR``, else
  ``$XDG_CONFIG_HOME/mime_gui``, else ``~/.config/mime_gui``);
- ``actuators.json`` beside the rig file.

The files hold ``{"actuators": [record, ...]}`` (an ``about`` text is allowed), the format of the bundled
examples. Each record keeps where it was found (its ``origin``), which the build report names. A bad record,
an unreadable file, an entry point that does not load, or one name given by two sources is an
:class:`ActuatorError` (``actuator.*``) naming the place; the command line, the app and Python then see the
same list.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path

from mime_gui import inputs
from mime_gui.multibody.errors import CodedError
from mime_gui.rig import actuators
from mime_gui.rig.actuators import ActuatorRecord
from mime_gui.rig.pointers import line_of
from mime_gui.rig.units import KG_M2

GROUP = "mime_gui.actuators"
FILE_NAME = "actuators.json"
_KEYS = ("name", "rotor_inertia", "unit", "source", "example")


class ActuatorError(CodedError):
    """A refused actuator record or source (``actuator.*``)."""


def config_folder() -> Path:
    explicit = os.environ.get("MIME_GUI_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "mime_gui"


def record(item, where: str, origin: str, file: str = "", line: int = 0) -> ActuatorRecord:
    """An :class:`ActuatorRecord` from a mapping (or a record), checked; ``where`` (and the ``line`` of the
    ``file``) names it in errors."""
    def bad(message: str):
        raise ActuatorError("actuator.record", f"{where}: {message}", file, line)

    if isinstance(item, ActuatorRecord):
        item = {"name": item.name, "rotor_inertia": item.rotor_inertia, "source": item.source,
                "example": item.example}
    if not isinstance(item, Mapping):
        bad(f"an actuator record is an object with {', '.join(_KEYS[:4])}, got {type(item).__name__}")
    unknown = [k for k in item if k not in _KEYS]
    if unknown:
        bad(f"unknown key {unknown[0]!r}; a record holds {', '.join(_KEYS)}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        bad("the record needs a name (non-empty text)")
    value = item.get("rotor_inertia")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        bad(f"actuator {name!r}: rotor_inertia must be a finite number not below zero, in kg m2; "
            f"got {value!r}")
    if item.get("unit", KG_M2) != KG_M2:
        bad(f"actuator {name!r}: the unit of rotor_inertia is {KG_M2!r}, got {item.get('unit')!r}")
    source = item.get("source")
    if not isinstance(source, str) or not source.strip():
        bad(f"actuator {name!r} needs a source: the datasheet its rotor inertia comes from")
    return ActuatorRecord(name, float(value), source, bool(item.get("example", False)), origin)


def from_file(path) -> dict[str, ActuatorRecord]:
    """The records of an ``actuators.json`` file."""
    file = os.fspath(path)
    try:
        text = inputs.read_bytes(path, "rig", "an actuators file").decode("utf-8-sig")
        data = json.loads(text)
    except inputs.FileError as exc:  # a FIFO, a device, a folder, past the limit: every reader's own code
        raise ActuatorError(exc.code, exc.message, file) from None
    except RecursionError:
        raise ActuatorError("actuator.file", "the JSON is nested too deeply to be an actuators file; it "
                            'holds {"actuators": [{"name", "rotor_inertia", "unit", "source"}, ...]}',
                            file) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ActuatorError("actuator.file", f"cannot read the actuators file ({exc}); it holds "
                            '{"actuators": [{"name", "rotor_inertia", "unit", "source"}, ...]}',
                            file, getattr(exc, "lineno", 0)) from None  # JSON's own errors know their line
    if not isinstance(data, dict) or not isinstance(data.get("actuators"), list) \
            or set(data) - {"actuators", "about"}:
        raise ActuatorError("actuator.file", 'expected {"actuators": [record, ...]} (and an optional '
                            '"about")', file)
    out: dict[str, ActuatorRecord] = {}
    for i, item in enumerate(data["actuators"]):
        line = line_of(text, f"/actuators/{i}")
        r = record(item, f"#/actuators/{i}", f"file {file}", file, line)
        if r.name in out:
            raise ActuatorError("actuator.duplicate", f"#/actuators/{i}: actuator {r.name!r} is given "
                                "twice in this file; keep one", file, line)
        out[r.name] = r
    return out


def _entry_points():
    return importlib.metadata.entry_points(group=GROUP)


def from_entry_points() -> dict[str, ActuatorRecord]:
    out: dict[str, ActuatorRecord] = {}
    for ep in _entry_points():
        dist = getattr(ep, "dist", None)
        package = f" of {dist.name} {dist.version}" if dist is not None else ""
        origin = f"entry point {ep.name}{package}"
        try:
            items = ep.load()
            if callable(items):
                items = items()
            items = list(items)
        except Exception as exc:  # noqa: BLE001 - a lab's package may fail in any way; say which one
            raise ActuatorError("actuator.entry-point", f"the {GROUP} entry point {ep.name} = {ep.value}"
                                f"{package} cannot be loaded: {type(exc).__name__}: {exc}") from None
        for i, item in enumerate(items):
            r = record(item, f"{origin}, record {i}", origin)
            if r.name in out:
                raise ActuatorError("actuator.duplicate", f"actuator {r.name!r} is given by "
                                    f"{out[r.name].origin} and by {origin}; keep one")
            out[r.name] = r
    return out


def discover(folder=None) -> dict[str, ActuatorRecord]:
    """Gather the records of every source (``folder``: the rig file's, for its ``actuators.json``) and make
    them the ones :func:`~mime_gui.rig.actuators.actuator` finds. Returns them."""
    found: dict[str, ActuatorRecord] = {}
    sources = [from_entry_points()]
    files = [config_folder() / FILE_NAME] + ([Path(folder) / FILE_NAME] if folder is not None else [])
    seen_files = set()
    for path in files:
        key = os.path.abspath(path)
        # whatever is there under the name is read: a FIFO or a folder is refused, not passed over
        if key not in seen_files and os.path.exists(path):
            seen_files.add(key)
            sources.append(from_file(path))
    bundled = actuators._bundled()
    for records in sources:
        for name, r in records.items():
            other = found.get(name) or bundled.get(name)
            if other is not None:
                where = other.origin or "the bundled examples"
                raise ActuatorError("actuator.duplicate", f"actuator {name!r} is given by {where} and by "
                                    f"{r.origin}; rename or remove one")
            found[name] = r
    actuators.set_discovered(found)
    return found
