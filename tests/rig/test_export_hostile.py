"""The Python export is data, not a door: adversarial names, reasons and paths (encoding declarations in
every spelling among them) compile and run into the same rig, with no side effect."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rig_helpers import snippet_rig

from mime_gui.rig import kg
from mime_gui.rig.export import to_python

# The payload closes a string literal once the file is decoded as UTF-7 (``+ACc-`` is a quote there) and
# writes a marker file; it must stay text.
SMUGGLE = "+ACc-)+ADs-open(+ACc-PWNED+ACc-,+ACc-w+ACc-)+ADs-(+ACc-"
COOKIES = [
    "# -*- coding: utf-7 -*-", "coding:utf-7", "coding=utf-7", "# vim: set fileencoding=utf-7 :",
    "-*- coding: UTF_7 -*-", "\x0ccoding:utf-7", "coding: latin-1", "coding:utf-16", "coding: cp037",
    "\ncoding:utf-7\n", "\r# coding:utf-7", "coding:utf-7\x00", "\u2028coding:utf-7",
]
NAMES = [c + " " + SMUGGLE for c in COOKIES] + [
    "x'); open('PWNED', 'w'); ('", '"""; open("PWNED", "w"); """', "\\'; open('PWNED','w') #",
    "line\nopen('PWNED','w')", "\ud800 lone surrogate", "\x1b[31mred", "ü\u202eevil", "#",
    "\r\n# coding: utf-7",
]


def _run_isolated(source: str, folder: Path) -> subprocess.CompletedProcess:
    path = folder / "exported.py"
    path.write_bytes(source.encode("ascii"))  # the export is pure ASCII: nothing to encode
    code = f"import runpy; rig = runpy.run_path({str(path)!r})['rig']; print(ascii(rig.name))"
    return subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("name", NAMES, ids=[f"name{i}" for i in range(len(NAMES))])
def test_adversarial_names_run_as_data(tmp_path, name):
    rig = snippet_rig()
    rig.name = name
    rig.parts[name.replace(".", "_") or "p"] = rig.parts.pop("holder")
    rig.parts[next(iter(rig.parts))].mass = kg(0.01, reason=name)
    source = to_python(rig, tmp_path, source=name)
    assert source.isascii()
    from mime_gui import __version__

    assert source.splitlines()[:2] == ["# -*- coding: utf-8 -*-",
                                       f"# A MIME rig, exported by mime-gui {__version__}."]
    done = _run_isolated(source, tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "PWNED").exists()
    assert done.stdout.strip() == ascii(name)  # the name came back exactly


def test_every_cookie_spelling_is_inert_in_every_text_field(tmp_path):
    rig = snippet_rig()
    payload = COOKIES[1] + " " + SMUGGLE
    rig.chain["arm"].armature["joint_6"] = rig.chain["arm"].armature["joint_6"].__class__(
        2e-4, "kg m2", reason=payload)
    rig.chain[payload.replace(".", "_")] = rig.chain.pop("motor")
    rig.parts["holder"].material = payload
    source = to_python(rig, tmp_path, source=payload)
    # the encoding Python would read from the file is the declared UTF-8 one
    from tokenize import detect_encoding

    lines = iter(source.encode("ascii").splitlines(keepends=True))
    assert detect_encoding(lambda: next(lines, b""))[0] == "utf-8"
    done = _run_isolated(source, tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "PWNED").exists()
    assert os.listdir(tmp_path) == ["exported.py"]
