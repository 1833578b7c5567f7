"""The headless Session with the recording FakeRenderer: no Qt anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mime_gui.multibody import frame_poses, read_urdf
from mime_gui.session import FakeRenderer, ItemRef, Session, SessionError

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "resources" / "demo" / "arm.urdf"

#: a refused URDF (urdf.closed-chain), copied under a test's own name
CLOSED_CHAIN = ROOT / "tests" / "data" / "bad_urdf" / "closed_chain_two_parents.urdf"


class Recorder:
    def __init__(self, session: Session):
        self.events: list[tuple] = []
        names = ("document_changed", "poses_changed", "selection_changed", "layers_changed",
                 "visibility_changed", "error")
        for name in names:
            getattr(session, name).connect(lambda *args, _n=name: self.events.append((_n, *args)))

    def names(self) -> list[str]:
        return [e[0] for e in self.events]


@pytest.fixture
def session():
    s = Session()
    s.attach_renderer(FakeRenderer())
    return s


def test_open_demo_builds_one_segment_and_shows_it(session):
    rec = Recorder(session)
    doc = session.open(DEMO)
    assert doc.kind == "urdf" and session.path == str(DEMO)
    tree = read_urdf(DEMO)
    (name, seg), = session.segments.items()
    assert name == tree.name
    assert set(seg.tree.links) == set(tree.links)
    assert seg.articulation.frame_names == tree.compile().frame_names
    r = session.renderer
    assert set(r.segments) == {name}
    shown_tree, shown_art = r.segments[name]
    assert shown_tree is seg.tree and shown_art is seg.articulation
    np.testing.assert_allclose(r.poses[name], frame_poses(seg.articulation, seg.q))
    assert "document_changed" in rec.names()


def test_initial_q_respects_limits(session, tmp_path):
    urdf = tmp_path / "offset.urdf"
    urdf.write_text("""<robot name="r"><link name="a"/><link name="b"/>
      <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
      <limit lower="0.5" upper="1.0" effort="1" velocity="1"/></joint></robot>""")
    session.open(urdf)
    assert session.joint_positions("r")[0] == pytest.approx(0.5)


def test_set_joint_positions_moves_frames_and_forwards_to_renderer(session):
    session.open(DEMO)
    name = next(iter(session.segments))
    art = session.segment(name).articulation
    rec = Recorder(session)
    renders = session.renderer.renders
    q = np.linspace(-0.3, 0.4, art.nq)
    session.set_joint_positions(name, q)
    expected = frame_poses(art, q)
    np.testing.assert_allclose(session.renderer.poses[name], expected)
    last = art.frame_names[-1]
    np.testing.assert_allclose(session.frame_world_pose(name, last), expected[-1])
    assert rec.events == [("poses_changed", name)]
    assert session.renderer.renders == renders + 1
    # by joint name
    session.set_joint_positions(name, {art.joint_names[0]: 0.25})
    assert session.joint_positions(name)[0] == pytest.approx(0.25)
    assert session.joint_positions(name)[1] == pytest.approx(q[1])


def test_bad_joint_positions_are_refused_with_a_code(session):
    session.open(DEMO)
    name = next(iter(session.segments))
    before = session.joint_positions(name)
    rec = Recorder(session)
    with pytest.raises(SessionError) as err:
        session.set_joint_positions(name, [0.0])
    assert err.value.code == "session.q-shape"
    with pytest.raises(SessionError) as err:
        session.set_joint_positions(name, np.full(before.shape, np.nan))
    assert err.value.code == "session.q-non-finite"
    with pytest.raises(SessionError) as err:
        session.set_joint_positions(name, {"no_such_joint": 1.0})
    assert err.value.code == "session.joint"
    np.testing.assert_array_equal(session.joint_positions(name), before)
    assert rec.names() == ["error", "error", "error"]


def test_refused_file_keeps_previous_document(session, tmp_path):
    session.open(DEMO)
    doc = session.document
    seg = next(iter(session.segments))
    session.select(ItemRef(seg, "link", "link_1"))
    rec = Recorder(session)
    bad = tmp_path / "loop.urdf"
    bad.write_bytes(CLOSED_CHAIN.read_bytes())
    with pytest.raises(SessionError) as err:
        session.open(bad)
    assert err.value.code == "urdf.closed-chain"
    assert err.value.file.endswith("loop.urdf") and err.value.line > 0
    assert "error[urdf.closed-chain]" in err.value.one_line()
    assert session.document is doc
    assert session.selection == ItemRef(seg, "link", "link_1")
    assert set(session.renderer.segments) == {seg}
    assert rec.names() == ["error"] and rec.events[0][1] is err.value


@pytest.mark.parametrize("name,code", [("missing.urdf", "file.not-found"), ("notes.txt", "file.kind")])
def test_unopenable_paths_have_codes(session, tmp_path, name, code):
    path = tmp_path / name
    if code != "file.not-found":
        path.write_text("hello")
    with pytest.raises(SessionError) as err:
        session.open(path)
    assert err.value.code == code
    assert session.document is None


def test_selection_highlights_and_rejects_unknown_items(session):
    session.open(DEMO)
    seg = next(iter(session.segments))
    rec = Recorder(session)
    item = ItemRef(seg, "joint", "joint_2")
    session.select(item)
    session.select(item)  # no second event for the same item
    assert session.renderer.highlighted == item
    assert rec.events == [("selection_changed", item)]
    with pytest.raises(SessionError) as err:
        session.select(ItemRef(seg, "link", "nope"))
    assert err.value.code == "session.item"
    assert session.selection == item
    session.select(None)
    assert session.renderer.highlighted is None
    assert rec.events[-1] == ("selection_changed", None)


def test_reload_keeps_joint_positions_and_drops_vanished_selection(session, tmp_path):
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(DEMO.read_text())
    # the demo references package://demo/meshes; keep them resolvable next to the copy
    (tmp_path / "meshes").symlink_to(DEMO.parent / "meshes")
    session.open(urdf)
    seg = next(iter(session.segments))
    art = session.segment(seg).articulation
    q = np.clip(np.full(art.nq, 0.2), art.lower, art.upper)
    session.set_joint_positions(seg, q)
    session.select(ItemRef(seg, "link", "link_1"))
    session.reload()
    np.testing.assert_allclose(session.joint_positions(seg), q)
    np.testing.assert_allclose(session.renderer.poses[seg], frame_poses(art, q))
    assert session.selection == ItemRef(seg, "link", "link_1")
    urdf.write_text(DEMO.read_text().replace('"link_1"', '"upper_link"'))
    session.reload()
    assert session.selection is None
    assert session.renderer.highlighted is None


def test_layers_forward_to_renderer_and_refuse_unknown(session):
    rec = Recorder(session)
    session.set_layer_visible("frames", True)
    session.set_layer_visible("frames", True)
    assert session.renderer.layers["frames"] is True
    assert rec.events == [("layers_changed", "frames", True)]
    with pytest.raises(SessionError) as err:
        session.set_layer_visible("sky", True)
    assert err.value.code == "session.layer"


def test_attach_renderer_later_brings_it_up_to_date():
    s = Session()
    s.open(DEMO)
    s.set_layer_visible("collision", True)
    seg = next(iter(s.segments))
    s.select(ItemRef(seg, "frame", "base_link"))
    r = FakeRenderer()
    s.attach_renderer(r)
    assert set(r.segments) == {seg} and seg in r.poses
    assert r.layers["collision"] is True and r.layers["visual"] is True
    assert r.highlighted == ItemRef(seg, "frame", "base_link")


def test_session_imports_no_gui_modules():
    code = ("import sys, mime_gui.session as s; s.Session().open(sys.argv[1]);"
            "gui=('PySide6','vtk','vtkmodules','pyvista','pyvistaqt');"
            "bad=[m for m in sys.modules if m.split('.')[0] in gui];"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code, str(DEMO)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_item_visibility_forwards_and_survives_reload(session):
    session.open(DEMO)
    seg = next(iter(session.segments))
    rec = Recorder(session)
    item = ItemRef(seg, "link", "link_2")
    session.set_item_visible(item, False)
    session.set_item_visible(item, False)
    assert not session.is_item_visible(item)
    assert session.renderer.hidden == {item}
    assert rec.events == [("visibility_changed", item, False)]
    session.reload()
    assert session.renderer.hidden == {item}
    session.set_item_visible(item, True)
    assert session.renderer.hidden == set() and session.is_item_visible(item)
    with pytest.raises(SessionError):
        session.set_item_visible(ItemRef(seg, "link", "nope"), False)


def test_save_copy_and_export_report_write_atomically_or_refuse_with_a_code(session, tmp_path):
    import json

    session.open(DEMO)
    rec = Recorder(session)
    copy = tmp_path / "copy.urdf"
    copy.write_text("old")
    assert session.save(copy) == str(copy)
    assert copy.read_bytes() == DEMO.read_bytes()
    report = tmp_path / "report.json"
    session.export_read_report(report)
    (name, seg), = session.segments.items()
    assert json.loads(report.read_text()) == {name: json.loads(json.dumps(seg.tree.report.to_dict()))}
    for write in (session.save, session.export_read_report):
        with pytest.raises(SessionError) as err:
            write(tmp_path / "no-such-folder" / "out")
        assert err.value.code == "session.write" and "no-such-folder" in err.value.message
    # a URDF is a one-segment rig: it exports to Python like any rig
    assert session.export_python(tmp_path / "rig.py") == str(tmp_path / "rig.py")
    assert "Arm.Kinematic(" in (tmp_path / "rig.py").read_text()
    assert rec.names() == ["error", "error"]
    # no temporary left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.urdf", "report.json", "rig.py"]
