"""The variants of a sweep: each ``--vary PATH=RANGE`` read and checked against the rig, and their grid.

``PATH`` is a rig path (:mod:`mime_gui.rig.paths`) to a number or a text value:
``parts.holder.geometry.radius``, ``magnets.m1.material``, ``parts.holder.mount``,
``chain.arm.servo_time_constant``, ``chain.motor.inertia.value``; one component of a vector is its index,
``parts.holder.at.2``. ``RANGE`` is ``START:STOP:COUNT`` (COUNT values from START to STOP, both included)
for a number, or a list ``a,b,c`` for either kind. Several ``--vary`` make a grid, the first one varying
slowest; a variant's index is its place in that order. Every refusal is a :class:`SweepError`
(``sweep.*``) at ``--vary`` naming the path and the fix.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator, Mapping

import numpy as np

from mime_gui.errors import CodedError
from mime_gui.magnitudes import parse_float, parse_int
from mime_gui.rig import paths
from mime_gui.rig.paths import RigPathError

#: the most variants one sweep holds (and the most values one ``--vary`` gives)
MAX_VARIANTS = 100_000
NUMBER, TEXT = "number", "text"
OPTION = "--vary"
EXAMPLE = "parts.holder.geometry.radius=0.008:0.012:5 or parts.holder.mount=motor.rotor,motor.stator"


class SweepError(CodedError):
    """A refusal of a sweep (``sweep.*``): a bad ``--vary``, option or output table."""


@dataclasses.dataclass(frozen=True)
class Vary:
    """One varied value: its rig ``path``, its ``kind`` (``number`` or ``text``) and the ``values`` it
    takes, in order; ``written`` is the option as given."""

    path: str
    kind: str
    values: tuple
    written: str


@dataclasses.dataclass(frozen=True)
class Variant:
    """One point of the grid: its ``index`` and the value of each :class:`Vary`, in their order."""

    index: int
    values: tuple


def _shown(n: int) -> str:
    return f"{n:,}" if abs(n) < 10**18 else f"about {'-' * (n < 0)}10^{int(math.log10(abs(n)))}"


def _component(path: str) -> tuple[str, int] | None:
    """``("parts.holder.at", 2)`` for ``parts.holder.at.2``; None when the last piece is no index."""
    head, _, last = path.rpartition(".")
    if not head or not (last.isascii() and last.isdigit()) or len(last) > 6:
        return None
    return head, parse_int(last)


def resolve(rig, path: str):
    """The value at ``path``, a vector's component included; raises :class:`RigPathError`."""
    try:
        return paths.get(rig, path)
    except RigPathError as exc:
        found = _component(path)
        if found is None:
            raise
        head, index = found
        try:
            vector = paths.get(rig, head)
        except RigPathError:
            raise exc from None
        if not isinstance(vector, tuple | list):
            raise
        if index >= len(vector):
            raise RigPathError(path, f"{head} holds {len(vector)} values: give an index from 0 to "
                                     f"{len(vector) - 1}") from None
        return vector[index]


def set_value(rig, path: str, value):
    """A new rig with the value at ``path`` (a vector's component included) replaced by ``value``; a value
    of the wrong type raises TypeError or ValueError (the rig's own checks)."""
    if paths.exists(rig, path):
        return paths.replace(rig, path, value)
    head, index = _component(path)
    vector = paths.get(rig, head)
    changed = (*vector[:index], value, *vector[index + 1:])
    return paths.replace(rig, head, type(vector)(changed) if isinstance(vector, list) else changed)


def apply(rig, varies, values):
    """``rig`` with every varied value set."""
    for vary, value in zip(varies, values, strict=True):
        rig = set_value(rig, vary.path, value)
    return rig


def _hint(path: str, value) -> str:
    """What to vary instead of a value that is neither a number nor text."""
    if value is None:
        return "it is not set in the rig (null): set it in the rig file first, then vary it"
    if isinstance(value, bool):
        return "it is true or false, which a sweep does not vary; vary a number or a text value"
    if isinstance(value, tuple | list):
        return f"it holds {len(value)} values: vary one by its index, {path}.0 to {path}.{len(value) - 1}"
    if isinstance(value, Mapping):
        keys = ", ".join(f"{path}.{k}" for k in list(value)[:6]) or "(it has none)"
        return f"it maps names to values: vary one entry ({keys})"
    if dataclasses.is_dataclass(value):
        names = [f.name for f in dataclasses.fields(value) if f.init]
        plain = [n for n in names if isinstance(getattr(value, n), int | float | str | tuple)
                 and not isinstance(getattr(value, n), bool)]
        return f"vary one of its values ({', '.join(f'{path}.{n}' for n in plain or names)})"
    return "vary a number or a text value"


def _kind(path: str, value) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise SweepError("sweep.type", f"{path} holds {type(value).__name__}, not a number or text; "
                         f"{_hint(path, value)}", OPTION)
    return TEXT if isinstance(value, str) else NUMBER


def _pieces(path: str, spec: str) -> list[str]:
    pieces = [p.strip() for p in spec.split(",")]
    if len(pieces) > MAX_VARIANTS:
        raise SweepError("sweep.range", f"{path}: {_shown(len(pieces))} values, more than the "
                         f"{MAX_VARIANTS:,} a sweep holds; give fewer", OPTION)
    if any(p == "" for p in pieces):
        raise SweepError("sweep.range", f"{path}={spec}: an empty value in the list; write a,b,c with a "
                         "value between every two commas", OPTION)
    return pieces


def _number(path: str, text: str, what: str) -> float:
    try:
        value = parse_float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        raise SweepError("sweep.value" if what == "value" else "sweep.range",
                         f"{path}: {what} {text!r} is not a finite number; {path} holds a number", OPTION)
    return value


def _range(path: str, spec: str) -> tuple[float, ...]:
    pieces = spec.split(":")
    if len(pieces) != 3:
        raise SweepError("sweep.range", f"{path}={spec}: a range is START:STOP:COUNT (COUNT values from "
                         "START to STOP, both included), e.g. 0.01:0.03:5; or list the values a,b,c", OPTION)
    start, stop = (_number(path, p.strip(), what) for p, what in zip(pieces[:2], ("START", "STOP"),
                                                                         strict=True))
    try:
        count = parse_int(pieces[2].strip())
    except ValueError:
        raise SweepError("sweep.range", f"{path}={spec}: COUNT {pieces[2].strip()!r} is not a whole number; "
                         f"give how many values, 1 to {MAX_VARIANTS:,}", OPTION) from None
    if not 1 <= count <= MAX_VARIANTS:
        raise SweepError("sweep.range", f"{path}={spec}: COUNT is {_shown(count)}; give how many values, 1 "
                         f"to {MAX_VARIANTS:,}", OPTION)
    with np.errstate(over="ignore", invalid="ignore"):
        values = np.linspace(start, stop, count)
    if not np.all(np.isfinite(values)):  # START and STOP near the largest float: their span overflows
        raise SweepError("sweep.range", f"{path}={spec}: the span from START to STOP overflows; give a "
                         "smaller range", OPTION)
    return tuple(float(v) for v in values)


def parse_vary(text: str, rig) -> Vary:
    """``PATH=RANGE`` read against ``rig``: every value is tried on the rig, so one of the wrong type is
    refused here, before any variant is computed."""
    path, equals, spec = text.partition("=")
    path, spec = path.strip(), spec.strip()
    if not equals or not path or not spec:
        raise SweepError("sweep.vary", f"{text!r}: write PATH=RANGE, e.g. {EXAMPLE}", OPTION)
    try:
        current = resolve(rig, path)
    except RigPathError as exc:
        raise SweepError("sweep.path", f"{exc}; give the rig path of a number or text value, as "
                         "validate names them (e.g. parts.holder.geometry.radius)", OPTION) from None
    kind = _kind(path, current)
    if kind == TEXT:
        values: tuple = tuple(_pieces(path, spec))
    elif ":" in spec:
        values = _range(path, spec)
    else:
        values = tuple(_number(path, p, "value") for p in _pieces(path, spec))
    if kind == NUMBER and isinstance(current, int):  # a whole-number field stays whole
        if any(not float(v).is_integer() for v in values):
            raise SweepError("sweep.value", f"{path} holds a whole number ({current}); give whole numbers",
                             OPTION)
        values = tuple(int(v) for v in values)
    for value in values:
        try:
            set_value(rig, path, value)
        except (TypeError, ValueError) as exc:
            raise SweepError("sweep.value", f"{path} cannot be {value!r}: {exc}", OPTION) from None
    return Vary(path, kind, values, text.strip())


def parse_all(texts, rig) -> tuple[Vary, ...]:
    """Every ``--vary`` read, each path once, the grid within :data:`MAX_VARIANTS`."""
    if not texts:
        raise SweepError("sweep.vary", f"give at least one --vary PATH=RANGE, e.g. {EXAMPLE}", OPTION)
    varies = tuple(parse_vary(t, rig) for t in texts)
    seen: set[str] = set()
    for vary in varies:
        if vary.path in seen:
            raise SweepError("sweep.vary", f"{vary.path} is varied twice; give its values in one --vary",
                             OPTION)
        seen.add(vary.path)
    total = count(varies)
    if total > MAX_VARIANTS:
        sizes = " x ".join(str(len(v.values)) for v in varies)
        raise SweepError("sweep.too-many", f"the grid holds {_shown(total)} variants ({sizes}), more than "
                         f"{MAX_VARIANTS:,}; give fewer values or split the sweep", OPTION)
    return varies


def count(varies) -> int:
    return math.prod(len(v.values) for v in varies)


def variants(varies) -> Iterator[Variant]:
    """Every variant, index order (the first ``--vary`` varying slowest)."""
    for index, values in enumerate(itertools.product(*(v.values for v in varies))):
        yield Variant(index, values)


__all__ = ["MAX_VARIANTS", "NUMBER", "TEXT", "SweepError", "Variant", "Vary", "apply", "count", "parse_all",
           "parse_vary", "resolve", "set_value", "variants"]
