"""The materials table and the actuator registry: every figure has its source; examples say so."""

import json

import pytest

from mime_gui import RESOURCES
from mime_gui.rig import actuator, actuator_names, material, materials


def test_every_material_has_a_density_and_its_source():
    names = {m.name for m in materials()}
    for required in ("aluminium", "steel", "stainless steel", "brass", "copper", "titanium", "ABS", "PLA",
                     "NdFeB-N35", "NdFeB-N42", "NdFeB-N52", "SmCo5", "Sm2Co17"):
        assert required in names
    for m in materials():
        assert 500 < m.density < 20000 and m.density_source.strip()
        if m.magnetic:
            assert 0.2 < m.remanence < 1.6 and m.remanence_source.strip()
    assert material("NdFeB-N52").remanence > material("NdFeB-N42").remanence > material("NdFeB-N35").remanence
    assert not material("aluminium").magnetic


@pytest.mark.parametrize("spelling", ["aluminum", "Aluminium", "ndfeb n42", "NdFeB_N42", "Stainless Steel"])
def test_material_names_are_forgiving_about_spelling(spelling):
    assert material(spelling) is not None
    assert material("unobtainium") is None


def test_bundled_actuators_are_marked_as_examples():
    data = json.loads((RESOURCES / "actuators.json").read_text())
    assert "EXAMPLES" in data["about"]
    for entry in data["actuators"]:
        record = actuator(entry["name"])
        assert record.example and "example" in record.source.lower()
        assert record.rotor_inertia == entry["rotor_inertia"] > 0
    assert set(actuator_names()) >= {e["name"] for e in data["actuators"]}
