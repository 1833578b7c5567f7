"""Hostile files in the desktop app: the message is shown, the previous document is kept, the process lives.

A FIFO given as a robot and a URDF with an origin of 1e308 m are refused with their codes; a rig with a
sphere of radius 1e300 m opens with its finding; a mesh that is an entity bomb (which once took 13 GB and a
segfault once the window was shown), an archive or a FIFO is a placeholder with a coded warning, and the rest
of the robot is drawn.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.app.main import wait_until_ready

pytestmark = pytest.mark.timeout(60)
DEMO = RESOURCES / "demo"
LIMIT = '<limit lower="-1" upper="1" effort="1" velocity="1"/>'


def open_ready(window, path) -> None:
    assert window.open_file(str(path)), window.error_dialog and window.error_dialog.text()
    wait_until_ready(window)


def robot_with_mesh(folder: Path, mesh: str, joint_extra: str = "") -> Path:
    path = folder / "meshy.urdf"
    path.write_text(f'<robot name="meshy"><link name="a"><visual><geometry><box size="0.1 0.1 0.1"/>'
                    f'</geometry></visual></link><link name="b"><visual><geometry><mesh filename="{mesh}"/>'
                    f'</geometry></visual></link><joint name="j" type="revolute"><parent link="a"/>'
                    f'<child link="b"/>{joint_extra}{LIMIT}</joint></robot>')
    return path


def bomb_dae(levels: int = 6) -> str:
    ents = ['<!ENTITY a0 "AAAAAAAAAA">'] + [f'<!ENTITY a{i} "{f"&a{i - 1};" * 10}">'
                                             for i in range(1, levels + 1)]
    return ('<?xml version="1.0"?>\n<!DOCTYPE COLLADA [\n' + "\n".join(ents) + "\n]>\n"
            '<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1"><asset>'
            f"<contributor><author>&a{levels};</author></contributor></asset></COLLADA>\n")


def assert_refused_and_kept(window, path, code: str) -> None:
    doc = window.session.document
    counts = window.tree_dock.counts()
    assert window.open_file(str(path)) is False
    assert window.session.document is doc and window.tree_dock.counts() == counts
    assert window.error_dialog is not None and window.error_dialog.isVisible()
    assert f"error[{code}]" in window.error_dialog.text()


def test_a_fifo_as_a_robot_is_refused_at_once(window, tmp_path):
    open_ready(window, DEMO / "arm.urdf")
    pipe = tmp_path / "robot.urdf"
    os.mkfifo(pipe)
    assert_refused_and_kept(window, pipe, "file.not-regular")


def test_an_origin_of_1e308_is_refused_and_an_axis_of_1e308_draws(window, tmp_path):
    open_ready(window, DEMO / "arm.urdf")
    far = tmp_path / "far.urdf"
    far.write_text(robot_with_mesh(tmp_path, "none.stl", '<origin xyz="1e308 0 0"/>').read_text())
    assert_refused_and_kept(window, far, "urdf.magnitude")
    axis = tmp_path / "axis.urdf"
    axis.write_text(robot_with_mesh(tmp_path, "none.stl", '<axis xyz="1e308 1e308 0"/>').read_text())
    with pytest.warns(UserWarning, match="placeholder"):
        open_ready(window, axis)
    (segment,) = window.session.segments.values()
    assert np.allclose(segment.articulation.axis[0], [2 ** -0.5, 2 ** -0.5, 0])
    assert np.all(np.isfinite(segment.world_X_frame))


def test_a_rig_with_a_sphere_of_1e300_opens_with_its_finding(window, tmp_path):
    """A rig that breaks a rule opens with its findings (to be fixed in the window); the radius that raised
    OverflowError in the app is now a part.geometry finding, and the window draws the rest."""
    folder = tmp_path / "demo"  # package://demo/ meshes resolve in a folder of that name
    shutil.copytree(DEMO, folder)
    data = json.loads((DEMO / "demo.rig.json").read_text())
    data["magnets"]["m1"]["geometry"] = {"type": "sphere", "unit": "m", "radius": 1e300}
    path = folder / "huge.rig.json"
    path.write_text(json.dumps(data))
    open_ready(window, path)
    assert ("part.geometry", "magnets.m1.geometry") in [(f.code, f.where) for f in window.session.findings]
    assert all(np.all(np.isfinite(seg.world_X_frame)) for seg in window.session.segments.values())
    assert window.isVisible()


@pytest.mark.filterwarnings("ignore:placeholder shown for mesh")
@pytest.mark.parametrize("case, said", [("bomb", "mesh.xml"), ("zip", "mesh.archive"),
                                        ("fifo", "was not found")])  # the reader resolves regular files only
def test_a_hostile_mesh_is_a_placeholder_with_its_code_once_the_window_is_shown(window, tmp_path, case, said):
    if case == "bomb":
        (tmp_path / "part.dae").write_text(bomb_dae())
        mesh = "part.dae"
    elif case == "zip":
        with zipfile.ZipFile(tmp_path / "part.stl", "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("part.dae", bomb_dae(9))
        mesh = "part.stl"
    else:
        os.mkfifo(tmp_path / "part.stl")
        mesh = "part.stl"
    problems: list[str] = []
    window.scene.meshes_loaded.connect(problems.extend)
    open_ready(window, robot_with_mesh(tmp_path, mesh))
    assert window.session.document is not None and window.session.document.name == "meshy.urdf"
    assert any(said in p for p in problems), problems
    assert window.scene.actor_counts().get("visual", 0) >= 2  # the box and the placeholder
    assert window.isVisible()


@pytest.mark.filterwarnings("ignore:placeholder shown for mesh")
def test_the_view_loader_refuses_a_fifo_with_its_code(tmp_path):
    """Handed a FIFO directly (a part's mesh swapped for one after validation), the loader does not block."""
    from mime_gui.app.scene.meshes import load_mesh

    os.mkfifo(tmp_path / "pipe.stl")
    asset = load_mesh(str(tmp_path / "pipe.stl"))
    assert asset.placeholder and "file.not-regular" in asset.message
