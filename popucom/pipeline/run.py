"""The run_pipeline loop.

An iteration K -> K+1 is a list of named stages (STAGES: self-play, train,
export, engine, evaluate, ladder, metrics). Every stage writes its output atomically
into the run directory, and once it has finished its completion (with its
figures: games/s, losses, ratings) is recorded in stages/iter_K+1.json. A
resumed run skips the recorded stages and runs the rest, so a run killed at
any point finishes every stage of every iteration exactly once, and the
metrics line of a resumed iteration still has its self-play and loss figures.
An iteration is complete once its last stage (metrics) is recorded. Adding a
stage is one function taking an Iteration plus one line in STAGES.

One pipeline at a time owns a run directory (pipeline.lock: pid, host, start
time); the lock of a dead process on this host is taken over. A model file
that does not fit the run's model config (another preset or feature version)
is refused, never used.

    run_dir.py      the files of a run (RunDir), its saved config, what its files say
    stages.py       self-play, train, export, engine
    stages_eval.py  evaluate, ladder
    metrics.py      metrics.jsonl and TensorBoard (the last stage)

Progress lines go to the `popucom.pipeline.*` loggers (INFO); the `popucom` command
prints them.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from pathlib import Path

from ..fileio import remove_stale_temporaries, write_text_atomic
from ..infer.preflight import check_backend
from ..infer.threads import resolve_threads
from ..train.trainer import Trainer
from .config import PipelineConfig
from .lock import RunLock
from .metrics import read_metrics, stage_metrics
from .run_dir import (
    GROW_UNFINISHED,
    RunDir,
    first_model,
    read_stage_record,
    resolve_config,
    stage_output_missing,
)
from .stages import (
    Iteration,
    SelfPlayStage,
    export_iteration,
    run_selfplay_stage,
    stage_engine,
    stage_export,
    stage_selfplay,
    stage_train,
)
from .stages_eval import stage_evaluate, stage_ladder

logger = logging.getLogger(__name__)

Stage = Callable[[Iteration], dict]

# In order. The last one marks the iteration complete.
STAGES: list[tuple[str, Stage]] = [
    ("selfplay", run_selfplay_stage),
    ("train", stage_train),
    ("export", stage_export),
    ("engine", stage_engine),
    ("evaluate", stage_evaluate),
    ("ladder", stage_ladder),
    ("metrics", stage_metrics),
]


def trusted_stage_record(run: RunDir, k: int, metric_iterations: set, warn: bool = True) -> dict[str, dict]:
    """The recorded stages of iteration k -> k+1 whose outputs are there: a stage recorded as
    finished whose output is missing (a forged or stale record, a file deleted since) runs
    again (and says so), so no record can skip work. An iteration the run inherited (a grown
    run's, grow.py) is trusted as it is: its files stayed in the run it grew from."""
    record = read_stage_record(run, k, [name for name, _ in STAGES])
    if k + 1 <= first_model(run):
        return record
    for name in list(record):
        missing = stage_output_missing(run, k, name, record[name].get("result", {}), metric_iterations)
        if missing:
            if warn:
                logger.warning(
                    f"stage record {run.stages(k + 1)} says {name} finished, but {missing} is missing: "
                    f"running {name} again"
                )
            del record[name]
    return record


def iteration_complete(run: RunDir, k: int, metric_iterations: set[int]) -> bool:
    """Whether iteration k -> k+1 has recorded its last stage, and every recorded stage's output is there."""
    recorded = read_stage_record(run, k, [name for name, _ in STAGES])
    if STAGES[-1][0] in recorded:
        return len(trusted_stage_record(run, k, metric_iterations, warn=False)) == len(recorded)
    # Runs from before stage records: a metrics line meant the iteration had finished.
    return not run.stages(k + 1).exists() and k + 1 in metric_iterations


def run_iteration(it: Iteration, stages: list[tuple[str, Stage]] | None = None) -> None:
    """Runs the stages of the iteration that are not recorded as finished, recording each."""
    metric_iterations = {line.get("iteration") for line in read_metrics(it.run.metrics, skip_bad=True)}
    record = trusted_stage_record(it.run, it.k, metric_iterations)
    for name, done in record.items():
        it.results[name] = done.get("result", {})
        it.seconds[name] = float(done.get("seconds", 0.0))
    for name, stage in stages or STAGES:
        if name in record:
            continue
        start = time.perf_counter()
        result = stage(it) or {}
        it.results[name] = result
        it.seconds[name] = time.perf_counter() - start
        record[name] = {"seconds": it.seconds[name], "result": result, "finished": time.time()}
        write_text_atomic(it.run.stages(it.k + 1), json.dumps({"iteration": it.k + 1, "stages": record}, indent=1))


def start_run(run: RunDir, config: PipelineConfig, progress: bool) -> None:
    """Iteration 0: a warm start from bot games (if configured) or random weights, exported.
    A grown run (grow.py) starts at its first model instead, once its grow has finished."""
    if (run.root / GROW_UNFINISHED).exists():
        raise ValueError(f"{run.root}: `popucom grow` did not finish here; run the same grow command again")
    first = first_model(run)
    if first > 0:
        if not run.model(first).exists():  # deleted, as check_run_model advises for a foreign one
            export_iteration(config, run, first)
        return
    if not run.checkpoint(0).exists() and config.warm_start is not None:
        from .warm_start import warm_start

        ws = config.warm_start
        figures = warm_start(
            run.root,
            config,
            bot=ws.bot,
            games=ws.games,
            epochs=ws.epochs,
            seed=config.seed,
            threads=resolve_threads(config.inference_threads),
            progress=progress,
        )
        logger.info(
            f"warm start: iteration 0 trained on {figures['positions']} {ws.bot} positions "
            f"in {figures['seconds']:.0f} s"
        )
    if not run.checkpoint(0).exists():
        Trainer(config.model, config.train, log_dir=None).save(run.checkpoint(0))
    if not run.model(0).exists():  # a random initial network, or a shipped checkpoint resumed
        export_iteration(config, run, 0)


def _out_of_time(started: float, iteration_started: float, minutes: float) -> bool:
    """Whether another iteration as long as the last one would end past `minutes` after the start."""
    now = time.monotonic()
    return now + (now - iteration_started) > started + 60 * minutes


def run_pipeline(
    run_dir: str | Path,
    config: PipelineConfig,
    iterations: int | None = None,
    progress: bool = True,
    selfplay_stage: SelfPlayStage = stage_selfplay,
    stop_after_minutes: float | None = None,
) -> int:
    """Runs until `iterations` iterations are complete (forever if None), or while another
    iteration as long as the last would still end within `stop_after_minutes` of the start
    (a lent machine's time, or the hours one has); returns the newest model index."""
    started = time.monotonic()
    run = RunDir(run_dir)
    run.check_writable()
    with RunLock(run.lock):
        for tmp in remove_stale_temporaries(run.root):  # a killed run's half-written files
            logger.info(f"removed {tmp.relative_to(run.root)}, left by an interrupted write")
        config = resolve_config(run, config)
        # Before any work: the network is first built after the warm start, half an hour in.
        check_backend(config.backend, config.device, config.model)
        logger.info(
            f"run {run.root} | preset {config.preset} | model {config.model.preset} | "
            f"backend {config.backend} on {config.device}"
        )
        start_run(run, config, progress)
        metrics = read_metrics(run.metrics, skip_bad=True)
        metric_iterations = {line["iteration"] for line in metrics if isinstance(line.get("iteration"), int)}
        k = 0
        while iteration_complete(run, k, metric_iterations):
            k += 1
        while iterations is None or k < iterations:
            iteration_started = time.monotonic()
            run_iteration(Iteration(config, run, k, progress, selfplay_stage))
            k += 1
            if stop_after_minutes is not None and _out_of_time(started, iteration_started, stop_after_minutes):
                logger.info(
                    f"stopping after iteration {k}: the next would end past --stop-after {stop_after_minutes:g}"
                )
                break
        return max(k, run.latest_model())
