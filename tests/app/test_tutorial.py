"""docs/tutorial.md, step by step, as its reader does it: from the demo arm's URDF to a saved, validated and
exported rig with a motor, a holder and a magnet, driven and played. Each step asserts what the tutorial
says the window shows; with ``MIME_TUTORIAL_IMAGES=FOLDER`` it also writes the step's screenshot there
(``make tutorial-images`` writes docs/images/tutorial-*.png), so the pictures are the window as it is."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from gestures import click_row, drop_on_row
from test_assembly import choose, field, open_ready, settle, type_into, type_vector

from mime_gui import RESOURCES
from mime_gui.rig import load
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(180)
DEMO = RESOURCES / "demo"
SIZE = (1600, 1000)


def shot(window, qtbot, name: str) -> None:
    folder = os.environ.get("MIME_TUTORIAL_IMAGES")
    if not folder:
        return
    settle(qtbot, 300)
    assert window.save_screenshot(str(Path(folder) / f"tutorial-{name}.png")), window.screenshot_error


def test_the_tutorial_from_a_urdf_to_an_exported_rig(make_window, qtbot, tmp_path):
    window = make_window(size=SIZE)
    qtbot.wait(50)
    folder = tmp_path / "my-rig"
    folder.mkdir()
    shutil.copy(DEMO / "arm.urdf", folder / "arm.urdf")
    shutil.copytree(DEMO / "meshes", folder / "meshes")
    for extra in ("package.xml",):  # the package the URDF's package://demo/ meshes are found in
        if (DEMO / extra).exists():
            shutil.copy(DEMO / extra, folder / extra)
    session = window.session

    # 1. open the URDF: the chain, the arm in 3D, its joint sliders
    open_ready(window, folder / "arm.urdf")
    (first,) = session.segments
    assert window.driving.sliders.isVisible() and len(window.driving.sliders.rows) == 6
    shot(window, qtbot, "1-open")

    # 2. the arm: a name, dynamic (it carries its parts' mass), a servo lag
    click_row(window, ItemRef(first, "segment", first))
    type_into(qtbot, field(window, f"chain.{first}").edit, "arm", enter=True)
    choose(qtbot, field(window, "chain.arm.kind").combo, "Arm.Dynamic")
    type_into(qtbot, field(window, "chain.arm.servo_time_constant").edit, "50 ms")
    assert session.rig.chain["arm"].servo_time_constant == pytest.approx(0.05)
    shot(window, qtbot, "2-arm")

    # 3. a motor on the flange, with its rotor's inertia and where that figure comes from
    drop_on_row(window, "segment.motor", ItemRef("arm", "frame", "tool0"))
    settle(qtbot, 20)
    choose(qtbot, field(window, "chain.motor.kind").combo, "Motor.Dynamic")
    inertia = field(window, "chain.motor.inertia")
    type_into(qtbot, inertia.value_edit, "3e-06")
    type_into(qtbot, inertia.reason_edit, "catalogue value of the spindle motor's rotor")
    assert session.rig.chain["motor"].mount == "tool0"
    shot(window, qtbot, "3-motor")

    # 4. a holder and a magnet on the rotor
    drop_on_row(window, "part.cylinder", ItemRef("motor", "frame", "rotor"))
    type_into(qtbot, field(window, "parts.cylinder").edit, "holder", enter=True)
    type_vector(qtbot, window, "parts.holder.at", 2, "10")
    drop_on_row(window, "magnet.cylinder", ItemRef("motor", "frame", "rotor"))
    type_into(qtbot, field(window, "magnets.magnet").edit, "m1", enter=True)
    type_vector(qtbot, window, "magnets.m1.at", 2, "25")
    assert session.rig.magnets["m1"].at[2] == pytest.approx(0.025)
    assert window.tree_dock.item_for(ItemRef("motor", "link", "part:m1")).text(1) == "cylinder magnet, 5.89 g"
    window.tree_dock.focus_requested.emit(ItemRef("motor", "link", "rotor"))  # F: the camera on the rotor
    shot(window, qtbot, "4-magnet")
    window._reset_camera()  # View → Reset camera (R): the whole rig again

    # 5. the arm's armature: what each joint's motor adds, with its reason
    dock = window.assembly.armature
    dock.raise_()
    settle(qtbot, 20)
    table = dock.table("arm")
    choose(qtbot, table.cells[("joint_6", "source")], "declared")
    type_into(qtbot, table.cells[("joint_6", "value")], "0.0002")
    type_into(qtbot, table.cells[("joint_6", "reason")], "wrist rotor through the 4:1 belt, datasheet")
    for joint in ("joint_1", "joint_2", "joint_3"):
        choose(qtbot, table.cells[(joint, "source")], "through")
        settle(qtbot, 20)
        choose(qtbot, table.cells[(joint, "actuator")], "example-bldc-60mm")
    shot(window, qtbot, "5-armature")

    # 6. every rule passes: save, and export the rig file
    window.assembly.validation.raise_()
    settle(qtbot, 20)
    assert session.findings == ()
    assert window.assembly.act_export_json.isEnabled()
    window.act_save.trigger()
    settle(qtbot)
    saved = folder / "arm.rig.json"
    assert saved.is_file() and not window.isWindowModified()
    assert window.assembly.export_to("json", str(folder / "arm.export.rig.json"))
    exported = json.loads((folder / "arm.export.rig.json").read_text())
    assert "provenance" in exported and set(exported["magnets"]) == {"m1"}
    assert load(saved).chain["motor"].mount == "tool0"
    shot(window, qtbot, "6-valid")

    # 7. drive: a slider, then the demo's wave played through the same engine as mime-gui play
    shutil.copy(DEMO / "wave.csv", folder / "wave.csv")
    player = window.driving.player
    assert player.open_file(str(folder / "wave.csv"))
    window.driving.transport.seek(player.transport.player.rows // 2)
    settle(qtbot, 50)
    assert player.source.text().startswith("wave.csv:")
    shot(window, qtbot, "7-play")

    # the command-line twin of every step, on the same file: valid, exported alike, played alike
    from mime_gui.cli.main import main

    assert main(["validate", str(saved)]) == 0
    assert main(["export", str(saved), "--json", str(folder / "cli.rig.json")]) == 0
    assert (folder / "cli.rig.json").read_bytes() == (folder / "arm.export.rig.json").read_bytes()
    assert main(["export", str(saved), "--bundle", str(folder / "arm.zip")]) == 0
    assert main(["play", str(saved), "--commands", str(folder / "wave.csv"), "--out",
                 str(folder / "played.npz"), "--quiet"]) == 0
    import numpy as np

    with np.load(folder / "played.npz") as played:
        trajectory = window.driving.transport.player.trajectory
        # the same engine
        np.testing.assert_array_equal(played["joint_positions"], trajectory.joint_positions)
        np.testing.assert_array_equal(played["frame_poses"], trajectory.frame_poses)
