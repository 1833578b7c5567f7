"""A rig refused for its findings names the rig file it was read from, and a rig file that is not JSON names
its file and the bad line, as the window and its log show it."""

from __future__ import annotations

import json

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm
from mime_gui.session import Session, SessionError


def test_a_rig_refused_for_its_findings_names_the_rig_file(tmp_path):
    rig = json.loads((RESOURCES / "demo" / "demo.rig.json").read_text())
    rig["chain"][0]["description"] = "nowhere/arm.urdf"  # the arm's URDF cannot be read: the rig is refused
    path = tmp_path / "lab.rig.json"
    path.write_text(json.dumps(rig))
    shown = []
    session = Session()
    session.error.connect(shown.append)
    with pytest.raises(SessionError) as err:
        session.open(path)
    assert (err.value.code, err.value.file) == ("chain.description", str(path))
    # the line the user reads: the rig file, then the rig path of the finding and what to check
    assert str(err.value).startswith(f"error[chain.description] {path}: chain.arm.description: ")
    assert "check the path" in err.value.message
    assert shown == [err.value]


def test_a_rig_file_that_is_not_json_is_refused_naming_its_file_and_the_bad_line(tmp_path):
    path = tmp_path / "lab.rig.json"
    path.write_text('{\n  "name": "lab",\n  "chain": [\n    oops\n  ]\n}\n')  # "oops" is on line 4
    with pytest.raises(SessionError) as err:
        Session().open(path)
    assert (err.value.code, err.value.file, err.value.line) == ("rigfile.json", str(path), 4)
    assert str(err.value).startswith(f"error[rigfile.json] {path}:4: ")


def two_unreadable_arms() -> Apparatus:
    return Apparatus("lab", chain={"near": Arm.Kinematic(description="nowhere/near.urdf"),
                                   "far": Arm.Kinematic(description="nowhere/far.urdf", mount="near.tool")})


def test_a_rig_built_in_python_and_refused_is_announced_on_the_error_event():
    shown = []
    session = Session()
    session.error.connect(shown.append)
    with pytest.raises(SessionError) as err:
        session.open_apparatus(two_unreadable_arms())
    assert shown == [err.value]  # the window shows the refusal itself, not an empty one
    assert session.document is None


def test_a_rig_refused_for_several_findings_counts_the_others_and_says_where_they_are():
    with pytest.raises(SessionError) as err:
        Session().open_apparatus(two_unreadable_arms())
    message = err.value.message
    assert message.startswith("chain.near.description: ")
    # the second unreadable description is not left out: how many more, and its place and file
    assert "(and 1 more: " in message and "chain.far.description" in message and "far.urdf" in message
