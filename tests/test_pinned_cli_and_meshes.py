"""What ``mime-gui sweep`` says of the findings of many codes (the eight most common, most common first),
and a mesh file of several bodies loaded as one mesh when no form is asked."""

from __future__ import annotations

import csv
import io

import numpy as np

from mime_gui import RESOURCES, mesh_files
from mime_gui.cli import main

DEMO_RIG = RESOURCES / "demo" / "demo.rig.json"


def test_a_sweep_summary_tallies_only_the_eight_most_common_finding_codes(tmp_path, capsys):
    """Nine variants kept from a table whose variant k holds the codes ``code.0`` to ``code.k``: ``code.j``
    is in 9 - j rows, so the tally lists code.0 (9) down to code.7 (2) and leaves code.8 (1) out."""
    out = tmp_path / "t.csv"
    argv = ["sweep", str(DEMO_RIG), "--vary=parts.holder.geometry.radius=0.008:0.012:9", "--out", str(out),
            "--workers", "1"]
    assert main([*argv, "--quiet"]) == 0
    lines = out.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    rows = list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))
    for k, row in enumerate(rows):
        row["codes"] = " ".join(f"code.{j}" for j in range(k + 1))
        row["findings"] = str(k + 1)
    table = io.StringIO()
    writer = csv.DictWriter(table, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    out.write_text("\n".join(lines[:start]) + "\n" + table.getvalue())
    capsys.readouterr()
    assert main(argv) == 0
    tally = ", ".join(f"code.{j}: {9 - j}" for j in range(8))
    summary = capsys.readouterr().out
    assert f"  computed 0, kept 9 from the table; 9 with findings ({tally})" in summary.splitlines(), summary
    assert "code.8" not in summary


def test_a_mesh_file_of_two_bodies_loads_as_one_mesh_by_default(tmp_path):
    """A glTF binary of a unit cube at the origin and a unit-radius sphere at x = 3 (a scene of two meshes):
    loaded with no form asked, one mesh holding both, from the cube's -0.5 to the sphere's x = 4."""
    import trimesh

    scene = trimesh.Scene([trimesh.creation.box(extents=(1.0, 1.0, 1.0)),
                           trimesh.creation.icosphere(radius=1.0).apply_translation((3.0, 0.0, 0.0))])
    path = tmp_path / "two.glb"
    path.write_bytes(scene.export(file_type="glb"))
    loaded = mesh_files.load(path)
    assert isinstance(loaded, trimesh.Trimesh)
    np.testing.assert_allclose(loaded.bounds, [[-0.5, -1.0, -1.0], [4.0, 1.0, 1.0]], atol=1e-9)
