"""Growing a run's network: a new run that continues another with a network of another
shape (wider, deeper), trained first on the old run's replay window.

When a run has levelled off, the classic next step (KataGo's bigger nets) is more capacity,
but a new network from scratch would throw away the run's self-play. `grow_run` starts run
`target` at the newest model K of run `source`:

  - the self-play shards of iterations before K are hard-linked (copied across file
    systems): the new run's window, its size schedule and its row counts are the old run's;
  - the komi statistics, the metrics and the stage records of iterations 1..K are copied,
    so `run_pipeline` resumes the new run at iteration K;
  - the new network trains `epochs` passes over the window that iteration K would train
    on, with its own learning-rate schedule: warm-up, then the cosine down to the run's
    floor over these steps (the config's `train.total_steps` becomes their number), so the
    grown network continues at the floor rate the old one had reached;
  - it is written as checkpoint and model K, the config with the new model as the run's.

Then `popucom pipeline --run-dir TARGET` continues it with self-play. origin.json records
where the run came from and what the supervised phase measured. The ladder and the
evaluations are the new run's own. A killed grow is run again from the start of its
training (the links and copies are kept).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import shutil
import time
from pathlib import Path

from ..fileio import write_text_atomic
from ..nn.config import ModelConfig
from ..train.trainer import Trainer
from ..train.window import ReplayWindow
from .config import PipelineConfig
from .run_dir import RunDir, selfplay_rows
from .stages import export_iteration

logger = logging.getLogger(__name__)


def _link_or_copy(src: Path, dst: Path) -> None:
    if dst.exists():
        return
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links there
        shutil.copy2(src, dst)


def _shard_iteration(path: Path) -> int:
    """K of a self-play file iterK-C.pcs / iterK-C.games.jsonl."""
    return int(path.name.removeprefix("iter").split("-")[0])


def _seed_from_source(source: RunDir, target: RunDir, k: int) -> None:
    """The files of `source` that run `target` needs to resume at iteration k."""
    for path in sorted(source.selfplay.glob("iter*-*")):
        if path.suffix in (".pcs", ".jsonl") and _shard_iteration(path) < k:
            _link_or_copy(path, target.selfplay / path.name)
    for j in range(1, k + 1):
        if source.stages(j).exists():
            shutil.copy2(source.stages(j), target.stages(j))
    for name in ("komi_stats.json", "metrics.jsonl"):
        if (source.root / name).exists():
            shutil.copy2(source.root / name, target.root / name)


def grow_run(
    source: str | Path,
    target: str | Path,
    model: ModelConfig,
    epochs: float = 2.0,
    progress: bool = True,
) -> dict:
    """Starts run `target` at run `source`'s newest model with network `model`, trained
    `epochs` times over that iteration's replay window; returns the figures (also in
    target/origin.json). Torch's thread count is the caller's."""
    if epochs <= 0:
        raise ValueError(f"--epochs {epochs}: want a positive number of passes over the window")
    src_root = Path(source)
    if not (src_root / "config.json").exists():
        raise ValueError(f"{src_root} is not a pipeline run (no config.json)")
    if Path(target).resolve() == src_root.resolve():
        raise ValueError("the grown run needs a directory of its own, not the source run's")
    src = RunDir(src_root)
    config = PipelineConfig.load(src.config)
    k = src.latest_model()
    if k < 1:
        raise ValueError(f"{src_root} has no trained model to grow from")
    run = RunDir(target)
    if run.checkpoint(k).exists() or run.config.exists():
        raise ValueError(f"{run.root} already holds a run: continue it with `popucom pipeline --run-dir {run.root}`")
    started = time.perf_counter()
    _seed_from_source(src, run, k)
    total_rows, _ = selfplay_rows(run, k - 1)
    window = ReplayWindow(run.selfplay, config.window_size(total_rows), config.train.val_fraction)
    if window.num_samples < config.min_samples_to_train:
        raise ValueError(f"{src_root}'s window holds only {window.num_samples} samples: too few to train a network on")
    steps = max(1, round(epochs * window.num_samples / config.train.batch_size))
    train = dataclasses.replace(config.train, total_steps=max(steps, config.train.warmup_steps + 1))
    grown = dataclasses.replace(config, model=model, train=train)
    logger.info(
        f"grow: {model.preset} d{model.d_model}x{model.layers} ({model.heads} heads) on {window.num_samples} "
        f"samples of {src_root} at iteration {k}: {steps} steps"
    )
    trainer = Trainer(model, train, log_dir=run.root / "tb")
    val = window.validation_batches(512, limit=4096) if len(window.val_rows) else None
    metrics = trainer.train(window, steps, progress=progress, val_batches=val)
    trainer.save(run.checkpoint(k))
    grown.save(run.config)
    export_iteration(grown, run, k)
    figures = {
        "grown_from": str(src_root),
        "iteration": k,
        "model": model.to_dict(),
        "parameters": sum(p.numel() for p in trainer.model.parameters()),
        "window_samples": window.num_samples,
        "epochs": epochs,
        "steps": steps,
        "seconds": time.perf_counter() - started,
        **{key: v for key, v in metrics.items() if isinstance(v, (int, float))},
    }
    write_text_atomic(run.root / "origin.json", json.dumps(figures, indent=1) + "\n")
    return figures
