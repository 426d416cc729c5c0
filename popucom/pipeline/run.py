"""The run_pipeline loop.

An iteration K -> K+1 is a list of named stages (STAGES: self-play, train,
export, engine, evaluate, metrics). Every stage writes its output atomically
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

    runs/NAME/pipeline.lock            who runs the pipeline now (absent when none)
    runs/NAME/stages/iter_K.json       the stages of iteration K recorded as finished
    runs/NAME/config.json              the resolved config (written once)
    runs/NAME/checkpoints/iter_K.pt    trainer state after K iterations (0 = random init)
    runs/NAME/checkpoints/iter_K.train.json   that training's figures (written before the .pt)
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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..arena.match import GameRecord, make_openings, play_match, read_records, records_jsonl, summarize
from ..arena.players import Player
from ..arena.ratings import SPRT, rate_players
from ..data.shards import ShardError, read_shard
from ..fileio import write_text_atomic
from ..selfplay import KomiSampler, run_selfplay
from ..train.trainer import Trainer
from ..train.window import ReplayWindow
from .config import PipelineConfig
from .lock import RunLock

Log = Callable[[str], None]


class RunDir:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise ValueError(f"run directory {self.root} is a file, not a directory: choose another --run-dir")
        try:
            for sub in ("checkpoints", "models", "selfplay", "eval", "engines", "tb", "stages"):
                (self.root / sub).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"cannot create run directory {self.root}: {e.strerror or e}") from None

    config = property(lambda self: self.root / "config.json")
    komi = property(lambda self: self.root / "komi_stats.json")
    metrics = property(lambda self: self.root / "metrics.jsonl")
    selfplay = property(lambda self: self.root / "selfplay")
    lock = property(lambda self: self.root / "pipeline.lock")

    def check_writable(self) -> None:
        """Fails now, before hours of work, if the run's files cannot be written (read-only
        directory, full disk, another user's files)."""
        for sub in ("", "checkpoints", "models", "selfplay", "eval", "stages"):
            probe = self.root / sub / f".write-probe-{os.getpid()}"
            try:
                probe.write_bytes(b"x" * 4096)
                probe.unlink()
            except OSError as e:
                raise ValueError(f"cannot write into {probe.parent}: {e.strerror or e}") from None

    def checkpoint(self, k: int) -> Path:
        return self.root / "checkpoints" / f"iter_{k:04d}.pt"

    def train_figures(self, k: int) -> Path:
        return self.root / "checkpoints" / f"iter_{k:04d}.train.json"

    def model(self, k: int) -> Path:
        return self.root / "models" / f"model_{k:04d}.onnx"

    def evaluation(self, k: int) -> Path:
        return self.root / "eval" / f"iter_{k:04d}.json"

    def stages(self, k: int) -> Path:
        """The completion record of iteration k (the one that produces model k)."""
        return self.root / "stages" / f"iter_{k:04d}.json"

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


def check_run_model(config: PipelineConfig, path: Path) -> None:
    """Refuses an ONNX model that is not a model of this run (another preset, architecture or
    feature version), e.g. one copied in by hand as model_NNNN.onnx."""
    from ..nn.config import ModelConfig
    from ..nn.export import check_metadata, read_metadata

    metadata = read_metadata(path)
    check_metadata(metadata, path)
    try:
        found = ModelConfig.from_dict(json.loads(metadata.get("model_config", ""))).to_dict()
    except (ValueError, TypeError, KeyError) as e:
        raise ValueError(f"{path} has no readable model_config metadata ({e}); delete it and the run "
                         "re-exports it from its checkpoint") from None
    wanted = config.model.to_dict()
    diffs = [f"{key}: file has {found.get(key)!r}, run has {wanted.get(key)!r}"
             for key in sorted(set(found) | set(wanted)) if found.get(key) != wanted.get(key)]
    if diffs:
        raise ValueError(f"{path} is not a model of this run (preset {config.model.preset}):\n  " + "\n  ".join(diffs)
                         + "\ndelete it (the run re-exports it from its checkpoint) or use another --run-dir")


def make_evaluator(config: PipelineConfig, run: RunDir, k: int, log: Log = print):
    """Model k on the run's backend, through the one inference entry point (popucom.infer)."""
    from ..infer import load_evaluator

    threads = config.inference_threads or os.cpu_count() or 1
    if config.backend == "torch":
        return load_evaluator(run.checkpoint(k), backend="torch", device=config.device, threads=threads,
                              expect=config.model)
    if config.backend not in ("onnx", "trt"):
        raise ValueError(f"unknown backend '{config.backend}' (torch, onnx or trt)")
    check_run_model(config, run.model(k))
    return load_evaluator(run.model(k), backend=config.backend, device=config.device, threads=threads,
                          engine_cache=run.root / "engines",
                          max_batch=config.selfplay.concurrent_games * config.selfplay.leaves_per_game)


def completed_selfplay(run: RunDir, k: int) -> tuple[int, int]:
    """(games already written for iteration k, next chunk number). A chunk counts once its
    shard exists (written after its records); records left without a shard are removed."""
    games, chunks = 0, 0
    for shard in sorted(run.selfplay.glob(f"iter{k:04d}-*.pcs")):
        try:
            games += int(read_shard(shard).header["meta"]["games"])
        except (ShardError, KeyError, ValueError, TypeError) as e:
            raise ShardError(f"self-play chunk {shard} is unreadable ({e}); delete it to replay its games") from e
        chunks = max(chunks, int(shard.stem.split("-")[-1]) + 1)
    for records in run.selfplay.glob(f"iter{k:04d}-*.games.jsonl"):
        if not records.with_name(records.name.replace(".games.jsonl", ".pcs")).exists():
            records.unlink()  # killed between the two writes: the chunk is replayed
    return games, chunks


# --- the stages of one iteration ---------------------------------------------------------

SelfPlayStage = Callable[[PipelineConfig, RunDir, int, bool, Log], dict]


@dataclass
class Iteration:
    """What a stage gets: iteration k trains model k+1 from model k's self-play."""
    config: PipelineConfig
    run: RunDir
    k: int
    progress: bool
    log: Log
    selfplay_stage: SelfPlayStage
    results: dict[str, Any] = field(default_factory=dict)  # stage name -> figures of finished stages
    seconds: dict[str, float] = field(default_factory=dict)  # stage name -> seconds it took


def best_model(config: PipelineConfig, run: RunDir, k: int) -> int:
    """The model that plays self-play after k iterations: the newest one, or with gating
    the newest one that passed its gate (model 0 always has)."""
    if not config.evaluation.gating:
        return k
    for j in range(k, 0, -1):
        path = run.evaluation(j)
        if path.exists() and json.loads(path.read_text()).get("accepted", True):
            return j
    return 0


def stage_selfplay(config: PipelineConfig, run: RunDir, k: int, progress: bool, log: Log) -> dict:
    done, chunk = completed_selfplay(run, k)
    wanted = config.games_per_iteration - done
    if wanted <= 0:
        return {"games": 0, "resumed_games": done}
    player = best_model(config, run, k)
    evaluator = make_evaluator(config, run, player, log)
    describe = getattr(evaluator, "describe", lambda: config.backend)()
    log(f"[iter {k}] self-play: {wanted} games with model_{player:04d} on {describe}"
        + (f" ({done} already written)" if done else ""))
    komi = KomiSampler.load(run.komi)
    stats = run_selfplay(evaluator, config.selfplay, run.selfplay, f"iter{k:04d}", wanted, komi, run.komi,
                         seed=config.seed * 100_003 + k * 1009 + chunk, first_chunk=chunk,
                         model_name=f"model_{player:04d}", progress=progress)
    summary = stats.summary()
    summary["resumed_games"] = done
    summary["fair_komi"] = komi.fair_komi()
    return summary


def run_selfplay_stage(it: Iteration) -> dict:
    return it.selfplay_stage(it.config, it.run, it.k, it.progress, it.log)


def selfplay_rows(run: RunDir, k: int) -> tuple[int, int]:
    """Training rows written by all self-play so far, and by iteration k's."""
    total = new = 0
    for path in run.selfplay.glob("*.pcs"):
        rows = len(read_shard(path))
        total += rows
        new += rows if path.name.startswith(f"iter{k:04d}-") else 0
    return total, new


def stage_train(it: Iteration) -> dict:
    config, run, k, log = it.config, it.run, it.k, it.log
    target = run.checkpoint(k + 1)
    if target.exists():
        # Trained before a kill that came before the stage was recorded: the figures were
        # written just before the checkpoint.
        try:
            return json.loads(run.train_figures(k + 1).read_text())
        except (OSError, ValueError):
            return {}
    trainer = Trainer.resume(run.checkpoint(k), model_config=config.model, train_config=config.train,
                             device="cuda" if config.device == "cuda" else "cpu", log_dir=run.root / "tb")
    total_rows, new_rows = selfplay_rows(run, k)
    window = ReplayWindow(run.selfplay, config.window_size(total_rows), config.train.val_fraction)
    steps = config.train_steps(new_rows)
    metrics: dict = {"window_samples": window.num_samples, "new_rows": new_rows, "total_rows": total_rows}
    if window.num_samples < config.min_samples_to_train:
        log(f"[iter {k}] train: only {window.num_samples} samples (< {config.min_samples_to_train}); "
            "keeping the weights")
    else:
        log(f"[iter {k}] train: {steps} steps on a window of {window.num_samples} samples ({new_rows} new)")
        val = window.validation_batches(512, limit=4096) if len(window.val_rows) else None
        metrics.update(trainer.train(window, steps, progress=it.progress, val_batches=val))
    metrics["step"] = trainer.step
    metrics = {key: v for key, v in metrics.items() if isinstance(v, (int, float))}
    write_text_atomic(run.train_figures(k + 1), json.dumps(metrics))
    trainer.save(target)
    return metrics


def stage_export(it: Iteration) -> dict:
    config, run, k = it.config, it.run, it.k
    if run.model(k + 1).exists():
        check_run_model(config, run.model(k + 1))
        return {}
    from ..nn.export import export_onnx
    from ..train.trainer import load_network

    net, ckpt = load_network(run.checkpoint(k + 1), expect=config.model)
    export_onnx(net, run.model(k + 1), extra_metadata={"iteration": str(k + 1), "step": str(ckpt.step)})
    it.log(f"[iter {k}] exported {run.model(k + 1).relative_to(run.root)}")
    return {}


def stage_engine(it: Iteration) -> dict:
    config, run, k = it.config, it.run, it.k
    if config.backend != "trt":
        return {}
    from ..infer.trt_backend import build_engine
    build_engine(run.model(k + 1), run.root / "engines",
                 max_batch=config.selfplay.concurrent_games * config.selfplay.leaves_per_game, log=it.log)
    return {}


def stage_evaluate(it: Iteration) -> dict:
    """Model k+1 against the previous model (with gating: the model self-play uses now) and
    against the baseline bot; ratings over all evaluation games. With gating, the new model
    replaces that one in self-play only if it passes the SPRT."""
    config, run, k, progress, log = it.config, it.run, it.k, it.progress, it.log
    path = run.evaluation(k + 1)
    if path.exists():
        return json.loads(path.read_text())
    ev = config.evaluation
    openings = make_openings(ev.openings, ev.opening_plies, seed=config.seed + k)
    n = 2 * len(openings)
    previous = best_model(config, run, k)
    new_name, old_name = f"model_{k + 1:04d}", f"model_{previous:04d}"

    def network(name: str, index: int) -> Player:
        return Player(name, n, evaluator=make_evaluator(config, run, index, log), visits=ev.visits, seed=index)

    new = network(new_name, k + 1)
    records = play_match(new, network(old_name, previous), openings, progress=progress, desc=f"eval vs {old_name}")
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
        "previous": old_name,
    }
    write_text_atomic(path, json.dumps(result, indent=1))
    return result


def read_metrics(path: Path, log: Log | None = None) -> list[dict]:
    """The lines of metrics.jsonl. A line that is not a JSON object (a hand edit, a kill in the
    middle of an append) is named by file and line and skipped with `log`, or raises ValueError
    when no log is given."""
    lines = []
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            if not isinstance(line, dict):
                raise ValueError("not a JSON object")
        except ValueError as e:
            message = f"{path}:{number}: not a metrics line ({e}): {raw[:80]!r}"
            if log is None:
                raise ValueError(message) from None
            log(f"warning: {message}; skipped")
            continue
        lines.append(line)
    return lines


def append_metrics(run: RunDir, line: dict, log: Log = print) -> None:
    if any(existing.get("iteration") == line["iteration"] for existing in read_metrics(run.metrics, log)):
        return
    with open(run.metrics, "a+b") as f:
        f.seek(0, os.SEEK_END)
        if f.tell():
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":  # a kill cut the last append short: keep this line whole
                f.write(b"\n")
        f.write((json.dumps(line) + "\n").encode())


def log_tensorboard(run: RunDir, k: int, selfplay: dict, evaluation: dict, ladder: dict) -> None:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(run.root / "tb")) as writer:
        if ladder:
            for tag, key in (("elo", "elo"), ("elo_low", "low"), ("elo_high", "high")):
                writer.add_scalar(f"ladder/{tag}", ladder[key], k + 1)
            # step = seconds of run time, for a curve against wall time
            writer.add_scalar("ladder/elo_by_hours", ladder["elo"], round(ladder["wall_hours"] * 3600))
        for key in ("games_per_s", "positions_per_s", "nn_evals_per_s", "mean_batch", "cache_hit_rate",
                    "eval_share", "fair_komi"):
            if key in selfplay:
                writer.add_scalar(f"selfplay/{key}", selfplay[key], k)
        rating = evaluation.get("ratings", {}).get(f"model_{k + 1:04d}")
        if rating:
            writer.add_scalar("eval/elo_vs_baseline", rating["elo"], k + 1)


def run_wall_hours(run: RunDir, upto: int) -> float:
    """Wall-clock hours the run's recorded stages took, iterations 1..upto."""
    seconds = 0.0
    for k in range(upto):
        seconds += sum(float(done.get("seconds", 0.0)) for done in read_stage_record(run, k).values())
    return seconds / 3600


def stage_ladder(it: Iteration) -> dict:
    """A ladder point for the new model when `ladder.every_minutes` of run time have passed since the last."""
    config, run, k = it.config, it.run, it.k
    if config.ladder is None:
        return {}
    from ..arena.ladder import Ladder, LadderPoint
    from ..infer import load_evaluator

    ladder = Ladder(run.root / "ladder", config.ladder)
    hours = run_wall_hours(run, k) + sum(it.seconds.values()) / 3600
    points = ladder.points()
    if points and (hours - points[-1].wall_hours) * 60 < config.ladder.every_minutes:
        return {}
    name = f"model_{k + 1:04d}"
    point = LadderPoint(name, k + 1, hours, selfplay_rows(run, k)[0])
    threads = config.ladder.threads
    ladder.play_point(point, lambda: load_evaluator(run.model(k + 1), threads=threads), progress=it.progress,
                      log=it.log)
    ratings = ladder.refit()
    ladder.plot(ratings, title=f"{run.root.name}: strength ladder at {config.ladder.visits} visits")
    mine = ratings[name]
    it.log(f"[iter {k + 1}] ladder: {name} at {config.ladder.visits} visits {mine.elo:+.0f} "
           f"[{mine.low:+.0f}, {mine.high:+.0f}] Elo over random; curve in {ladder.folder / 'curve.png'}")
    return {"model": name, "elo": mine.elo, "low": mine.low, "high": mine.high, "wall_hours": hours}


def stage_metrics(it: Iteration) -> dict:
    """One metrics.jsonl line and TensorBoard scalars from the recorded figures of every stage,
    including those that finished before a kill."""
    config, run, k = it.config, it.run, it.k
    selfplay = it.results.get("selfplay", {})
    train = it.results.get("train", {})
    evaluation = it.results.get("evaluate", {})
    sec = it.seconds
    times = {"selfplay_s": sec.get("selfplay", 0.0), "train_s": sec.get("train", 0.0),
             "export_s": sec.get("export", 0.0) + sec.get("engine", 0.0), "evaluate_s": sec.get("evaluate", 0.0)}
    line = {"iteration": k + 1, "time": time.time(), "seconds": sum(sec.values()), **times,
            "selfplay": selfplay, "train": {key: v for key, v in train.items() if isinstance(v, (int, float))},
            "evaluation": {key: evaluation.get(key) for key in ("vs_previous", "vs_baseline", "accepted")},
            "ladder": it.results.get("ladder", {})}
    append_metrics(run, line, it.log)
    log_tensorboard(run, k, selfplay, evaluation, it.results.get("ladder", {}))
    rating = evaluation.get("ratings", {}).get(f"model_{k + 1:04d}", {})
    vs = evaluation.get("vs_previous", {})
    it.log(f"[iter {k + 1}] done in {line['seconds']:.0f}s | self-play {selfplay.get('games', 0)} games "
           f"{selfplay.get('positions_per_s', 0):.0f} pos/s {selfplay.get('nn_evals_per_s', 0):.0f} evals/s "
           f"(network {selfplay.get('eval_share', 0):.0%}) | loss {train.get('loss/total', float('nan')):.3f} | "
           f"vs previous +{vs.get('a_wins', 0)}={vs.get('draws', 0)}-{vs.get('b_wins', 0)} | "
           f"Elo vs {config.evaluation.baseline} {rating.get('elo', 0):+.0f} "
           f"[{rating.get('low', 0):+.0f}, {rating.get('high', 0):+.0f}]")
    return {}


# In order. The last one marks the iteration complete.
STAGES: list[tuple[str, Callable[[Iteration], dict]]] = [
    ("selfplay", run_selfplay_stage),
    ("train", stage_train),
    ("export", stage_export),
    ("engine", stage_engine),
    ("evaluate", stage_evaluate),
    ("ladder", stage_ladder),
    ("metrics", stage_metrics),
]


def read_stage_record(run: RunDir, k: int) -> dict[str, dict]:
    """Stage name -> {"seconds", "result", "finished"} for the recorded stages of iteration k -> k+1."""
    path = run.stages(k + 1)
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError(f"stage record {path} is unreadable ({e}); delete it to rerun iteration {k + 1}'s "
                         "stages (finished outputs are kept)") from None
    stages = record.get("stages") if isinstance(record, dict) else None
    if not isinstance(stages, dict):
        raise ValueError(f"stage record {path} has no 'stages'; delete it to rerun iteration {k + 1}'s stages")
    return stages


def iteration_complete(run: RunDir, k: int, metric_iterations: set[int]) -> bool:
    if STAGES[-1][0] in read_stage_record(run, k):
        return True
    # Runs from before stage records: a metrics line meant the iteration had finished.
    return not run.stages(k + 1).exists() and k + 1 in metric_iterations


def run_iteration(it: Iteration, stages: list[tuple[str, Callable[[Iteration], dict]]] | None = None) -> None:
    """Runs the stages of the iteration that are not recorded as finished, recording each."""
    record = read_stage_record(it.run, it.k)
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


def run_pipeline(run_dir: str | Path, config: PipelineConfig, iterations: int | None = None,
                 progress: bool = True, log: Log = print, selfplay_stage: SelfPlayStage = stage_selfplay) -> int:
    """Runs until `iterations` iterations are complete (forever if None); returns the newest model index."""
    run = RunDir(run_dir)
    run.check_writable()
    with RunLock(run.lock):
        config = resolve_config(run, config)
        if config.backend == "trt" and config.device != "cuda":
            raise ValueError("the TensorRT backend runs on a GPU: use --device cuda")
        log(f"run {run.root} | preset {config.preset} | model {config.model.preset} | backend {config.backend} "
            f"on {config.device}")
        if not run.checkpoint(0).exists() and config.warm_start is not None:
            from .warm_start import warm_start
            ws = config.warm_start
            figures = warm_start(run.root, config, bot=ws.bot, games=ws.games, epochs=ws.epochs, seed=config.seed,
                                 threads=config.inference_threads or os.cpu_count() or 1, progress=progress, log=log)
            log(f"warm start: iteration 0 trained on {figures['positions']} {ws.bot} positions "
                f"in {figures['seconds']:.0f} s")
        if not run.checkpoint(0).exists():
            Trainer(config.model, config.train, log_dir=None).save(run.checkpoint(0))
        if not run.model(0).exists():
            from ..nn.export import export_onnx
            from ..train.trainer import load_network
            export_onnx(load_network(run.checkpoint(0), expect=config.model)[0], run.model(0),
                        extra_metadata={"iteration": "0", "step": "0"})
        metric_iterations = {line.get("iteration") for line in read_metrics(run.metrics, log)}
        k = 0
        while iteration_complete(run, k, metric_iterations):
            k += 1
        while iterations is None or k < iterations:
            run_iteration(Iteration(config, run, k, progress, log, selfplay_stage))
            k += 1
        return max(k, run.latest_model())
