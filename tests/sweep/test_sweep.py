"""``mime-gui sweep``: the same table from local worker processes, in this process and on a Dask cluster; a
variant that breaks a rule is a row with its findings; an interrupted sweep resumes, computing only what is
missing; a row's figures equal ``mime-gui field`` and ``mime-gui play --torques --clearance`` run on that
variant alone."""

from __future__ import annotations

import csv
import io
import shutil
import sys

import numpy as np
import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.rig import Probe, load, save
from mime_gui.sweep import SerialExecutor, SweepError, make_job, parse_all, run_sweep
from mime_gui.sweep.evaluation import evaluate
from mime_gui.sweep.executors import DaskExecutor, LocalExecutor
from mime_gui.sweep.grid import apply, variants
from mime_gui.sweep.table import check_suffix

DEMO = RESOURCES / "demo"
DT = "0.04"  # the demo's 4 s command file in 100 steps: each variant plays in a few milliseconds
VARY = ["parts.holder.geometry.radius=0.008:0.012:3", "magnets.m1.at.2=0.025,0.03",
        "parts.holder.mount=motor.rotor,nowhere"]  # 12 variants, 6 of them mounted on no frame


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The demo rig beside its arm, meshes and commands, with a second probe that turns with the magnet."""
    folder = tmp_path_factory.mktemp("sweep")
    for name in ("arm.urdf", "chain.csv", "package.xml"):
        shutil.copy(DEMO / name, folder / name)
    shutil.copytree(DEMO / "meshes", folder / "meshes")
    rig = load(DEMO / "demo.rig.json")
    rig.probes = {**rig.probes, "rider": Probe((0.01, 0.0, 0.03), mount="motor.stator")}
    save(rig, folder / "demo.rig.json")
    return folder


def sweep(folder, out, *extra, vary=VARY, capsys=None):
    argv = ["sweep", str(folder / "demo.rig.json"), *[f"--vary={v}" for v in vary], "--commands",
            str(folder / "chain.csv"), "--dt", DT, "--out", str(out), *map(str, extra)]
    status = main(argv)
    text = capsys.readouterr() if capsys is not None else None
    assert status == 0, text
    return text.out if text is not None else ""


def rows(path) -> list[dict]:
    text = path.read_text()
    return list(csv.DictReader(io.StringIO("\n".join(line for line in text.splitlines()
                                                     if not line.startswith("#")))))


@pytest.fixture(scope="module")
def table(folder, tmp_path_factory):
    """The sweep on two local worker processes, the default executor."""
    out = tmp_path_factory.mktemp("local") / "table.csv"
    sweep(folder, out, "--workers", 2)
    return out


def job_of(folder, vary=VARY):
    from mime_gui.nodes import read_commands

    path = folder / "demo.rig.json"
    return make_job(rig_text=path.read_text(), rig_file=str(path), base=str(folder),
                    varies=parse_all(vary, load(path)), recorded=read_commands(folder / "chain.csv"),
                    dt=float(DT))


def test_a_row_per_variant_and_a_variant_that_breaks_a_rule_is_a_row_with_its_findings(table):
    found = rows(table)
    assert [r["variant"] for r in found] == [str(i) for i in range(12)]
    assert [r["parts.holder.mount"] for r in found] == ["motor.rotor", "nowhere"] * 6
    assert [r["magnets.m1.at.2"] for r in found] == ["0.025", "0.025", "0.03", "0.03"] * 3
    for r in found:
        if r["parts.holder.mount"] == "nowhere":
            assert r["findings"] == "1" and r["codes"] == "part.mount"
            assert r["first_finding"].startswith("part.mount parts.holder.mount: 'nowhere' is not a frame")
            assert r["B_max.sample"] == r["torque_peak.arm.joint_2"] == r["clearance_min"] == ""
        else:
            assert r["findings"] == "0" and r["codes"] == r["first_finding"] == ""
            for name in ("B_max.sample", "B_min.sample", "B_max.rider", "B_min.rider", "clearance_min"):
                assert float(r[name]) > 0, name
            assert float(r["torque_peak.arm.joint_2"]) > 0 and r["limit_excesses"] == "0"
    # a larger magnet offset: a weaker field at the probe on the stator, further above it
    near, far = found[0], found[2]
    assert (near["magnets.m1.at.2"], far["magnets.m1.at.2"]) == ("0.025", "0.03")
    assert float(far["B_max.sample"]) > float(near["B_max.sample"])  # it moves towards the probe at 0.05 m


def test_a_dask_cluster_gives_the_same_table_as_local_processes(folder, table, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        sweep(folder, tmp_path / "dask.csv", "--scheduler", cluster.scheduler_address)
    assert (tmp_path / "dask.csv").read_bytes() == table.read_bytes()


def test_this_process_gives_the_same_rows_and_parquet_holds_them_typed(folder, table, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    job = job_of(folder)
    result = run_sweep(job, tmp_path / "serial.csv", SerialExecutor(), about=_about(table))
    assert (tmp_path / "serial.csv").read_bytes() == table.read_bytes()
    assert (result.variants, result.kept, result.computed, result.with_findings) == (12, 0, 12, 6)
    run_sweep(job, tmp_path / "t.parquet", SerialExecutor())
    stored = pq.read_table(tmp_path / "t.parquet")
    assert stored.schema.metadata[b"mime-gui-sweep"] == job.key.encode()
    assert str(stored.schema.field("variant").type) == "int64"
    assert str(stored.schema.field("B_max.sample").type) == "double"
    typed = stored.to_pylist()
    for a, b in zip(typed, rows(table), strict=True):
        for name, cell in b.items():
            value = a[name]
            assert (cell == "" and value in (None, "")) or cell == (repr(value) if isinstance(value, float)
                                                                    else str(value)), name


def _about(table) -> str:
    return table.read_text().splitlines()[1][2:]  # the comment naming the rig and the commands


class Counting:
    """The evaluation, counted; ``stop_after`` calls it raises KeyboardInterrupt (an interrupted run)."""

    def __init__(self, stop_after=None):
        self.calls, self.stop_after = [], stop_after

    def __call__(self, job, variant):
        if self.stop_after is not None and len(self.calls) == self.stop_after:
            raise KeyboardInterrupt
        self.calls.append(variant.index)
        return evaluate(job, variant)


def test_an_interrupted_sweep_resumes_computing_only_the_missing_variants(folder, table, tmp_path):
    job, out = job_of(folder), tmp_path / "resumed.csv"
    first = Counting(stop_after=5)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(job, out, SerialExecutor(), about=_about(table), fn=first)
    assert [r["variant"] for r in rows(out)] == ["0", "1", "2", "3", "4"]  # flushed on the way out
    second = Counting()
    result = run_sweep(job, out, SerialExecutor(), about=_about(table), fn=second)
    assert second.calls == list(range(5, 12)) and (result.kept, result.computed) == (5, 7)
    assert out.read_bytes() == table.read_bytes()
    again = Counting()
    assert run_sweep(job, out, SerialExecutor(), fn=again).computed == 0 and again.calls == []


def test_a_partial_table_resumes_on_local_workers_through_the_command(folder, table, tmp_path, capsys):
    out = tmp_path / "partial.csv"
    lines = table.read_text().splitlines(keepends=True)
    comments = [line for line in lines if line.startswith("#")]
    header, data = lines[len(comments)], lines[len(comments) + 1:]
    out.write_text("".join([*comments, header, data[0], data[3], data[7]]))  # rows finish in any order
    text = sweep(folder, out, "--workers", 2, capsys=capsys)
    assert "computed 9, kept 3 from the table; 6 with findings (part.mount: 6)" in text
    assert out.read_bytes() == table.read_bytes()


def test_a_table_of_other_arguments_or_no_table_is_refused_and_kept(folder, table, tmp_path, capsys):
    out = tmp_path / "other.csv"
    shutil.copy(table, out)
    status = main(["sweep", str(folder / "demo.rig.json"), "--vary", "parts.holder.geometry.radius=0.01,0.02",
                   "--out", str(out), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"error[sweep.mismatch] {out}: the table holds a sweep of other")
    assert out.read_bytes() == table.read_bytes()
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n")
    status = main(["sweep", str(folder / "demo.rig.json"), "--vary", "parts.holder.geometry.radius=0.01",
                   "--out", str(plain), "--workers", "1"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(f"error[sweep.table] {plain}:1: this file holds no sweep")
    assert plain.read_text() == "a,b\n1,2\n"


def test_a_row_s_figures_equal_field_and_play_run_on_that_variant_alone(folder, table, tmp_path, capsys):
    """The independent route: the variant written as a rig file of its own, then the other commands."""
    found = rows(table)
    job = job_of(folder)
    for variant in list(variants(job.varies))[0:12:5]:  # 0, 5 (mounted on no frame) and 10
        row = found[variant.index]
        rig = apply(load(folder / "demo.rig.json"), job.varies, variant.values)
        path = save(rig, folder / f"variant{variant.index}.rig.json")
        if row["findings"] != "0":
            assert main(["validate", str(path)]) == 1
            assert f"error[{row['codes']}]" in capsys.readouterr().out
            continue
        common = [str(path), "--commands", str(folder / "chain.csv"), "--dt", DT, "--quiet"]
        assert main(["field", *common, "--out", str(tmp_path / "f.npz")]) == 0
        assert main(["play", *common, "--torques", "--clearance", "--out", str(tmp_path / "p.npz")]) == 0
        with np.load(tmp_path / "f.npz") as field, np.load(tmp_path / "p.npz") as played:
            for p, name in enumerate(field["probe_names"]):
                assert float(row[f"B_max.{name}"]) == field["B_max"][p]
                assert float(row[f"B_min.{name}"]) == field["B_min"][p]
            for j, name in enumerate(played["torque_joint_names"]):
                assert float(row[f"torque_peak.{name}"]) == played["torque_peak"][j]
            assert int(row["limit_excesses"]) == len(played["limit_excesses"])
            assert float(row["clearance_min"]) == played["clearance_minimum"].min()
            assert int(row["clearance_findings"]) == len(played["clearance_findings"])


def test_parquet_without_pyarrow_and_dask_without_distributed_say_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(SweepError) as info:
        check_suffix("t.parquet")
    assert info.value.code == "sweep.parquet" and "pip install pyarrow" in info.value.message
    assert check_suffix("t.CSV") == ".csv"
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(SweepError) as info:
        DaskExecutor("tcp://127.0.0.1:8786")
    assert info.value.code == "sweep.dask" and "dask[distributed]" in info.value.message


def test_a_scheduler_that_does_not_answer_is_one_coded_refusal():
    pytest.importorskip("distributed")
    with pytest.raises(SweepError) as info:
        DaskExecutor("tcp://127.0.0.1:9", timeout=0.5)
    assert info.value.code == "sweep.scheduler" and info.value.file == "--scheduler"
    assert "cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'" in info.value.message
    assert "start one (dask scheduler, then dask worker ADDRESS on each machine) or check the address" \
        in info.value.message


def test_local_workers_are_bounded():
    for n in (0, -1, 257):
        with pytest.raises(SweepError) as info:
            LocalExecutor(n)
        assert info.value.code == "sweep.workers"
