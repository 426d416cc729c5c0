"""The run directory of the pipeline: its layout (popucom/run_layout.py) created, the run's saved
config, and what its files say about the run's progress (self-play chunks written, stages
recorded).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..data.shards import ShardError, read_shard
from ..run_layout import RunLayout
from .config import PipelineConfig

_SHARD_NAME = re.compile(r"iter(\d{4,})-\d+\.pcs")


class RunDir(RunLayout):
    """A run directory, its folders created."""

    def __init__(self, root: str | Path) -> None:
        super().__init__(root)
        if self.root.exists() and not self.root.is_dir():
            raise ValueError(f"run directory {self.root} is a file, not a directory: choose another --run-dir")
        try:
            for sub in self.FOLDERS:
                (self.root / sub).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ValueError(f"cannot create run directory {self.root}: {e.strerror or e}") from None

    def check_writable(self) -> None:
        """Fails now, before hours of work, if the run's files cannot be written (read-only
        directory, full disk, another user's files)."""
        for sub in ("", *(folder for folder in self.FOLDERS if folder not in ("engines", "tb"))):
            probe = self.root / sub / f".write-probe-{os.getpid()}"
            try:
                probe.write_bytes(b"x" * 4096)
                probe.unlink()
            except OSError as e:
                raise ValueError(f"cannot write into {probe.parent}: {e.strerror or e}") from None

    def latest_model(self) -> int:
        """The newest iteration whose checkpoint and model both exist, counting from the
        run's first model (-1 if none)."""
        k = first_model(self) - 1
        while self.checkpoint(k + 1).exists() and self.model(k + 1).exists():
            k += 1
        return k


# What may differ between a run's saved config and the one it is resumed with: where and how
# fast the network runs (training compiled or not included), how much self-play runs at once
# (a run moves between a 2-core box and a GPU box), and how often the ladder measures it;
# nothing that shapes the training targets. games_per_iteration only sets how often the model
# is refreshed: with replay_ratio the training steps follow the rows played.
_CHANGEABLE_ON_RESUME = ("backend", "device", "inference_threads", "games_per_iteration")
_SELFPLAY_CHANGEABLE_ON_RESUME = ("concurrent_games", "search_threads", "cache_mb", "games_per_chunk")
_TRAIN_CHANGEABLE_ON_RESUME = ("compile",)


def _training_relevant(config: PipelineConfig) -> dict:
    fields = {k: v for k, v in config.to_dict().items() if k not in _CHANGEABLE_ON_RESUME}
    fields["selfplay"] = {k: v for k, v in fields["selfplay"].items() if k not in _SELFPLAY_CHANGEABLE_ON_RESUME}
    fields["train"] = {k: v for k, v in fields["train"].items() if k not in _TRAIN_CHANGEABLE_ON_RESUME}
    if fields.get("ladder"):
        fields["ladder"] = {k: v for k, v in fields["ladder"].items() if k != "every_minutes"}
    if not config.evaluation.gating:  # then the evaluation only informs: its schedule may change
        fields["evaluation"] = {k: v for k, v in fields["evaluation"].items() if k != "every"}
    if config.replay_ratio <= 0:  # fixed steps per iteration: the iteration's size shapes training
        fields["games_per_iteration"] = config.games_per_iteration
    return fields


def with_machine_settings(config: PipelineConfig, source: PipelineConfig) -> PipelineConfig:
    """`config` with the settings that may change on resume taken from `source`."""
    selfplay = replace(config.selfplay, **{k: getattr(source.selfplay, k) for k in _SELFPLAY_CHANGEABLE_ON_RESUME})
    train = replace(config.train, **{k: getattr(source.train, k) for k in _TRAIN_CHANGEABLE_ON_RESUME})
    changed = {k: getattr(source, k) for k in _CHANGEABLE_ON_RESUME}
    resolved = replace(config, selfplay=selfplay, train=train, **changed)
    if config.ladder is not None and source.ladder is not None:
        resolved = replace(resolved, ladder=replace(config.ladder, every_minutes=source.ladder.every_minutes))
    if not config.evaluation.gating and not source.evaluation.gating:
        resolved = replace(resolved, evaluation=replace(config.evaluation, every=source.evaluation.every))
    return resolved


def resolve_config(run: RunDir, requested: PipelineConfig) -> PipelineConfig:
    """The run's saved config (the machine's settings and the ladder's schedule may change
    on resume, and are saved), or the requested one for a new run."""
    if not run.config.exists():
        requested.save(run.config)
        return requested
    saved = PipelineConfig.load(run.config)
    a, b = _training_relevant(saved), _training_relevant(requested)
    if a != b:
        differing = sorted(k for k in a if a[k] != b.get(k))
        raise ValueError(
            f"{run.root} was started with another configuration (differs in: {', '.join(differing)}); "
            f"use a new --run-dir, or leave out --preset to continue with the run's own config"
        )
    resolved = with_machine_settings(saved, requested)
    if resolved != saved:
        resolved.save(run.config)
    return resolved


# A run exports a model that is missing again from its checkpoint (run.start_run for the first
# model, and a recorded export whose model is gone reruns: stage_output_missing).
REEXPORT = "delete it and run the same command again: the run exports it again from its checkpoint"


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
        raise ValueError(f"{path} has no readable model_config metadata ({e}); {REEXPORT}") from None
    wanted = config.model.to_dict()
    diffs = [
        f"{key}: file has {found.get(key)!r}, run has {wanted.get(key)!r}"
        for key in sorted(set(found) | set(wanted))
        if found.get(key) != wanted.get(key)
    ]
    if diffs:
        raise ValueError(
            f"{path} is not a model of this run (preset {config.model.preset}):\n  "
            + "\n  ".join(diffs)
            + f"\n{REEXPORT}, or use another --run-dir"
        )


def completed_selfplay(run: RunDir, k: int) -> tuple[int, int]:
    """(games already written for iteration k, next chunk number). A chunk counts once its
    shard exists (written after its records); records left without a shard are removed."""
    games, chunks = 0, 0
    for shard in sorted(run.selfplay.glob(f"iter{k:04d}-*.pcs")):
        try:
            games += int(read_shard(shard).header["meta"]["games"])
        except (ShardError, KeyError, ValueError, TypeError) as e:
            raise ShardError(
                f"self-play chunk {shard} is unreadable ({e}); delete it and run the same command again: "
                "its games are played again"
            ) from e
        chunks = max(chunks, int(shard.stem.split("-")[-1]) + 1)
    for records in run.selfplay.glob(f"iter{k:04d}-*.games.jsonl"):
        if not records.with_name(records.name.replace(".games.jsonl", ".pcs")).exists():
            records.unlink()  # killed between the two writes: the chunk is replayed
    return games, chunks


def read_origin(run: RunDir) -> dict:
    """The run's origin.json, where it began (weights.seed_run, grow.py); {} for a run of its
    own. ValueError naming the file when it is unreadable."""
    path = run.origin
    try:
        origin = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is unreadable: {e}") from None
    if not isinstance(origin, dict):
        raise ValueError(f"{path} is unreadable: not a JSON object")
    return origin


def _origin_count(origin: dict, key: str, run: RunDir) -> int:
    try:
        return int(origin.get(key, 0))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{run.origin} is unreadable: {key}: {e}") from None


def rows_before(run: RunDir) -> int:
    """Self-play rows of the runs before this one, for a run started from a shipped model
    (origin.json, weights.seed_run): its replay window keeps the size it had there."""
    return _origin_count(read_origin(run), "rows_before", run)


def _rows_per_iteration(run: RunDir) -> dict[int, int]:
    """Rows of the run's self-play shards (iterK-C.pcs), by the iteration K that played them."""
    rows: dict[int, int] = {}
    for path in run.selfplay.glob("iter*-*.pcs"):
        match = _SHARD_NAME.fullmatch(path.name)
        if match:
            k = int(match[1])
            try:
                rows[k] = rows.get(k, 0) + len(read_shard(path))
            except ShardError as e:
                # Without it the window is smaller; a finished iteration does not replay its games.
                raise ShardError(f"{e}; delete it and run the same command again (the run goes on without it)") from e
    return rows


def selfplay_rows(run: RunDir, k: int) -> tuple[int, int]:
    """Training rows written by all self-play so far (earlier runs' included), and by iteration k's."""
    rows = _rows_per_iteration(run)
    return rows_before(run) + sum(rows.values()), rows.get(k, 0)


def rows_played(run: RunDir, model: int) -> int:
    """Self-play rows behind model `model`: those of iterations before it, earlier runs' included."""
    return rows_before(run) + sum(n for k, n in _rows_per_iteration(run).items() if k < model)


GROW_UNFINISHED = "grow_unfinished.json"  # in a run that `popucom grow` has begun and not finished


def first_model(run: RunDir) -> int:
    """The oldest model of the run: 0, or the iteration a grown run started at (grow.py)."""
    origin = read_origin(run)
    return _origin_count(origin, "iteration", run) if "grown_from" in origin else 0


def best_model(config: PipelineConfig, run: RunDir, k: int) -> int:
    """The model that plays self-play after k iterations: the newest one, or with gating
    the newest one that passed its gate (model 0 always has)."""
    if not config.evaluation.gating:
        return k
    for j in range(k, 0, -1):
        path = run.evaluation(j)
        if path.exists() and json.loads(path.read_text()).get("accepted", True):
            return j
    return first_model(run)


def read_stage_record(run: RunDir, k: int, names: Sequence[str] | None = None) -> dict[str, dict]:
    """Stage name -> {"seconds", "result", "finished"} for the recorded stages of iteration k -> k+1.
    A record that is unreadable, of another iteration, or names a stage not in `names` or holds
    malformed figures raises ValueError naming the file: it is not trusted, not even in part."""
    path = run.stages(k + 1)
    advice = f"delete it and run the same command again: iteration {k + 1}'s stages run again, keeping finished outputs"
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as e:
        raise ValueError(f"stage record {path} is unreadable ({e}); {advice}") from None
    stages = record.get("stages") if isinstance(record, dict) else None
    if not isinstance(stages, dict):
        raise ValueError(f"stage record {path} has no 'stages'; {advice}")
    if record.get("iteration") != k + 1:
        raise ValueError(
            f"stage record {path} is the record of iteration {record.get('iteration')!r:.20}, not of {k + 1}; {advice}"
        )
    for name, done in stages.items():
        problem = _stage_entry_problem(name, done, names)
        if problem:
            raise ValueError(f"stage record {path}: {problem}; {advice}")
    return stages


def _stage_entry_problem(name: str, done: object, names: Sequence[str] | None) -> str | None:
    if names is not None and name not in names:
        return f"unknown stage {name!r:.40} (the stages are {', '.join(names)})"
    if not isinstance(done, dict):
        return f"stage {name!r}: not an object"
    seconds = done.get("seconds", 0.0)
    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 <= seconds < math.inf):
        return f"stage {name!r}: seconds {seconds!r:.40} is not a time"
    if not isinstance(done.get("result", {}), dict):
        return f"stage {name!r}: result is not an object"
    return None


def stage_output_missing(run: RunDir, k: int, name: str, result: dict, metric_iterations: set) -> str | None:
    """What a stage of iteration k -> k+1 recorded as finished should have left and has not (a
    forged or stale record, or an output deleted since), or None. A stage that measured
    nothing (an evaluation skipped by its schedule, no ladder point due) promises no file."""
    model = run.model_name(k + 1)
    promised = {
        "selfplay": lambda: None if any(run.selfplay.glob(f"iter{k:04d}-*.pcs")) else f"selfplay/iter{k:04d}-*.pcs",
        "train": lambda: _missing(run, run.checkpoint(k + 1)),
        "export": lambda: _missing(run, run.model(k + 1)),
        "evaluate": lambda: _missing(run, run.evaluation(k + 1)) if result else None,
        "ladder": lambda: _missing(run, run.root / "ladder" / f"{model}.games.jsonl") if result else None,
        "metrics": lambda: None if k + 1 in metric_iterations else f"the line of iteration {k + 1} in metrics.jsonl",
    }
    return promised[name]() if name in promised else None


def _missing(run: RunDir, path: Path) -> str | None:
    return None if path.exists() else str(path.relative_to(run.root))


def run_wall_hours(run: RunDir, upto: int) -> float:
    """Wall-clock hours the run's recorded stages took, iterations 1..upto."""
    seconds = 0.0
    for k in range(upto):
        seconds += sum(float(done.get("seconds", 0.0)) for done in read_stage_record(run, k).values())
    return seconds / 3600
