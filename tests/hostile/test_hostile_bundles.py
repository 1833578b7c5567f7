"""A bundle whose rig names a file outside the bundle is refused (``bundle.outside``) before it is read.

Each case is a zip built here whose rig, or a description or OBJ inside it, names a file of "this machine"
(a folder ``mine`` beside the cache, every file there valid, so only the confinement stops it): by an absolute
path, by ``..`` steps out of the extraction, through package folders, or through a link put into the
extraction afterwards. The refusal names the path, leaves nothing in the cache, and no byte of ``mine`` is
read: at the API, on every command that opens a bundle, and in the session.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from hostile_corpus import DEMO, cli, one_error

from mime_gui import inputs
from mime_gui.rig.bundle import BundleError, confine, open_bundle

pytestmark = pytest.mark.timeout(60)

STL = (DEMO / "meshes" / "base.stl").read_bytes()
LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def urdf(visual: str = '<box size="0.1 0.1 0.1"/>') -> str:
    return (f'<robot name="r"><link name="a"/><link name="b"><visual><geometry>{visual}</geometry></visual>'
            f'</link><joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
            f'<axis xyz="0 0 1"/>{LIMIT}</joint></robot>')


def mesh(uri: str) -> str:
    return urdf(f'<mesh filename="{uri}"/>')


def rig(description: str = "files/arm.urdf", **extra) -> dict:
    return {"format": "mime-rig", "version": 1, "name": "r",
            "chain": [{"name": "arm", "kind": "Arm.Kinematic", "description": description}], **extra}


def recorded(path: str) -> dict:
    """A provenance block recording ``path`` (validate hashes each recorded file to compare)."""
    return {"mime_gui": "0", "segments": {}, "files": {path: {"sha256": "0" * 64}}}


def part(path: str) -> dict:
    return {"p": {"geometry": {"type": "mesh", "path": path, "scale": [1, 1, 1]}, "mount": "arm.b"}}


@pytest.fixture
def mine(tmp_path, monkeypatch):
    """This machine's own files, each valid, beside the bundle cache (``tmp_path/cache``)."""
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    folder = tmp_path / "mine"
    (folder / "pkgs" / "shop" / "meshes").mkdir(parents=True)
    (folder / "arm.urdf").write_text(urdf())
    for name in ("part.stl", "mesh.stl", "pkgs/shop/meshes/m.stl"):
        (folder / name).write_bytes(STL)
    (folder / "lib.mtl").write_text("newmtl red\nKd 1 0 0\n")
    return folder


@pytest.fixture
def reads(monkeypatch):
    """Every file read through mime_gui.inputs from now on, resolved."""
    seen: list[Path] = []
    real = inputs.read_bytes

    def recording(path, kind):
        seen.append(Path(os.path.realpath(path)))
        return real(path, kind)

    monkeypatch.setattr(inputs, "read_bytes", recording)
    return seen


def make(path: Path, rig_data: dict, files: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("rig.rig.json", json.dumps(rig_data))
        for name, data in files.items():
            z.writestr(name, data)
    return path


OBJ = ("mtllib {lib}\nusemtl red\nv 0 0 0\nv 0.01 0 0\nv 0 0.01 0\nv 0 0 0.01\n"  # a closed tetrahedron
       "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
ARM = {"files/arm.urdf": urdf()}
SHOP = {"files/arm.urdf": mesh("package://shop/meshes/m.stl")}
# name -> (rig, files in the zip, what the refusal names), "{m}" standing for the folder of this machine's
# files; the extraction is cache/X.mime-bundle, so two steps up from its root (three from files/) is tmp_path
CASES = {
    "description-absolute": (lambda m: rig(f"{m}/arm.urdf"), {}, "{m}/arm.urdf"),
    "description-dot-dot": (lambda m: rig("../../mine/arm.urdf"), {}, "../../mine/arm.urdf"),
    "description-dot-dot-after-a-folder": (lambda m: rig("files/../../../mine/arm.urdf"), ARM,
                                           "files/../../../mine/arm.urdf"),
    "part-mesh-absolute": (lambda m: rig(parts=part(f"{m}/part.stl")), ARM, "{m}/part.stl"),
    "part-mesh-dot-dot": (lambda m: rig(parts=part("../../mine/part.stl")), ARM, "../../mine/part.stl"),
    "package-dirs-absolute": (lambda m: rig(package_dirs=[f"{m}/pkgs"]), SHOP, "{m}/pkgs"),
    "package-dirs-dot-dot": (lambda m: rig(package_dirs=["../../mine/pkgs"]), SHOP, "../../mine/pkgs"),
    "provenance-absolute": (lambda m: rig(provenance=recorded(f"{m}/arm.urdf")), ARM, "{m}/arm.urdf"),
    "provenance-dot-dot": (lambda m: rig(provenance=recorded("../../mine/arm.urdf")), ARM,
                           "../../mine/arm.urdf"),
    "urdf-mesh-absolute": (lambda m: rig(), {"files/arm.urdf": mesh("{m}/mesh.stl")}, "{m}/mesh.stl"),
    "urdf-mesh-file-uri": (lambda m: rig(), {"files/arm.urdf": mesh("file://{m}/mesh.stl")},
                           "file://{m}/mesh.stl"),
    "urdf-mesh-dot-dot": (lambda m: rig(), {"files/arm.urdf": mesh("../../../mine/mesh.stl")},
                          "../../../mine/mesh.stl"),
    "urdf-mesh-not-there": (lambda m: rig(), {"files/arm.urdf": mesh("{m}/gone.stl")}, "{m}/gone.stl"),
    "obj-library-dot-dot": (lambda m: rig(), {"files/arm.urdf": mesh("m.obj"),
                                              "files/m.obj": OBJ.format(lib="../../../mine/lib.mtl")},
                            "{m}/lib.mtl"),
    "part-obj-library-absolute": (lambda m: rig(parts=part("files/p.obj")),
                                  {**ARM, "files/p.obj": OBJ.format(lib="{m}/lib.mtl")}, "{m}/lib.mtl"),
}


def hostile(case: str, mine: Path, folder: Path) -> tuple[Path, str]:
    """The bundle of ``case`` written into ``folder``, and the path its refusal must name."""
    build, files, named = CASES[case]
    files = {k: v.replace("{m}", str(mine)) for k, v in files.items()}
    return make(folder / f"{case}.zip", build(str(mine)), files), named.replace("{m}", str(mine))


def assert_nothing_of(mine: Path, reads: list[Path]) -> None:
    assert [p for p in reads if p.is_relative_to(mine)] == []


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_rig_naming_a_file_outside_its_bundle_is_refused_unread(tmp_path, mine, reads, case):
    path, named = hostile(case, mine, tmp_path)
    with pytest.raises(BundleError) as info:
        open_bundle(path)
    assert info.value.code == "bundle.outside" and info.value.file == str(path)
    assert repr(named)[1:-1] in info.value.message
    assert list((tmp_path / "cache").iterdir()) == []  # the extraction is removed
    assert_nothing_of(mine, reads)
    status, out, err = cli("validate", path)
    assert status == 1 and one_error(out)["code"] == "bundle.outside" and err == ""


def test_the_package_folder_on_the_command_line_is_outside_too(tmp_path, mine, reads, monkeypatch):
    path = make(tmp_path / "b.zip", rig(), {"files/arm.urdf": mesh("package://shop/meshes/m.stl")})
    status, out, _ = cli("validate", path, "--package-dir", mine / "pkgs")
    line = one_error(out)
    assert status == 1 and line["code"] == "bundle.outside"
    assert f"'package://shop/meshes/m.stl' ({mine}/pkgs/shop/meshes/m.stl)" in line["message"]
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(mine / "pkgs"))
    status, out, _ = cli("validate", path)
    assert status == 1 and one_error(out)["code"] == "bundle.outside"
    assert_nothing_of(mine, reads)


def test_files_found_inside_the_bundle_by_any_spelling_open(tmp_path, mine, reads):
    # the control: '..' that stays inside, a package folder of the bundle, an OBJ's library beside it
    second = ('<link name="c"><visual><geometry><mesh filename="package://shop/meshes/m.stl"/></geometry>'
              '</visual></link><joint name="k" type="fixed"><parent link="b"/><child link="c"/></joint>')
    files = {"files/urdf/arm.urdf": mesh("../meshes/m.stl").replace("</robot>", second + "</robot>"),
             "files/meshes/m.stl": STL, "files/pkgs/shop/meshes/m.stl": STL,
             "files/p.obj": OBJ.format(lib="lib.mtl"), "files/lib.mtl": "newmtl red\nKd 1 0 0\n"}
    data = rig("files/urdf/arm.urdf", package_dirs=["files/pkgs"], parts=part("files/urdf/../p.obj"))
    path = make(tmp_path / "good.zip", data, files)
    extracted = open_bundle(path)
    assert (extracted.parent / "files" / "meshes" / "m.stl").read_bytes() == STL
    assert_nothing_of(mine, reads)
    status, out, _ = cli("validate", path)
    assert status == 0 and "rig 'r' is valid (1 segment(s), 1 part(s), 0 magnet(s))" in out


COMMANDS = {  # argv after the bundle -> the exit status of a refusal
    "validate": ([], 1), "report": ([], 1), "report --json": (["--json"], 1),
    "export --json": (["--json", "{out}/x.rig.json"], 1), "export --python": (["--python", "{out}/x.py"], 1),
    "export --bundle": (["--bundle", "{out}/x.zip"], 1),
    "play": (["--commands", str(DEMO / "chain.csv"), "--out", "{out}/x.npz", "--quiet"], 2),
}


@pytest.mark.parametrize("case", ["description-absolute", "urdf-mesh-dot-dot"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_that_opens_a_bundle_refuses_it(tmp_path, mine, reads, command, case):
    path, named = hostile(case, mine, tmp_path)
    out_folder = tmp_path / "out"
    out_folder.mkdir()
    extra, expected = COMMANDS[command]
    argv = [command.split()[0], path, *(a.replace("{out}", str(out_folder)) for a in extra)]
    status, out, err = cli(*argv)
    line = one_error(out or err)
    assert status == expected and line["code"] == "bundle.outside" and named in line["message"]
    assert "Traceback" not in out + err
    assert list(out_folder.iterdir()) == []  # an export or a play writes nothing
    assert list((tmp_path / "cache").iterdir()) == []
    assert_nothing_of(mine, reads)


def test_the_session_refuses_it_with_the_code_and_keeps_its_document(tmp_path, mine, reads):
    from mime_gui.session import Session, SessionError

    session = Session()
    before = session.open(str(DEMO / "demo.rig.json"))
    path, named = hostile("urdf-mesh-absolute", mine, tmp_path)
    with pytest.raises(SessionError) as info:
        session.open(str(path))
    assert info.value.code == "bundle.outside" and named in info.value.message
    assert session.document is before
    assert_nothing_of(mine, reads)


@pytest.fixture
def extracted(tmp_path, mine):
    """A good bundle opened: its extracted rig (a URDF naming files/m.stl, a part on files/p.stl)."""
    files = {"files/arm.urdf": mesh("m.stl"), "files/m.stl": STL, "files/p.stl": STL}
    return open_bundle(make(tmp_path / "good.zip", rig(parts=part("files/p.stl")), files))


@pytest.mark.parametrize("link", ["files/m.stl", "files/p.stl", "files/arm.urdf", "files"])
def test_a_link_in_the_extraction_that_points_out_is_outside(extracted, mine, reads, link):
    folder = extracted.parent
    confine(extracted, folder)  # as extracted, everything is inside
    target = {"files": mine, "files/arm.urdf": mine / "arm.urdf"}.get(link, mine / "mesh.stl")
    if link == "files":
        shutil.copy(folder / "files" / "arm.urdf", mine / "arm.urdf")
        shutil.copy(folder / "files" / "m.stl", mine / "m.stl")
        shutil.copy(folder / "files" / "p.stl", mine / "p.stl")
        shutil.rmtree(folder / "files")
    else:
        (folder / link).unlink()
    (folder / link).symlink_to(target)
    reads.clear()
    with pytest.raises(BundleError) as info:
        confine(extracted, folder, "good.zip")
    assert info.value.code == "bundle.outside" and info.value.file == "good.zip"
    assert_nothing_of(mine, reads)


def test_the_session_reload_refuses_a_link_put_into_the_extraction(tmp_path, mine, reads):
    from mime_gui.session import Session, SessionError

    files = {"files/arm.urdf": mesh("m.stl"), "files/m.stl": STL}
    bundle = make(tmp_path / "good.zip", rig(), files)
    session = Session()
    doc = session.open(str(bundle))
    mesh_file = Path(doc.path).parent / "files" / "m.stl"
    mesh_file.unlink()
    mesh_file.symlink_to(mine / "mesh.stl")
    reads.clear()
    with pytest.raises(SessionError) as info:
        session.reload()
    assert info.value.code == "bundle.outside" and info.value.file == str(bundle)
    assert str(mine / "mesh.stl") in info.value.message
    assert_nothing_of(mine, reads)
