"""Probes in the rig model: the rig file, its refusals, the Python and JSON exports, the session's edits."""

from __future__ import annotations

import json
import runpy

import numpy as np
import pytest
from rig_helpers import snippet_rig

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import Box, Cylinder, Probe, RigFileError, Ring, Sphere, load, rigfile, save
from mime_gui.rig.export import to_python
from mime_gui.rig.paths import get
from mime_gui.rig.probes import SURFACE_TOLERANCE, inside
from mime_gui.session import AddItem, FakeRenderer, RemoveItem, RenameItem, Session, SetValue

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"
PROBES = {"sample": Probe((0.0, 0.0, 0.05), mount="motor.rotor"), "bench": Probe((0.3, -0.1, 0.2))}


def with_probes(tmp_path):
    rig = snippet_rig(probes=dict(PROBES))
    rig.base = tmp_path
    return rig


def test_probes_round_trip_through_the_rig_file_in_order_with_their_units(tmp_path):
    rig = with_probes(tmp_path)
    path = save(rig, tmp_path / "p.rig.json")
    data = json.loads(path.read_text())
    assert data["probes"]["sample"] == {"at": {"value": [0.0, 0.0, 0.05], "unit": "m"},
                                        "mount": "motor.rotor"}
    assert data["probes"]["bench"]["mount"] is None
    back = load(path)
    assert back == rig and list(back.probes) == ["sample", "bench"]
    assert back.probes["bench"].at == (0.3, -0.1, 0.2)


def test_a_rig_without_probes_is_written_as_before_and_differs_from_one_with_them(tmp_path):
    rig = snippet_rig()
    assert "probes" not in rigfile.to_data(rig, tmp_path)
    assert rig != snippet_rig(probes={"sample": Probe((0.0, 0.0, 0.05))})


@pytest.mark.parametrize("probe, code, pointer", [
    ({"at": {"value": [0, 0, 1], "unit": "mm"}}, "rigfile.unit", "/probes/p/at/unit"),
    ({"at": {"value": [0, 0], "unit": "m"}}, "rigfile.type", "/probes/p/at/value"),
    ({"mount": "motor.rotor"}, "rigfile.missing", "/probes/p"),
    ({"at": {"value": [0, 0, 1], "unit": "m"}, "mount": 3}, "rigfile.type", "/probes/p/mount"),
    ({"at": {"value": [0, 0, 1], "unit": "m"}, "radius": 1}, "rigfile.key", "/probes/p/radius"),
], ids=["unit", "two-numbers", "no-at", "mount-number", "unknown-key"])
def test_a_bad_probe_in_a_rig_file_is_refused_with_its_pointer(tmp_path, probe, code, pointer):
    data = rigfile.to_data(snippet_rig(), tmp_path)
    data["probes"] = {"p": probe}
    with pytest.raises(RigFileError) as err:
        rigfile.parse(json.dumps(data), "p.rig.json", base=tmp_path)
    assert (err.value.code, err.value.pointer) == (code, pointer)


def test_probes_export_to_python_that_rebuilds_them(tmp_path):
    rig = with_probes(tmp_path)
    path = tmp_path / "exported.py"
    path.write_text(to_python(rig, tmp_path))
    assert runpy.run_path(str(path))["rig"] == rig
    assert "Probe" not in to_python(snippet_rig(), tmp_path)


def test_the_cli_exports_probes_to_json_and_python(tmp_path):
    src = save(with_probes(tmp_path), tmp_path / "src.rig.json")
    assert main(["export", str(src), "--json", str(tmp_path / "out.rig.json")]) == 0
    assert load(tmp_path / "out.rig.json").probes == PROBES
    assert main(["export", str(src), "--python", str(tmp_path / "out.py")]) == 0
    assert runpy.run_path(str(tmp_path / "out.py"))["rig"].probes == PROBES


@pytest.fixture
def session():
    rig = load(DEMO_RIG)
    rig.probes = {}  # the demo's own probe aside: these tests add theirs
    s = Session()
    s.attach_renderer(FakeRenderer())
    s.open_apparatus(rig, str(DEMO_RIG))
    return s


def test_probes_are_added_moved_and_removed_by_edits_with_undo(session):
    session.apply(AddItem("probes", "sample", Probe((0.0, 0.0, 0.05), mount="motor.rotor")))
    assert session.rig.probes["sample"].mount == "motor.rotor" and session.findings == ()
    session.apply(SetValue("probes.sample.at", (0.0, 0.0, 0.06)))
    assert get(session.rig, "probes.sample.at") == (0.0, 0.0, 0.06)
    session.history.seal()  # a second move is its own undo step
    session.apply(SetValue("probes.sample.at", (0.0, 0.0, 0.025)))  # into magnet m1
    assert [(f.code, f.where) for f in session.findings] == [("probe.inside-magnet", "probes.sample.at")]
    session.undo()
    assert session.findings == () and session.rig.probes["sample"].at == (0.0, 0.0, 0.06)
    session.apply(RemoveItem("probes", "sample"))
    assert session.rig.probes == {}
    session.undo()
    assert "sample" in session.rig.probes


def test_a_probe_edit_refuses_a_wrong_value_and_a_taken_name(session):
    from mime_gui.session import SessionError

    session.apply(AddItem("probes", "sample", Probe((0.0, 0.0, 0.05))))
    with pytest.raises(SessionError):
        session.apply(SetValue("probes.sample.at", "up"))
    with pytest.raises(SessionError):
        session.apply(AddItem("probes", "sample", Probe()))
    assert session.rig.probes["sample"].at == (0.0, 0.0, 0.05)


def test_renaming_a_segment_renames_a_probes_mount(session):
    session.apply(AddItem("probes", "sample", Probe((0.0, 0.0, 0.05), mount="motor.rotor")))
    change = session.apply(RenameItem("chain", "motor", "spindle"))
    assert session.rig.probes["sample"].mount == "spindle.rotor" and session.findings == ()
    assert "probes.sample" in change.paths


@pytest.mark.parametrize("geometry, axis, edge", [
    (Box((0.02, 0.04, 0.06)), 1, 0.02 * (1.0 - SURFACE_TOLERANCE)),
    (Cylinder(0.005, 0.01), 0, 0.005 * (1.0 - SURFACE_TOLERANCE)),
    (Cylinder(0.005, 0.01), 2, 0.005 * (1.0 - SURFACE_TOLERANCE)),
    (Ring(0.003, 0.006, 0.004), 0, 0.006 * (1.0 - SURFACE_TOLERANCE)),
    (Ring(0.003, 0.006, 0.016), 2, 0.008 * (1.0 - SURFACE_TOLERANCE)),
    (Sphere(0.005), 1, 0.005 * (1.0 - SURFACE_TOLERANCE)),
], ids=["box", "cylinder-side", "cylinder-top", "ring-outside", "ring-top", "sphere"])
def test_a_point_the_tolerance_inside_a_surface_is_not_inside_and_the_next_one_in_is(geometry, axis, edge):
    point = np.zeros(3)
    if isinstance(geometry, Ring) and axis == 2:
        point[0] = 0.0045  # in the ring's material, between its bore and its outside
    point[axis] = edge
    nearer = point.copy()
    nearer[axis] = np.nextafter(edge, 0.0)
    assert inside(geometry, np.array([point, nearer])).tolist() == [False, True]


def test_a_point_just_the_tolerance_out_of_a_rings_bore_is_not_inside_and_the_next_one_out_is():
    ring = Ring(0.003, 0.006, 0.004)
    edge = 0.003 * (1.0 + SURFACE_TOLERANCE)
    points = np.array([[edge, 0.0, 0.0], [np.nextafter(edge, 1.0), 0.0, 0.0]])
    assert inside(ring, points).tolist() == [False, True]
