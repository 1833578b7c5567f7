"""A motor segment's tree: stator and rotor on one continuous joint about its axis, the rotor holding the
declared rotor inertia about that axis (a dynamic motor) or nothing (a kinematic one, which carries no
mass)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from mime_gui.rig import Apparatus, Motor, kg_m2
from mime_gui.rig.urdf_export import export_urdf


def test_a_kinematic_motor_s_rotor_holds_no_inertia_and_is_written_without_one(tmp_path):
    motor = Motor.Kinematic(axis=(0, 0, 1))
    assert motor.tree().links["rotor"].inertial is None
    root = ET.parse(export_urdf(Apparatus("m", chain={"motor": motor}), tmp_path / "m.urdf")).getroot()
    (rotor,) = [link for link in root.iter("link") if link.get("name") == "motor/rotor"]
    assert rotor.find("inertial") is None


def test_a_dynamic_motor_s_rotor_holds_its_declared_inertia_about_the_axis_only():
    axis = np.array([0.0, 0.6, 0.8])
    tree = Motor.Dynamic(axis=tuple(axis), inertia=kg_m2(3e-6, reason="catalogue value")).tree()
    rotor = tree.links["rotor"].inertial
    assert rotor.mass == 0.0
    assert np.allclose(rotor.inertia, 3e-6 * np.outer(axis, axis), rtol=0, atol=1e-21)
