"""``python -m mime_gui.cli.main``: the module run as a script exits with what ``main`` returns."""

from __future__ import annotations

import runpy
import sys
import warnings

import pytest

from mime_gui import __version__


def test_the_module_run_as_a_script_prints_the_version_and_exits_0(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["mime_gui.cli.main", "--version"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the module is imported already: runpy says so
        with pytest.raises(SystemExit) as done:
            runpy.run_module("mime_gui.cli.main", run_name="__main__")
    assert done.value.code == 0
    assert capsys.readouterr().out == f"mime-gui {__version__}\n"


def test_the_module_run_as_a_script_exits_with_a_refusal_s_status(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "argv", ["mime_gui.cli.main", "validate", str(tmp_path / "none.rig.json")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(SystemExit) as done:
            runpy.run_module("mime_gui.cli.main", run_name="__main__")
    assert done.value.code == 1
    missing = tmp_path / "none.rig.json"
    assert capsys.readouterr().out == f"error[rigfile.io] {missing}: cannot read the file (No such file or " \
        "directory)\n"
