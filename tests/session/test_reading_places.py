"""Reading a file into a rig: a bad actuators file beside it is refused naming that file and line (a clash
with no file of its own names the file opened, with no line), and a URDF whose robot has no name gives its
segment the file stem."""

from __future__ import annotations

import pytest

from mime_gui.session import SessionError
from mime_gui.session.reading import discover_actuators, load_rig, urdf_rig

URDF = '<robot name="{name}">\n<link name="base"/>\n</robot>\n'


@pytest.fixture
def no_user_actuators(tmp_path, monkeypatch):
    """An empty configuration folder, so only the folder beside the file read gives actuators."""
    (tmp_path / "config").mkdir()
    monkeypatch.setenv("MIME_GUI_CONFIG_DIR", str(tmp_path / "config"))


def test_a_bad_actuators_file_beside_the_urdf_is_named(tmp_path, no_user_actuators):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(URDF.format(name="arm"))
    actuators = tmp_path / "actuators.json"
    actuators.write_text('{\n  "actuators": [\n'
                         '    {"name": "ok", "rotor_inertia": 1e-5, "source": "sheet"},\n'
                         '    {"name": "bad", "rotor_inertia": -1, "source": "sheet"}\n  ]\n}\n')
    with pytest.raises(SessionError) as err:
        discover_actuators(str(urdf))
    # the place is the actuators file, not the URDF that was opened; the message names the record and field
    assert err.value.code == "actuator.record" and err.value.file == str(actuators)
    assert err.value.line == 4  # the bad record's line, counted in the text above, as validate names it
    assert err.value.message.startswith("#/actuators/1: ") and "rotor_inertia" in err.value.message


def test_an_actuator_clashing_with_a_bundled_one_names_the_file_opened(tmp_path, no_user_actuators):
    """A clash between two sources has no file of its own: the file opened is its place."""
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(URDF.format(name="arm"))
    (tmp_path / "actuators.json").write_text(
        '{"actuators": [{"name": "example-dc-22mm", "rotor_inertia": 1e-5, "source": "sheet"}]}')
    with pytest.raises(SessionError) as err:
        discover_actuators(str(urdf))
    assert err.value.code == "actuator.duplicate" and err.value.file == str(urdf)
    assert err.value.line == 0  # no line of the URDF is at fault
    assert "'example-dc-22mm'" in err.value.message and "rename or remove one" in err.value.message


@pytest.mark.parametrize("name", ["", " "], ids=["empty", "blank"])
def test_a_robot_without_a_name_gives_its_segment_the_file_stem(tmp_path, name):
    urdf = tmp_path / "left.arm.urdf"
    urdf.write_text(URDF.format(name=name))
    rig = urdf_rig(str(urdf))
    # the stem before the first dot, as a segment name holds no dots
    assert rig.name == "left" and list(rig.chain) == ["left"]


def test_a_rig_refused_by_an_error_naming_no_file_is_placed_at_the_rig_file_opened(tmp_path, monkeypatch):
    """Every rig-file refusal the reader passes on carries its own file today; one from a lower layer that
    does not (a bare OSError) still names the rig file opened, so the user knows which file to check."""
    import mime_gui.rig

    def failing_load(path):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(mime_gui.rig, "load", failing_load)
    path = tmp_path / "lab.rig.json"
    with pytest.raises(SessionError) as err:
        load_rig(str(path))
    assert (err.value.code, err.value.file) == ("rig.invalid", str(path))
    assert "Input/output error" in err.value.message
