"""Clearance along a trajectory: the smallest distance at every step between every pair of the rig's items
that can touch, and the findings ``clearance.contact`` (a penetration: the pair, when, how deep) and
``clearance.margin`` (closer than the rig's margin), of the geometry :mod:`mime_gui.rig.collision` makes.

**Broad phase, no loop over steps × pairs.** Every convex piece has a bounding ball in its frame; the balls'
centres at every step are one product over all steps, and ``|c_a − c_b| − r_a − r_b`` bounds each pair's
distance from below. An upper bound of each step's smallest distance is the distance of two points inside
two pieces (their anchors), tightened by the exact distance of the pair with the lowest bound. Only the
(step, pair) whose lower bound is under the margin or under that step's upper bound reach the collision
library (coal's GJK/EPA: exact and signed for convex shapes), one call each, and a (pair, relative pose)
met before is not computed again (an arm holding still). A pair left out below its lower bound is never the
closest and never within the margin, so the minimum, the closest pair and the findings are those of every
pair computed at every step (:func:`per_step_minimum` is that loop, for the checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mime_gui.rig.collision import TOLERANCE, ClearanceModel, clearance_model, piece_poses, scan
from mime_gui.rig.findings import Finding


@dataclass(frozen=True, eq=False)
class ClearanceCheck:
    """``time (T,)`` s (None: the initial pose); ``minimum (T,)`` the smallest distance (m, negative: a
    penetration) between items moving relative to each other, and ``closest (T,)`` the index of that pair
    in ``pairs`` (``(label, label)``; -1 and +inf when there is none); ``margin`` (m); ``findings``; the
    ``model`` (its ``left_out``, ``allowed`` and ``skipped`` pairs)."""

    time: np.ndarray | None
    minimum: np.ndarray
    closest: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    margin: float
    model: ClearanceModel
    findings: list[Finding] = field(default_factory=list)

    def closest_labels(self) -> np.ndarray:
        """``(T, 2)`` the closest pair's labels at every step (empty text where there is none)."""
        names = np.array([*self.pairs, ("", "")], dtype=str).reshape(-1, 2)
        return names[np.where(self.closest >= 0, self.closest, len(self.pairs))]


# -- the check -----------------------------------------------------------------------------------------
def _where(a, b) -> str:
    """The rig path a pair's finding names: the item that is not a link, else the first."""
    return b.where if a.kind == "link" and b.kind != "link" else a.where


def _mm(metres: float) -> str:
    return f"{metres * 1e3:.3g} mm"


def check(model: ClearanceModel, frame_poses, time=None, margin: float | None = None) -> ClearanceCheck:
    """The clearance of ``model``'s rig at every pose of ``frame_poses (T, F, 4, 4)`` (the rig's frames in
    ``built.frame_names`` order) at ``time (T,)`` (None: the rig's initial pose, one row)."""
    margin = model.margin if margin is None else float(margin)
    frame_poses = np.asarray(frame_poses, dtype=float)
    T = len(frame_poses)
    flat = model.pieces
    bodies = model.bodies
    D = scan(flat, frame_poses, flat["moving"], len(model.moving), max(margin, 0.0), True)
    fixed = scan(flat, frame_poses[:1], flat["fixed"], len(model.fixed), 0.0, False)[0] if T \
        else np.zeros(0)
    pairs = flat["labels"]
    if len(model.moving):
        closest = np.argmin(D, axis=1)
        minimum = D[np.arange(T), closest]
        closest = np.where(np.isfinite(minimum), closest, -1)
    else:
        minimum, closest = np.full(T, np.inf), np.full(T, -1)
    findings = []

    def span(steps: np.ndarray) -> str:
        return f" at {len(steps)} of {T} steps, from t = {time[steps[0]]:g} s to {time[steps[-1]]:g} s,"

    flagged = np.flatnonzero((D < margin - TOLERANCE).any(axis=0))  # the pairs with a finding
    for k in flagged:
        a, b = bodies[model.moving[k, 0]], bodies[model.moving[k, 1]]
        d = D[:, k]
        contact = np.flatnonzero(d < -TOLERANCE)
        near = np.flatnonzero((d >= -TOLERANCE) & (d < margin - TOLERANCE))
        if len(contact):
            w = contact[np.argmin(d[contact])]
            told = f"overlap by {_mm(-d[w])} in the initial pose" if time is None else \
                f"overlap{span(contact)} deepest {_mm(-d[w])} at t = {time[w]:g} s"
            findings.append(Finding("clearance.contact", _where(a, b),
                                    f"{a.label} and {b.label} {told}; move one of them, change the "
                                    "trajectory, or allow the pair with a reason (clearance.allow)"))
        if len(near):
            w = near[np.argmin(d[near])]
            told = f"are {_mm(d[w])} apart in the initial pose, within the margin {_mm(margin)}" \
                if time is None else f"come within the margin {_mm(margin)}{span(near)} closest " \
                                     f"{_mm(d[w])} at t = {time[w]:g} s"
            findings.append(Finding("clearance.margin", _where(a, b),
                                    f"{a.label} and {b.label} {told}; keep them apart, or declare a smaller "
                                    "margin with its reason (clearance.margin)"))
    for k, name in model.unknown:
        findings.append(Finding("clearance.allow", f"clearance.allow.{k}",
                                f"{name!r} is not an item of the rig (parts.<name>, magnets.<name>, "
                                "samples.<name> or <segment>.<link>); the pair allows nothing: rename or "
                                "remove it"))
    for k in np.flatnonzero(fixed < -TOLERANCE):
        a, b = bodies[model.fixed[k, 0]], bodies[model.fixed[k, 1]]
        findings.append(Finding("clearance.contact", _where(a, b),
                                f"{a.label} and {b.label} overlap by {_mm(-fixed[k])}; they are fixed to one "
                                "another, so at every step: move one of them, or allow the pair with a "
                                "reason (clearance.allow)"))
    return ClearanceCheck(None if time is None else np.asarray(time), minimum, closest, pairs, margin, model,
                          findings)


def clearance_along(built, trajectory, start: float = 0.0, margin: float | None = None) -> ClearanceCheck:
    """The clearance at every step of ``trajectory`` (a played :class:`~mime_gui.rig.build.RigTrajectory`),
    with ``margin`` (m) in place of the rig's when given."""
    return check(clearance_model(built), trajectory.frame_poses, trajectory.times(start), margin)


def initial_frame_poses(built) -> np.ndarray:
    """``(1, F, 4, 4)``: the rig's frames at its initial positions, each segment on its mount."""
    chain = built.chain_node()
    init = built.initial_commands()
    positions, col = {}, 0
    for name in built.segments:
        k = len(chain.command_names(name))
        positions[name], col = init[col:col + k], col + k
    state = chain.initial_state(positions)
    return np.concatenate([np.zeros((0, 4, 4))] + [state[n].frame_poses for n in built.segments])[None]


def assembly_findings(built) -> list[Finding]:
    """The ``clearance.*`` findings of the built rig in its initial pose."""
    return check(clearance_model(built), initial_frame_poses(built)).findings


def initial_clearance(apparatus, analysis=None) -> list[Finding]:
    """What ``mime-gui validate`` lists beside the rules: the ``clearance.*`` findings of ``apparatus`` in its
    initial pose (``[]`` for a rig that breaks a rule: it is not built). They warn, they do not refuse: a rig
    with a buried magnet still builds, exports and plays. ``analysis``: the rig's
    :func:`~mime_gui.rig.rules.analyse`, when the caller has it."""
    from mime_gui.rig.build import build
    from mime_gui.rig.rules import analyse

    a = analysis if analysis is not None else analyse(apparatus)
    if a.findings:
        return []
    return assembly_findings(build(apparatus, a))


def per_step_minimum(model: ClearanceModel, frame_poses) -> tuple[np.ndarray, np.ndarray]:
    """The smallest distance and its pair at every step by the plain loop: the library on every moving
    piece pair at every step, no bound (what :func:`check` is measured and tested against)."""
    import coal

    flat = model.pieces
    frame_poses = np.asarray(frame_poses, dtype=float)
    T = len(frame_poses)
    minimum, closest = np.full(T, np.inf), np.full(T, -1)
    body, geometry = flat["body"], flat["geometry"]
    request = coal.DistanceRequest()
    for t in range(T):
        W = piece_poses(flat, frame_poses[t:t + 1])[0]
        X = [coal.Transform3s(w[:3, :3], w[:3, 3]) for w in W]
        for k, (i, j) in enumerate(model.moving):
            for a in np.flatnonzero(body == i):
                for b in np.flatnonzero(body == j):
                    d = coal.distance(geometry[a], X[a], geometry[b], X[b], request, coal.DistanceResult())
                    if d < minimum[t]:
                        minimum[t], closest[t] = d, k
    return minimum, closest


__all__ = ["ClearanceCheck", "assembly_findings", "check", "clearance_along", "initial_clearance",
           "initial_frame_poses", "per_step_minimum"]
