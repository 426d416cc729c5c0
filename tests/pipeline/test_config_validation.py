"""Every setting of a pipeline config is checked for its range and meaning when the config is
made: by `--change`, from a run's config.json, from a shipped sidecar or as a preset's override
(pipeline/config_check.py). A value that would fail hours later, or train silently on empty
targets, is refused at the door, naming the setting."""

import json
import math

import pytest

from popucom.pipeline.config import PIPELINE_PRESETS, PipelineConfig, pipeline_preset
from popucom.pipeline.config_change import changed_config

# Dotted setting -> --change values that must be refused. Every setting of the config is here
# (test_every_setting_has_bad_values), so a new setting comes with its range.
BAD: dict[str, list[str]] = {
    "selfplay.concurrent_games": ["0", "-3", "null", "10000000"],
    "selfplay.full_visits": ["0", "-1", "null", "100000000"],
    "selfplay.fast_visits": ["0", "null", "1000"],  # more than full_visits: the full search is the fast one
    "selfplay.full_search_prob": ["0", "-0.1", "1.5", "NaN", "null"],  # 0: no policy target ever
    "selfplay.temperature_start": ["-1", "NaN", "Infinity", "null"],
    "selfplay.temperature_end": ["-0.5", "NaN", "null"],
    "selfplay.temperature_half_life": ["0", "-2", "NaN", "null"],
    "selfplay.max_random_plies": ["-1", "50", "null"],
    "selfplay.root_search": ['"gumbel "', '"../x"', "null"],
    "selfplay.cache_mb": ["0", "-1", "NaN", "Infinity", "null", "10000000"],
    "selfplay.search_threads": ["0", "-1", "null", "100000"],
    "selfplay.games_per_chunk": ["0", "-1", "null"],
    "train.batch_size": ["0", "-8", "null", "100000000"],
    "train.lr": ["0", "-0.001", "NaN", "Infinity", "null", "100"],
    "train.warmup_steps": ["-1", "null", "30000"],  # not below total_steps: the cosine never runs
    "train.total_steps": ["0", "-1", "null"],
    "train.min_lr_ratio": ["-0.1", "1.5", "NaN", "null"],
    "train.weight_decay": ["-0.1", "NaN", "Infinity", "null"],
    "train.adam_betas": ["[1.0, 0.95]", "[0.9, -0.1]", "[NaN, 0.9]", "null"],
    "train.grad_clip": ["0", "-1", "NaN", "null"],
    "train.window_samples": ["0", "-1", "null"],
    "train.val_fraction": ["-0.1", "1", "0.9", "NaN", "null"],
    "train.seed": ["-1", "null", "1e30"],
    "train.compile": ["null"],
    "train.cpu_bf16": ["null"],
    "evaluation.openings": ["0", "-1", "null"],
    "evaluation.opening_plies": ["-1", "50", "null"],
    "evaluation.visits": ["0", "-1", "null"],
    "evaluation.baseline": ['"nobody"', '"uct:0"', '"../../etc"', "null"],
    "evaluation.gating": ["null"],
    "evaluation.every": ["0", "-1", "null"],
    "evaluation.sprt_elo0": ["NaN", "Infinity", "null", "40"],  # not below elo1
    "evaluation.sprt_elo1": ["NaN", "-10", "null"],
    "evaluation.sprt_alpha": ["0", "1", "-0.5", "NaN", "null"],
    "evaluation.sprt_beta": ["0", "1.5", "NaN", "null"],
    "ladder.visits": ["0", "-1", "null"],
    "ladder.games": ["0", "3", "-2", "null"],
    "ladder.opponents": ['["greedy", "uct:200", "uct:2000", "bogus"]', "null"],
    "ladder.opening_plies": ["-1", "50", "null"],
    "ladder.seed": ["-1", "null"],
    "ladder.anchor": ['"bogus"', '"uct:7"', "null"],  # uct:7 plays no calibration game: nothing pins it
    "ladder.calibration": ["null"],
    "ladder.calibration_games": ["0", "3", "null"],
    "ladder.every_minutes": ["-1", "NaN", "Infinity", "null"],
    "ladder.threads": ["0", "-1", "null"],
    "warm_start.bot": ['"best"', '"uct:0"', '"x/model.onnx"', "null"],
    "warm_start.games": ["0", "-1", "null"],
    "warm_start.epochs": ["0", "-1", "NaN", "Infinity", "null"],
    "games_per_iteration": ["0", "-1", "null"],
    "steps_per_iteration": ["0", "-1", "null"],
    "replay_ratio": ["-1", "NaN", "Infinity", "null"],
    "min_steps_per_iteration": ["0", "-1", "null"],
    "window_min_samples": ["-1", "null"],
    "window_exponent": ["0", "-0.5", "1.5", "NaN", "null"],
    "window_growth": ["-0.1", "NaN", "null"],
    "min_samples_to_train": ["-1", "null"],
    "backend": ['"../../etc"', '"cuda"', '""', "null"],
    "device": ['"tpu"', '"../dev"', "null"],
    "inference_threads": ["-1", "null", "100000"],
    "seed": ["-1", "null", "1e30"],
}


def leaves(node: dict, prefix: str = "") -> list[str]:
    found = []
    for key, value in node.items():
        if isinstance(value, dict) and key != "search":  # selfplay.search: SearchParams checks it
            found += leaves(value, f"{prefix}{key}.")
        else:
            found.append(prefix + key)
    return found


def test_every_setting_has_bad_values() -> None:
    settings = {key for key in leaves(pipeline_preset("cpu").to_dict()) if not key.startswith("model.")}
    assert settings - {"preset", "selfplay.search"} == set(BAD)


CASES = [(key, value) for key, values in BAD.items() for value in values]


@pytest.mark.parametrize("key, value", CASES, ids=[f"{k}={v}" for k, v in CASES])
def test_a_bad_change_is_refused_naming_the_setting(key: str, value: str) -> None:
    with pytest.raises(ValueError, match=key.split(".")[-1]):
        changed_config(pipeline_preset("cpu"), {key: value})


def test_the_named_cases() -> None:
    cpu = pipeline_preset("cpu")
    for key, value, message in [
        ("train.lr", "NaN", "train.lr must be a finite number > 0"),
        ("train.batch_size", "null", "train.batch_size must be a whole number from 1"),
        ("selfplay.full_visits", "0", "selfplay.full_visits must be a whole number from 1"),
        ("backend", '"../../etc"', "backend must be one of auto, native"),
        ("selfplay.full_search_prob", "0", "no policy targets"),
    ]:
        with pytest.raises(ValueError, match=message):
            changed_config(cpu, {key: value})


def test_search_settings_are_checked_by_search_params() -> None:
    with pytest.raises(ValueError, match="forced_playouts_k"):
        changed_config(pipeline_preset("cpu"), {"selfplay.search.forced_playouts_k": "-1"})


@pytest.mark.parametrize("name", sorted(PIPELINE_PRESETS))
def test_presets_pass_and_a_bad_override_is_refused(name: str) -> None:
    assert pipeline_preset(name).to_dict() == PIPELINE_PRESETS[name].to_dict()
    with pytest.raises(ValueError, match="games_per_iteration"):
        pipeline_preset(name, games_per_iteration=0)
    with pytest.raises(ValueError, match="inference_threads"):
        pipeline_preset(name, inference_threads=math.nan)


def test_a_bad_config_json_of_a_run_is_refused_naming_file_and_setting(tmp_path) -> None:
    data = pipeline_preset("tiny").to_dict()
    data["train"]["lr"] = math.nan
    data["selfplay"]["full_visits"] = 0
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"config.json: .*selfplay.full_visits must be"):
        PipelineConfig.load(path)
