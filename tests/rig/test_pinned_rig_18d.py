"""Rig contracts pinned at their edges: MJCF takes a moving body whose mass is exactly MuJoCo's smallest
(``MINVAL``, which MuJoCo itself accepts); a declared frame written as an MJCF ``<site>`` says it is a frame;
``mime-gui play``'s refusal of a rig with several findings counts the ones it leaves out; the build report's
line of an arm names its description; an armature comment states its reason once (the detail already holds
it); and every part and magnet template of the palette makes its item on the frame it is dropped on."""

from __future__ import annotations

import json
import shutil

import pytest
from rig_helpers import DEMO_RIG

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, DeclaredFrame, Part, PermanentMagnet, load
from mime_gui.rig.mjcf_export import MINVAL, export_mjcf, to_mjcf
from mime_gui.rig.playback import load_rig_playable
from mime_gui.rig.templates import MAGNET_MATERIAL, PART_MATERIAL, TEMPLATES

# -- a moving body's mass at MuJoCo's bound ------------------------------------------------------------------
ROD = """<robot name="rod">
  <link name="base"/>
  <link name="rod">
    <inertial><mass value="{mass!r}"/>
      <inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="spin" type="continuous"><parent link="base"/><child link="rod"/><axis xyz="1 0 0"/></joint>
</robot>
"""


def test_a_moving_body_whose_mass_is_exactly_mujocos_smallest_is_written_not_refused(tmp_path):
    # MuJoCo refuses a moving body with a mass *below* mjMINVAL: one of exactly MINVAL is a body it moves
    (tmp_path / "rod.urdf").write_text(ROD.format(mass=MINVAL))
    rig = Apparatus("rod", chain={"arm": Arm.Dynamic(description=str(tmp_path / "rod.urdf"))})
    assert rig.validate() == []
    out = export_mjcf(rig, tmp_path / "rod.xml")
    assert f'mass="{MINVAL!r}" diaginertia="0.0001 0.0001 0.0001"' in out.read_text()
    mujoco = pytest.importorskip("mujoco")
    model = mujoco.MjModel.from_xml_path(str(out))
    assert model.nv == 1 and model.body_mass[-1] == MINVAL


# -- a declared frame as an MJCF site ------------------------------------------------------------------------
def test_a_declared_frame_is_an_mjcf_site_marked_as_a_frame(tmp_path):
    rig = load(DEMO_RIG)
    rig.frames = {"side": DeclaredFrame("motor.stator", at=(0.0, 0.01, 0.0))}
    sites = [line.strip() for line in to_mjcf(rig, tmp_path / "rig.xml").splitlines() if "<site " in line]
    # docs/simulators.md: a declared frame, like a probe, is a <site>; the comment says which it is
    assert sites == [
        '<site name="motor/side" pos="0.0 0.01 0.0"/> <!-- frame -->',
        '<site name="motor/probe:sample" pos="0.0 0.0 0.05"/> <!-- probe -->',
    ]


# -- play's refusal of a rig with several findings -----------------------------------------------------------
def test_plays_refusal_names_the_first_finding_and_counts_the_others(tmp_path):
    shutil.copytree(RESOURCES / "demo", tmp_path / "demo")
    path = tmp_path / "demo" / "demo.rig.json"
    rig = json.loads(path.read_text())
    for name, mount in (("a", "motor.nowhere"), ("b", "motor.elsewhere")):
        rig["probes"][name] = {"at": {"value": [0.0, 0.0, 0.0], "unit": "m"}, "mount": mount}
    path.write_text(json.dumps(rig, indent=2))
    with pytest.raises(ValueError) as refused:
        load_rig_playable(path)
    line = refused.value.one_line()
    assert [f.code for f in refused.value.findings] == ["probe.mount", "probe.mount"]
    assert line.startswith(f"error[probe.mount] {path}:")
    assert "probes.a.mount: 'motor.nowhere' is not a frame of the chain" in line
    # one line for the first; the second is counted, with the command that lists them all
    assert line.endswith(" (and 1 more; run mime-gui validate)")


# -- the build report's segment lines ------------------------------------------------------------------------
def test_the_report_names_an_arms_description_and_nothing_for_a_motor():
    text = load(DEMO_RIG).build().report.to_text()
    lines = [line for line in text.splitlines() if line.startswith(("  arm:", "  motor:"))]
    assert lines == [
        "  arm: Arm.Dynamic arm.urdf, in the world at (0, 0, 0) m, orientation (w, x, y, z) (1, 0, 0, 0)",
        "  motor: Motor.Dynamic, on arm.tool0 at (0, 0, 0) m, orientation (w, x, y, z) (1, 0, 0, 0)",
    ]


# -- an armature comment's reason ----------------------------------------------------------------------------
def test_an_armature_comment_states_its_reason_once(tmp_path):
    text = to_mjcf(load(DEMO_RIG), tmp_path / "rig.xml")
    reason = "wrist rotor 1.25e-5 kg m2 through the 4:1 belt, from the wrist motor's datasheet"
    # a declared armature's detail is its reason: the comment gives it once, with no "; reason:" repeating it
    assert f"<!-- armature of arm/joint_6: 0.0002 kg m2 (declared: {reason}) -->" in text
    assert text.count(reason) == 1
    assert "; reason: " not in text


# -- the palette's part and magnet templates -----------------------------------------------------------------
KIND_TEMPLATES = [key for key, t in TEMPLATES.items() if t.collection in ("parts", "magnets")]


@pytest.mark.parametrize("key", KIND_TEMPLATES)
def test_a_part_or_magnet_template_makes_its_item_on_the_frame_it_is_dropped_on(key):
    t = TEMPLATES[key]
    item = t.make("arm.tool0", "holder.stl" if t.needs_path else None)
    # a magnet template makes a magnet of the magnets' grade, a part template a part of the parts' material
    magnet = t.collection == "magnets"
    kind, material = (PermanentMagnet, MAGNET_MATERIAL) if magnet else (Part, PART_MATERIAL)
    assert (type(item), item.material, item.mount) == (kind, material, "arm.tool0")
