"""A rig opened from a bundle in the app: the title and status bar say so, and Save asks for a name (the save
dialog, monkeypatched here) instead of writing into the bundle cache."""

from __future__ import annotations

import json
import os
import zipfile

from PySide6.QtWidgets import QFileDialog

from mime_gui import RESOURCES, inputs
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import Box, Part, load
from mime_gui.rig.bundle import write_bundle
from mime_gui.session.edits import AddItem


def test_save_after_opening_a_bundle_asks_where(window, tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "lab").mkdir()
    bundle = write_bundle(load(RESOURCES / "demo" / "demo.rig.json"), tmp_path / "lab" / "demo.zip")
    assert window.open_file(str(bundle))
    wait_until_ready(window)
    doc = window.session.document
    extracted = doc.path
    assert "from the bundle demo.zip" in window.windowTitle()
    assert "Opened the bundle" in window.statusBar().currentMessage()
    window.session.apply(AddItem("parts", "box", Part(Box((0.01, 0.01, 0.01)), mount="arm.tool0")))
    before = open(extracted, "rb").read()

    asked = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (asked.append(a[2]), ("", ""))[1])
    window.act_save.trigger()  # cancelled: nothing written anywhere
    assert asked == [str(tmp_path / "lab" / "demo" / "demo.rig.json")]
    assert open(extracted, "rb").read() == before and window.session.modified

    target = tmp_path / "kept" / "mine.rig.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    window.act_save.trigger()
    assert target.is_file() and "box" in load(target).parts and load(target).validate() == []
    assert open(extracted, "rb").read() == before
    assert not window.session.modified and window.session.writable
    assert window.windowTitle().startswith("mine.rig.json")

    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (_ for _ in ()).throw(AssertionError))
    window.act_save.trigger()  # now a file of the user's: Save writes it without asking


def test_closing_a_changed_bundle_rig_with_save_asks_where(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    (tmp_path / "lab").mkdir()
    bundle = write_bundle(load(RESOURCES / "demo" / "demo.rig.json"), tmp_path / "lab" / "demo.zip")
    assert window.open_file(str(bundle))
    wait_until_ready(window)
    window.session.apply(AddItem("parts", "box", Part(Box((0.01, 0.01, 0.01)), mount="arm.tool0")))
    window.assembly.ask_on_close = True
    monkeypatch.setattr(QMessageBox, "exec", lambda self: QMessageBox.Save)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    assert not window.assembly.confirm_close()  # the name was not given: the window stays
    assert window.error_dialog is None or not window.error_dialog.isVisible()
    target = tmp_path / "lab" / "demo" / "demo.rig.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    assert window.assembly.confirm_close()
    assert "box" in load(target).parts


def _refused_and_kept(window, path, code: str) -> str:
    """Open ``path`` in the window: refused with ``code`` in the error dialog, the open document kept."""
    doc = window.session.document
    assert window.open_file(str(path)) is False
    assert window.session.document is doc
    assert window.error_dialog is not None and window.error_dialog.isVisible()
    text = window.error_dialog.text()
    assert f"error[{code}]" in text and "Traceback" not in text
    window.error_dialog.close()
    return text


def test_a_bundle_naming_a_file_of_this_machine_is_refused_unread(window, tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    assert window.open_file(str(RESOURCES / "demo" / "demo.rig.json"))
    wait_until_ready(window)
    mine = tmp_path / "mine" / "arm.urdf"  # a valid URDF of this machine, named by the bundle's rig
    mine.parent.mkdir()
    mine.write_bytes((RESOURCES / "demo" / "arm.urdf").read_bytes())
    rig = {"format": "mime-rig", "version": 1, "name": "r",
           "chain": [{"name": "arm", "kind": "Arm.Kinematic", "description": "../../mine/arm.urdf"}]}
    path = tmp_path / "hostile.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("rig.rig.json", json.dumps(rig))
    reads, real = [], inputs.read_bytes

    def recording(p, kind):
        reads.append(os.path.realpath(p))
        return real(p, kind)

    monkeypatch.setattr(inputs, "read_bytes", recording)
    text = _refused_and_kept(window, path, "bundle.outside")
    assert "'../../mine/arm.urdf'" in text
    assert str(mine) not in reads and list((tmp_path / "cache").iterdir()) == []


def test_a_damaged_bundle_is_refused_with_its_code(window, tmp_path, monkeypatch):
    monkeypatch.setenv("MIME_GUI_BUNDLE_CACHE", str(tmp_path / "cache"))
    bundle = write_bundle(load(RESOURCES / "demo" / "demo.rig.json"), tmp_path / "demo.zip")
    raw = bytearray(bundle.read_bytes())
    with zipfile.ZipFile(bundle) as z:
        info = z.getinfo("files/arm.urdf")
    start = info.header_offset + 30 + len(info.orig_filename)  # written with no extra field
    raw[start] = 0xFF  # its first deflate block of a type that does not exist
    bundle.write_bytes(bytes(raw))
    assert window.open_file(str(RESOURCES / "demo" / "demo.rig.json"))
    wait_until_ready(window)
    _refused_and_kept(window, bundle, "bundle.zip")
