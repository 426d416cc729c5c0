"""Pipeline configuration and its presets. The resolved config is written to
the run directory on the first start and read back on every resume.

The presets are data, one JSON file each in presets/ (read_presets). This module and the
sections' (selfplay/config.py, train/config.py, arena/ladder_config.py, nn/config.py) import
the compiled core and the standard library alone, so reading a run's config loads neither
numpy nor torch nor a runtime."""

from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from ..arena.ladder_config import LadderConfig
from ..fileio import read_metadata_text, write_text_atomic
from ..infer.backends import BACKENDS
from ..limits import MAX_THREADS
from ..nn.config import ModelConfig, preset
from ..selfplay.config import SelfPlayConfig
from ..setting import BOT, FLAG, OPENING_PLIES, SEED, Rule, number, one_of, rules, section, setting, whole
from ..train.config import TrainConfig
from .config_check import ConfigError, check_settings

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


@dataclass(frozen=True)
class EvalConfig:
    openings: int = setting(4, whole(1, 100_000))  # each played twice, colours swapped, against each opponent
    opening_plies: int = setting(4, whole(0, OPENING_PLIES))
    visits: int = setting(24, whole(1, 1_000_000))
    baseline: str = setting("greedy", BOT)  # a fixed network-free yardstick
    gating: bool = setting(False, FLAG)  # keep the previous model unless the new one passes an SPRT
    # Without gating the evaluation only informs: every N-th model plays it, against the
    # model N iterations older (a gap its few games can see); 1 with gating.
    every: int = setting(1, whole(1, 1_000_000))
    sprt_elo0: float = setting(0.0, number(high="evaluation.sprt_elo1", high_open=True))
    sprt_elo1: float = setting(30.0, number())
    sprt_alpha: float = setting(0.05, number(0, 1, low_open=True, high_open=True))
    sprt_beta: float = setting(0.05, number(0, 1, low_open=True, high_open=True))

    def __post_init__(self) -> None:
        if self.every < 1:
            raise ValueError(f"evaluation every {self.every} iterations: want 1 or more")
        if self.gating and self.every != 1:
            raise ValueError("gating evaluates every model: evaluation.every must be 1 with gating")


@dataclass(frozen=True)
class WarmStartConfig:
    """A supervised phase on network-free bot games before self-play (warm_start.py)."""

    bot: str = setting("uct:1000", BOT)
    games: int = setting(1200, whole(1, 10_000_000))
    epochs: float = setting(2.0, number(0, 1000, low_open=True))


@dataclass(frozen=True)
class PipelineConfig:
    preset: str = "cpu"
    model: ModelConfig = field(default_factory=lambda: preset("small"))
    selfplay: SelfPlayConfig = section(SelfPlayConfig)
    train: TrainConfig = section(TrainConfig)
    evaluation: EvalConfig = section(EvalConfig)
    ladder: LadderConfig | None = section(LadderConfig, default_none=True)  # the strength ladder, by wall time
    # iteration 0 from bot games instead of random weights (None: off)
    warm_start: WarmStartConfig | None = section(WarmStartConfig, default_none=True)
    games_per_iteration: int = setting(200, whole(1, 1 << 30))
    steps_per_iteration: int = setting(300, whole(1))  # fixed, unless replay_ratio > 0
    # > 0: train replay_ratio * (new rows) / batch_size steps per iteration, so each
    # self-play row is sampled about this many times (KataGo keeps it near 4-8).
    replay_ratio: float = setting(0.0, number(0, 1000))
    min_steps_per_iteration: int = setting(20, whole(1))
    # > 0: the window grows with the run (KataGo's power law) from this many rows,
    # up to train.window_samples, so the first random-network games leave it soon.
    window_min_samples: int = setting(0, whole(0))
    window_exponent: float = setting(0.75, number(0, 1, low_open=True))
    window_growth: float = setting(0.4, number(0, 100))
    min_samples_to_train: int = setting(1000, whole(0))
    # auto | native | openvino | onnx | torch | trt (popucom.infer.factory); auto: the fastest
    # path here (popucom.infer.choice). A resumed run may change it.
    backend: str = setting("auto", one_of(BACKENDS))
    device: str = setting("cpu", one_of(("cpu", "cuda")))
    inference_threads: int = setting(0, whole(0, MAX_THREADS, " (0: all cores)"))
    seed: int = setting(0, SEED)

    def __post_init__(self) -> None:
        check_settings(self.to_dict(), declared_rules())  # every setting's declared range, wherever it comes from

    def window_size(self, total_rows: int) -> int:
        """Rows in the training window once the run has written `total_rows`:
        c * (1 + beta * ((n / c)^alpha - 1) / alpha) for n > c (KataGo), capped."""
        c, cap = self.window_min_samples, self.train.window_samples
        if c <= 0 or total_rows <= c:
            return cap if c <= 0 else min(c, cap)
        a = self.window_exponent
        return min(cap, round(c * (1 + self.window_growth * ((total_rows / c) ** a - 1) / a)))

    def train_steps(self, new_rows: int) -> int:
        """Training steps for an iteration whose self-play wrote `new_rows` rows."""
        if self.replay_ratio <= 0:
            return self.steps_per_iteration
        return max(self.min_steps_per_iteration, round(self.replay_ratio * new_rows / self.train.batch_size))

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> PipelineConfig:
        check_settings(data, declared_rules())  # before the sections are built: their own checks assume the types
        data = dict(data)
        data["model"] = ModelConfig.from_dict(data["model"])
        data["selfplay"] = SelfPlayConfig.from_dict(data["selfplay"])
        data["train"] = TrainConfig.from_dict(data["train"])
        data["evaluation"] = EvalConfig(**data["evaluation"])
        if data.get("warm_start") is not None:
            data["warm_start"] = WarmStartConfig(**data["warm_start"])
        if data.get("ladder") is not None:
            data["ladder"] = LadderConfig.from_dict(data["ladder"])
        return cls(**data)

    def save(self, path: str | Path) -> None:
        write_text_atomic(path, json.dumps(self.to_dict(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        try:
            return cls.from_dict(json.loads(read_metadata_text(path, "run config")))
        except ConfigError as e:
            raise ValueError(f"run config {path}: {e}; fix that setting in the file") from None
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            raise ValueError(f"run config {path} is unreadable or from another version: {e}") from e


@functools.cache
def declared_rules() -> dict[str, Rule]:
    """Every setting of a pipeline config with its declared range, by dotted name (as in --change)."""
    return rules(PipelineConfig)


# The sections a preset file gives as {setting: value}, each over its class's defaults.
SECTIONS: dict[str, type] = {
    "selfplay": SelfPlayConfig,
    "train": TrainConfig,
    "evaluation": EvalConfig,
    "ladder": LadderConfig,
    "warm_start": WarmStartConfig,
}
PRESET_FOLDER = "presets"  # beside this module, shipped in the wheel: NAME.json is preset NAME


def preset_settings(name: str, data: dict) -> dict:
    """A preset file's settings as PipelineConfig.to_dict() has them. The file holds only the
    settings that differ from the dataclass defaults: `model` names a model preset
    (popucom.nn.config), each section is {setting: value} over its class's defaults ({} for a
    section on with all its defaults, null for off), and `notes` says why, for the reader."""
    if not isinstance(data, dict):
        raise ValueError("a preset is a JSON object of settings")
    settings = PipelineConfig().to_dict()
    settings["preset"] = name
    for key, value in data.items():
        if key == "notes":
            continue
        if key == "model":
            settings["model"] = preset(value).to_dict()
        elif key in SECTIONS and value is not None:
            settings[key] = {**dataclasses.asdict(SECTIONS[key]()), **value}
        elif key in settings:
            settings[key] = value
        else:
            raise ValueError(f"{key!r} is not a pipeline setting")
    return settings


def read_presets(folder: Traversable | Path | None = None) -> dict[str, PipelineConfig]:
    """Every preset in `folder` (the shipped popucom/pipeline/presets by default), by name; each
    is checked as a run's config is (config_check), so a bad value in a preset file fails here,
    with a ValueError naming the file."""
    folder = resources.files(__package__).joinpath(PRESET_FOLDER) if folder is None else folder
    presets = {}
    for file in sorted(folder.iterdir(), key=lambda f: f.name):
        if not file.name.endswith(".json"):
            continue
        name = file.name.removesuffix(".json")
        try:
            presets[name] = PipelineConfig.from_dict(preset_settings(name, json.loads(file.read_text())))
        except (json.JSONDecodeError, TypeError, ValueError) as e:
            raise ValueError(f"pipeline preset {file}: {e}") from None
    return presets


PIPELINE_PRESETS: dict[str, PipelineConfig] = read_presets()


def pipeline_preset(name: str, **overrides: object) -> PipelineConfig:
    if name not in PIPELINE_PRESETS:
        raise ValueError(f"unknown pipeline preset '{name}' (choose from {', '.join(PIPELINE_PRESETS)})")
    return dataclasses.replace(PIPELINE_PRESETS[name], **overrides)
