"""Rig contracts pinned at their edges: MJCF writes a mesh's scale on its asset; a URDF exported without a
source names none in its first line; a rider of no mass but some inertia (a flywheel) still weighs on its
carrier's body; a spin has turned nothing at its start, whatever its profile; and a kind drawn as its
triangles gives faces that index its vertices, whatever number type its mesh gives them in."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from rig_helpers import DEMO_URDF, spinner_urdf

from mime_gui import __version__
from mime_gui.multibody import mass_matrix
from mime_gui.multibody.tree import Solid
from mime_gui.rig import Apparatus, Arm, Mesh, Part, Spin
from mime_gui.rig.geometries import KINDS
from mime_gui.rig.geometries.registry import Field, GeometryKind, register
from mime_gui.rig.mjcf_export import to_mjcf
from mime_gui.rig.payload import Rider, carrying
from mime_gui.rig.urdf_export import to_urdf
from mime_gui.rig.visuals import part_shape


def _spinner(tmp_path, **parts) -> Apparatus:
    """The one-link spinner (0.1 kg, 1e-5 kg·m² about each axis, turning about z) with ``parts``."""
    (tmp_path / "spinner.urdf").write_text(spinner_urdf(1))
    rig = Apparatus("r", base=tmp_path, chain={"arm": Arm.Dynamic(description="spinner.urdf")}, parts=parts)
    assert rig.validate() == []
    return rig


# -- MJCF: a scaled mesh's asset carries its scale -----------------------------------------------------------
def test_the_mjcf_asset_of_a_scaled_mesh_part_says_its_scale(tmp_path):
    # MuJoCo scales a mesh asset by its scale attribute: without it the part would be drawn at the file's size
    shell = Part(Mesh(str(DEMO_URDF.parent / "meshes" / "base.stl"), scale=(0.5, 0.25, 2.0)),
                 material="aluminium", mount="arm.arm")
    text = to_mjcf(_spinner(tmp_path, shell=shell), tmp_path / "rig.xml")
    assert '    <mesh name="mesh1" file="rig_meshes/base.stl" scale="0.5 0.25 2.0"/>\n' in text


# -- URDF: no source given, none named ---------------------------------------------------------------------
def test_a_urdf_exported_without_a_source_names_none_in_its_first_line(tmp_path):
    rig = _spinner(tmp_path)
    text = to_urdf(rig, tmp_path / "rig.urdf")
    assert text.splitlines()[1] == f"<!-- A MIME rig as URDF, exported by mime-gui {__version__} -->"
    # the source, when given, is named there
    named = to_urdf(rig, tmp_path / "rig.urdf", "demo.rig.json")
    assert named.splitlines()[1] == f"<!-- A MIME rig as URDF, exported by mime-gui {__version__} from " \
                                    "demo.rig.json -->"


# -- payload: a massless rider's inertia is welded on --------------------------------------------------------
def test_a_rider_of_no_mass_but_some_inertia_adds_its_inertia_to_its_carrier_s_body(tmp_path):
    art = _spinner(tmp_path).build().segments["arm"].articulation
    flywheel = Rider("flywheel", "arm", 0.0, np.zeros(3), np.diag([1e-4, 2e-4, 3e-4]))
    welded = carrying(art, [flywheel])
    # the link turns about z: its own 1e-5 kg·m² plus the flywheel's 3e-4 kg·m² about that axis
    assert mass_matrix(welded, [0.0])[0, 0] == pytest.approx(1e-5 + 3e-4, rel=1e-12)
    assert mass_matrix(art, [0.0])[0, 0] == pytest.approx(1e-5, rel=1e-12)  # the carrier itself is untouched
    body = int(art.frame_body[art.frame_index("arm")])
    np.testing.assert_allclose(welded.inertia_com[body], np.diag([1.1e-4, 2.1e-4, 3.1e-4]), rtol=1e-12)
    assert welded.mass_of_body[body] == 0.1  # no mass added


# -- a spin's angle at its start ---------------------------------------------------------------------------
@pytest.mark.parametrize("spin", [
    Spin(1.0, hold=2.0),  # no ramp: full speed at once
    Spin(1.0, ramp=0.5, hold=1.0),
    Spin(1.0, hold=-1.0),  # refused by the rules (trajectory.spin), but render() takes unchecked trajectories
    Spin(1.0, ramp=-1.0, hold=0.5),  # likewise
], ids=["no-ramp", "ramped", "negative-hold", "negative-ramp"])
def test_a_spin_has_turned_nothing_at_its_start(spin):
    # "the angle turned tau seconds after the start": at tau = 0 nothing has turned, so a spin interval
    # starts where its keyframe before it left the joint
    assert float(spin.angle(0.0)) == 0.0


# -- a kind drawn as its triangles: its faces index its vertices ------------------------------------------
@dataclass(frozen=True)
class Tetra:
    """A kind with no primitive of its own (``drawn`` None), whose mesh gives its faces as floats (as a table
    read with ``np.loadtxt`` gives them)."""

    size: float
    kind = "tetra22b"

    def problems(self, base=None) -> list[str]:
        return []


_CORNERS = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
_FACES = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]


@pytest.fixture
def tetra():
    """The kind :class:`Tetra`, registered for one test."""
    register(GeometryKind(
        "tetra22b", Tetra, (Field("size", "Size"),), text="tetra {size} m", summary="a tetrahedron",
        mesh=lambda g, base=None: (_CORNERS * g.size, np.array(_FACES, dtype=float)),
        inside=lambda g, p: None, source=lambda g, J, base=None: None))
    yield
    del KINDS["tetra22b"]


def test_a_kind_s_faces_given_as_floats_are_drawn_as_integer_indices_of_its_vertices(tetra):
    solid = part_shape(Part(Tetra(0.02), material="aluminium"), (0.0, 0.0, 0.0)).geometry
    assert isinstance(solid, Solid)
    assert solid.faces.dtype == np.int64
    assert solid.faces.tolist() == _FACES
    # each face picks its three corners out of the vertices
    np.testing.assert_array_equal(solid.vertices[solid.faces], (_CORNERS * 0.02)[np.array(_FACES)])
