"""A plain install works: the wheel carries the bundled data, and the installed program runs outside the tree.

The wheel is built from a copy of the packaging inputs (so the tree gets no ``build/`` folder), installed with
``--no-deps`` into a fresh virtual environment without pip and without the system site-packages. The
dependencies come from this environment's site-packages, added by a ``.pth`` line; such a line adds the folder
only (``.pth`` files inside it, such as an editable install's finder, are not run), so the source tree is
never on the path. Every command runs from a scratch folder with no ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from test_headless import FORBIDDEN, HEADLESS, PROBE

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
BUNDLED = ["actuators.json", "materials.json", "rig.schema.json", "demo/arm.urdf", "demo/demo.rig.json",
           "demo/meshes/base.stl", "demo/meshes/wrist.obj", "demo/wave.csv", "demo/pick.npz"]


def _run(argv, cwd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    return subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, **kw)


def _installed_resources(venv: Path) -> Path:
    lib = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    return lib / "mime_gui" / "resources"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("wheel", reason="building without isolation needs the 'wheel' package (test extra)")
    src = tmp_path_factory.mktemp("src")
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / "README.md", src)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "mime_gui", src / "mime_gui", ignore=skip)
    shutil.copytree(ROOT / "resources", src / "resources", ignore=skip)  # installed as mime_gui.resources
    dist = tmp_path_factory.mktemp("dist")
    done = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                 "--no-index", "-w", dist, src], cwd=src)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = dist.glob("mime_gui-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    env = tmp_path_factory.mktemp("venv")
    done = _run([sys.executable, "-m", "venv", "--without-pip", env], cwd=env)
    assert done.returncode == 0, done.stderr
    python = env / "bin" / "python"
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                        cwd=env).stdout.strip())
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    # coal (the clearance check) and Pinocchio install under cmeel's prefix, which cmeel's own .pth adds
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    deps += [str(c) for c in (Path(p) / "cmeel.prefix" / "lib" / version / "site-packages" for p in deps)
             if c.is_dir()]
    (purelib / "_dependencies.pth").write_text("\n".join(deps) + "\n")
    done = _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index",
                 wheel], cwd=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return env


def test_the_wheel_carries_the_bundled_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in BUNDLED if f"mime_gui/resources/{f}" not in names]
    assert not missing, f"the wheel lacks {missing}"


def test_the_installed_package_runs_from_the_environment_not_the_tree(venv, tmp_path):
    probe = ("import json, sys, mime_gui; print(json.dumps({'file': mime_gui.__file__, "
             "'resources': str(mime_gui.RESOURCES), 'version': mime_gui.__version__, 'path': sys.path}))")
    done = _run([venv / "bin" / "python", "-c", probe], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert Path(seen["file"]).is_relative_to(venv)
    assert Path(seen["resources"]).is_relative_to(venv)
    assert seen["version"] == VERSION  # from the installed metadata
    assert not [p for p in seen["path"] if p and Path(p).resolve() == ROOT], "the source tree is on the path"
    for f in BUNDLED:
        assert (Path(seen["resources"]) / f).is_file(), f


def test_validate_and_inspect_the_bundled_demo(venv, tmp_path):
    resources = _installed_resources(venv)
    mime_gui = venv / "bin" / "mime-gui"
    done = _run([mime_gui, "validate", resources / "demo" / "demo.rig.json"], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rig 'demo' is valid" in done.stdout
    done = _run([mime_gui, "inspect", resources / "demo" / "arm.urdf", "--json"], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["name"] == "demo_arm"
    done = _run([mime_gui, "--version"], cwd=tmp_path)
    assert done.stdout.strip() == f"mime-gui {VERSION}"


def test_the_installed_headless_packages_do_not_import_qt(venv, tmp_path):
    demo = _installed_resources(venv) / "demo" / "arm.urdf"
    done = _run([venv / "bin" / "python", "-c", PROBE, json.dumps(HEADLESS), demo, json.dumps(FORBIDDEN)],
                cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stderr.strip().splitlines()[-1])
    assert result["code"] == 0 and result["imported"] == HEADLESS
    assert result["loaded"] == [], f"headless imports pulled in {result['loaded']}"


def test_a_zip_import_copies_the_data_out_and_removes_it_at_exit(wheel, tmp_path):
    """Imported from an archive, the package's data is a real folder while the process runs."""
    probe = ("import json, sys; sys.path.insert(0, sys.argv[1]); import mime_gui; "
             "print(mime_gui.__file__); print(mime_gui.RESOURCES); "
             "print(len(json.loads((mime_gui.RESOURCES / 'demo' / 'demo.rig.json').read_text())['chain']))")
    done = _run([sys.executable, "-c", probe, wheel], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    module, folder, segments = done.stdout.split("\n")[:3]
    assert module.startswith(str(wheel))  # imported from the archive, not the tree
    assert not Path(folder).is_relative_to(wheel) and segments == "2"  # read from a real folder
    assert not Path(folder).exists()  # removed when the process ended
