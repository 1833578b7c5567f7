"""What the code sorts or matches by order gives the same answer whatever order its input comes in: item
names that are prefixes of one another, bundle extractions to prune, actuators registered, findings of
parts given in either order. Each case is fed in both orders (and the expected answer worked out by hand)."""

from __future__ import annotations

import os
import time

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Box, Part, load
from mime_gui.rig.paths import split

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def _rig_with(names):
    rig = load(DEMO_RIG)
    rig.parts = {name: Part(Box((0.01, 0.01, 0.01)), material="aluminium", mount="arm.link_2")
                 for name in names}
    return rig


@pytest.mark.parametrize("order", [("a", "a.b", "a.b.c"), ("a.b.c", "a.b", "a"), ("a.b", "a", "a.b.c")],
                         ids=["short-first", "long-first", "mixed"])
def test_an_item_name_that_extends_another_is_matched_whole_in_any_order(order):
    rig = _rig_with(order)
    assert split(rig, "parts.a.at") == ("parts", "a", "at")
    assert split(rig, "parts.a.b.at") == ("parts", "a.b", "at")
    assert split(rig, "parts.a.b.c.geometry.size") == ("parts", "a.b.c", "geometry", "size")
    assert split(rig, "parts.a.b") == ("parts", "a.b")


@pytest.mark.parametrize("newest_named_first", [True, False], ids=["newest-a", "newest-z"])
def test_the_bundle_cache_keeps_the_newest_extractions_whatever_their_names(tmp_path, newest_named_first):
    from mime_gui.rig.bundle import prune_cache

    now = time.time()
    names = [f"{c}-x.mime-bundle" for c in "abcdefghijkl"]  # 12 folders
    if not newest_named_first:
        names.reverse()
    for age, name in enumerate(names):  # names[0] the newest, one hour apart
        folder = tmp_path / name
        folder.mkdir()
        os.utime(folder, (now - 3600 * age, now - 3600 * age))
    removed = prune_cache(tmp_path, keep=8, max_age_days=30, now=now)
    assert sorted(p.name for p in removed) == sorted(names[8:])  # the four oldest, by time not by name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[:8])


@pytest.mark.parametrize("order", [("zz-motor", "aa-motor"), ("aa-motor", "zz-motor")],
                         ids=["z-first", "a-first"])
def test_the_listed_actuators_do_not_depend_on_the_order_they_were_registered(order):
    from mime_gui.rig import actuators

    bundled = actuators.actuator_names()
    try:
        for name in order:
            actuators.register_actuator(name, 1e-5, "a figure the test declares")
        listed = actuators.actuator_names()
    finally:
        for name in order:
            actuators.unregister_actuator(name)
    assert listed == ["aa-motor", *bundled, "zz-motor"]  # by name, each once, whatever came first
    assert actuators.actuator_names() == bundled


@pytest.mark.parametrize("reverse", [False, True], ids=["as-written", "reversed"])
def test_findings_of_broken_parts_name_each_part_whatever_their_order(reverse):
    names = ["left", "right", "middle"]
    rig = _rig_with(names[::-1] if reverse else names)
    for name in names:
        rig.parts[name].geometry = Box((0.01, -0.01, 0.01))  # a negative edge breaks a rule
    found = [f for f in rig.validate() if f.code == "part.geometry"]
    assert sorted(f.where for f in found) == sorted(f"parts.{n}.geometry" for n in names)
    # listed in the rig's own order, as the Validation panel shows them
    assert [f.where.split(".")[1] for f in found] == list(rig.parts)
