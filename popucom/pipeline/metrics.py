"""The run's figures: metrics.jsonl (one line per finished iteration) and TensorBoard
scalars, written by the last stage of an iteration from the recorded figures of every
stage, including those that finished before a kill."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from ..fileio import append_lines, json_lines
from ..run_layout import RunLayout
from .run_dir import RunDir
from .stages import Iteration

logger = logging.getLogger(__name__)


def read_metrics(path: Path, skip_bad: bool = False) -> list[dict]:
    """The lines of metrics.jsonl. A torn last line (a kill in the middle of an append) is skipped
    with a warning. Any other line that is not a JSON object (a hand edit) is named by file and
    line and raises ValueError, or with `skip_bad` is logged as a warning and skipped."""
    lines = []
    try:
        numbered = json_lines(path)
    except FileNotFoundError:
        return []
    for number, raw in numbered:
        try:
            line = json.loads(raw)
            if not isinstance(line, dict):
                raise ValueError("not a JSON object")
        except (ValueError, RecursionError) as e:
            message = f"{path}:{number}: not a metrics line ({e}): {raw[:80]!r}"
            if not skip_bad:
                raise ValueError(message + "; fix or delete that line") from None
            logger.warning(f"{message}; skipped")
            continue
        lines.append(line)
    return lines


def append_metrics(run: RunDir, line: dict) -> None:
    """Appends the line of an iteration that has none yet (bad lines already there are skipped)."""
    if any(existing.get("iteration") == line["iteration"] for existing in read_metrics(run.metrics, skip_bad=True)):
        return
    append_lines(run.metrics, json.dumps(line) + "\n")


def log_tensorboard(run: RunDir, k: int, selfplay: dict, evaluation: dict, ladder: dict) -> None:
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(run.tensorboard)) as writer:
        if ladder:
            for tag, key in (("elo", "elo"), ("elo_low", "low"), ("elo_high", "high")):
                writer.add_scalar(f"ladder/{tag}", ladder[key], k + 1)
            # step = seconds of run time, for a curve against wall time
            writer.add_scalar("ladder/elo_by_hours", ladder["elo"], round(ladder["wall_hours"] * 3600))
        for key in (
            "games_per_s",
            "positions_per_s",
            "nn_evals_per_s",
            "mean_batch",
            "cache_hit_rate",
            "eval_share",
            "fair_komi",
        ):
            if key in selfplay:
                writer.add_scalar(f"selfplay/{key}", selfplay[key], k)
        rating = evaluation.get("ratings", {}).get(RunLayout.model_name(k + 1))
        if rating:
            writer.add_scalar("eval/elo_vs_baseline", rating["elo"], k + 1)


def stage_metrics(it: Iteration) -> dict:
    """One metrics.jsonl line and TensorBoard scalars from the recorded figures of every stage,
    including those that finished before a kill."""
    config, run, k = it.config, it.run, it.k
    selfplay = it.results.get("selfplay", {})
    train = it.results.get("train", {})
    evaluation = it.results.get("evaluate", {})
    sec = it.seconds
    times = {
        "selfplay_s": sec.get("selfplay", 0.0),
        "train_s": sec.get("train", 0.0),
        "export_s": sec.get("export", 0.0) + sec.get("engine", 0.0),
        "evaluate_s": sec.get("evaluate", 0.0),
    }
    line = {
        "iteration": k + 1,
        "time": time.time(),
        "seconds": sum(sec.values()),
        **times,
        "selfplay": selfplay,
        "train": {key: v for key, v in train.items() if isinstance(v, (int, float))},
        "evaluation": {key: evaluation.get(key) for key in ("vs_previous", "vs_baseline", "accepted")},
        "ladder": it.results.get("ladder", {}),
    }
    append_metrics(run, line)
    log_tensorboard(run, k, selfplay, evaluation, it.results.get("ladder", {}))
    logger.info(
        f"[iter {k + 1}] done in {line['seconds']:.0f}s | self-play {selfplay.get('games', 0)} games "
        f"{selfplay.get('positions_per_s', 0):.0f} pos/s {selfplay.get('nn_evals_per_s', 0):.0f} evals/s "
        f"(network {selfplay.get('eval_share', 0):.0%}) | loss {train.get('loss/total', float('nan')):.3f}"
        f"{evaluation_summary(evaluation, k, config.evaluation.baseline)}"
    )
    return {}


def evaluation_summary(evaluation: dict, k: int, baseline: str) -> str:
    """The log line's evaluation part: empty for a model that played none."""
    if not evaluation:
        return ""
    rating = evaluation.get("ratings", {}).get(RunLayout.model_name(k + 1), {})
    vs = evaluation.get("vs_previous", {})
    return (
        f" | vs {evaluation.get('previous', 'previous')} +{vs.get('a_wins', 0)}={vs.get('draws', 0)}"
        f"-{vs.get('b_wins', 0)} | Elo vs {baseline} {rating.get('elo', 0):+.0f} "
        f"[{rating.get('low', 0):+.0f}, {rating.get('high', 0):+.0f}]"
    )
