"""Hostile meshes: entity bombs, external entities, archives, XML that does not parse, files a mesh names.

Each is refused by :mod:`mime_gui.mesh_files` before trimesh parses it (``mesh.xml``, ``mesh.archive``,
``file.*``), as the part masses of a rig and the 3D view read them; on the command line a rig part with such
a mesh is one ``part.geometry`` finding naming the code. Valid meshes still load as trimesh loads them.
"""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest
import trimesh
from hostile_corpus import cli, fifo, one_error, rig_with, write

from mime_gui import mesh_files
from mime_gui.mesh_files import MeshFileError

pytestmark = pytest.mark.timeout(60)

COLLADA = '<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">'


def bomb(levels: int = 6, encoding: str = "utf-8") -> bytes:
    """A billion-laughs DAE: ``10 ** levels`` copies of ten characters if expanded (10 MB at 6 levels: a
    refusal that failed would cost memory, not the machine)."""
    ents = ['<!ENTITY a0 "AAAAAAAAAA">'] + [f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">'
                                             for i in range(1, levels + 1)]
    text = (f'<?xml version="1.0" encoding="{encoding}"?>\n<!DOCTYPE COLLADA [\n' + "\n".join(ents) + "\n]>\n"
            f"{COLLADA}<asset><contributor><author>&a{levels};</author></contributor></asset></COLLADA>\n")
    return text.encode(encoding)


def valid_dae() -> bytes:
    return trimesh.exchange.dae.export_collada(trimesh.creation.box())


def zip_of(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name, data)
    return buffer.getvalue()


XML_CASES = {  # name -> (file name, bytes)
    "bomb": ("bomb.dae", bomb()),
    "bomb_utf16": ("bomb16.dae", bomb(encoding="utf-16")),
    "external_entity": ("ext.dae", (f'<?xml version="1.0"?>\n<!DOCTYPE COLLADA [\n<!ENTITY x SYSTEM '
                                    f'"file:///etc/passwd">\n]>\n{COLLADA}<asset><contributor><author>&x;'
                                    "</author></contributor></asset></COLLADA>\n").encode()),
    "parameter_entity": ("param.dae", (f'<?xml version="1.0"?>\n<!DOCTYPE COLLADA [\n<!ENTITY % p '
                                       f'SYSTEM "http://example.invalid/p.dtd">\n%p;\n]>\n{COLLADA}'
                                       "</COLLADA>\n").encode()),
    "unparsed_entity": ("unparsed.dae", (f'<?xml version="1.0"?>\n<!DOCTYPE COLLADA [\n<!NOTATION gif '
                                         f'SYSTEM "gif">\n<!ENTITY logo SYSTEM "logo.gif" NDATA gif>\n]>\n'
                                         f"{COLLADA}</COLLADA>\n").encode()),
    "utf7": ("utf7.dae", (f'<?xml version="1.0" encoding="UTF-7"?>\n{COLLADA}</COLLADA>\n').encode()),
    "not_well_formed": ("broken.dae", f"{COLLADA}<asset>\n</COLLADA>\n".encode()),
    "zip_appended": ("tail.dae", valid_dae() + zip_of("x.dae", bomb(9))),
    "xaml_bomb": ("bomb.xaml", bomb().replace(b"COLLADA", b"Page")),
}


@pytest.mark.parametrize("case", sorted(XML_CASES))
def test_xml_meshes_with_entities_or_broken_markup_are_refused_before_parsing(tmp_path, case):
    name, data = XML_CASES[case]
    path = write(tmp_path, name, data)
    with pytest.raises(MeshFileError) as info:
        mesh_files.load(path, "scene")
    assert info.value.code == "mesh.xml" and info.value.file == str(path)
    assert info.value.line >= 1


@pytest.mark.parametrize("dtd", ["file:///etc/passwd", "local.dtd"], ids=["absolute_url", "local_file"])
def test_an_external_dtd_is_refused_even_by_an_expat_set_to_read_it(tmp_path, monkeypatch, dtd):
    """Stock expat never reads a DOCTYPE's external DTD, so the entity declarations are what it meets; the
    check's second line refuses the external reference itself, should the parser be set to follow it."""
    create = mesh_files.expat.ParserCreate

    def reading_external_dtds(*args, **kwargs):
        parser = create(*args, **kwargs)
        parser.SetParamEntityParsing(mesh_files.expat.XML_PARAM_ENTITY_PARSING_ALWAYS)
        return parser

    monkeypatch.setattr(mesh_files.expat, "ParserCreate", reading_external_dtds)
    write(tmp_path, "local.dtd", '<!ENTITY x "from the local file">\n')
    path = write(tmp_path, "dtd.dae", f'<?xml version="1.0"?>\n<!DOCTYPE COLLADA SYSTEM "{dtd}">\n{COLLADA}'
                                      "</COLLADA>\n")
    with pytest.raises(MeshFileError) as info:
        mesh_files.load(path, "scene")
    assert info.value.code == "mesh.xml" and info.value.line == 2
    assert f"external entity {dtd!r}" in info.value.message and "remove its DOCTYPE" in info.value.message


ARCHIVE_CASES = {
    "zip_named_stl": ("part.stl", zip_of("part.stl", b"solid x\nendsolid x\n")),
    "zip_named_dae": ("part.dae", zip_of("part.dae", bomb(9))),  # the COLLADA reader would unzip it
    "zip": ("part.zip", zip_of("part.stl", b"solid x\nendsolid x\n")),
    "gzip": ("part.stl", gzip.compress(b"\x00" * 10_000)),
    "zae": ("part.zae", b"not even a zip, but named as one"),
    "3mf": ("part.3mf", zip_of("3D/3dmodel.model", b"<model/>")),
    "empty_zip": ("part.obj", b"PK\x05\x06" + b"\x00" * 18),
}


@pytest.mark.parametrize("case", sorted(ARCHIVE_CASES))
def test_archives_are_never_unpacked(tmp_path, case):
    name, data = ARCHIVE_CASES[case]
    path = write(tmp_path, name, data)
    with pytest.raises(MeshFileError) as info:
        mesh_files.load(path, "mesh")
    assert info.value.code == "mesh.archive" and "unpack it yourself" in info.value.message


def test_valid_meshes_load_as_trimesh_loads_them(tmp_path):
    """The check refuses nothing ordinary: a COLLADA file (a DOCTYPE without entities too), STL, OBJ."""
    dae = write(tmp_path, "box.dae", valid_dae())
    doctype = write(tmp_path, "doctype.dae", b'<?xml version="1.0"?>\n<!DOCTYPE COLLADA>\n' + valid_dae())
    stl = tmp_path / "box.stl"
    trimesh.creation.box().export(stl)
    for path in (dae, doctype, stl):
        checked = mesh_files.load(path, "mesh")
        plain = trimesh.load(path, force="mesh", process=True)
        assert checked.faces.shape == plain.faces.shape == (12, 3)
        assert checked.is_watertight and abs(checked.volume - plain.volume) < 1e-12


def test_a_file_a_mesh_names_is_read_through_the_same_check(tmp_path):
    """An OBJ whose material library is a FIFO: trimesh would block opening it; the checked resolver refuses
    the FIFO, and trimesh loads the geometry without the material."""
    fifo(tmp_path / "pipe.mtl")
    obj = write(tmp_path, "tet.obj", "mtllib pipe.mtl\nusemtl a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"
                                     "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    mesh = mesh_files.load(obj, "mesh")
    assert mesh.faces.shape == (4, 3) and mesh.is_watertight


def test_a_mesh_without_a_format_in_its_name_is_refused(tmp_path):
    path = write(tmp_path, "mesh", valid_dae())
    with pytest.raises(MeshFileError) as info:
        mesh_files.load(path)
    assert info.value.code == "mesh.format"


@pytest.mark.parametrize("case, code", [("bomb", "mesh.xml"), ("external_entity", "mesh.xml"),
                                        ("zip_named_stl", "mesh.archive"), ("fifo", "file.not-regular"),
                                        ("too_large", "file.too-large")])
def test_a_rig_part_with_a_hostile_mesh_is_one_finding(tmp_path, monkeypatch, case, code):
    if case == "fifo":
        fifo(tmp_path / "part.stl")
        name = "part.stl"
    elif case == "too_large":
        monkeypatch.setenv("MIME_GUI_MAX_MESH_MB", "0.001")
        name = "part.stl"
        trimesh.creation.icosphere().export(tmp_path / name)
    else:
        name, data = {**XML_CASES, **ARCHIVE_CASES}[case]
        write(tmp_path, name, data)

    def mesh(data):
        data["parts"]["holder"]["geometry"] = {"type": "mesh", "path": name}

    path = rig_with(tmp_path, mesh, f"{case}.rig.json")
    for command in ("validate", "report"):
        status, out, _ = cli(command, path)
        assert status == 1
        m = one_error(out)
        assert m["code"] == "part.geometry" and m["where"] == "parts.holder.geometry"
        assert f"[{code}]" in m["message"]
    status, out, _ = cli("export", path, "--json", tmp_path / "out.rig.json")
    assert status == 1 and one_error(out)["code"] == "part.geometry"
    assert not (tmp_path / "out.rig.json").exists()
