"""One mount resolver for every kind of item that mounts on a frame: the same resolution and the same words,
each kind refused under its own code."""

from types import SimpleNamespace

import pytest
from plain_ids import plain_id

from mime_gui.rig import Apparatus, Box, Part, PermanentMagnet, Probe, Sample, Zone
from mime_gui.rig.mount_rules import LISTED, resolve_mount


def analysis(frames: dict):
    found = []
    a = SimpleNamespace(frames=frames, frame_sets={s: set(f) for s, f in frames.items() if f is not None},
                        add=lambda code, where, message: found.append((code, where, message)))
    return a, found


@pytest.mark.parametrize("count, tail", [(LISTED - 1, ""), (LISTED, ""), (LISTED + 1, " … (1 more)"),
                                         (LISTED + 7, " … (7 more)")], ids=plain_id)
def test_a_refusal_lists_the_first_frames_and_says_how_many_more(count, tail):
    names = [f"f{i:02d}" for i in range(count)]
    a, found = analysis({"arm": names[:10], "motor": names[10:]})
    rig = SimpleNamespace(chain={"arm": None, "motor": None})
    assert resolve_mount("probes.p.mount", "arm.nowhere", rig, a, "probe") is None
    [(code, where, message)] = found
    listed = [f"arm.{n}" for n in names[:10]] + [f"motor.{n}" for n in names[10:]]
    assert (code, where) == ("probe.mount", "probes.p.mount")
    assert f"({', '.join(listed[:LISTED])}{tail})" in message
    assert listed[LISTED - 1 if count >= LISTED else -1] in message
    if count > LISTED:
        assert listed[LISTED] not in message


def test_the_frame_is_what_follows_its_own_segments_name_and_dot():
    a, found = analysis({"arm": ["base", "tool0"], "arm.tool0": ["x"], "motor": ["rotor"]})
    rig = SimpleNamespace(chain={"arm": None, "arm.tool0": None, "motor": None})
    assert resolve_mount("w", "arm.tool0", rig, a, "part") == ("arm", "tool0")
    assert resolve_mount("w", "arm.tool0.x", rig, a, "part") == ("arm.tool0", "x")
    assert resolve_mount("w", "motor.rotor", rig, a, "part") == ("motor", "rotor")
    assert resolve_mount("w", None, rig, a, "part") is None and found == []
    assert resolve_mount("w", "motor.tool0", rig, a, "zone") is None
    assert [f[0] for f in found] == ["zone.mount"]


def test_a_segment_whose_description_failed_refuses_nothing_more():
    a, found = analysis({"arm": None, "motor": ["rotor"]})
    rig = SimpleNamespace(chain={"arm": None, "motor": None})
    assert resolve_mount("w", "arm.tool0", rig, a, "sample") is None and found == []
    assert resolve_mount("w", "motor.tool0", rig, a, "sample") is None
    assert [f[0] for f in found] == ["sample.mount"]


@pytest.mark.parametrize("mount, form", [("tool0", True), ("arm_tool0", True), ("arm.tool9", False)])
def test_a_mount_without_a_dot_is_told_the_form(mount, form):
    a, found = analysis({"arm": ["tool0"]})
    resolve_mount("w", mount, SimpleNamespace(chain={"arm": None}), a, "magnet")
    assert ("mount is '<segment>.<frame>'; " in found[0][2]) == form
    assert found[0][2].startswith(f"{mount!r} is not a frame of the chain; ")
    assert "mount the magnet on one of its frames (arm.tool0), or leave mount out" in found[0][2]


def items_on(mount):
    box = Box((0.01, 0.01, 0.01))
    magnet = PermanentMagnet(box, material="N42", magnetisation=(0, 0, 1), mount=mount)
    return Apparatus("r", parts={"p": Part(box, material="aluminium", mount=mount)}, magnets={"m": magnet},
                     probes={"q": Probe((0.0, 0.0, 0.5), mount=mount)},
                     samples={"s": Sample((0.0, 0.0, 0.6), mount=mount)},
                     zones={"z": Zone((0.0, 0.0, 0.7), sphere=0.01, mount=mount, reason="a chair")})


def test_every_kind_with_an_empty_chain_is_told_to_leave_mount_out_in_its_own_words():
    findings = [f for f in items_on("arm.tool0").validate() if f.code.endswith(".mount")]
    kinds = {"parts": "part", "magnets": "part", "probes": "probe", "samples": "sample", "zones": "zone"}
    assert sorted((f.code, f.where) for f in findings) == sorted(
        (f"{kinds[c]}.mount", f"{c}.{n}.mount") for c, n in
        (("parts", "p"), ("magnets", "m"), ("probes", "q"), ("samples", "s"), ("zones", "z")))
    for f in findings:
        kind = f.code.split(".")[0]
        assert f.message == ("'arm.tool0' is not a frame of the chain: the chain is empty, so leave mount "
                             f"out to fix the {kind} in the world")
    assert [f for f in items_on(None).validate() if f.code.endswith(".mount")] == []
