"""Growing a run's network: a new run that continues another with a network of another
shape (wider, deeper), trained first on the old run's replay window.

When a run has levelled off, the classic next step (KataGo's bigger nets) is more capacity,
but a new network from scratch would throw away the run's self-play. `grow_run` starts run
`target` at the newest complete iteration K of run `source` (both runs locked meanwhile):

  - the self-play shards of iterations before K are hard-linked (copied across file
    systems): the new run's window, its size schedule and its row counts are the old run's;
  - the komi statistics, the metrics and the stage records of iterations 1..K are copied,
    so `run_pipeline` resumes the new run at iteration K;
  - the new network trains `epochs` passes over the window that iteration K would train
    on, optionally taught by the old network as well (`teacher_share`), with its own
    learning-rate schedule: warm-up, then the cosine down to the run's floor over these
    steps (the config's `train.total_steps` becomes their number), so the grown network
    continues at the floor rate the old one had reached;
    A network that only gets deeper (`--layers` up, nothing else changed) starts instead as
    the old one with identity layers added (nn/deepen.py: the same outputs) and continues the
    old schedule at its step; its supervised phase (`epochs`, which may be 0) then runs at
    the run's floor rate;
  - it is written as checkpoint and model K, the config with the new model as the run's.

Then `popucom pipeline --run-dir TARGET` continues it with self-play. origin.json records
where the run came from and what the supervised phase measured; rows_before carries a
shipped source's earlier rows on, so the window keeps its size. The ladder and the
evaluations are the new run's own. Until it finishes, grow_unfinished.json marks the new
run, which the pipeline then refuses; the same grow command again redoes it (the links
and copies are kept, the training is redone).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import shutil
import time
from pathlib import Path

from ..fileio import write_text_atomic
from ..nn.config import ModelConfig, preset
from ..nn.deepen import deepened
from ..run_layout import RunLayout
from ..train.trainer import Trainer, load_network_with_checkpoint
from ..train.window import ReplayWindow
from .config import PipelineConfig
from .lock import RunLock
from .metrics import read_metrics
from .run import iteration_complete
from .run_dir import GROW_UNFINISHED, RunDir, first_model, rows_before, selfplay_rows
from .stages import export_iteration

logger = logging.getLogger(__name__)


def _link_or_copy(src: Path, dst: Path) -> None:
    if dst.exists():
        return
    try:
        os.link(src, dst)
    except OSError:  # another file system, or no hard links there: a whole copy or none
        partial = dst.with_name(dst.name + ".copying")
        shutil.copy2(src, partial)
        os.replace(partial, dst)


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
    for copied, into in ((source.komi, target.komi), (source.metrics, target.metrics)):  # the new run appends
        if copied.exists():
            shutil.copy2(copied, into)


def newest_complete_model(run: RunDir) -> int:
    """The newest model whose iteration finished every stage (a run killed during its
    evaluation or ladder has a newer model whose iteration is not complete)."""
    metric_iterations = {line.get("iteration") for line in read_metrics(run.metrics, skip_bad=True)}
    k = run.latest_model()
    while k > first_model(run) and not iteration_complete(run, k - 1, metric_iterations):
        k -= 1
    return k


def _run_config(source: str | Path) -> PipelineConfig:
    path = RunLayout(source).config
    if not path.exists():
        raise ValueError(f"{source} is not a pipeline run (no config.json)")
    return PipelineConfig.load(path)


def grown_model(source: str | Path, preset_name: str | None = None, **shape: int) -> ModelConfig:
    """The source run's network (or preset `preset_name`) with the given shape fields changed."""
    base = preset(preset_name) if preset_name else _run_config(source).model
    return dataclasses.replace(base, **shape)


def only_deeper(old: ModelConfig, new: ModelConfig) -> bool:
    """Whether `new` is `old` with more layers and nothing else changed (nn/deepen.py keeps the
    old network's function then; mHC streams excluded)."""
    return not old.mhc and new.layers > old.layers and dataclasses.replace(old, layers=new.layers) == new


def _grown_trainer(
    config: PipelineConfig, model: ModelConfig, source: Path, steps: int, teacher_share: float, log_dir: Path
) -> tuple[Trainer, bool]:
    """The trainer of the grown network (and whether it is the source's, deepened): a deepened
    network continues the source's schedule at its step; a new one gets its own warm-up and
    cosine down to the run's floor rate by the end of the `steps`."""
    source_net, source_ckpt = load_network_with_checkpoint(source, expect=config.model)
    device = "cuda" if config.device == "cuda" else "cpu"
    deepening = only_deeper(config.model, model)
    if steps == 0 and not deepening:  # --epochs too small for one batch of the window
        raise ValueError("0 training steps leave a new network untrained: only a deepened one starts trained")
    if deepening:
        train, start = config.train, deepened(source_net, model.layers)
    else:
        train, start = dataclasses.replace(config.train, total_steps=max(steps, config.train.warmup_steps + 1)), None
    trainer = Trainer(
        model,
        train,
        device=device,
        log_dir=log_dir,
        model=start,
        teacher=source_net.to(device) if teacher_share > 0 else None,
        teacher_share=teacher_share,
    )
    if deepening:
        trainer.step = source_ckpt.step
    return trainer, deepening


def grow_run(
    source: str | Path,
    target: str | Path,
    model: ModelConfig,
    epochs: float = 2.0,
    progress: bool = True,
    teacher_share: float = 0.0,
) -> dict:
    """Starts run `target` at run `source`'s newest complete iteration with network `model`,
    trained `epochs` times over that iteration's replay window; returns the figures (also in
    target/origin.json). With `teacher_share` > 0 the source's network teaches: every target
    moves that share of the way to its prediction (losses.teacher_targets). Torch's thread
    count is the caller's. Both runs are locked meanwhile."""
    if not (math.isfinite(epochs) and epochs >= 0):
        raise ValueError(f"--epochs {epochs}: want a number of passes over the window, 0 or more")
    if not 0.0 <= teacher_share <= 1.0:
        raise ValueError(f"--teacher-share {teacher_share}: want a fraction in [0, 1]")
    src_root = Path(source)
    config = _run_config(src_root)
    if Path(target).resolve() == src_root.resolve():
        raise ValueError("the grown run needs a directory of its own, not the source run's")
    src, run = RunDir(src_root), RunDir(target)
    unfinished = run.root / GROW_UNFINISHED
    if run.config.exists() and not unfinished.exists():
        raise ValueError(f"{run.root} already holds a run: continue it with `popucom pipeline --run-dir {run.root}`")
    with RunLock(src.lock), RunLock(run.lock):
        if epochs == 0 and not only_deeper(config.model, model):
            raise ValueError("--epochs 0 leaves a new network untrained: only a deepened one starts trained")
        k = newest_complete_model(src)
        if k < 1:
            raise ValueError(f"{src_root} has no trained model to grow from")
        started = time.perf_counter()
        write_text_atomic(unfinished, json.dumps({"grown_from": str(src_root), "iteration": k}))
        _seed_from_source(src, run, k)
        before = rows_before(src)  # a source that began from a shipped model: its window's size
        total_rows = before + selfplay_rows(run, k - 1)[0]
        window = ReplayWindow(run.selfplay, config.window_size(total_rows), config.train.val_fraction)
        if window.num_samples < config.min_samples_to_train:
            raise ValueError(f"{src_root}'s window holds only {window.num_samples} samples: too few to train on")
        steps = round(epochs * window.num_samples / config.train.batch_size)
        trainer, deepening = _grown_trainer(config, model, src.checkpoint(k), steps, teacher_share, run.tensorboard)
        grown = dataclasses.replace(config, model=model, train=trainer.config)
        logger.info(
            f"grow: d{model.d_model}x{model.layers} ({model.heads} heads"
            f"{', the old layers kept' if deepening else ''}) on {window.num_samples} samples of "
            f"{src_root} at iteration {k}: {steps} steps"
        )
        val = window.validation_batches(512, limit=4096) if len(window.val_rows) else None
        metrics = trainer.train(window, steps, progress=progress, val_batches=val) if steps else {}
        trainer.save(run.checkpoint(k))
        grown.save(run.config)
        export_iteration(grown, run, k)
        figures = {
            "grown_from": str(src_root),
            "iteration": k,
            "rows_before": before,
            "model": model.to_dict(),
            "parameters": sum(p.numel() for p in trainer.model.parameters()),
            "window_samples": window.num_samples,
            "epochs": epochs,
            "deepened": deepening,
            "teacher_share": teacher_share,
            "steps": steps,
            "seconds": time.perf_counter() - started,
            **{key: v for key, v in metrics.items() if isinstance(v, (int, float))},
        }
        write_text_atomic(run.origin, json.dumps(figures, indent=1) + "\n")
        unfinished.unlink()
    return figures
