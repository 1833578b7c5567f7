"""Non-geometric defects of mesh files: what they are, and how the geometry is recovered in spite of them.

A COLLADA file whose material names an effect or texture that is not in the file (a broken reference) loses
every geometry bound to that material when read as it is (pycollada drops the node, and the file looks empty).
:func:`repaired_dae` finds the materials that did not load and returns the file without the bindings to them,
so its triangles load, drawn without that material. :func:`missing_textures` names the texture images a DAE
or an OBJ's material library refers to that are not on disk (the geometry loads; it is drawn without them).
Each defect is a sentence for the read report, naming its true cause.
"""

from __future__ import annotations

import io
import os
import re
import xml.etree.ElementTree as ET
from urllib.parse import unquote

from defusedxml.ElementTree import fromstring as _safe_fromstring

from mime_gui import inputs

# the file an <image> element names (COLLADA 1.4: its own <init_from>, not an effect's surface that names it)
_INIT_FROM = re.compile(rb"<image\b[^>]*>(?:(?!</image>).)*?<init_from>\s*([^<]+?)\s*</init_from>", re.S)
_MTLLIB = re.compile(rb"^\s*mtllib\s+(.+?)\s*$", re.M)
_MAP = re.compile(rb"^\s*map_(?:Kd|Ka|Ks|d|bump|Bump)\s+(.+?)\s*$", re.M)


def _text(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _exists(folder: str, name: str) -> bool:
    name = name.replace("\\", "/")
    if name.startswith("file://"):
        name = name[len("file://"):]
    return any(os.path.isfile(n if os.path.isabs(n) else os.path.join(folder, n))
               for n in (name, unquote(name)))


def missing_textures(path: str, data: bytes) -> list[str]:
    """The texture images ``path`` (a DAE, or an OBJ through its material library) refers to and that are not
    on disk, each as a sentence."""
    folder = os.path.dirname(path)
    lower = path.lower()
    out = []
    if lower.endswith(".dae"):
        for name in dict.fromkeys(_text(m) for m in _INIT_FROM.findall(data)):
            if not _exists(folder, name):
                out.append(f"its texture image {name!r} is not in {folder}; drawn without it")
    elif lower.endswith(".obj"):
        for lib in dict.fromkeys(_text(m) for m in _MTLLIB.findall(data)):
            mtl = os.path.join(folder, lib)
            if not os.path.exists(mtl):  # a FIFO or a folder there is named by the read below
                out.append(f"its material library {lib!r} is not in {folder}; drawn without its colours")
                continue
            try:
                maps = _MAP.findall(inputs.read_bytes(mtl, "mesh"))
            except inputs.FileError as exc:  # a FIFO, a device, past the mesh limit
                out.append(f"its material library {lib!r} cannot be read ({exc.message}); drawn without "
                           "its colours")
                continue
            except OSError as exc:
                out.append(f"its material library {lib!r} cannot be read ({exc.strerror or exc}); drawn "
                           "without its colours")
                continue
            for rest in dict.fromkeys(_text(m) for m in maps):
                # options (-s 1 1 1, -bm 0.5 …) come first: the file is the last word, or the whole rest
                name = rest.split()[-1]
                if not (_exists(os.path.dirname(mtl), name) or _exists(os.path.dirname(mtl), rest)):
                    out.append(f"the texture image {name!r} of its material library {lib!r} is not in "
                               f"{os.path.dirname(mtl)}; drawn without it")
    return out


def repaired_dae(data: bytes) -> tuple[bytes | None, list[str]]:
    """``(bytes of the file without the bindings to materials that did not load, why)``; ``(None, why)``
    when nothing can be repaired that way (``why`` then says what pycollada found, if anything)."""
    import collada

    ignore = [collada.common.DaeError, collada.common.DaeIncompleteError, collada.common.DaeMalformedError,
              collada.common.DaeBrokenRefError, collada.common.DaeUnsupportedError]
    try:
        doc = collada.Collada(io.BytesIO(data), ignore=ignore)
    except Exception as exc:  # noqa: BLE001 - the caller reports the original failure
        return None, [f"it is not a COLLADA document pycollada reads ({exc})"]
    causes = [_cause(e) for e in doc.errors]
    loaded = {m.id for m in doc.materials}
    try:
        root = _safe_fromstring(data)
    except Exception:  # noqa: BLE001 - a DTD or entity: not repaired
        return None, causes
    namespace = root.tag[1:].split("}")[0] if root.tag.startswith("{") else ""
    dropped = []
    for parent in list(root.iter()):
        for child in list(parent):
            if _local(child.tag) == "instance_material" and child.get("target", "").lstrip("#") not in loaded:
                parent.remove(child)
                dropped.append(child.get("target", "").lstrip("#") or child.get("symbol", "?"))
    if not dropped:
        return None, causes
    if namespace:
        ET.register_namespace("", namespace)
    names = ", ".join(repr(d) for d in dict.fromkeys(dropped))
    why = f": a broken reference inside the file ({causes[0]})" if causes else ""
    return ET.tostring(root), [f"its material {names} does not load{why}; its geometry is drawn without that "
                               "material"]


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _cause(error) -> str:
    """pycollada's message, without the exception's class name."""
    return re.sub(r"^\w+Error:\s*", "", str(error).strip()) or type(error).__name__
