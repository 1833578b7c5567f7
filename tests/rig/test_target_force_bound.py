"""A force bound on a field target at a probe is refused: the message says what it needs and what to do."""

from __future__ import annotations

import pytest

from mime_gui.rig.targets import FieldTarget, TargetError


def test_a_force_bound_at_a_probe_is_refused_saying_it_needs_a_sample_or_a_gradient_bound():
    with pytest.raises(TargetError) as refused:
        FieldTarget("probes.dish", direction=(0, 0, 1), max_force=1e-3)
    error = refused.value
    assert (error.code, error.file) == ("target.force", "max_force")
    assert error.message.startswith("a force bound needs a sample to feel the force (samples.<name>")
    assert error.message.endswith("a probe has none: bound the gradient instead")
