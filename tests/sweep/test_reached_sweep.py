"""``mime-gui sweep`` and its Python API where the other sweep tests do not go: a variant that cannot take the
commands or overflows while playing, rigs without magnets, dynamics or clearance, the executors when workers
are not forked, die or fail on a Dask cluster, the grid's refusals of paths that hold no number or text, the
table rewritten while rows come in, Parquet tables resumed, and damaged or unwritable tables."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import shutil
import threading
import time
import types
from fractions import Fraction

import pytest

from mime_gui import RESOURCES
from mime_gui.cli import main
from mime_gui.inputs import FileError
from mime_gui.nodes import read_commands
from mime_gui.rig import load
from mime_gui.rig.apparatus import Apparatus
from mime_gui.sweep import (
    DaskExecutor,
    LocalExecutor,
    SerialExecutor,
    SweepError,
    Variant,
    evaluate,
    make_job,
    parse_all,
    run_sweep,
    variants,
)

DEMO = RESOURCES / "demo"
RIG = DEMO / "demo.rig.json"
RADIUS = "parts.holder.geometry.radius"
DT = "0.04"  # the demo's 4 s command file in 100 steps
KEY = "# mime-gui sweep: key " + "0" * 64 + "; 2 variants\n"
PARENT = os.getpid()  # a forked worker keeps this value: it tells a worker from this process


def _rows(path) -> list[dict]:
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return list(csv.DictReader(io.StringIO("\n".join(lines))))


def _demo_folder(folder, edit=None):
    """The demo rig, its arm, meshes and commands in ``folder``; ``edit`` changes the rig's data first."""
    for name in ("arm.urdf", "chain.csv", "package.xml"):
        shutil.copy(DEMO / name, folder / name)
    shutil.copytree(DEMO / "meshes", folder / "meshes")
    data = json.loads(RIG.read_text())
    if edit is not None:
        edit(data)
    (folder / "demo.rig.json").write_text(json.dumps(data))
    return folder / "demo.rig.json"


def _job(path, vary, commands=None, **options):
    return make_job(rig_text=path.read_text(), rig_file=str(path), base=str(path.parent),
                    varies=parse_all(vary, load(path)),
                    recorded=None if commands is None else read_commands(commands),
                    dt=None if commands is None else float(DT), **options)


def _only_row(job) -> dict:
    (variant,) = variants(job.varies)
    return evaluate(job, variant)


def _sweep(*argv) -> int:
    return main(["sweep", *map(str, argv), "--workers", "1", "--quiet"])


# == evaluation: what a variant's row holds ==================================================================

def test_a_variant_whose_description_lacks_a_commanded_joint_is_a_row_with_that_finding(tmp_path, capsys):
    def without_poses(data):  # the poses and trajectories name joint_4, which the other arm lacks
        data.pop("poses")
        data.pop("trajectories")

    rig = _demo_folder(tmp_path, without_poses)
    (tmp_path / "other.urdf").write_text((DEMO / "arm.urdf").read_text().replace('"joint_4"', '"wrist_4"'))
    out = tmp_path / "t.csv"
    assert main(["sweep", str(rig), "--vary=chain.arm.description=other.urdf,arm.urdf", "--commands",
                 str(tmp_path / "chain.csv"), "--dt", DT, "--out", str(out), "--workers", "1"]) == 0
    assert "1 with findings (commands.unknown-joint: 1)" in capsys.readouterr().out
    other, arm = _rows(out)
    assert (other["findings"], other["codes"]) == ("1", "commands.unknown-joint")
    # the command file's place (its header on line 2), the column and the joints the variant has
    assert other["first_finding"].startswith(f"commands.unknown-joint {tmp_path / 'chain.csv'}:2: column 5: "
                                             "unknown joint 'arm.joint_4'")
    assert "arm.wrist_4" in other["first_finding"] and other["B_max.sample"] == ""
    assert arm["findings"] == "0" and float(arm["B_max.sample"]) > 0


def test_a_description_broken_between_validation_and_play_is_a_finding_of_the_row(tmp_path, monkeypatch):
    rig = _demo_folder(tmp_path)
    job = _job(rig, [f"{RADIUS}=0.01"], commands=tmp_path / "chain.csv")
    real = Apparatus.validate

    def validate_then_break_the_arm(self):
        found = real(self)
        # another program writes a negative mass into the arm while the variant is being evaluated
        urdf = tmp_path / "arm.urdf"
        urdf.write_text(urdf.read_text().replace('<mass value="2.0"/>', '<mass value="-2.0"/>', 1))
        return found

    monkeypatch.setattr(Apparatus, "validate", validate_then_break_the_arm)
    row = _only_row(job)
    assert (row["findings"], row["codes"]) == (1, "chain.inertia")
    assert row["first_finding"].startswith("chain.inertia chain.arm.description: link 'link_1' of "
                                           "'demo_arm': link 'link_1' has a negative mass -2.0")
    assert not any(name.startswith(("B_max.", "torque_peak.")) for name in row)


def test_commands_whose_played_poses_overflow_are_a_finding_of_the_row(tmp_path, capsys):
    commands = tmp_path / "huge.csv"
    # joint_6 turns without limit: held at ±1e308 rad its rate overflows, and the motor riding on it has
    # no pose
    commands.write_text("time,arm.joint_6\n0,1e308\n1,-1e308\n")
    out = tmp_path / "t.csv"
    assert main(["sweep", str(RIG), f"--vary={RADIUS}=0.01", "--commands", str(commands), "--out", str(out),
                 "--workers", "1"]) == 0
    assert "1 with findings (sweep.non-finite: 1)" in capsys.readouterr().out
    (row,) = _rows(out)
    assert (row["findings"], row["codes"]) == ("1", "sweep.non-finite")
    assert row["first_finding"].startswith("sweep.non-finite --commands: the played poses overflow")
    assert "choose a larger step (--dt)" in row["first_finding"]
    assert row.get("B_max.sample", "") == row.get("torque_peak.arm.joint_6", "") == ""


def test_a_rig_without_magnets_has_no_field_columns(tmp_path):
    rig = _demo_folder(tmp_path, lambda data: data.update(magnets={}))
    row = _only_row(_job(rig, [f"{RADIUS}=0.01"], commands=tmp_path / "chain.csv"))
    assert row["findings"] == 0
    assert not any(name.startswith(("B_max.", "B_min.")) for name in row)
    assert row["torque_peak.arm.joint_2"] > 0 and row["limit_excesses"] == 0  # played all the same


def test_a_rig_of_kinematic_segments_has_no_torque_columns(tmp_path):
    def kinematic(data):
        arm, motor = data["chain"]
        arm["kind"], motor["kind"] = "Arm.Kinematic", "Motor.Kinematic"
        for name in ("armature", "actuators"):
            del arm[name]  # what only a dynamic arm declares
        del motor["inertia"]

    rig = _demo_folder(tmp_path, kinematic)
    row = _only_row(_job(rig, [f"{RADIUS}=0.01"], commands=tmp_path / "chain.csv"))
    assert row["findings"] == 0
    assert not any(name.startswith("torque_peak.") for name in row) and "limit_excesses" not in row
    assert row["B_max.sample"] > 0 and "clearance_min" in row


def test_a_job_without_clearance_has_no_clearance_columns(tmp_path):
    rig = _demo_folder(tmp_path)
    row = _only_row(_job(rig, [f"{RADIUS}=0.01"], commands=tmp_path / "chain.csv", clearance=False))
    assert "clearance_min" not in row and "clearance_findings" not in row
    assert row["B_max.sample"] > 0 and row["torque_peak.arm.joint_2"] > 0


# == executors ==============================================================================================

def _where(job, variant) -> dict:
    return {"variant": variant.index, "pid": os.getpid()}


def test_this_process_s_executor_holds_nothing_to_let_go_and_runs_on_after_close():
    runner = SerialExecutor()
    runner.close()
    rows = list(runner.map_unordered(_where, None, [Variant(0, ()), Variant(1, ())]))
    assert rows == [{"variant": 0, "pid": PARENT}, {"variant": 1, "pid": PARENT}]


def test_without_fork_every_variant_runs_on_the_workers_and_none_is_lost(monkeypatch):
    import multiprocessing

    grid = [Variant(i, ()) for i in range(5)]
    forked = list(LocalExecutor(2).map_unordered(_where, None, grid))
    assert forked[0] == {"variant": 0, "pid": PARENT}  # forked: the first one here, loading what all need
    monkeypatch.setattr(multiprocessing, "get_start_method", lambda allow_none=False: "spawn")
    rows = list(LocalExecutor(2).map_unordered(_where, None, grid))
    assert sorted(row["variant"] for row in rows) == [0, 1, 2, 3, 4]
    assert all(row["pid"] != PARENT for row in rows)


def _die_in_a_worker(job, variant):
    if os.getpid() != PARENT:
        os._exit(1)  # as the out-of-memory killer ends a worker
    return evaluate(job, variant)


def test_a_worker_that_dies_is_one_coded_refusal_and_the_rows_done_are_written(tmp_path):
    job, out = _job(RIG, [f"{RADIUS}=0.008,0.01,0.012"]), tmp_path / "t.csv"
    with pytest.raises(SweepError) as info:
        run_sweep(job, out, LocalExecutor(1), fn=_die_in_a_worker)
    assert (info.value.code, info.value.file) == ("sweep.worker", "--workers")
    assert info.value.message.startswith("a worker process ended unexpectedly")
    assert "run again to resume from the rows written" in info.value.message
    assert "fewer --workers" in info.value.message
    assert [row["variant"] for row in _rows(out)] == ["0"]  # the one computed here, before the workers


RELEASE = threading.Event()


def _fail_first_hold_the_rest(job, variant):
    if variant.index == 0:
        raise RuntimeError("a bug in one variant")
    RELEASE.wait(60)  # the others stay running until the test has looked at the cluster
    return {"variant": variant.index}


def test_a_variant_failing_on_a_dask_cluster_stops_the_variants_still_running():
    distributed = pytest.importorskip("distributed")
    RELEASE.clear()
    grid = [Variant(i, ()) for i in range(4)]
    with distributed.LocalCluster(n_workers=1, threads_per_worker=4, processes=False,
                                  dashboard_address=None) as cluster:
        runner = DaskExecutor(cluster.scheduler_address)
        try:
            with pytest.raises(RuntimeError, match="a bug in one variant"):
                list(runner.map_unordered(_fail_first_hold_the_rest, "job", grid))
            # the three held variants were cancelled: the scheduler stops counting them as running (the
            # cancel reaches it asynchronously, so its count is asked until it is empty, or for 30 s)
            for _ in range(600):
                if not any(runner.client.processing().values()):
                    break
                time.sleep(0.05)
            assert [keys for keys in runner.client.processing().values() if keys] == []
        finally:
            RELEASE.set()
            runner.close()


# == the grid's refusals ====================================================================================

@pytest.mark.parametrize("text, words", [
    ("parts.nosuch.at.2=0.01", "parts.nosuch.at.2: no part 'nosuch'; parts: holder"),
    ("parts.holder.material.0=x", "parts.holder.material.0: str holds no named values"),
    (f"{RADIUS}.0=0.01", f"{RADIUS}.0: float holds no named values"),
], ids=["index-of-no-item", "index-of-text", "index-of-number"])
def test_an_index_into_what_holds_no_vector_is_refused_naming_the_whole_path(text, words):
    with pytest.raises(SweepError) as info:
        parse_all([text], load(RIG))
    assert (info.value.code, info.value.file) == ("sweep.path", "--vary")
    assert info.value.message.startswith(words)
    assert "give the rig path of a number or text value" in info.value.message


def test_a_true_or_false_value_is_refused_saying_a_sweep_does_not_vary_it():
    with pytest.raises(SweepError) as info:
        parse_all(["chain.arm.carries_payload=0,1"], load(RIG))
    assert (info.value.code, info.value.file) == ("sweep.type", "--vary")
    assert info.value.message.startswith("chain.arm.carries_payload holds bool, not a number or text")
    assert "it is true or false, which a sweep does not vary" in info.value.message


def test_a_value_of_another_type_set_from_python_is_refused_asking_for_a_number_or_text():
    rig = load(RIG)
    rig.parts["holder"] = dataclasses.replace(rig.parts["holder"], mass=Fraction(1, 20))
    with pytest.raises(SweepError) as info:
        parse_all(["parts.holder.mass=0.05,0.06"], rig)
    assert (info.value.code, info.value.file) == ("sweep.type", "--vary")
    assert info.value.message == ("parts.holder.mass holds Fraction, not a number or text; vary a number or "
                                  "a text value")


@pytest.mark.parametrize("path", ["parts.holder.material", RADIUS], ids=["text", "number"])
def test_a_list_of_more_values_than_a_sweep_holds_is_refused(path):
    with pytest.raises(SweepError) as info:
        parse_all([f"{path}=" + ",".join(["1"] * 100_001)], load(RIG))
    assert (info.value.code, info.value.file) == ("sweep.range", "--vary")
    assert info.value.message == f"{path}: 100,001 values, more than the 100,000 a sweep holds; give fewer"


# == the run and its table ===================================================================================

def test_the_table_is_rewritten_while_rows_come_in_at_most_every_two_seconds(tmp_path, monkeypatch):
    import mime_gui.sweep.run as run

    now = [0.0]
    monkeypatch.setattr(run, "time", types.SimpleNamespace(monotonic=lambda: now[0]))

    def one_second_each(job, variant):  # each variant takes a second; writing the table takes no time
        now[0] += 1.0
        return evaluate(job, variant)

    out, seen = tmp_path / "t.csv", []

    def on_row(done, total):
        seen.append(len(_rows(out)) if out.exists() else 0)

    job = _job(RIG, [f"{RADIUS}=0.008:0.013:6"])
    run_sweep(job, out, SerialExecutor(), on_row=on_row, fn=one_second_each)
    # rewritten after the 2nd, 4th and 6th second: each row sees what was written before it came in
    assert seen == [0, 0, 2, 2, 4, 4]
    assert [row["variant"] for row in _rows(out)] == ["0", "1", "2", "3", "4", "5"]


def test_a_table_written_without_an_about_line_goes_from_its_key_to_the_varies(tmp_path):
    job, out = _job(RIG, [f"{RADIUS}=0.01,0.02"]), tmp_path / "t.csv"
    run_sweep(job, out, SerialExecutor())
    lines = out.read_text().splitlines()
    assert lines[:3] == [f"# mime-gui sweep: key {job.key}; 2 variants", f"# --vary {RADIUS}=0.01,0.02",
                         f"variant,{RADIUS},findings,codes,first_finding"]


class _StopAfter:
    """The evaluation, stopped by an interrupt after ``n`` variants; the variants it computed."""

    def __init__(self, n=None):
        self.n, self.calls = n, []

    def __call__(self, job, variant):
        if len(self.calls) == self.n:
            raise KeyboardInterrupt
        self.calls.append(variant.index)
        return evaluate(job, variant)


def test_an_interrupted_parquet_sweep_resumes_with_its_rows_typed(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    job, out = _job(RIG, [f"{RADIUS}=0.008,0.01,0.012", "parts.holder.mount=motor.rotor,nowhere"]), \
        tmp_path / "t.parquet"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(job, out, SerialExecutor(), fn=_StopAfter(3))
    assert [row["variant"] for row in pq.read_table(out).to_pylist()] == [0, 1, 2]
    again = _StopAfter()
    result = run_sweep(job, out, SerialExecutor(), fn=again)
    assert again.calls == [3, 4, 5] and (result.kept, result.computed) == (3, 3)
    # the kept rows hold numbers as the sweep does, the radius a float and the count of findings an int
    kept = result.rows[1]
    assert kept[RADIUS] == 0.008 and type(kept[RADIUS]) is float
    assert kept["findings"] == 1 and type(kept["findings"]) is int and kept["codes"] == "part.mount"
    assert pq.read_table(out).to_pylist() == pq.read_table(_whole(job, tmp_path)).to_pylist()


def _whole(job, tmp_path):
    path = tmp_path / "whole.parquet"
    run_sweep(job, path, SerialExecutor())
    return path


@pytest.mark.parametrize("content", ["garbage", "no-sweep"], ids=["not-parquet", "parquet-of-no-sweep"])
def test_a_parquet_file_that_holds_no_sweep_is_refused_and_kept(tmp_path, capsys, content):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "t.parquet"
    if content == "garbage":
        out.write_bytes(b"PAR1 is not enough")
    else:
        pq.write_table(pa.table({"variant": [0, 1]}), out)  # a Parquet table without the sweep's key
    before = out.read_bytes()
    assert _sweep(RIG, f"--vary={RADIUS}=0.01,0.02", "--out", out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error[sweep.table] {out}: this file holds no sweep table")
    assert "give another --out, or move the file away" in err
    assert out.read_bytes() == before


@pytest.mark.parametrize("body, place", [
    (KEY.encode() + b"variant,findings\n0,caf\xe9\n", ""),
    (KEY.encode() + b"# --vary parts.holder.geometry.radius=0.01,0.02\n", ":3"),
], ids=["not-utf8", "comments-only"])
def test_a_csv_that_holds_no_sweep_table_is_refused_and_kept(tmp_path, capsys, body, place):
    out = tmp_path / "t.csv"
    out.write_bytes(body)
    assert _sweep(RIG, f"--vary={RADIUS}=0.01,0.02", "--out", out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error[sweep.table] {out}{place}: this file holds no sweep table")
    assert out.read_bytes() == body


def _table(tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert _sweep(RIG, f"--vary={RADIUS}=0.01,0.02", "--out", out) == 0
    capsys.readouterr()
    return out


def test_a_blank_line_among_the_rows_is_passed_over_when_resuming(tmp_path, capsys):
    out = _table(tmp_path, capsys)
    text = out.read_text().replace("\n1,0.02,", "\n\n1,0.02,")
    out.write_text(text)
    assert main(["sweep", str(RIG), f"--vary={RADIUS}=0.01,0.02", "--out", str(out), "--workers", "1"]) == 0
    assert "  computed 0, kept 2 from the table; 0 with findings" in capsys.readouterr().out.splitlines()
    assert out.read_text() == text


@pytest.mark.parametrize("row, words", [
    ("1,0.02,none,,", "findings: 'none' is not a number; the row is damaged: remove it (it will be computed "
                      "again)"),
    ("7,0.02,0,,", "variant '7' is not one of the sweep's 0 to 1, or is there twice; remove the row"),
    ("0,0.01,0,,", "variant '0' is not one of the sweep's 0 to 1, or is there twice; remove the row"),
], ids=["count-not-a-number", "variant-outside-the-grid", "variant-twice"])
def test_a_damaged_row_is_refused_naming_its_line_and_the_table_kept(tmp_path, capsys, row, words):
    out = _table(tmp_path, capsys)
    text = out.read_text()
    assert "\n1,0.02,0,,\n" in text
    out.write_text(text.replace("\n1,0.02,0,,\n", f"\n{row}\n"))
    before = out.read_text()
    lines = before.splitlines()
    line = len(lines) - lines[::-1].index(row)  # a variant there twice: refused at its second row
    assert _sweep(RIG, f"--vary={RADIUS}=0.01,0.02", "--out", out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error[sweep.table] {out}:{line}: {words}")
    assert out.read_text() == before


def test_a_table_in_a_folder_that_does_not_exist_is_a_sweep_io_refusal(tmp_path, capsys):
    out = tmp_path / "gone" / "t.csv"
    assert _sweep(RIG, f"--vary={RADIUS}=0.01", "--out", out) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"error[sweep.io] {out}: cannot write the table (No such file or directory)"


def test_a_table_under_a_file_instead_of_a_folder_is_a_sweep_io_refusal(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    out = tmp_path / "notes.txt" / "t.csv"
    assert _sweep(RIG, f"--vary={RADIUS}=0.01", "--out", out) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"error[sweep.io] {out}: cannot read the table (Not a directory)"


def test_a_table_replaced_by_a_folder_while_the_sweep_runs_is_refused_as_not_a_file(tmp_path):
    out = tmp_path / "t.csv"

    def then_a_folder_appears(job, variant):
        row = evaluate(job, variant)
        out.mkdir(exist_ok=True)  # another program makes a folder of that name
        return row

    with pytest.raises(FileError) as info:
        run_sweep(_job(RIG, [f"{RADIUS}=0.01"]), out, SerialExecutor(), fn=then_a_folder_appears)
    assert (info.value.code, info.value.file) == ("file.not-regular", str(out))
    assert info.value.message.startswith("this is a folder, not a regular file")
    assert out.is_dir() and list(out.iterdir()) == []
