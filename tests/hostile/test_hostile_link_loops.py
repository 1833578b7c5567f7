"""Loops of symbolic links: a rig file, an arm's description or a part's mesh that names a link leading back
to itself is refused with its reader's code and the system's words for it, never a traceback (Python
3.11's ``Path.resolve()`` raises a bare RuntimeError on such a loop; the package uses ``inputs.resolved``)."""

from __future__ import annotations

import os

import pytest
from hostile_corpus import cli, one_error, rig_with

from mime_gui.rig import Apparatus, Arm, Mesh, Part, RigFileError, load
from mime_gui.session import Session

LOOP_WORDS = os.strerror(40)  # ELOOP on Linux: "Too many levels of symbolic links"


def _loop(folder, name: str):
    """``name`` → ``name.other`` → ``name``."""
    os.symlink(name + ".other", folder / name)
    os.symlink(name, folder / (name + ".other"))
    return folder / name


def test_a_description_that_is_a_loop_of_links_is_a_finding_at_the_segment_s_description(tmp_path):
    _loop(tmp_path, "arm.urdf")
    rig = Apparatus("r", base=tmp_path, chain={"arm": Arm.Kinematic(description="arm.urdf")})
    (finding,) = rig.validate()
    assert (finding.code, finding.where) == ("chain.description", "chain.arm.description")
    assert "'arm.urdf'" in finding.message and LOOP_WORDS in finding.message


def test_a_part_s_mesh_that_is_a_loop_of_links_is_a_geometry_finding_in_validate_and_in_the_session(tmp_path):
    _loop(tmp_path, "holder.stl")
    rig = Apparatus("r", base=tmp_path, parts={"p": Part(Mesh("holder.stl"), material="aluminium")})
    (finding,) = rig.validate()
    assert (finding.code, finding.where) == ("part.geometry", "parts.p.geometry")
    assert "'holder.stl'" in finding.message and LOOP_WORDS in finding.message
    session = Session()
    session.open_apparatus(rig)
    assert [(f.code, f.where) for f in session.findings] == [("part.geometry", "parts.p.geometry")]


def test_a_rig_file_that_is_a_loop_of_links_is_refused_by_the_command_line_and_by_load(tmp_path):
    path = _loop(tmp_path, "loop.rig.json")
    status, out, err = cli("validate", path)
    assert status == 1
    m = one_error(out + err)
    assert m["code"] == "rigfile.io" and LOOP_WORDS in m["message"]
    with pytest.raises(RigFileError) as info:
        load(path)
    assert info.value.code == "rigfile.io"


def test_the_demo_rig_whose_arm_description_became_a_loop_says_so_on_validate(tmp_path):
    rig = rig_with(tmp_path, lambda data: None)
    (tmp_path / "arm.urdf").unlink()
    _loop(tmp_path, "arm.urdf")
    status, out, err = cli("validate", rig)
    assert status == 1
    assert "chain.description" in out + err and LOOP_WORDS in out + err
    assert "Traceback" not in out + err
