"""`--ray-address`: self-play on Ray actors across a cluster, training on the head.

Each actor receives the current model's bytes through the Ray object store
(no shared file system needed), plays its share of the iteration's games with
ONNX Runtime, and returns its chunks (shard + game records) as bytes; the head
writes them into the run directory with the same atomic, resumable naming as
a local run, and updates the adaptive komi statistics from the records.
"""

from __future__ import annotations

import json
import logging
import tempfile
import time
from dataclasses import asdict
from functools import partial
from pathlib import Path

from ..fileio import write_bytes_atomic
from ..selfplay import KomiSampler
from .config import PipelineConfig
from .run import run_pipeline
from .run_dir import RunDir, completed_selfplay

logger = logging.getLogger(__name__)


def _actor_class(ray):
    @ray.remote(num_cpus=1)
    class SelfPlayActor:
        def play(self, model: bytes, selfplay: dict, games: int, seed: int, komi_stats: dict) -> list:
            from popucom.infer.onnx_backend import OnnxEvaluator
            from popucom.selfplay import KomiSampler, SelfPlayConfig, run_selfplay

            with tempfile.TemporaryDirectory() as tmp:
                tmp = Path(tmp)
                (tmp / "model.onnx").write_bytes(model)
                komi = KomiSampler.from_dict(komi_stats, source="the driver's komi statistics")
                config = SelfPlayConfig.from_dict(selfplay)
                stats = run_selfplay(
                    OnnxEvaluator(tmp / "model.onnx", threads=1),
                    config,
                    tmp / "out",
                    "w",
                    games,
                    komi,
                    None,
                    seed=seed,
                    progress=False,
                )
                chunks = [
                    ((tmp / "out" / f"{name}.pcs").read_bytes(), (tmp / "out" / f"{name}.games.jsonl").read_bytes())
                    for name in stats.chunks
                ]
                return chunks, stats.summary()

    return SelfPlayActor


def ray_selfplay_stage(config: PipelineConfig, run: RunDir, k: int, progress: bool, actors, ray) -> dict:
    done, chunk = completed_selfplay(run, k)
    wanted = config.games_per_iteration - done
    if wanted <= 0:
        return {"games": 0, "resumed_games": done}
    if config.backend != "onnx":
        raise ValueError("cluster self-play runs ONNX Runtime on the workers: use --backend onnx")
    logger.info(f"[iter {k + 1}] self-play: {wanted} games on {len(actors)} Ray actors")
    model = ray.put(run.model(k).read_bytes())
    komi = KomiSampler.load(run.komi)
    komi_stats = komi.to_dict()
    shares = [wanted // len(actors) + (i < wanted % len(actors)) for i in range(len(actors))]
    futures = [
        actor.play.remote(model, asdict(config.selfplay), share, config.seed * 7919 + k * 101 + i + chunk, komi_stats)
        for i, (actor, share) in enumerate(zip(actors, shares))
        if share > 0
    ]
    games = 0
    started = time.perf_counter()
    results = ray.get(futures)
    wall = time.perf_counter() - started
    for chunks, _ in results:
        for shard, records in chunks:
            name = f"iter{k:04d}-{chunk:05d}"
            write_bytes_atomic(run.selfplay / f"{name}.games.jsonl", records)
            write_bytes_atomic(run.selfplay / f"{name}.pcs", shard)
            chunk += 1
            for line in records.decode().splitlines():
                game = json.loads(line)
                winner = game["result"] if game["end"] == "no_legal_move" else None
                komi.record(game["score"], winner)
                games += 1
    komi.save(run.komi)
    return {
        **combine_worker_stats([summary for _, summary in results], wall),
        "games": games,
        "resumed_games": done,
        "workers": len(actors),
        "fair_komi": komi.fair_komi(),
    }


def combine_worker_stats(summaries: list[dict], wall_seconds: float) -> dict:
    """The iteration's self-play figures from the workers' own: counts add up, rates are per
    second of the head's wall time, shares and means are weighted by each worker's work."""
    total = {
        key: sum(s.get(key, 0) for s in summaries)
        for key in (
            "positions",
            "moves",
            "nn_evals",
            "black_wins",
            "white_wins",
            "draws",
            "full_searches",
            "noisy_full_searches",
            "noisy_fast_searches",
        )
    }
    worker_seconds = sum(s.get("seconds", 0.0) for s in summaries)
    eval_seconds = sum(s.get("eval_seconds", 0.0) for s in summaries)
    evals = max(total["nn_evals"], 1)
    per_s = 1.0 / wall_seconds if wall_seconds > 0 else 0.0
    return {
        **total,
        "seconds": wall_seconds,
        "worker_seconds": worker_seconds,
        "eval_seconds": eval_seconds,
        "eval_share": eval_seconds / worker_seconds if worker_seconds else 0.0,
        "mean_batch": sum(s.get("mean_batch", 0.0) * s.get("nn_evals", 0) for s in summaries) / evals,
        "max_batch": max((s.get("max_batch", 0) for s in summaries), default=0),
        "cache_hit_rate": sum(s.get("cache_hit_rate", 0.0) * s.get("nn_evals", 0) for s in summaries) / evals,
        "positions_per_s": total["positions"] * per_s,
        "moves_per_s": total["moves"] * per_s,
        "nn_evals_per_s": total["nn_evals"] * per_s,
    }


def run_cluster_pipeline(
    run_dir: str | Path,
    config: PipelineConfig,
    iterations: int | None,
    address: str,
    workers: int | None = None,
    progress: bool = True,
    stop_after_minutes: float | None = None,
) -> int:
    """Like run_pipeline, with self-play on Ray actors. address "local" starts a local Ray instance."""
    try:
        import ray
    except ImportError as e:
        raise RuntimeError("--ray-address needs the [cluster] extra: pip install 'popucom[cluster]'") from e
    if not ray.is_initialized():
        ray.init(
            address=None if address == "local" else address,
            include_dashboard=False,
            log_to_driver=False,
            **({"num_cpus": workers} if address == "local" and workers else {}),
        )
    count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    actor_class = _actor_class(ray)
    actors = [actor_class.remote() for _ in range(count)]
    logger.info(f"Ray cluster at {address}: {count} self-play actors")
    return run_pipeline(
        run_dir,
        config,
        iterations,
        progress,
        selfplay_stage=partial(ray_selfplay_stage, actors=actors, ray=ray),
        stop_after_minutes=stop_after_minutes,
    )
