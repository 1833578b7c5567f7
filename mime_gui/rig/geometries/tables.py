"""What the rig file's schema and docs say about geometries, derived from the registered kinds: the
schema's ``geometry`` definition (``resources/rig.schema.json``, ``docs/rig-file.md``), the docs' table of
kinds and the text of rule ``part.geometry``. Tests keep both files equal to these."""

from __future__ import annotations

from mime_gui.rig.geometries.registry import KINDS, Field, GeometryKind


def _field_schema(f: Field) -> dict:
    if f.unit == "path":
        return {"type": "string"}
    return {"$ref": "#/$defs/vector3"} if f.size == 3 else {"type": "number"}


def kind_schema(kind: GeometryKind) -> dict:
    """The JSON schema of one kind's geometry object: its type, its unit keys, its fields."""
    units = kind.unit_keys
    required = ["type", *(k for k, _ in units), *(f.name for f in kind.fields if not f.optional)]
    properties = {"type": {"const": kind.type}, **{k: {"const": u} for k, u in units},
                  **{f.name: _field_schema(f) for f in kind.fields}}
    return {"type": "object", "additionalProperties": False, "required": required, "properties": properties}


def geometry_schema() -> dict:
    """The schema's ``$defs/geometry``: one of the registered kinds."""
    return {"oneOf": [kind_schema(k) for k in KINDS.values()]}


_UNIT_TEXT = {"m": "m", "deg": "degrees", "1": "a factor", "path": "a path"}


def _field_text(f: Field) -> str:
    if f.unit == "path":
        bounds = "relative to the rig file"
    elif f.low < 0:  # an angle: both ends hold
        bounds = f"{f.low:g} ≤ v ≤ {f.high:g}"
    else:
        bounds = f"{f.low:g} < v ≤ {f.high:g}"
    vector = " (3 numbers)" if f.size == 3 else ""
    optional = ", optional" if f.optional else ""
    return f"`{f.name}`{vector}: {_UNIT_TEXT[f.unit]}, {bounds}{optional}"


def docs_table() -> str:
    """The docs' table of geometry kinds (Markdown): per kind its type, its unit keys, its fields with their
    units and bounds, and what it is."""
    rows = ["| `type` | units | fields | what |", "| --- | --- | --- | --- |"]
    for kind in KINDS.values():
        units = ", ".join(f'`"{k}": "{u}"`' for k, u in kind.unit_keys) or "—"
        fields = "; ".join(_field_text(f) for f in kind.fields)
        rows.append(f"| `{kind.type}` | {units} | {fields} | {kind.summary} |")
    return "\n".join(rows) + "\n"


_UNIT_SIGN = {"deg": "°", "1": ""}


def _short(v: float) -> str:
    """``1e6``, not ``1e+06``, as the other rules write their bounds."""
    return f"{v:g}".replace("e+0", "e").replace("e+", "e")


def _bounds_text(low: float, high: float, sign: str) -> str:
    if low < 0:  # an angle: both ends hold
        return f"within ±{_short(high)}{sign}" if low == -high else \
            f"from {_short(low)}{sign} to {_short(high)}{sign}"
    return f"positive and at most {_short(high)}{sign}"


def geometry_rule() -> str:
    """The text of rule ``part.geometry``: the bounds of every kind's fields (sizes, then each kind's other
    numbers), then each kind's own ``conditions``, in the kinds' order."""
    lengths = max(f.high for k in KINDS.values() for f in k.fields if f.unit == "m")
    others = []
    for kind in KINDS.values():
        groups: dict[tuple, list[str]] = {}
        for f in kind.fields:
            if f.unit in _UNIT_SIGN:
                groups.setdefault((f.low, f.high, _UNIT_SIGN[f.unit]), []).append(f.label.lower())
        article = "an" if kind.type[0] in "aeiou" else "a"
        others += [f"{article} {kind.type}'s {' and '.join(names)} {_bounds_text(*bounds)}"
                   for bounds, names in groups.items()]
    sizes = f"finite positive sizes of at most {_short(lengths)} m"
    if others:
        sizes += f" ({', '.join(others)})"
    conditions = [k.conditions for k in KINDS.values() if k.conditions]
    return "; ".join([f"a part's geometry has {sizes}", *conditions])


__all__ = ["docs_table", "geometry_rule", "geometry_schema", "kind_schema"]
