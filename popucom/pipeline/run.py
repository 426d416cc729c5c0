"""The run_pipeline loop.

Every stage writes its result atomically into the run directory, and the loop
decides what to do next only from what is there, so a run killed at any point
resumes with nothing lost and nothing duplicated:

    runs/NAME/config.json              the resolved config (written once)
    runs/NAME/checkpoints/iter_K.pt    trainer state after K iterations (0 = random init)
    runs/NAME/models/model_K.onnx      the exported network of iteration K
    runs/NAME/engines/                 TensorRT plans, cached by model hash + version + GPU
    runs/NAME/selfplay/iterK-C.pcs     training shards of iteration K (chunk C) ...
    runs/NAME/selfplay/iterK-C.games.jsonl   ... and their game records
    runs/NAME/eval/iter_K.json         evaluation of model K (+ .games.jsonl)
    runs/NAME/komi_stats.json          adaptive komi statistics
    runs/NAME/metrics.jsonl            one line per finished iteration
    runs/NAME/tb/                      TensorBoard scalars
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

from ..arena.match import GameRecord, make_openings, play_match, read_records, records_jsonl, summarize
from ..arena.players import Player
from ..arena.ratings import SPRT, rate_players
from ..data.shards import ShardError, read_shard
from ..fileio import write_text_atomic
from ..selfplay import KomiSampler, run_selfplay
from ..train.trainer import Trainer
from ..train.window import ReplayWindow
from .config import PipelineConfig


class RunDir:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        for sub in ("checkpoints", "models", "selfplay", "eval", "engines", "tb"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    config = property(lambda self: self.root / "config.json")
    komi = property(lambda self: self.root / "komi_stats.json")
    metrics = property(lambda self: self.root / "metrics.jsonl")
    selfplay = property(lambda self: self.root / "selfplay")

    def checkpoint(self, k: int) -> Path:
        return self.root / "checkpoints" / f"iter_{k:04d}.pt"

    def model(self, k: int) -> Path:
        return self.root / "models" / f"model_{k:04d}.onnx"

    def evaluation(self, k: int) -> Path:
        return self.root / "eval" / f"iter_{k:04d}.json"

    def latest_model(self) -> int:
        """The newest iteration whose checkpoint and model both exist (-1 if none)."""
        k = -1
        while self.checkpoint(k + 1).exists() and self.model(k + 1).exists():
            k += 1
        return k


def resolve_config(run: RunDir, requested: PipelineConfig) -> PipelineConfig:
    """The run's saved config (backend, device and threads may change on resume), or the requested one."""
    if not run.config.exists():
        requested.save(run.config)
        return requested
    saved = PipelineConfig.load(run.config)
    changeable = ("backend", "device", "inference_threads")
    a = {k: v for k, v in saved.to_dict().items() if k not in changeable}
    b = {k: v for k, v in requested.to_dict().items() if k not in changeable}
    if a != b:
        differing = sorted(k for k in a if a[k] != b.get(k))
        raise ValueError(f"{run.root} was started with another configuration (differs in: {', '.join(differing)}); "
                         f"use a new --run-dir, or the run's own preset '{saved.preset}'")
    return replace(saved, **{k: getattr(requested, k) for k in changeable})


def make_evaluator(config: PipelineConfig, run: RunDir, k: int, log=print):
    threads = config.inference_threads or os.cpu_count() or 1
    if config.backend == "onnx":
        from ..infer.onnx_backend import OnnxEvaluator
        evaluator = OnnxEvaluator(run.model(k), device=config.device, threads=threads)
    elif config.backend == "torch":
        import torch

        from ..infer.torch_backend import TorchEvaluator
        from ..train.trainer import load_network
        torch.set_num_threads(threads)
        evaluator = TorchEvaluator(load_network(run.checkpoint(k), expect=config.model)[0], device=config.device)
    elif config.backend == "trt":
        from ..infer.trt_backend import TensorRTEvaluator
        evaluator = TensorRTEvaluator(run.model(k), run.root / "engines",
                                      max_batch=config.selfplay.concurrent_games * config.selfplay.leaves_per_game,
                                      log=log)
    else:
        raise ValueError(f"unknown backend '{config.backend}' (torch, onnx or trt)")
    return evaluator


def completed_selfplay(run: RunDir, k: int) -> tuple[int, int]:
    """(games already written for iteration k, next chunk number). A chunk counts once its
    shard exists (written after its records); records left without a shard are removed."""
    games, chunks = 0, 0
    for shard in sorted(run.selfplay.glob(f"iter{k:04d}-*.pcs")):
        try:
            games += int(read_shard(shard).header["meta"]["games"])
        except (ShardError, KeyError, ValueError) as e:
            raise ShardError(f"self-play chunk {shard} is unreadable ({e}); delete it to replay its games") from e
        chunks = max(chunks, int(shard.stem.split("-")[-1]) + 1)
    for records in run.selfplay.glob(f"iter{k:04d}-*.games.jsonl"):
        if not records.with_name(records.name.replace(".games.jsonl", ".pcs")).exists():
            records.unlink()  # killed between the two writes: the chunk is replayed
    return games, chunks


def stage_selfplay(config: PipelineConfig, run: RunDir, k: int, progress: bool, log) -> dict:
    done, chunk = completed_selfplay(run, k)
    wanted = config.games_per_iteration - done
    if wanted <= 0:
        return {"games": 0, "resumed_games": done}
    evaluator = make_evaluator(config, run, k, log)
    describe = getattr(evaluator, "describe", lambda: config.backend)()
    log(f"[iter {k}] self-play: {wanted} games with model_{k:04d} on {describe}"
        + (f" ({done} already written)" if done else ""))
    komi = KomiSampler.load(run.komi)
    stats = run_selfplay(evaluator, config.selfplay, run.selfplay, f"iter{k:04d}", wanted, komi, run.komi,
                         seed=config.seed * 100_003 + k * 1009 + chunk, first_chunk=chunk,
                         model_name=f"model_{k:04d}", progress=progress)
    summary = stats.summary()
    summary["resumed_games"] = done
    summary["fair_komi"] = komi.fair_komi()
    return summary


def stage_train(config: PipelineConfig, run: RunDir, k: int, progress: bool, log) -> dict:
    target = run.checkpoint(k + 1)
    if target.exists():
        return {}
    trainer = Trainer.resume(run.checkpoint(k), model_config=config.model, train_config=config.train,
                             device="cuda" if config.device == "cuda" else "cpu", log_dir=run.root / "tb")
    window = ReplayWindow(run.selfplay, config.train.window_samples, config.train.val_fraction)
    metrics: dict = {"window_samples": window.num_samples}
    if window.num_samples < config.min_samples_to_train:
        log(f"[iter {k}] train: only {window.num_samples} samples (< {config.min_samples_to_train}); "
            "keeping the weights")
    else:
        log(f"[iter {k}] train: {config.steps_per_iteration} steps on a window of {window.num_samples} samples")
        val = window.validation_batches(512, limit=4096) if len(window.val_rows) else None
        metrics.update(trainer.train(window, config.steps_per_iteration, progress=progress, val_batches=val))
    metrics["step"] = trainer.step
    trainer.save(target)
    return metrics


def stage_export(config: PipelineConfig, run: RunDir, k: int, log) -> None:
    if run.model(k + 1).exists():
        return
    from ..nn.export import export_onnx
    from ..train.trainer import load_network

    net, ckpt = load_network(run.checkpoint(k + 1), expect=config.model)
    export_onnx(net, run.model(k + 1), extra_metadata={"iteration": str(k + 1), "step": str(ckpt.step)})
    log(f"[iter {k}] exported {run.model(k + 1).relative_to(run.root)}")


def stage_engine(config: PipelineConfig, run: RunDir, k: int, log) -> None:
    if config.backend != "trt":
        return
    from ..infer.trt_backend import build_engine
    build_engine(run.model(k + 1), run.root / "engines",
                 max_batch=config.selfplay.concurrent_games * config.selfplay.leaves_per_game, log=log)


def stage_evaluate(config: PipelineConfig, run: RunDir, k: int, progress: bool, log) -> dict:
    """Model k+1 against model k and against the baseline bot; ratings over all evaluation games."""
    path = run.evaluation(k + 1)
    if path.exists():
        return json.loads(path.read_text())
    ev = config.evaluation
    openings = make_openings(ev.openings, ev.opening_plies, seed=config.seed + k)
    n = 2 * len(openings)
    new_name, old_name = f"model_{k + 1:04d}", f"model_{k:04d}"

    def network(name: str, index: int) -> Player:
        return Player(name, n, evaluator=make_evaluator(config, run, index, log), visits=ev.visits, seed=index)

    new = network(new_name, k + 1)
    records = play_match(new, network(old_name, k), openings, progress=progress, desc=f"eval vs {old_name}")
    records += play_match(new, Player(ev.baseline, n, bot=ev.baseline, seed=k), openings, progress=progress,
                          desc=f"eval vs {ev.baseline}")
    games_path = path.with_suffix(".games.jsonl")
    write_text_atomic(games_path, records_jsonl(records))
    everything: list[GameRecord] = []
    for f in sorted((run.root / "eval").glob("iter_*.games.jsonl")):
        everything += read_records(f)
    ratings = rate_players(everything, anchor=ev.baseline)
    vs_old = summarize(records, new_name, old_name)
    scores = [r.score_for(new_name) for r in records if {r.black, r.white} == {new_name, old_name}]
    accepted = True
    if ev.gating:
        accepted = SPRT(ev.sprt_elo0, ev.sprt_elo1, ev.sprt_alpha, ev.sprt_beta).decide(scores) != "H0"
    result = {
        "iteration": k + 1,
        "vs_previous": vs_old,
        "vs_baseline": summarize(records, new_name, ev.baseline),
        "ratings": {name: r.__dict__ for name, r in ratings.items()},
        "anchor": ev.baseline,
        "accepted": accepted,
    }
    write_text_atomic(path, json.dumps(result, indent=1))
    return result


def append_metrics(run: RunDir, line: dict) -> None:
    if run.metrics.exists():
        for existing in run.metrics.read_text().splitlines():
            if existing.strip() and json.loads(existing).get("iteration") == line["iteration"]:
                return
    with open(run.metrics, "a") as f:
        f.write(json.dumps(line) + "\n")


def log_tensorboard(run: RunDir, k: int, selfplay: dict, evaluation: dict) -> None:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(run.root / "tb")) as writer:
        for key in ("games_per_s", "positions_per_s", "nn_evals_per_s", "mean_batch", "cache_hit_rate",
                    "eval_share", "fair_komi"):
            if key in selfplay:
                writer.add_scalar(f"selfplay/{key}", selfplay[key], k)
        rating = evaluation.get("ratings", {}).get(f"model_{k + 1:04d}")
        if rating:
            writer.add_scalar("eval/elo_vs_baseline", rating["elo"], k + 1)


def run_pipeline(run_dir: str | Path, config: PipelineConfig, iterations: int | None = None,
                 progress: bool = True, log=print, selfplay_stage=stage_selfplay) -> int:
    """Runs until `iterations` iterations are complete (forever if None); returns the newest model index."""
    run = RunDir(run_dir)
    config = resolve_config(run, config)
    if config.backend == "trt" and config.device != "cuda":
        raise ValueError("the TensorRT backend runs on a GPU: use --device cuda")
    log(f"run {run.root} | preset {config.preset} | model {config.model.preset} | backend {config.backend} "
        f"on {config.device}")
    if not run.checkpoint(0).exists():
        Trainer(config.model, config.train, log_dir=None).save(run.checkpoint(0))
    if not run.model(0).exists():
        from ..nn.export import export_onnx
        from ..train.trainer import load_network
        export_onnx(load_network(run.checkpoint(0))[0], run.model(0), extra_metadata={"iteration": "0", "step": "0"})
    k = run.latest_model()
    while iterations is None or k < iterations:
        start = time.perf_counter()
        times = {}
        t = time.perf_counter()
        selfplay = selfplay_stage(config, run, k, progress, log)
        times["selfplay_s"] = time.perf_counter() - t
        t = time.perf_counter()
        train = stage_train(config, run, k, progress, log)
        times["train_s"] = time.perf_counter() - t
        t = time.perf_counter()
        stage_export(config, run, k, log)
        stage_engine(config, run, k, log)
        times["export_s"] = time.perf_counter() - t
        t = time.perf_counter()
        evaluation = stage_evaluate(config, run, k, progress, log)
        times["evaluate_s"] = time.perf_counter() - t
        line = {"iteration": k + 1, "time": time.time(), "seconds": time.perf_counter() - start, **times,
                "selfplay": selfplay, "train": {key: v for key, v in train.items() if isinstance(v, (int, float))},
                "evaluation": {key: evaluation.get(key) for key in ("vs_previous", "vs_baseline", "accepted")}}
        append_metrics(run, line)
        log_tensorboard(run, k, selfplay, evaluation)
        rating = evaluation.get("ratings", {}).get(f"model_{k + 1:04d}", {})
        vs = evaluation.get("vs_previous", {})
        log(f"[iter {k + 1}] done in {line['seconds']:.0f}s | self-play {selfplay.get('games', 0)} games "
            f"{selfplay.get('positions_per_s', 0):.0f} pos/s {selfplay.get('nn_evals_per_s', 0):.0f} evals/s "
            f"(network {selfplay.get('eval_share', 0):.0%}) | loss {train.get('loss/total', float('nan')):.3f} | "
            f"vs previous +{vs.get('a_wins', 0)}={vs.get('draws', 0)}-{vs.get('b_wins', 0)} | "
            f"Elo vs {config.evaluation.baseline} {rating.get('elo', 0):+.0f} "
            f"[{rating.get('low', 0):+.0f}, {rating.get('high', 0):+.0f}]")
        k += 1
    return k
