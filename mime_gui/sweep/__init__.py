"""Design sweeps (headless): every variant of a rig, each varied value a rig path, evaluated for its findings
and, along recorded commands, the field at its probes, the torques its dynamic segments ask and its
clearance; one row per variant in a CSV or Parquet table that an interrupted run resumes
(``mime-gui sweep``, docs/sweeps.md).

    varies = parse_all(["parts.holder.geometry.radius=0.008:0.012:5"], rig)
    job = make_job(rig_text=text, rig_file="demo.rig.json", base=folder, varies=varies, recorded=commands)
    result = run_sweep(job, "table.csv", LocalExecutor(2))

:func:`~mime_gui.sweep.evaluation.evaluate` is a pure function of the job and one variant, so local worker
processes and a Dask cluster run the same code and give the same rows.
"""

from mime_gui.sweep.evaluation import Job, evaluate, make_job
from mime_gui.sweep.executors import DaskExecutor, Executor, LocalExecutor, SerialExecutor, executor
from mime_gui.sweep.grid import MAX_VARIANTS, SweepError, Variant, Vary, parse_all, parse_vary, variants
from mime_gui.sweep.run import SweepResult, run_sweep

__all__ = ["MAX_VARIANTS", "DaskExecutor", "Executor", "Job", "LocalExecutor", "SerialExecutor", "SweepError",
           "SweepResult", "Variant", "Vary", "evaluate", "executor", "make_job", "parse_all", "parse_vary",
           "run_sweep", "variants"]
