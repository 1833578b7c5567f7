"""The words of the command line's and the mesh reader's refusals: each names its place (the option, the file)
and says what to do, so a message that loses either is caught."""

from __future__ import annotations

import argparse
import io

import pytest

from mime_gui import RESOURCES, mesh_files
from mime_gui.cli import main
from mime_gui.mesh_files import MeshFileError

DEMO = RESOURCES / "demo"


def run(capsys, *argv) -> tuple[int, str]:
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


# -- options refused before any file is read: (argv, code, place, words of the fix) ----------------------
OPTION_CASES = [
    (["field", "arm.urdf", "--commands", "c.csv", "--out", "f.npz"], "field.format", "arm.urdf",
     ["the field comes from a rig's magnets", "give a .rig.json file"]),
    (["field", "r.rig.json", "--commands", "c.csv", "--out", "f.txt"], "field.out", "f.txt",
     ["the output file must end in .npz"]),
    (["plan", "r.rig.json", "--at", "probes.sample", "--direction", "0,0,1", "--starts", "0", "--out",
      "o.csv"], "plan.option", "--starts", ["--starts is a whole number from 1 to 1000", "got 0"]),
    (["play", "r.txt", "--commands", "c.csv", "--out", "f.npz"], "play.format", "r.txt",
     ["cannot play this kind of file", "expected one of: .urdf, .rig.json, .zip"]),
    (["play", "arm.urdf", "--commands", "c.csv", "--out", "f.npz", "--substeps", "0"], "play.substeps",
     "--substeps", ["the sub-steps per step are a whole number from 1 to 5,000,000", "got 0"]),
    (["play", "arm.urdf", "--commands", "c.csv", "--out", "f.txt"], "play.out", "f.txt",
     ["the output file must end in .npz"]),
]


@pytest.mark.parametrize("argv, code, place, words", OPTION_CASES,
                         ids=["field-not-a-rig", "field-out-not-npz", "plan-starts-zero", "play-unknown-kind",
                              "play-substeps-zero", "play-out-not-npz"])
def test_a_bad_option_or_file_kind_is_refused_naming_the_place_and_the_fix(capsys, tmp_path, monkeypatch,
                                                                         argv, code, place, words):
    monkeypatch.chdir(tmp_path)
    status, err = run(capsys, *argv)
    assert status == 2
    assert err.startswith(f"error[{code}] {place}: ")
    for w in words:
        assert w in err


def test_field_refuses_a_probe_given_twice_naming_the_option_and_the_probe(capsys, tmp_path):
    status, err = run(capsys, "field", DEMO / "demo.rig.json", "--commands", DEMO / "chain.csv", "--out",
                      tmp_path / "f.npz", "--probe", "0,0,0.3", "--probe", "0,0,0.3")
    assert status == 2
    assert err.startswith("error[field.probe] --probe: ")
    assert "the probe '0,0,0.3' is given twice; give it once" in err
    assert not (tmp_path / "f.npz").exists()


def test_the_rig_command_runner_refuses_a_command_it_does_not_know_by_name():
    """The CLI only dispatches validate, report and export; the runner, called with another, names it."""
    from mime_gui.cli import rig as rig_command

    args = argparse.Namespace(rig=str(DEMO / "demo.rig.json"), command="frobnicate")
    with pytest.raises(ValueError) as info:
        rig_command.run(args, io.StringIO(), io.StringIO())
    assert "unknown rig command 'frobnicate'" in str(info.value)


# -- meshes ------------------------------------------------------------------------------------------------
def test_a_mesh_whose_xml_declares_an_entity_is_refused_naming_the_entity_and_the_fix(tmp_path):
    path = tmp_path / "part.dae"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE COLLADA [\n<!ENTITY boom "x">\n]>\n<COLLADA/>\n')
    with pytest.raises(MeshFileError) as info:
        mesh_files.load(path, "scene")
    assert (info.value.code, info.value.file, info.value.line) == ("mesh.xml", str(path), 3)
    assert "declares the entity 'boom'" in info.value.message
    assert "remove its DOCTYPE block" in info.value.message


def test_a_mesh_without_an_ending_is_refused_asking_for_a_name_with_its_format(tmp_path):
    path = tmp_path / "mesh"
    path.write_text("solid x\nendsolid x\n")
    with pytest.raises(MeshFileError) as info:
        mesh_files.load(path)
    assert (info.value.code, info.value.file) == ("mesh.format", str(path))
    assert "has no ending naming its format (.stl, .obj, .dae" in info.value.message
    assert "rename it" in info.value.message
