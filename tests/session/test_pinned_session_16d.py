"""Small session contracts: a part on a dynamic segment is carried in the mass table, a refused removal of a
measure names the measure list, an unreadable file kind says what to open, a sidecar without ``original``
recovers a rig never saved, the fake view tolerates removing what it never posed, and a rig without a
collection of riders has none of them."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.rig.measures import CentreEnd, ProbeEnd
from mime_gui.session import FakeRenderer, ItemRef, Session, SessionError
from mime_gui.session.items import ItemChange
from mime_gui.session.mass_properties import mass_table
from mime_gui.session.recovery import RecoveryStore
from mime_gui.session.view_state import has_item

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_parts_on_a_dynamic_segment_are_carried_by_it():
    session = Session()
    session.open(DEMO_RIG)
    assert session.document.rig.chain["motor"].dynamic is True
    rows = {r.name: r for r in mass_table(session).rows if r.kind != "link"}
    assert {name: (r.segment, r.link, r.carried) for name, r in rows.items()} == {
        "holder": ("motor", "rotor", True), "m1": ("motor", "rotor", True)}


def test_removing_a_measure_not_listed_is_refused_on_the_measure_list(demo):
    session, _transport = demo
    m = session.add_measure(CentreEnd("magnets", "m1"), ProbeEnd("sample"))
    session.remove_measure(m)
    errors = []
    session.error.connect(errors.append)
    with pytest.raises(SessionError) as err:
        session.remove_measure(m)
    assert (err.value.code, err.value.file) == ("measure.unknown", "measure")
    assert err.value.message == f"{m.label()} is not in the list of measures"
    assert str(err.value) == f"error[measure.unknown] measure: {m.label()} is not in the list of measures"
    assert errors == [err.value] and session.measures == ()


def test_a_file_of_another_kind_is_refused_with_what_to_open(tmp_path):
    path = tmp_path / "NOTES.TXT"
    path.write_text("hello", encoding="utf-8")
    with pytest.raises(SessionError) as err:
        Session().open(path)
    assert (err.value.code, err.value.file) == ("file.kind", str(path))
    assert err.value.message == "not a URDF (.urdf) or rig (.rig.json) file; open one of those"


def test_a_sidecar_without_original_recovers_a_rig_never_saved(tmp_path):
    folder = tmp_path / "rec"
    folder.mkdir()
    sidecar = {"kind": "rig", "saved_at": 1.7e9, "pid": 0}  # no "original": the rig was never saved
    (folder / "7-7.json").write_text(json.dumps(sidecar), encoding="utf-8")
    (folder / "7-7.rig.json").write_text("{}", encoding="utf-8")
    store = RecoveryStore(folder)
    (item,) = store.pending()
    assert store.skipped == []
    assert (item.original, item.kind, item.saved_at, item.pid) == ("", "rig", 1.7e9, 0)
    assert item.rig_file == folder / "7-7.rig.json"


def test_the_fake_view_removes_an_item_it_never_posed():
    ref = ItemRef("", "probe", "P")
    view = FakeRenderer()
    view.show_items(ItemChange(added={ref: "drawn"}))  # shown without a pose
    view.update_items(ItemChange(removed=frozenset({ref})))
    assert view.items == {} and view.item_poses == {}
    assert view.calls == ["show_items", "update_items"]


def test_the_fake_view_removes_a_segment_it_never_posed():
    view = FakeRenderer()
    view.update_segments({"arm": ("tree", "articulation")})
    view.update_segments({}, removed=("arm",))
    assert view.segments == {} and view.poses == {}
    assert view.calls == ["update_segments", "update_segments"]


def test_the_fake_view_keeps_its_own_copy_of_the_shown_poses():
    ref = ItemRef("", "probe", "P")
    X = np.eye(4)
    X[:3, 3] = (0.1, -0.2, 0.3)
    view = FakeRenderer()
    view.show_items(ItemChange(added={ref: "drawn"}, poses={ref: X}))
    X[:3, 3] = (9.0, 9.0, 9.0)  # the caller rewrites its array afterwards
    np.testing.assert_array_equal(view.item_poses[ref][:3, 3], [0.1, -0.2, 0.3])


@pytest.mark.parametrize("kind", ["probe", "sample", "zone"])
def test_a_rig_without_a_collection_of_riders_has_none_of_them(kind):
    doc = SimpleNamespace(rig=SimpleNamespace(parts={}, magnets={}), segments={})
    assert has_item(doc, ItemRef("", kind, "P")) is False
    assert has_item(doc, ItemRef("arm", kind, "P")) is False
