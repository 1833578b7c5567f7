"""The part form and the 3D view take every registered geometry kind from its declaration: a row per field
the kind declares; a kind with no description primitive is drawn from its own triangles. The arc magnet on
the rotor: its angles are typed in degrees, and the view redraws the segment they span."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_assembly import field, open_ready, settle, type_into

from mime_gui.app.docks.properties import geometry_text
from mime_gui.rig import Arc, Box, Cylinder, Mesh, PermanentMagnet, Ring, Sphere, load, save
from mime_gui.rig.geometries import KINDS
from mime_gui.session import ItemRef

pytestmark = pytest.mark.timeout(120)

EXAMPLES = {"box": Box((0.01, 0.02, 0.005)), "cylinder": Cylinder(0.005, 0.01),
            "ring": Ring(0.003, 0.006, 0.003), "sphere": Sphere(0.004),
            "mesh": Mesh("meshes/base.stl", scale=(0.001, 0.001, 0.001)),
            "arc": Arc(0.01, 0.02, 0.005, 20.0, 110.0)}


def test_every_kind_s_form_has_a_row_per_declared_field(window, qtbot, demo_copy):
    assert set(EXAMPLES) == set(KINDS)
    rig = load(demo_copy / "demo.rig.json")
    for kind, g in EXAMPLES.items():
        rig.magnets[f"m_{kind}"] = PermanentMagnet(g, material="NdFeB-N42", at=(0.0, 0.0, 0.03),
                                                   mount="motor.rotor")
    save(rig, demo_copy / "demo.rig.json")
    open_ready(window, demo_copy / "demo.rig.json")
    assert not window.session.document.findings
    for kind in EXAMPLES:
        window.session.select(ItemRef("", "magnet", f"m_{kind}"))
        settle(qtbot)
        form = window.properties_dock.forms.form
        paths = [f.path for f in form.fields if ".geometry." in f.path]
        assert paths == [f"magnets.m_{kind}.geometry.{f.name}" for f in KINDS[kind].fields], kind


def test_an_arc_magnet_s_angles_are_typed_in_degrees_and_redrawn(window, qtbot, demo_copy):
    rig = load(demo_copy / "demo.rig.json")
    rig.magnets["arc"] = PermanentMagnet(EXAMPLES["arc"], material="NdFeB-N42", at=(0.0, 0.0, 0.03),
                                         mount="motor.rotor")
    save(rig, demo_copy / "demo.rig.json")
    open_ready(window, demo_copy / "demo.rig.json")
    session = window.session

    def spanned() -> float:
        """The angle (degrees) the drawn triangles span about the arc's own axis."""
        actors = window.scene._registry.actors_of(ItemRef("", "magnet", "arc"))
        assert len(actors) == 1
        p = np.asarray(actors[0].GetMapper().GetInput().points)  # in the arc's own frame (placed by a matrix)
        angles = np.degrees(np.arctan2(p[:, 1], p[:, 0]))
        return float(angles.max() - angles.min())

    assert spanned() == pytest.approx(90.0, abs=1e-9)
    session.select(ItemRef("", "magnet", "arc"))
    settle(qtbot)
    end = field(window, "magnets.arc.geometry.end_angle")
    assert end.edit.text() == "110"
    type_into(qtbot, end.edit, "2 rad", enter=True)  # a unit of the field's dimension is converted
    assert session.rig.magnets["arc"].geometry.end_angle == pytest.approx(math.degrees(2.0))
    assert not session.document.findings
    assert spanned() == pytest.approx(math.degrees(2.0) - 20.0, abs=1e-9)
    (shape,) = session.segments["motor"].tree.links["part:arc"].visuals
    assert geometry_text(shape.geometry) == "arc r=0.01–0.02 m, length 0.005 m, 20°–115°"
