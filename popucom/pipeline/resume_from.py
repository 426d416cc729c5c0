"""A new run from a shipped checkpoint (`popucom pipeline --resume-from weights/NAME.pt`): the
training side's checks of what weights.seed_run copies into the run, made before it writes
anything, so a refused start leaves the run directory as it was and the same command, once the
shipped files are fixed, starts the run."""

from __future__ import annotations

from pathlib import Path

from ..selfplay import KomiSampler
from ..train.trainer import load_checkpoint
from ..weights import seed_run, sidecar_path
from .config import PipelineConfig


def start_from_shipped(run_dir: str | Path, checkpoint: str | Path) -> PipelineConfig:
    """Seeds `run_dir` from the shipped `checkpoint` (or finds it seeded by the same command
    before); returns the shipped pipeline config."""
    return PipelineConfig.from_dict(seed_run(run_dir, checkpoint, check=lambda s: check_shipped(s, Path(checkpoint))))


def check_shipped(sidecar: dict, checkpoint: Path) -> None:
    """ValueError naming the file when the sidecar's config or komi statistics are unusable, or the
    checkpoint does not load as the network the config describes."""
    path = sidecar_path(checkpoint)
    try:
        config = PipelineConfig.from_dict(sidecar["pipeline_config"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: its pipeline_config is not usable: {type(e).__name__}: {e}") from None
    if sidecar.get("komi"):
        _check_komi_statistics(sidecar["komi"], path)
    try:
        load_checkpoint(checkpoint, expect=config.model)
    except (OSError, ValueError) as e:
        raise ValueError(f"{checkpoint} does not load as the network {path} describes: {e}") from None


def _check_komi_statistics(komi: dict, path: Path) -> None:
    try:
        KomiSampler.from_dict(komi, source=str(path))
    except ValueError as e:
        raise ValueError(f"{path}: its komi statistics are not usable: {e}") from None
