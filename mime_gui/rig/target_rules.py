"""The rules a rig's field targets must satisfy (``target.*``), checked by :func:`mime_gui.rig.rules.analyse`.

A target's name keeps the rule of names (:mod:`mime_gui.rig.names`) and differs from every other
target's in more than case (``target.name``: the Find poses dock lists them by name); it asks for the field
at a probe or a sample the rig has (``target.at``). Its own values (a direction or an axis and frequency,
the tolerance, the window, the ellipticity) are checked when it is made
(:class:`~mime_gui.rig.targets.FieldTarget`), so a file holding a bad one is refused at its place.
"""

from __future__ import annotations

from mime_gui.rig.names import RULE, good_name, shown


def check_targets(rig, a) -> None:
    """Add a finding to the analysis ``a`` for every target rule broken."""
    seen: dict[str, str] = {}
    for name, target in rig.targets.items():
        where = f"targets.{name}"
        if not good_name(name):
            a.add("target.name", where, f"{shown(name)} is not a valid name: use {RULE}")
        elif name.casefold() in seen:
            a.add("target.name", where, f"{name!r} differs from the target {seen[name.casefold()]!r} only in "
                                        "case; rename one of them")
        else:
            seen[name.casefold()] = name
        items = getattr(rig, target.collection, {})
        if target.item not in items:
            offered = ", ".join(f"{c}.{n}" for c in ("probes", "samples") for n in getattr(rig, c)) or "none"
            a.add("target.at", f"{where}.at", f"the rig has no {target.collection[:-1]} {target.item!r}; aim "
                                              f"at one of its probes or samples ({offered})")


__all__ = ["check_targets"]
