"""The rule of a segment's declared field tolerance (``chain.field-tolerance``), checked by
:func:`mime_gui.rig.rules.analyse`.

A segment may declare the largest |B| its joints take (``field_tolerance=tesla(0.005, reason="the encoder's
datasheet")``): what its motors, brakes and magnetic encoders stand without losing steps or counts. The field
check (:func:`mime_gui.field.joints.joint_field`) names the steps where a joint's frame sees more. A declared
tolerance is in tesla, finite, positive and at most 100 T (the bound of a remanence), and says where it comes
from; a bare number or another unit is ``unit``, a missing reason ``declaration.reason``, as for every
declaration.
"""

from __future__ import annotations

import math

from mime_gui.rig.mass import MAX_REMANENCE
from mime_gui.rig.units import TESLA, Quantity, check_declaration

#: the largest tolerance a segment may declare, T (as a remanence's bound: beyond it nothing is magnetic)
MAX_FIELD_TOLERANCE = MAX_REMANENCE


def tolerance_problems(q) -> list[tuple[str, str]]:
    """``(code, message)`` of a declared field tolerance (None: none declared, nothing to check)."""
    if q is None:
        return []
    problems = check_declaration(q, TESLA, "the field tolerance", "tesla(value, reason=...)",
                                 "chain.field-tolerance")
    value = q.value if isinstance(q, Quantity) else None
    ranged = any(code == "chain.field-tolerance" for code, _ in problems)
    if value is not None and not ranged and not (math.isfinite(value) and 0 < value <= MAX_FIELD_TOLERANCE):
        problems.append(("chain.field-tolerance", f"the field tolerance {value:g} T must be positive and at "
                                                  f"most {MAX_FIELD_TOLERANCE:g} T (5 mT is 0.005)"))
    return problems


__all__ = ["MAX_FIELD_TOLERANCE", "tolerance_problems"]
