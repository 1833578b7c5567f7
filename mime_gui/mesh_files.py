"""Mesh files, checked before trimesh parses them: the part masses of a rig and the 3D view read them here.

A mesh file is read as bytes through :func:`mime_gui.inputs.read_bytes` (a regular file within the mesh
size limit), then:

- an archive (zip, gzip, bzip2, xz, 7-Zip, zstd, RAR; also the zip-based ``.zae``, ``.3mf``, ``.3dxml``) is
  refused with ``mesh.archive``: a few megabytes can unpack to gigabytes, and a description names the mesh
  file itself;
- an XML mesh (COLLADA ``.dae``, ``.xaml``) is parsed once by expat with every entity declaration and
  external reference refused (``mesh.xml``) before the COLLADA reader sees it, so no entity-expansion bomb
  reaches a parser that would expand it (whichever libxml2 the process has loaded); XML that does not parse
  is refused the same way.

Files a mesh refers to (an OBJ's materials, textures, glTF buffers) are read through the same size check.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from xml.parsers import expat

from mime_gui import inputs
from mime_gui.errors import CodedError

#: endings of archive formats (trimesh would unpack them, or its COLLADA reader would)
ARCHIVE_SUFFIXES = (".zip", ".zae", ".3mf", ".3dxml", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".tar", ".zst",
                    ".rar")
_MAGIC = (
    (b"PK\x03\x04", "a zip archive"), (b"PK\x05\x06", "a zip archive"), (b"PK\x07\x08", "a zip archive"),
    (b"\x1f\x8b", "gzip-compressed"), (b"BZh", "bzip2-compressed"), (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"), (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
    (b"Rar!\x1a\x07", "a RAR archive"),
)
#: mesh formats trimesh reads as XML
XML_TYPES = ("dae", "xaml")


class MeshFileError(CodedError):
    """A refused mesh file (``mesh.*``)."""


class _Forbidden(Exception):
    pass


def file_type(path) -> str:
    """The format of a mesh file from its name's ending (``stl``, ``dae`` …), as trimesh names it."""
    return Path(path).suffix.lower().lstrip(".")


def check_bytes(data: bytes, file: str, kind: str) -> None:
    """Refuse an archive, and XML (for an XML format ``kind``) that declares entities or does not parse."""
    name = file.lower()
    what = next((w for magic, w in _MAGIC if data.startswith(magic)), None)
    if what is None and name.endswith(ARCHIVE_SUFFIXES):
        what = f"an archive ({Path(name).suffix})"
    if what is not None:
        raise MeshFileError("mesh.archive", f"this is {what}; a mesh is never unpacked (a few megabytes can "
                            "unpack to gigabytes): unpack it yourself and name the mesh file inside", file)
    if kind in XML_TYPES:
        _check_xml(data, file)


def _check_xml(data: bytes, file: str) -> None:
    parser = expat.ParserCreate()

    def entity(name, *args):
        raise _Forbidden(f"declares the entity {name!r}")

    def external(context, base, system_id, public_id):
        raise _Forbidden(f"refers to the external entity {system_id or public_id!r}")

    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.ExternalEntityRefHandler = external
    try:
        parser.Parse(data, True)
    except _Forbidden as exc:
        raise MeshFileError("mesh.xml", f"the file {exc}; a mesh's XML may not declare or refer to entities "
                            "(one can expand to gigabytes): remove its DOCTYPE block", file,
                            parser.CurrentLineNumber) from None
    except expat.ExpatError as exc:
        raise MeshFileError("mesh.xml", f"not well-formed XML ({expat.errors.messages[exc.code]}); fix or "
                            "export the mesh again", file, exc.lineno) from None
    except ValueError as exc:  # pyexpat: "multi-byte encodings are not supported" (UTF-7 and the like)
        raise MeshFileError("mesh.xml", f"cannot read this XML ({exc}); export the mesh as UTF-8 or UTF-16",
                            file, 1) from None


def read(path) -> bytes:
    """The bytes of a mesh file, checked (see the module docstring); raises :class:`CodedError`
    (``file.*``, ``mesh.*``) or :class:`OSError`."""
    file = os.fspath(path)
    try:
        data = inputs.read_bytes(path, "mesh")
    except inputs.FileError as exc:
        raise MeshFileError(exc.code, exc.message, file) from None
    check_bytes(data, file, file_type(path))
    return data


def load(path, force: str = "mesh"):
    """``trimesh.load`` of a checked mesh file (``force`` ``"mesh"`` or ``"scene"``, as trimesh takes it)."""
    import trimesh  # heavy: imported when a mesh is met

    kind = file_type(path)
    if not kind:
        raise MeshFileError("mesh.format", "the file's name has no ending naming its format (.stl, .obj, "
                            ".dae …); rename it", os.fspath(path))
    data = read(path)
    return trimesh.load(io.BytesIO(data), file_type=kind, resolver=checked_resolver(path), force=force,
                        process=True)


def checked_resolver(path):
    """trimesh's file resolver for the files a mesh refers to (textures, material libraries), each read
    through the size check."""
    from trimesh.resolvers import FilePathResolver

    class CheckedResolver(FilePathResolver):
        """trimesh's resolver of the files a mesh refers to, each read through the size check."""

        def get(self, name: str):
            for candidate in (name.strip(), name.strip().lstrip("/"), os.path.split(name)[-1]):
                try:
                    found = self.absolute(candidate)
                except ValueError:
                    continue
                if found.exists():
                    try:
                        return inputs.read_bytes(found, "mesh")
                    except CodedError as exc:
                        raise OSError(f"{found}: [{exc.code}] {exc.message}") from None
            self.absolute(name)  # a name escaping the mesh's folder raises trimesh's own error
            raise FileNotFoundError(name)

        def namespaced(self, namespace: str):
            return CheckedResolver(os.path.join(self.parent, namespace))

    return CheckedResolver(os.fspath(path))
