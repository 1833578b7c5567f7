"""A lab's actuators from an entry point or an ``actuators.json``: the command line sees them and names where
each comes from; bad records are coded errors naming their place."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
import sys
import types

import pytest
from rig_helpers import DEMO_RIG

from mime_gui.cli import main
from mime_gui.rig import actuator, actuators
from mime_gui.rig.actuator_sources import GROUP, ActuatorError, discover

LAB_MOTOR = {"name": "lab-ec45", "rotor_inertia": 2.09e-5, "unit": "kg m2",
             "source": "EC 45 flat datasheet, rotor inertia 209 g cm2"}


@pytest.fixture(autouse=True)
def clean(monkeypatch, tmp_path):
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr(importlib.metadata, "entry_points", _entry_points([]))
    yield
    actuators.set_discovered({})


def _entry_points(eps):
    def entry_points(**select):
        return importlib.metadata.EntryPoints(e for e in eps if e.group == select.get("group", e.group))
    return entry_points


def _lab_package(monkeypatch, records, name="lab_motors"):
    """A package ``lab_motors`` whose entry point ``lab = lab_motors:motors`` gives ``records``."""
    module = types.ModuleType(name)
    module.motors = records
    monkeypatch.setitem(sys.modules, name, module)
    ep = importlib.metadata.EntryPoint("lab", f"{name}:motors", GROUP)
    monkeypatch.setattr(importlib.metadata, "entry_points", _entry_points([ep]))


@pytest.fixture
def rig(tmp_path):
    """The demo rig (copied) with motor_1 naming the lab's motor."""
    folder = tmp_path / "rig"
    shutil.copytree(DEMO_RIG.parent, folder)
    data = json.loads((folder / "demo.rig.json").read_text())
    data["chain"][0]["actuators"]["motor_1"] = "lab-ec45"
    (folder / "demo.rig.json").write_text(json.dumps(data))
    return folder / "demo.rig.json"


def test_without_the_lab_package_the_rig_names_an_unknown_actuator(rig, capsys):
    assert main(["validate", str(rig)]) == 1
    out = capsys.readouterr().out
    assert "error[chain.armature] chain.arm.actuators.motor_1: 'lab-ec45' is not a registered actuator" in out


def test_an_entry_point_actuator_is_seen_by_validate_with_its_source(rig, monkeypatch, capsys):
    _lab_package(monkeypatch, lambda: [LAB_MOTOR])  # a function that returns the records
    assert main(["validate", str(rig)]) == 0
    assert "is valid" in capsys.readouterr().out
    assert main(["report", str(rig)]) == 0
    report = capsys.readouterr().out
    assert "registered actuator 'lab-ec45': EC 45 flat datasheet, rotor inertia 209 g cm2 [entry point lab]" \
        in report
    assert main(["report", str(rig), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "[entry point lab]" in json.dumps(data)
    assert actuator("lab-ec45").rotor_inertia == 2.09e-5  # Python sees the same list


def test_an_actuators_file_beside_the_rig_is_read(rig, capsys):
    (rig.parent / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR]}))
    assert main(["validate", str(rig)]) == 0
    assert main(["report", str(rig)]) == 0
    out = capsys.readouterr().out
    assert f"[file {rig.parent / 'actuators.json'}]" in out


def test_an_actuators_file_in_the_config_folder_is_read(rig, tmp_path, capsys):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR]}))
    assert main(["validate", str(rig)]) == 0
    assert main(["report", str(rig)]) == 0
    assert f"[file {tmp_path / 'config' / 'actuators.json'}]" in capsys.readouterr().out


def test_the_app_session_sees_the_same_actuators(rig, monkeypatch):
    from mime_gui.session import Session

    _lab_package(monkeypatch, [LAB_MOTOR])  # a plain list
    doc = Session().open(str(rig))
    assert doc.rig.validate() == []


@pytest.mark.parametrize(("change", "words"), [
    ({"source": ""}, "needs a source"),
    ({"source": None}, "needs a source"),
    ({"rotor_inertia": -1e-9}, "not below zero"),
    ({"rotor_inertia": True}, "finite number"),
    ({"rotor_inertia": "2e-5"}, "finite number"),
    ({"unit": "g cm2"}, "the unit of rotor_inertia"),
    ({"colour": "red"}, "unknown key 'colour'"),
    ({"name": ""}, "needs a name"),
])
def test_a_bad_record_in_a_file_is_a_coded_error_naming_its_place(rig, capsys, change, words):
    bad = {**LAB_MOTOR, **change}
    (rig.parent / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR | {"name": "ok"}, bad]}))
    assert main(["validate", str(rig)]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith(f"error[actuator.record] {rig.parent / 'actuators.json'}:1: #/actuators/1: ")
    assert words in line


def test_a_zero_rotor_inertia_is_a_record(rig):
    (rig.parent / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR | {"rotor_inertia": 0}]}))
    assert discover(rig.parent)["lab-ec45"].rotor_inertia == 0.0


def test_a_bad_record_from_an_entry_point_names_the_entry_point(monkeypatch):
    _lab_package(monkeypatch, [LAB_MOTOR | {"source": " "}])
    with pytest.raises(ActuatorError) as info:
        discover()
    assert info.value.code == "actuator.record" and "entry point lab, record 0" in info.value.message


def test_an_entry_point_that_fails_to_load_is_a_coded_error(monkeypatch, rig, capsys):
    def broken():
        raise RuntimeError("no licence server")

    _lab_package(monkeypatch, broken)
    assert main(["validate", str(rig)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("error[actuator.entry-point] ") and "no licence server" in out
    assert "lab_motors:motors" in out


def test_one_name_from_two_sources_is_refused_naming_both(rig, monkeypatch):
    _lab_package(monkeypatch, [LAB_MOTOR])
    (rig.parent / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR]}))
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert info.value.code == "actuator.duplicate"
    assert "entry point lab" in info.value.message and "actuators.json" in info.value.message


def test_a_bundled_example_name_cannot_be_given_again(rig):
    (rig.parent / "actuators.json").write_text(json.dumps({"actuators": [LAB_MOTOR | {"name":
                                                                                       "example-bldc-60mm"}]}))
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert info.value.code == "actuator.duplicate" and "bundled examples" in info.value.message


def test_a_file_that_is_not_an_actuators_file_is_refused(rig):
    (rig.parent / "actuators.json").write_text("[1, 2]")
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert info.value.code == "actuator.file"


def test_an_installed_package_names_itself_and_its_version(rig, tmp_path, monkeypatch, capsys):
    # installed for real: a dist-info with the entry point on sys.path, read by importlib.metadata itself
    monkeypatch.undo()
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(tmp_path / "config"))
    site = tmp_path / "site"
    (site / "lab_motors").mkdir(parents=True)
    (site / "lab_motors" / "__init__.py").write_text(f"MOTORS = [{LAB_MOTOR!r}]\n")
    info = site / "lab_motors-0.3.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lab-motors\nVersion: 0.3.0\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nlab = lab_motors:MOTORS\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        assert main(["report", str(rig)]) == 0
        assert "[entry point lab of lab-motors 0.3.0]" in capsys.readouterr().out
    finally:
        sys.modules.pop("lab_motors", None)


def test_a_record_that_is_no_object_says_what_a_record_holds(rig, capsys):
    (rig.parent / "actuators.json").write_text(json.dumps({"actuators": [["lab-ec45", 2e-5]]}))
    assert main(["validate", str(rig)]) == 1
    assert capsys.readouterr().out.strip().endswith(
        "#/actuators/0: an actuator record is an object with name, rotor_inertia, unit, source, got list")


def test_a_file_that_is_not_json_is_refused_at_its_line_saying_what_the_file_holds(rig):
    path = rig.parent / "actuators.json"
    # line 3 holds a key without its quotes
    path.write_text('{"actuators": [\n  {"name": "lab-ec45",\n   rotor_inertia: 2e-5}\n]}\n')
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert (info.value.code, info.value.file, info.value.line) == ("actuator.file", str(path), 3)
    assert "cannot read the actuators file" in info.value.message
    assert '{"actuators": [{"name", "rotor_inertia", "unit", "source"}' in info.value.message


def test_a_name_given_twice_in_one_file_is_refused_at_the_line_of_the_second(rig):
    path = rig.parent / "actuators.json"
    # one record a line: the first on line 2, the repeat on line 3
    path.write_text('{"actuators": [\n' + json.dumps(LAB_MOTOR) + ",\n" + json.dumps(LAB_MOTOR) + "\n]}\n")
    with pytest.raises(ActuatorError) as info:
        discover(rig.parent)
    assert (info.value.code, info.value.file, info.value.line) == ("actuator.duplicate", str(path), 3)
    assert "#/actuators/1" in info.value.message and "keep one" in info.value.message


@pytest.mark.parametrize("data", [
    [LAB_MOTOR],
    {"motors": [LAB_MOTOR]},
    {"actuators": [LAB_MOTOR], "colour": "red"},
], ids=["a bare list", "another key", "an extra key"])
def test_an_actuators_file_of_another_shape_says_the_shape_it_expects(tmp_path, data):
    rig = tmp_path / "rig"
    rig.mkdir()
    path = rig / "actuators.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ActuatorError) as info:
        discover(rig)
    assert (info.value.code, info.value.file) == ("actuator.file", str(path))
    assert 'expected {"actuators": [record, ...]}' in info.value.message
    assert '"about"' in info.value.message  # the one other key a file may hold


def test_an_entry_point_that_fails_to_load_names_itself_and_its_target(monkeypatch):
    def broken():
        raise RuntimeError("no licence server")

    _lab_package(monkeypatch, broken)
    with pytest.raises(ActuatorError) as info:
        discover()
    assert info.value.code == "actuator.entry-point"
    message = info.value.message
    assert f"the {GROUP} entry point lab = lab_motors:motors" in message
    assert "cannot be loaded: RuntimeError: no licence server" in message


def test_one_name_from_two_entry_points_names_both_and_says_keep_one(monkeypatch):
    module = types.ModuleType("lab_motors")
    module.first = module.second = [LAB_MOTOR]
    monkeypatch.setitem(sys.modules, "lab_motors", module)
    eps = [importlib.metadata.EntryPoint(name, f"lab_motors:{name}", GROUP) for name in ("first", "second")]
    monkeypatch.setattr(importlib.metadata, "entry_points", _entry_points(eps))
    with pytest.raises(ActuatorError) as info:
        discover()
    assert info.value.code == "actuator.duplicate"
    message = info.value.message
    assert "actuator 'lab-ec45' is given by entry point first and by entry point second" in message
    assert message.endswith("; keep one")


def test_an_entry_point_may_give_actuator_records_and_each_keeps_its_values(monkeypatch):
    given = actuators.ActuatorRecord("lab-ec45", 2.09e-5, "EC 45 flat datasheet, rotor inertia 209 g cm2")
    _lab_package(monkeypatch, [given])
    found = discover()["lab-ec45"]
    assert (found.rotor_inertia, found.source, found.example) == (2.09e-5, given.source, False)
    assert found.origin == "entry point lab"  # where it was found, not where it was made
