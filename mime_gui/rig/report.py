"""The build report: where every number of a built rig came from.

For every joint its armature and the source (declared, reflected, none); for every part its mass and the
source (declared mass, declared density, material, none); every graft (which part is welded to which link);
each link's own inertial as the description gave it; totals; and each magnet's moment ``Br·V/μ0``.
:class:`RigReport` is plain data (``to_dict()`` is JSON-ready) with a text rendering for the CLI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from mime_gui.rig.geometries import KINDS, kind_of


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _vec(v) -> str:
    return "(" + ", ".join(_fmt(float(x)) for x in v) + ")"


def geometry_dict(g) -> dict:
    """A geometry as the report holds it: its type and its fields as given (a path as written)."""
    kind = kind_of(g)
    return {"type": kind.type, **kind.values(g)}


def _geometry_text(d: dict) -> str:
    return KINDS[d["type"]].describe(d, _fmt, _vec)


@dataclass(frozen=True)
class RigReport:
    """The report as data: ``segments``, ``parts``, ``grafts``, ``totals`` (see :meth:`to_dict`)."""

    data: dict

    def to_dict(self) -> dict:
        return json.loads(json.dumps(self.data))

    def to_json(self) -> str:
        return json.dumps(self.data, indent=2)

    def __getitem__(self, key):
        return self.data[key]

    # -- look-ups ----------------------------------------------------------------------------------
    def segment(self, name: str) -> dict:
        return next(s for s in self.data["segments"] if s["name"] == name)

    def armature(self, segment: str, joint: str) -> dict:
        return next(j for j in self.segment(segment)["joints"] if j["joint"] == joint)

    def part(self, name: str) -> dict:
        return next(p for p in self.data["parts"] if p["name"] == name)

    # -- text --------------------------------------------------------------------------------------
    def to_text(self) -> str:
        d = self.data
        out = [f"rig {d['rig']!r}", "", "chain"]
        if not d["segments"]:
            out.append("  (empty)")
        for s in d["segments"]:
            where = f"on {s['mount']}" if s["mount"] else "in the world"
            src = f" {s['description']}" if s.get("description") else ""
            out.append(f"  {s['name']}: {s['kind']}{src}, {where} at {_vec(s['at'])} m, orientation "
                       f"(w, x, y, z) {_vec(s['orientation'])}")
            if s.get("rotor_inertia"):
                r = s["rotor_inertia"]
                out.append(f"    rotor inertia about {_vec(s['axis'])}: {_fmt(r['value'])} kg·m² "
                           f"({r['reason']})")
            if s["joints"]:
                out.append("    armature per joint:")
                width = max(len(j["joint"]) for j in s["joints"])
                for j in s["joints"]:
                    unit = "kg" if j["unit"] == "kg" else "kg·m²"
                    out.append(f"      {j['joint']:<{width}}  {_fmt(j['value']):>10} {unit:<5}  "
                               f"{j['source']}: {j['detail']}")
            if s["links"]:
                out.append("    links' own inertials (as the description gives them):")
                for link in s["links"]:
                    out.append(f"      {link['link']}: {_fmt(link['mass'])} kg, com {_vec(link['com'])} m")
            m = s["mass"]
            carried = "carries" if s["dynamic"] else "kinematic, carries none of"
            out.append(f"    mass: own {_fmt(m['own'])} kg; {carried} {_fmt(m['mounted'])} kg of parts")
            out += _payload_lines(s.get("payload"))
        for title, role in (("parts", "part"), ("magnets", "magnet")):
            items = [p for p in d["parts"] if p["role"] == role]
            out += ["", title]
            if not items:
                out.append("  (none)")
            for p in items:
                where = f"on {p['mount']}" if p["mount"] else "fixed in the world"
                out.append(f"  {p['name']}: {_geometry_text(p['geometry'])}, {where}, centroid at "
                           f"{_vec(p['at'])} m")
                out.append(f"    mass {_fmt(p['mass'])} kg (volume {_fmt(p['volume'])} m³): "
                           f"{p['mass_source']}: {p['mass_detail']}")
                out.append(f"    {p['carried']}")
                if role == "magnet":
                    mg = p["magnet"]
                    out.append(f"    remanence {_fmt(mg['remanence'])} T ({mg['remanence_source']})")
                    out.append(f"    moment Br·V/μ0 = {_fmt(mg['moment'])} A·m² along "
                               f"{_vec(mg['direction'])} (part frame)")
        out += ["", "grafts"]
        if not d["grafts"]:
            out.append("  (none)")
        for g in d["grafts"]:
            out.append(f"  {g['part']} welded to {g['segment']}.{g['link']} as link {g['graft']!r}: "
                       f"{_fmt(g['mass'])} kg at {_vec(g['at'])} m")
        t = d["totals"]
        out += ["", "totals",
                f"  segments' own mass: {_fmt(t['segments_mass'])} kg",
                f"  parts and magnets: {_fmt(t['parts_mass'])} kg ({_fmt(t['carried_mass'])} kg carried by "
                f"dynamic segments, {_fmt(t['kinematic_mass'])} kg on kinematic segments, "
                f"{_fmt(t['world_mass'])} kg fixed in the world)",
                f"  massless parts: {', '.join(t['massless']) or 'none'}",
                "  joints by armature source: " + ", ".join(f"{k} {v}" for k, v in t["armature"].items()),
                f"  magnets: {t['magnets']}, moments summed {_fmt(t['magnetic_moment'])} A·m²"]
        return "\n".join(out) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def link_inertials(tree) -> list[dict]:
    out = []
    for name in tree.link_order():
        inertial = tree.links[name].inertial
        if inertial is None or name in tree.part_links:  # a grafted part: reported as a part
            continue
        out.append({"link": name, "mass": float(inertial.mass), "com": inertial.link_X_com[:3, 3].tolist(),
                    "inertia": np.asarray(inertial.inertia, dtype=float).tolist()})
    return out


def _payload_lines(payload: dict | None) -> list[str]:
    if not payload or not payload["riders"] and not payload["carried"]:
        quiet = not payload or "kinematic" in payload["detail"]
        return [] if quiet else [f"    payload: {payload['detail']}"]
    if not payload["carried"]:
        names = ", ".join(r["segment"] for r in payload["riders"])
        return [f"    payload: none ({payload['detail']}; riding: {names})"]
    out = [f"    payload: {_fmt(payload['mass'])} kg ({payload['detail']})"]
    for r in payload["riders"]:
        via = f" through {', '.join(r['via'])}" if r["via"] else ""
        out.append(f"      {r['segment']}: {_fmt(r['mass'])} kg on {r['frame']}{via}, centre of mass at "
                   f"{_vec(r['com'])} m")
    return out
