"""Small rig answers pinned down: a reflected armature at the overflow guard's edge, the wedges a ring is
cut into, a point on an arc's bore band, a mesh magnet's file
relative to its rig file, a two-number field's value, and the frame a mount resolves to."""

from __future__ import annotations

import math
import shutil
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest
from rig_helpers import DEMO_RIG, demo_urdf_with, snippet_rig

from mime_gui.rig import kg_m2
from mime_gui.rig.collision import WEDGES, _wedges
from mime_gui.rig.geometries import KINDS, Arc, Field, GeometryKind, Mesh
from mime_gui.rig.geometries.registry import SURFACE_TOLERANCE, register
from mime_gui.rig.mount_rules import resolve_mount
from mime_gui.rig.probes import inside


def test_a_reduction_of_1e150_is_refused_as_overflowing_even_when_a_tiny_rotor_keeps_the_product_small(
        tmp_path):
    # 1e-300 kg·m² × (1e150)² is 1 kg·m² in exact arithmetic, but the guard on the reduction (the square
    # of anything from 1e150 on overflows for a rotor of 1) holds at 1e150 itself
    path = demo_urdf_with(tmp_path, """<transmission name="t_5"><joint name="joint_5"/>
        <actuator name="motor_5"><mechanicalReduction>1e150</mechanicalReduction></actuator>
        </transmission>""")
    rig = snippet_rig(description=str(path))
    rig.chain["arm"].actuators = {"motor_5": kg_m2(1e-300, reason="r")}
    hits = [f for f in rig.validate() if f.code == "chain.armature"]
    assert [f.where for f in hits] == ["chain.arm.actuators.motor_5"]
    assert "beyond the largest number" in hits[0].message and "'t_5'" in hits[0].message


def _ring_vertices(steps: int) -> np.ndarray:
    """A ring's corners at ``steps`` evenly spaced angles over the whole turn: inner and outer, top and
    bottom (four vertices per angle)."""
    angles = -np.pi + 2 * np.pi * np.arange(steps) / steps
    return np.array([[rho * math.cos(t), rho * math.sin(t), z]
                     for t in angles for rho in (0.01, 0.02) for z in (-0.005, 0.005)])


def test_a_whole_ring_of_64_angles_is_cut_into_16_wedges_and_the_one_across_the_seam():
    vertices = _ring_vertices(64)
    pieces = _wedges(vertices)
    assert WEDGES == 16
    assert len(pieces) == 16 + 1  # 64 angles: 16 spans of about 4 steps, and the gap across ±π
    # each wedge holds its span's angles, the ends shared: 5 or so angles of 4 vertices, never fewer than 2
    assert all(8 <= len(p) <= 6 * 4 for p in pieces)
    assert {tuple(v) for p in pieces for v in p} == {tuple(v) for v in vertices}


def test_a_point_on_the_bore_s_surface_band_of_an_arc_is_not_inside_and_one_just_beyond_it_is():
    g = Arc(0.004, 0.009, 0.006, -60.0, 60.0)
    c = g.mass_properties().centroid
    edge = 0.004 * (1.0 + SURFACE_TOLERANCE)  # the band's edge about the bore, on +x (mid-span)
    q = np.array([[edge, 0.0, 0.0], [math.nextafter(edge, 1.0), 0.0, 0.0], [0.006, 0.0, 0.0]])
    assert np.array_equal((q - c) + c, q)  # the points are where they are meant to be, to the last digit
    assert inside(g, q - c).tolist() == [False, True, True]


def test_a_mesh_magnet_s_source_reads_its_file_relative_to_the_rig_s_folder(tmp_path, monkeypatch):
    trimesh = pytest.importorskip("trimesh")
    folder = tmp_path / "rig"
    shutil.copytree(DEMO_RIG.parent / "meshes", folder / "meshes")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the path is not relative to the working folder
    source = KINDS["mesh"].source(Mesh("meshes/base.stl", (2.0, 2.0, 2.0)), (0.0, 0.0, 1.0), folder)
    read = trimesh.load(folder / "meshes" / "base.stl", force="mesh")
    np.testing.assert_allclose(source.mesh, np.asarray(read.vertices)[np.asarray(read.faces)] * 2.0)


@dataclass(frozen=True)
class Slot:
    """A kind with a two-number field (width and depth)."""

    size: tuple
    kind = "slot"


@pytest.fixture
def slot():
    kind = register(GeometryKind(
        "slot", Slot, (Field("size", "Size", size=2),), text="slot {size}", summary="a slot",
        mesh=lambda g, base=None: None, inside=lambda g, p: None, source=lambda g, J, base=None: None))
    yield kind
    del KINDS["slot"]


def test_a_field_of_two_numbers_is_given_as_a_list_like_any_vector(slot):
    assert slot.values(Slot((0.01, 0.02))) == {"size": [0.01, 0.02]}


def test_a_mount_is_checked_as_its_segment_and_the_frame_after_the_dot():
    rig = SimpleNamespace(chain={"arm": None, "motor": None})
    found = []
    a = SimpleNamespace(frame_sets={"arm": {"tool0", "base_link"}, "motor": {"rotor"}},
                        frames={"arm": ["base_link", "tool0"], "motor": ["rotor"]},
                        add=lambda code, where, message: found.append((code, where, message)))
    for mount in ("arm.tool0", "motor.rotor", None):
        assert resolve_mount("probes.p.mount", mount, rig, a, "probe") == (mount and tuple(mount.split(".")))
    assert found == []
    resolve_mount("probes.p.mount", "arm.rotor", rig, a, "probe")  # a frame of another segment
    resolve_mount("zones.z.mount", "motor.tool0", rig, a, "zone")
    resolve_mount("samples.s.mount", "the probe.x", rig, a, "sample")
    assert [f[:2] for f in found] == [("probe.mount", "probes.p.mount"), ("zone.mount", "zones.z.mount"),
                                      ("sample.mount", "samples.s.mount")]
    assert "mount the probe on" in found[0][2] and "mount the zone on" in found[1][2]
    # the item's own words, not the probe's rewritten: a mount's name is quoted as given
    assert "'the probe.x'" in found[2][2] and "mount the sample on" in found[2][2]
