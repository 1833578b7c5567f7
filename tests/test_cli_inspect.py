"""``mime-gui inspect``: text and JSON on good files, one coded line and exit 2 on refused ones."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from robot_data import ALL_URDFS, ROBOTS

from mime_gui.cli import main
from mime_gui.multibody import UrdfError, read_urdf

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEMO = ROOT / "resources" / "demo" / "arm.urdf"
BAD = HERE / "data" / "bad_urdf"

ONE_LINE = re.compile(r"^error\[(urdf\.[a-z-]+)\] (.+):(\d+): (.+)$")


def _inspect(capsys, *argv):
    code = main(["inspect", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def _independent_counts(path: Path) -> dict:
    """Counts straight from the XML, without the reader."""
    root = ET.parse(path).getroot()
    joints = root.findall("joint")
    types = [j.get("type") for j in joints]
    mass = sum(float(m.get("value")) for m in root.findall("link/inertial/mass"))
    return {"links": len(root.findall("link")), "joints": len(joints),
            "dof": sum(t != "fixed" for t in types), "fixed": types.count("fixed"),
            "mimic": sum(j.find("mimic") is not None for j in joints if j.get("type") != "fixed"),
            "mass": mass}


def test_text_on_the_demo(capsys):
    code, out, err = _inspect(capsys, DEMO)
    assert code == 0 and err == ""
    expected = _independent_counts(DEMO)
    assert out.startswith("robot demo_arm")
    assert f"links {expected['links']}, joints {expected['joints']}" in out
    assert f"dof {expected['dof']}" in out
    assert f"total mass {expected['mass']:.6g} kg" in out
    for section in ("tree", "read and used", "recognised and not used", "refused", "warnings"):
        assert f"\n{section} (" in out or f"\n{section}\n" in out
    # the outline: each joint one level under the link it hangs from
    lines = out.splitlines()
    j1 = next(line for line in lines if line.strip().startswith("joint_1 (revolute)"))
    j2 = next(line for line in lines if line.strip().startswith("joint_2 (revolute)"))
    assert len(j2) - len(j2.lstrip()) == len(j1) - len(j1.lstrip()) + 2
    assert "[-2.9, 2.9] rad" in j1 and j1.endswith("-> link_1")


def test_json_on_the_demo(capsys):
    code, out, err = _inspect(capsys, DEMO, "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    expected = _independent_counts(DEMO)
    c = doc["counts"]
    assert (c["links"], c["joints"], c["dof"], c["mimic"]) == (expected["links"], expected["joints"],
                                                               expected["dof"], expected["mimic"])
    assert c["joints_by_type"]["fixed"] == expected["fixed"]
    assert sum(c["joints_by_type"].values()) == c["joints"]
    assert c["frames"] == c["links"]
    assert doc["total_mass"]["kg"] == pytest.approx(expected["mass"])
    assert "root link" in doc["total_mass"]["includes"]
    assert {row["joint"] for row in doc["tree"]} == {j.get("name") for j in ET.parse(DEMO).getroot()
                                                    .findall("joint")}
    assert set(doc["report"]) == {"used", "recognised-not-used", "refused"}
    cont = next(row for row in doc["tree"] if row["type"] == "continuous")
    assert cont["lower"] is None and cont["upper"] is None  # ±inf as null: the output stays strict JSON


def _refused(path: Path) -> bool:
    try:
        read_urdf(path)
    except UrdfError:
        return True
    return False


@pytest.mark.parametrize("bad", sorted(p.name for p in BAD.glob("*.urdf")))
def test_refusal_is_one_line_and_exit_2(capsys, bad):
    path = BAD / bad
    strict = () if _refused(path) else ("--strict",)  # a file that loads with an error: refused when strict
    code, out, err = _inspect(capsys, path, *strict)
    assert code == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1
    m = ONE_LINE.match(err.rstrip("\n"))
    assert m, err
    assert m.group(2) == str(path)
    code_json, out_json, err_json = _inspect(capsys, path, "--json", *strict)
    assert (code_json, out_json, err_json) == (2, "", err)


@pytest.mark.parametrize("bad", sorted(p.name for p in BAD.glob("*.urdf") if not _refused(p)))
def test_a_file_with_an_error_loads_exit_0_with_the_error_listed(capsys, bad):
    path = BAD / bad
    (error,) = read_urdf(path).report.errors
    code, out, err = _inspect(capsys, path)
    assert code == 0 and err == ""
    section = out[out.index("\nerrors (1): "):out.index("\nwarnings (")]
    assert f"  error[{error.code}] {path}:{error.line}: {error.message} [blocks {error.blocks}]" in section
    assert f"error[{error.code}]" not in out[out.index("\nwarnings ("):]  # listed once, as an error
    code, out, err = _inspect(capsys, path, "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["errors"] == [{"code": error.code, "line": error.line, "message": error.message,
                              "severity": "error", "blocks": error.blocks}]
    assert all(w["severity"] == "warning" for w in doc["warnings"])


def test_missing_file(capsys, tmp_path):
    code, out, err = _inspect(capsys, tmp_path / "nope.urdf")
    assert code == 2 and out == ""
    assert err.startswith(f"error[urdf.io] {tmp_path / 'nope.urdf'}: ")


def test_package_dir_option(capsys, tmp_path):
    (tmp_path / "pkgs" / "shapes" / "meshes").mkdir(parents=True)
    (tmp_path / "pkgs" / "shapes" / "meshes" / "cube.stl").write_text("solid c\nendsolid c\n")
    (tmp_path / "robots").mkdir()
    urdf = tmp_path / "robots" / "r.urdf"
    urdf.write_text('<robot name="r"><link name="a"><visual><geometry>'
                    '<mesh filename="package://shapes/meshes/cube.stl"/></geometry></visual></link></robot>')
    code, out, _ = _inspect(capsys, urdf, "--json")
    assert code == 0
    assert [w["code"] for w in json.loads(out)["warnings"]] == ["urdf.mesh-unresolved"]
    code, out, _ = _inspect(capsys, urdf, "--json", "--package-dir", tmp_path / "pkgs")
    assert code == 0
    assert json.loads(out)["warnings"] == []


def test_subprocess_refusal_has_no_traceback():
    path = BAD / "closed_chain_two_parents.urdf"
    proc = subprocess.run([sys.executable, "-m", "mime_gui", "inspect", str(path)], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (f"error[urdf.closed-chain] {path}:18: link 'tip' has two parents (joints "
                           "'j_tip_left' and 'j_tip_right'); closed chains are not supported: remove one "
                           "joint\n")


@pytest.mark.skipif(ROBOTS is None, reason="example-robot-data is not installed")
def test_inspect_every_urdf_of_example_robot_data(capsys):
    assert len(ALL_URDFS) > 50
    loaded = 0
    for path in ALL_URDFS:
        code, out, err = _inspect(capsys, path, "--json", "--package-dir", ROBOTS)
        if code == 0:
            doc = json.loads(out)
            expected = _independent_counts(path)
            counts = doc["counts"]
            assert (counts["links"], counts["joints"]) == (expected["links"], expected["joints"])
            assert doc["counts"]["dof"] == expected["dof"]
            assert doc["total_mass"]["kg"] == pytest.approx(expected["mass"], rel=1e-12)
            assert err == ""
            loaded += 1
        else:
            assert code == 2 and out == ""
            assert err.count("\n") == 1 and ONE_LINE.match(err.rstrip("\n")), err
    # every file loads but the one with no link at all (an empty <robot>; Pinocchio refuses it too)
    assert loaded == len(ALL_URDFS) - 1
    # and the text form on a few
    for path in ALL_URDFS[:5]:
        code, out, err = _inspect(capsys, path)
        assert code in (0, 2)


def test_group_titles_count_kinds_in_the_singular_for_one_and_the_plural_otherwise(capsys, tmp_path):
    urdf = tmp_path / "r.urdf"
    urdf.write_text('<robot name="r"><link name="a"/><gazebo/></robot>')
    code, out, err = _inspect(capsys, urdf)
    assert code == 0 and err == ""
    lines = out.splitlines()
    # used, counted by hand: <robot>, its @name, <robot/link>, its @name; recognised: <gazebo>; refused: none
    assert "read and used (4 kinds)" in lines
    assert "recognised and not used (1 kind)" in lines
    assert "refused (0 kinds)" in lines


def test_help_names_the_file_argument_urdf(capsys):
    with pytest.raises(SystemExit) as done:
        main(["inspect", "--help"])
    assert done.value.code == 0
    usage = " ".join(capsys.readouterr().out.split("\n\n")[0].split())
    assert usage.startswith("usage: ") and usage.endswith(" URDF")


def test_json_lists_damping_and_friction_when_either_is_set(capsys, tmp_path):
    urdf = tmp_path / "r.urdf"
    joint = ('<joint name="{0}" type="revolute"><parent link="{1}"/><child link="{2}"/>'
             '<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>{3}</joint>')
    urdf.write_text('<robot name="r"><link name="a"/><link name="b"/><link name="c"/><link name="d"/>'
                    + joint.format("damped", "a", "b", '<dynamics damping="0.5"/>')
                    + joint.format("rubbing", "b", "c", '<dynamics friction="0.25"/>')
                    + joint.format("free", "c", "d", "") + "</robot>")
    code, out, err = _inspect(capsys, urdf, "--json")
    assert code == 0 and err == ""
    rows = {row["joint"]: row for row in json.loads(out)["tree"]}
    # the values written in the file; the one left out is zero
    assert (rows["damped"]["damping"], rows["damped"]["friction"]) == (0.5, 0.0)
    assert (rows["rubbing"]["damping"], rows["rubbing"]["friction"]) == (0.0, 0.25)
    assert "damping" not in rows["free"] and "friction" not in rows["free"]
