"""File → Export rig → As one URDF / As MuJoCo MJCF, used as a user would: the dialog answered, the file
written beside its meshes and loaded by MuJoCo and by Pinocchio; both entries disabled while the rig breaks
a rule, and the session refusing with the rule's code."""

from __future__ import annotations

import mujoco
import pinocchio as pin
import pytest
from test_assembly import open_ready, settle

from mime_gui.session import SessionError, SetValue


@pytest.mark.parametrize("kind", ["urdf", "mjcf"])
def test_export_menu_writes_a_file_the_simulators_load(window, qtbot, demo_copy, tmp_path, monkeypatch, kind):
    open_ready(window, demo_copy / "demo.rig.json")
    out = tmp_path / ("rig.urdf" if kind == "urdf" else "rig.xml")
    monkeypatch.setattr("mime_gui.app.assembly.QFileDialog.getSaveFileName", lambda *a, **k: (str(out), ""))
    action = window.assembly.act_export_urdf if kind == "urdf" else window.assembly.act_export_mjcf
    assert action.isEnabled()
    action.trigger()
    settle(qtbot)
    assert out.is_file() and window.statusBar().currentMessage() == f"Exported {out}"
    if kind == "mjcf":
        model = mujoco.MjModel.from_xml_path(str(out))
        assert model.nv == sum(s.articulation.nv for s in window.session.document.built.segments.values())
    else:
        model = pin.buildModelFromUrdf(str(out))
        assert model.nv == sum(s.articulation.nv for s in window.session.document.built.segments.values())


def test_export_entries_wait_for_a_valid_rig(window, qtbot, demo_copy, tmp_path):
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session
    session.apply(SetValue("parts.holder.mount", "arm.no_such_frame"))
    settle(qtbot)
    assert session.findings
    assert not window.assembly.act_export_urdf.isEnabled() and not window.assembly.act_export_mjcf.isEnabled()
    with pytest.raises(SessionError) as refused:
        session.export_simulator(tmp_path / "rig.xml", "mjcf")
    assert refused.value.code == session.findings[0].code
    assert not (tmp_path / "rig.xml").exists()


def test_the_exported_urdf_opens_in_the_app_with_its_meshes(window, qtbot, demo_copy, tmp_path):
    """The demo's arm draws meshes: the exported URDF names its copies beside it, and opening it shows every
    link of every segment, named <segment>/<link>, with no mesh problem."""
    open_ready(window, demo_copy / "demo.rig.json")
    built = window.session.document.built
    links = {f"{n}/{link}" for n, s in built.segments.items() for link in s.tree.links}
    out = tmp_path / "export" / "rig.urdf"
    out.parent.mkdir()
    window.session.export_simulator(out, "urdf")
    assert any((tmp_path / "export").glob("*_meshes/*"))
    assert window.open_file(str(out))
    from test_driving import wait_until_ready

    wait_until_ready(window)
    assert window.scene.warnings == []
    (segment,) = window.session.segments.values()
    assert links <= set(segment.tree.links)
    assert sum(1 for a in window.scene.actors(next(iter(window.session.segments)), "visual")) > 0
