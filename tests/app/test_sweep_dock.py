"""The Sweep dock, as a user would use it: a table written by mime-gui sweep opened and plotted (any two
columns, the variants that break a rule in red), a point clicked to open that variant on the rig (one undo
step), the values it sets read back from the rig; a damaged table and a rig without the swept path refused
with their codes."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from test_driving import open_ready

from mime_gui import RESOURCES
from mime_gui.cli.main import main
from mime_gui.sweep.table import read

DEMO = RESOURCES / "demo"


def sweep_table(tmp_path, capsys, *vary):
    out = tmp_path / "sweep.csv"
    args = ["sweep", str(DEMO / "demo.rig.json")]
    for v in vary:
        args += ["--vary", v]
    code = main([*args, "--commands", str(DEMO / "chain.csv"), "--out", str(out), "--workers", "1",
                 "--quiet"])
    capsys.readouterr()
    assert code == 0
    return out


def sweep_dock(window, qtbot):
    dock = window.docks["SweepDock"]
    dock.show()
    dock.raise_()
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty(), timeout=3000)
    return dock


def test_a_table_plotted_and_a_variant_opened_by_a_click(window, qtbot, demo_copy, tmp_path, capsys):
    # the holder's height and the magnet's radius; one variant mounts the holder on a frame the rig lacks
    out = sweep_table(tmp_path, capsys, "parts.holder.at.2=0.005:0.015:3",
                      "magnets.m1.geometry.radius=0.004,0.006",
                      "parts.holder.mount=motor.rotor,motor.nowhere")
    open_ready(window, demo_copy / "demo.rig.json", qtbot)
    session, dock = window.session, sweep_dock(window, qtbot)
    rig = session.rig
    assert dock.open_table(out)
    stored = read(out)
    assert len(dock.rows) == stored.variants == 12
    assert dock.varied == ["parts.holder.at.2", "magnets.m1.geometry.radius", "parts.holder.mount"]
    assert dock.x.currentText() == "parts.holder.at.2"
    dock.y.setCurrentText("B_max.sample")
    spots = dock.points.points()
    # every variant with numbers on both axes is a point; those that break a rule are red
    xs = np.array([float(r["parts.holder.at.2"]) for _, r in stored.rows])
    ys = np.array([float(r["B_max.sample"]) if r["B_max.sample"] else np.nan for _, r in stored.rows])
    assert len(spots) == int(np.sum(np.isfinite(xs) & np.isfinite(ys)))
    for p in spots:
        row = stored.rows[p.data()][1]
        assert (p.pos().x(), p.pos().y()) == (float(row["parts.holder.at.2"]), float(row["B_max.sample"]))
        assert (p.brush().color().name() == "#d62728") == (int(row["findings"]) > 0)
    # a click on a point opens its variant: the rig holds its values, one undo step
    target = next(p for p in spots if stored.rows[p.data()][1]["parts.holder.mount"] == "motor.rotor"
                  and stored.rows[p.data()][1]["magnets.m1.geometry.radius"] == "0.006")
    row = stored.rows[target.data()][1]
    with qtbot.waitSignal(dock.opened):
        dock.points.sigClicked.emit(dock.points, [target], None)
    assert session.rig.parts["holder"].at[2] == float(row["parts.holder.at.2"])
    assert session.rig.magnets["m1"].geometry.radius == 0.006
    assert session.findings == ()
    assert session.history.undo_name.startswith("Open variant")
    qtbot.keyClick(window, Qt.Key_Z, Qt.ControlModifier)
    qtbot.waitUntil(lambda: session.rig == rig)
    # the variant on a missing frame: opened too, and the rules say what it breaks
    broken = next(i for i, (_, r) in enumerate(stored.rows) if r["parts.holder.mount"] == "motor.nowhere")
    assert dock.open_variant(broken)
    assert [f.code for f in session.findings] == ["part.mount"] and "breaks 1 rule" in dock.status.text()


def test_a_damaged_table_and_a_rig_without_the_path_are_refused(window, qtbot, tmp_path, capsys, robot_file):
    out = sweep_table(tmp_path, capsys, "parts.holder.at.2=0.005:0.015:2")
    lines = out.read_text().splitlines()
    damaged = tmp_path / "damaged.csv"
    damaged.write_text("\n".join(lines[:-1] + [lines[-1] + ",extra"]) + "\n")
    open_ready(window, robot_file("ur5"), qtbot)
    dock = sweep_dock(window, qtbot)
    assert not dock.open_table(damaged) and "[sweep.table]" in dock.status.text()
    assert dock.open_table(out)
    rig = window.session.rig
    assert not dock.open_variant(0) and "[sweep.variant]" in dock.status.text()
    assert window.session.rig == rig
