"""Helpers of the rig tests: the issue's rig (with an absolute description path) and small URDFs."""

from __future__ import annotations

from pathlib import Path

from mime_gui import RESOURCES
from mime_gui.rig import Apparatus, Arm, Cylinder, Motor, Part, PermanentMagnet, kg_m2

REPO = Path(__file__).resolve().parents[2]
DEMO_URDF = RESOURCES / "demo" / "arm.urdf"
DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"

def spinner_urdf(effort: float) -> str:
    """One revolute link (0.1 kg, 1e-5 kg·m² about each axis) turning about z within ±3 rad, its effort limit
    ``effort`` N·m: the magnet tests hang a ball on it."""
    return f"""<robot name="spinner">
  <link name="base"/>
  <link name="arm">
    <inertial>
      <mass value="0.1"/><inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/>
    </inertial>
  </link>
  <joint name="turn" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="{effort:g}" velocity="10"/>
  </joint>
</robot>
"""


SLIDER_URDF = """<robot name="slider">
  <link name="base"/>
  <link name="carriage">
    <inertial>
      <mass value="0.5"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/>
    </inertial>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="base"/><child link="carriage"/><axis xyz="1 0 0"/>
    <limit lower="-0.1" upper="0.1" effort="10" velocity="1"/>
  </joint>
  <transmission name="t_slide">
    <joint name="slide"/>
    <actuator name="linear_motor"><mechanicalReduction>1000</mechanicalReduction></actuator>
  </transmission>
</robot>
"""


def snippet_rig(description=str(DEMO_URDF), **extra) -> Apparatus:
    """The rig of the issue's snippet."""
    reason = "rotor 1.25e-5 kg m2 through 4:1, datasheet"
    arm = Arm.Dynamic(description=description, at=(0, 0, 0), orientation=(1, 0, 0, 0),
                      initial_positions={"joint_1": 0.1}, armature={"joint_6": kg_m2(2e-4, reason=reason)})
    motor = Motor.Dynamic(axis=(0, 0, 1), inertia=kg_m2(3e-6, reason="catalogue value"), mount="link_6")
    holder = Part(Cylinder(radius=0.01, length=0.02), material="aluminium", at=(0, 0, 0.01),
                  mount="motor.rotor")
    m1 = PermanentMagnet(Cylinder(radius=0.005, length=0.01), material="NdFeB-N42", magnetisation=(0, 0, 1),
                         at=(0, 0, 0.025), mount="motor.rotor")
    return Apparatus("rig", chain={"arm": arm, "motor": motor}, parts={"holder": holder}, magnets={"m1": m1},
                     **extra)


def demo_urdf_with(tmp_path: Path, extra: str, name: str = "arm.urdf") -> Path:
    """The demo arm with ``extra`` XML added before ``</robot>`` (written next to a copy of its meshes)."""
    text = DEMO_URDF.read_text().replace("</robot>", extra + "\n</robot>")
    path = tmp_path / name
    path.write_text(text)
    return path


def built_with_trajectories(rig: Apparatus, **trajectories):
    """``rig`` with these trajectories in place of its own, checked valid and built."""
    rig = Apparatus(rig.name, chain=rig.chain, parts=rig.parts, magnets=rig.magnets, base=rig.base,
                    probes=rig.probes, poses=rig.poses, trajectories=trajectories)
    assert rig.validate() == [], rig.validate()
    return rig.build()
