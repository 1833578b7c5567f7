"""The field's checks along a played trajectory, in one call: the keep-out zones (``field.zone``), the arm's
own joints against their segment's field tolerance (``field.joint``) and the samples that may fall behind a
turning field (``field.step-out``) — what ``mime-gui field`` prints as warnings, for the app's Validation
panel and the planner's checks. Each check runs only where the rig declares what it checks."""

from __future__ import annotations

from mime_gui.rig.findings import Finding


def field_findings(built, trajectory, start: float = 0.0, spins=None) -> list[Finding]:
    """The ``field.*`` findings of ``trajectory`` (a played trajectory of ``built``); ``spins``: the rig
    trajectory (or its name) it plays, whose spin profiles ask the samples' frequency (None: the field's
    rotating summary at each sample asks it)."""
    rig = built.apparatus
    found: list[Finding] = []
    if rig.zones:
        from mime_gui.field.zones import zone_findings

        found += zone_findings(built, trajectory, start=start).findings
    if any(s.field_tolerance is not None for s in rig.chain.values()):
        from mime_gui.field.joints import joint_field

        found += joint_field(built, trajectory, start=start).findings
    if any(s.drag is not None for s in rig.samples.values()):
        from mime_gui.field.step_out import step_out

        found += step_out(built, trajectory, spins=spins, start=start).findings
    return found


__all__ = ["field_findings"]
