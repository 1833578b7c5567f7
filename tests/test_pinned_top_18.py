"""Small contracts of the command line, the nodes and the package, pinned: a ``--probe`` that names no probe
lists every probe of the rig, comma-separated; ``inspect`` says nothing of links without ``<inertial>`` when
there are none; ``trajectory`` reads the rig under its ``--package-dir`` folders; a mount pose or placement of
the wrong shape is named with the one shape it may have; and a source tree's version is read from
pyproject.toml as UTF-8 whatever the locale's encoding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mime_gui
from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.multibody import read_urdf, resolve
from mime_gui.nodes import KinematicArmNode, MountedNode

DEMO = RESOURCES / "demo"


def test_a_probe_that_names_none_lists_every_probe_of_the_rig_comma_separated(tmp_path, capsys):
    """The refusal tells the user the names they may give: all of them, ``, `` between two."""
    folder = tmp_path / "demo"
    shutil.copytree(DEMO, folder)  # the rig file names arm.urdf beside it
    rig = folder / "demo.rig.json"
    doc = json.loads(rig.read_text(encoding="utf-8"))
    doc["probes"]["tip"] = {"at": {"value": [0.1, 0.0, 0.05], "unit": "m"}, "mount": "motor.stator"}
    rig.write_text(json.dumps(doc), encoding="utf-8")
    status = main(["field", str(rig), "--commands", str(DEMO / "wave.csv"), "--probe", "nope",
                   "--out", str(tmp_path / "o.npz")])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err == ("error[field.probe] --probe: 'nope' is no probe of the rig (probes: sample, tip) and not "
                   "a point X,Y,Z in metres; name a probe or give a point\n")
    assert not (tmp_path / "o.npz").exists()


def test_the_mass_line_says_nothing_of_missing_inertials_when_every_link_has_one(tmp_path, capsys):
    """The clause ``; N link(s) have no <inertial>`` is a warning: a URDF whose links all carry their mass
    gets the total and what it includes, and nothing after."""
    urdf = tmp_path / "two.urdf"
    inertial = ('<inertial><mass value="{m}"/>'
                '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>')
    urdf.write_text(textwrap.dedent(f"""\
        <robot name="two">
          <link name="a">{inertial.format(m=1.5)}</link>
          <link name="b">{inertial.format(m=2.25)}</link>
          <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
            <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
        </robot>
        """))
    assert main(["inspect", str(urdf)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    [line] = [line for line in out.splitlines() if line.startswith("  total mass")]
    assert line == ("  total mass 3.75 kg: every link's <inertial> mass, the root link and links welded by "
                    "fixed joints included")


def test_trajectory_reads_the_rig_under_its_package_dirs_and_restores_them(tmp_path, monkeypatch):
    """``--package-dir`` is on every entry point (docs/cli.md): ``trajectory`` reads the rig, and so its
    package:// meshes, with those folders, and leaves the process's folders as they were."""
    import mime_gui.rig

    class Seen(Exception):
        pass

    record = []

    def capture(*_args, **_kwargs):
        record.append(resolve.package_dirs())
        raise Seen

    monkeypatch.setattr(mime_gui.rig, "load", capture)
    with pytest.raises(Seen):
        main(["trajectory", str(DEMO / "demo.rig.json"), "wave", "--out", str(tmp_path / "c.csv"),
              "--package-dir", str(tmp_path / "a"), "--package-dir", str(tmp_path / "b")])
    assert record == [(str(tmp_path / "a"), str(tmp_path / "b"))]
    assert resolve.package_dirs() == ()


def test_a_single_pose_of_the_wrong_shape_is_named_with_the_one_shape_it_may_have():
    """A placement or one step's mount pose is one (4, 4) transform: the message names that shape alone,
    while a played series names the batch shape too."""
    node = KinematicArmNode(read_urdf(DEMO / "arm.urdf").compile())
    with pytest.raises(ValueError) as err:
        node.initial_state(mount_pose=np.eye(3))
    assert str(err.value) == "mount_pose must have shape (4, 4), got (3, 3)"
    with pytest.raises(ValueError) as err:
        MountedNode(placement=np.eye(4)[:3])
    assert str(err.value) == "placement must have shape (4, 4), got (3, 4)"
    commands = np.zeros((2, node.ncommands))
    with pytest.raises(ValueError) as err:
        node.play(commands, 0.01, mount_poses=np.zeros((3, 4, 4)))
    assert str(err.value) == "mount_poses must have shape (4, 4) or (2, 4, 4), got (3, 4, 4)"


def test_a_source_tree_reads_its_version_from_pyproject_as_utf8_whatever_the_locale(tmp_path):
    """TOML files are UTF-8 (the TOML spec): a pyproject with non-ASCII text gives its version in an ASCII
    locale too, not a decoding error. Run in a child process, the only way to give Python another locale."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "mime-gui"\nversion = "4.5.6"\ndescription = "Magnets’ field ± 1 µT"\n',
        encoding="utf-8")
    script = textwrap.dedent("""\
        import sys
        from importlib import metadata
        from mime_gui import _package

        def missing(name):
            raise metadata.PackageNotFoundError(name)

        _package.metadata.version = missing  # a source tree never installed
        _package.__file__ = sys.argv[1]
        print(_package.package_version())
        """)
    source = str(Path(mime_gui.__file__).resolve().parents[1])  # this checkout's package, not another one
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0",
           "PYTHONPATH": source, "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "pkg" / "_package.py")], env=env,
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "4.5.6\n"
