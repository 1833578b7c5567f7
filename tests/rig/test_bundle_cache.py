"""The bundle cache is pruned on open: the KEEP most recent extractions stay, older than MAX_AGE_DAYS go, the
ones this process opened never; nothing outside an extraction is removed or followed."""

from __future__ import annotations

import os
import time

import pytest
from rig_helpers import DEMO_RIG

from mime_gui.rig import load
from mime_gui.rig.bundle import KEEP, MAX_AGE_DAYS, SUFFIX, open_bundle, prune_cache, write_bundle

DAY = 86400.0
NOW = 2_000_000_000.0


def extraction(cache, name: str, age_days: float, now: float = NOW):
    folder = cache / f"{name}{SUFFIX}"
    folder.mkdir(parents=True)
    (folder / "rig.rig.json").write_text("{}")
    os.utime(folder, (now - age_days * DAY, now - age_days * DAY))
    return folder


def left(cache) -> set[str]:
    return {p.name.removesuffix(SUFFIX) for p in cache.iterdir()}


@pytest.mark.parametrize("count", [KEEP, KEEP + 1])
def test_exactly_keep_most_recent_extractions_stay(tmp_path, count):
    cache = tmp_path / "cache"
    for i in range(count):
        extraction(cache, f"e{i}", age_days=i)  # e0 the most recent
    removed = prune_cache(cache, now=NOW)
    assert left(cache) == {f"e{i}" for i in range(min(count, KEEP))}
    assert [p.name for p in removed] == ([f"e{KEEP}{SUFFIX}"] if count > KEEP else [])


def test_extractions_older_than_the_age_limit_go(tmp_path):
    cache = tmp_path / "cache"
    extraction(cache, "young", MAX_AGE_DAYS - 0.01)
    extraction(cache, "old", MAX_AGE_DAYS + 0.01)
    prune_cache(cache, now=NOW)
    assert left(cache) == {"young"}


def test_only_extraction_folders_are_removed_and_links_are_not_followed(tmp_path):
    cache = tmp_path / "cache"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me")
    old = extraction(cache, "old", 100)
    (old / "files").mkdir()
    (old / "files" / "link").symlink_to(outside, target_is_directory=True)  # inside an extraction
    (cache / f"linked{SUFFIX}").symlink_to(outside, target_is_directory=True)  # a link in the cache itself
    (cache / "mine").mkdir()  # not an extraction: the cache folder may be shared
    (cache / f"file{SUFFIX}").write_text("not a folder")
    for p in (cache / "mine", cache / f"file{SUFFIX}"):
        os.utime(p, (NOW - 100 * DAY, NOW - 100 * DAY))
    prune_cache(cache, now=NOW)
    assert not old.exists()
    assert (outside / "precious.txt").read_text() == "keep me"
    assert sorted(p.name for p in cache.iterdir()) == [f"file{SUFFIX}", f"linked{SUFFIX}", "mine"]


def test_opening_prunes_but_never_the_extraction_in_use(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(cache))
    bundle = write_bundle(load(DEMO_RIG), tmp_path / "demo.zip")
    first = open_bundle(bundle).parent
    long_ago = time.time() - 2 * MAX_AGE_DAYS * DAY
    os.utime(first, (long_ago, long_ago))  # old enough to go, but this process opened it
    for i in range(KEEP + 2):
        extraction(cache, f"other{i}", age_days=i / 100, now=time.time())
    second = open_bundle(bundle).parent
    names = {p.name for p in cache.iterdir()}
    assert first.name in names and second.name in names
    assert len(names) == KEEP + 1  # the KEEP most recent (the new one among them) and the one in use
    assert (first / "rig.rig.json").is_file() and load(second / "rig.rig.json").validate() == []
