"""The stages that make model k+1 from model k: self-play, train, export, engine.

A stage takes an Iteration and returns its figures (a JSON-able dict), which the loop
(run.py) records in stages/iter_K+1.json once the stage has finished. Every stage
writes its output atomically and first looks for it, so a stage cut short by a kill
after its output was written but before it was recorded finishes without redoing work.
The evaluation stages are in stages_eval.py, the metrics stage in metrics.py.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..fileio import write_text_atomic
from ..infer.threads import resolve_threads
from ..selfplay import KomiSampler, run_selfplay
from ..train.trainer import Trainer
from ..train.window import ReplayWindow
from .config import PipelineConfig
from .run_dir import RunDir, best_model, check_run_model, completed_selfplay, rows_before, selfplay_rows

logger = logging.getLogger(__name__)

# (config, run, k, progress) -> figures: plays iteration k's self-play games (locally, or on a cluster)
SelfPlayStage = Callable[[PipelineConfig, RunDir, int, bool], dict]


@dataclass
class Iteration:
    """What a stage gets: iteration k trains model k+1 from model k's self-play."""

    config: PipelineConfig
    run: RunDir
    k: int
    progress: bool
    selfplay_stage: SelfPlayStage
    results: dict[str, Any] = field(default_factory=dict)  # stage name -> figures of finished stages
    seconds: dict[str, float] = field(default_factory=dict)  # stage name -> seconds it took


def max_batch(config: PipelineConfig) -> int:
    """The largest batch self-play sends to the network: every game's leaves at once."""
    return config.selfplay.concurrent_games * config.selfplay.search_params().leaves_per_game


def make_evaluator(config: PipelineConfig, run: RunDir, k: int):
    """Model k on the run's backend, through the one inference entry point (popucom.infer):
    a checkpoint backend (native, torch) loads checkpoint k, an exported-model one (openvino,
    onnx, trt) model k, and `auto` checkpoint k with model k as its exported model."""
    from ..infer import load_evaluator
    from ..infer.factory import BACKENDS, EXPORTED_BACKENDS

    threads = resolve_threads(config.inference_threads)
    if config.backend not in BACKENDS:
        raise ValueError(f"unknown backend '{config.backend}' (choose {', '.join(BACKENDS)})")
    if config.backend not in EXPORTED_BACKENDS:
        return load_evaluator(
            run.checkpoint(k),
            backend=config.backend,
            device=config.device,
            threads=threads,
            expect=config.model,
            exported=run.model(k) if run.model(k).is_file() else None,
        )
    check_run_model(config, run.model(k))
    return load_evaluator(
        run.model(k),
        backend=config.backend,
        device=config.device,
        threads=threads,
        engine_cache=run.engines,
        max_batch=max_batch(config),
    )


def stage_selfplay(config: PipelineConfig, run: RunDir, k: int, progress: bool) -> dict:
    """Iteration k's self-play on this machine, with the best model so far."""
    done, chunk = completed_selfplay(run, k)
    wanted = config.games_per_iteration - done
    if wanted <= 0:
        return {"games": 0, "resumed_games": done}
    player = best_model(config, run, k)
    evaluator = make_evaluator(config, run, player)
    describe = evaluator.describe()
    logger.info(
        f"[iter {k + 1}] self-play: {wanted} games with {run.model_name(player)} on {describe}"
        + (f" ({done} already written)" if done else "")
    )
    komi = KomiSampler.load(run.komi)
    stats = run_selfplay(
        evaluator,
        config.selfplay,
        run.selfplay,
        f"iter{k:04d}",
        wanted,
        komi,
        run.komi,
        seed=config.seed * 100_003 + k * 1009 + chunk,
        first_chunk=chunk,
        model_name=run.model_name(player),
        progress=progress,
    )
    summary = stats.summary()
    summary["resumed_games"] = done
    summary["fair_komi"] = komi.fair_komi()
    return summary


def run_selfplay_stage(it: Iteration) -> dict:
    return it.selfplay_stage(it.config, it.run, it.k, it.progress)


def samples_to_train(config: PipelineConfig, run: RunDir) -> int:
    """Rows the window must hold before an iteration trains. A run continued from a shipped
    model (--resume-from) starts with an empty window under a full-size one's training schedule,
    which would sample its first few thousand rows many times over: it waits until the window
    holds as many rows as a new run's first window (window_min_samples; docs/learning.md, "Half
    the replays")."""
    if rows_before(run) <= 0:
        return config.min_samples_to_train
    return max(config.min_samples_to_train, min(config.window_min_samples, config.train.window_samples))


def stage_train(it: Iteration) -> dict:
    config, run, k = it.config, it.run, it.k
    target = run.checkpoint(k + 1)
    if target.exists():
        # Trained before a kill that came before the stage was recorded: the figures were
        # written just before the checkpoint.
        try:
            return json.loads(run.train_figures(k + 1).read_text())
        except (OSError, ValueError):
            return {}
    trainer = Trainer.resume(
        run.checkpoint(k),
        model_config=config.model,
        train_config=config.train,
        device="cuda" if config.device == "cuda" else "cpu",
        log_dir=run.tensorboard,
    )
    total_rows, new_rows = selfplay_rows(run, k)
    window = ReplayWindow(run.selfplay, config.window_size(total_rows), config.train.val_fraction)
    steps = config.train_steps(new_rows)
    metrics: dict = {"window_samples": window.num_samples, "new_rows": new_rows, "total_rows": total_rows}
    threshold = samples_to_train(config, run)
    if window.num_samples < threshold:
        logger.info(f"[iter {k + 1}] train: only {window.num_samples} samples (< {threshold}); keeping the weights")
    else:
        logger.info(f"[iter {k + 1}] train: {steps} steps on a window of {window.num_samples} samples ({new_rows} new)")
        val = window.validation_batches(512, limit=4096) if len(window.val_rows) else None
        metrics.update(trainer.train(window, steps, progress=it.progress, val_batches=val))
    metrics["step"] = trainer.step
    metrics = {key: v for key, v in metrics.items() if isinstance(v, (int, float))}
    write_text_atomic(run.train_figures(k + 1), json.dumps(metrics))
    trainer.save(target)
    return metrics


# onnxruntime against torch on a few positions: a template export is the same graph, so it
# differs by reordered fp32 sums only (a fresh export measures ~1e-5 on the small net).
TEMPLATE_PARITY_TOLERANCE = 1e-3


def export_iteration(config: PipelineConfig, run: RunDir, k: int) -> None:
    """Exports checkpoint k as model k, its iteration and optimiser step in the metadata. The
    exporter's fresh trace is a noticeable share of an iteration on a CPU (docs/benchmarks.md,
    "Design notes behind the figures"), so the run keeps that graph as a template and later
    iterations swap their weights into it, checked against torch, with a fresh export whenever
    the template fails or differs."""
    from ..infer.parity import max_abs_difference
    from ..nn.export import export_from_template, export_onnx, template_key
    from ..train.trainer import load_network_with_checkpoint

    net, ckpt = load_network_with_checkpoint(run.checkpoint(k), expect=config.model)
    metadata = {"iteration": str(k), "step": str(ckpt.step)}
    template = run.export_template(template_key(net))
    if template.exists():
        try:
            export_from_template(net, run.model(k), template, metadata)
            difference = max_abs_difference(net, run.model(k), batch=4, seed=k)
            if difference <= TEMPLATE_PARITY_TOLERANCE:
                return
            logger.warning(f"[iter {k}] the template export differs from torch by {difference:.2e}: exporting afresh")
        except ValueError as e:
            logger.warning(f"[iter {k}] {e}: exporting afresh")
    export_onnx(net, run.model(k), metadata, template=template)


def stage_export(it: Iteration) -> dict:
    config, run, k = it.config, it.run, it.k
    if run.model(k + 1).exists():
        check_run_model(config, run.model(k + 1))
        return {}
    export_iteration(config, run, k + 1)
    logger.info(f"[iter {k + 1}] exported {run.model(k + 1).relative_to(run.root)}")
    return {}


def stage_engine(it: Iteration) -> dict:
    config, run, k = it.config, it.run, it.k
    if config.backend != "trt":
        return {}
    from ..infer.trt_backend import build_engine

    build_engine(run.model(k + 1), run.engines, max_batch=max_batch(config), log=logger.info)
    return {}
