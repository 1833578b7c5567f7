"""The geometry kinds' templates in the palette: each kind's part and magnet templates listed under Parts and
Magnets in the kinds' order (the arc magnet among them), and the arc magnet dropped on the demo rig's rotor
(a real QMimeData drop) as a valid magnet whose field at the demo's sample probe is Magpylib's."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from gestures import click_row, drop_on_row
from oracle import DEMO_MAGNETISATION, demo_poses, magnet_B
from PySide6.QtWidgets import QApplication

from mime_gui import RESOURCES
from mime_gui.app.docks.forms.probe import ProbeForm, probe_field
from mime_gui.app.main import wait_until_ready
from mime_gui.rig import Arc, PermanentMagnet
from mime_gui.rig.materials import material
from mime_gui.rig.templates import TEMPLATES, kind_templates
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(120)
magpy = pytest.importorskip("magpylib")


@pytest.fixture
def demo(window, tmp_path):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    assert window.open_file(str(tmp_path / "demo" / "demo.rig.json"))
    wait_until_ready(window)
    window.activateWindow()
    QApplication.processEvents()
    return window


def test_the_palette_lists_every_kind_s_templates_under_parts_and_magnets(window):
    palette = window.assembly.palette
    for group in ("Parts", "Magnets"):
        expected = [t.key for t in kind_templates() if t.group == group]
        rows = [palette.row(key) for key in expected]
        assert {row.parent().text(0) for row in rows} == {group}
        assert [row.parent().indexOfChild(row) for row in rows] == list(range(len(rows)))
    arc = palette.row("magnet.arc")
    assert arc.text(0) == "Arc magnet" and TEMPLATES["magnet.arc"].tip in arc.toolTip(0)


def test_the_arc_magnet_dropped_on_the_rotor_is_valid_and_its_field_is_magpylib_s_at_the_sample(demo, qtbot):
    session = demo.session
    steps = len(session.history)
    drop_on_row(demo, "magnet.arc", ItemRef("motor", "link", "rotor"))
    qtbot.waitUntil(lambda: "magnet" in session.rig.magnets, timeout=5000)
    arc = session.rig.magnets["magnet"]
    assert isinstance(arc, PermanentMagnet) and arc.mount == "motor.rotor"
    assert arc.geometry == Arc(0.005, 0.01, 0.005, -45.0, 45.0) and arc.magnetisation == (1.0, 0.0, 0.0)
    assert session.document.findings == ()
    assert len(session.history) == steps + 1 and session.history.undo_name == "Add magnet magnet"

    # the field at the demo's sample probe, as its form computes it: the demo's disc m1 and the arc, each by
    # Magpylib called directly at the rotor's pose now
    click_row(demo, ItemRef("", "probe", "sample"))
    qtbot.waitUntil(lambda: isinstance(demo.properties_dock.forms.form, ProbeForm), timeout=5000)
    B, why = probe_field(session, "sample")
    assert why is None and np.all(np.isfinite(B))
    poses = demo_poses(session.joint_positions("arm"), session.joint_positions("motor")[0])
    stator, rotor = poses["stator"], poses["rotor"]
    probe = stator[:3, :3] @ np.asarray(session.rig.probes["sample"].at) + stator[:3, 3]
    g = arc.geometry
    segment = magpy.magnet.CylinderSegment(
        dimension=(g.inner_radius, g.outer_radius, g.length, g.start_angle, g.end_angle),
        polarization=(material("NdFeB-N42").remanence, 0.0, 0.0))
    from scipy.spatial.transform import Rotation

    # the part's at (the frame's origin) is the segment's centroid: the whole ring's axis lies behind it
    segment.position = rotor[:3, :3] @ -g.mass_properties().centroid + rotor[:3, 3]
    segment.orientation = Rotation.from_matrix(rotor[:3, :3])
    expected = magnet_B(rotor, [probe], DEMO_MAGNETISATION)[0] + segment.getB(probe)
    np.testing.assert_allclose(B, expected, rtol=1e-9, atol=1e-15)
    assert not np.allclose(B, magnet_B(rotor, [probe], DEMO_MAGNETISATION)[0])  # the arc adds its share
    assert f"{np.linalg.norm(B) * 1e3:.5g} mT" == demo.properties_dock.forms.form.magnitude.text()
