"""Every setting of a pipeline config is checked for its range and meaning when the config is
made: by `--change`, from a run's config.json, from a shipped sidecar or as a preset's override
(pipeline/config_check.py). A value that would fail hours later, or train silently on empty
targets, is refused at the door, naming the setting."""

import json
import math

import pytest

from popucom.pipeline.config import PIPELINE_PRESETS, PipelineConfig, pipeline_preset
from popucom.pipeline.config import declared_rules as all_rules
from popucom.pipeline.config_change import changed_config
from popucom.pipeline.config_check import NAMED_BOUNDS
from popucom.setting import Rule

# Bad values of each kind of declared range (popucom/setting.py), beside those past its bounds.
BAD_OF_KIND: dict[str, list[str]] = {
    "whole": ["null", "1.5", '"3"', "true", "NaN"],
    "number": ["null", "NaN", "Infinity", "-Infinity", '"0.5"', "true"],
    "flag": ["null", "1", '"true"'],
    "one_of": ['"../../etc"', '""', "null", "3"],
    "bot": ['"nobody"', '"uct:0"', '"../../etc"', '"best"', '"x/model.onnx"', "null"],
    "bots": ['["greedy", "uct:200", "bogus"]', "[]", "null"],
    "bot_pairs": ['[["random", "random"]]', '[["random"]]', "[]", "null"],
    "anchor": ['"bogus"', '"uct:7"', "null"],  # uct:7 plays no calibration game: nothing pins it
    "betas": ["[1.0, 0.95]", "[0.9, -0.1]", "[0.9]", "null"],
    "even": ["0", "3", "-2", "null"],
}


def _bound(end: float | str, settings: dict) -> float:
    """A declared bound's value in `settings`: a number, a named bound or another setting's."""
    if not isinstance(end, str):
        return end
    if end in NAMED_BOUNDS:
        return NAMED_BOUNDS[end]
    node = settings
    for part in end.split("."):
        node = node[part]
    return node


def bad_values(rule: Rule, settings: dict) -> list[str]:
    """--change values a setting with `rule` must refuse: its kind's, and those just past its bounds."""
    values = list(BAD_OF_KIND[rule.kind])
    if rule.kind in ("whole", "number"):
        step = 1 if rule.kind == "whole" else 1e-6
        low, high = rule.low, _bound(rule.high, settings)
        if math.isfinite(low):
            values.append(json.dumps(low if rule.low_open else low - step))
        if math.isfinite(high):
            values.append(json.dumps(high if rule.high_open else high + step))
    return values


SETTINGS = pipeline_preset("cpu").to_dict()
CASES = [(key, value) for key, rule in all_rules().items() for value in bad_values(rule, SETTINGS)]


def leaves(node: dict, prefix: str = "") -> list[str]:
    found = []
    for key, value in node.items():
        if isinstance(value, dict) and key != "search":  # selfplay.search: SearchParams checks it
            found += leaves(value, f"{prefix}{key}.")
        else:
            found.append(prefix + key)
    return found


def test_every_setting_declares_its_range() -> None:
    """Every setting of the config but the preset's name, the network's shape (ModelConfig) and
    the search overrides (SearchParams), which check themselves, declares its range."""
    settings = {key for key in leaves(SETTINGS) if not key.startswith("model.")}
    assert settings - {"preset", "selfplay.search"} == set(all_rules())
    assert len(CASES) > 5 * len(all_rules())


@pytest.mark.parametrize("key, value", CASES, ids=[f"{k}={v}" for k, v in CASES])
def test_a_bad_change_is_refused_naming_the_setting(key: str, value: str) -> None:
    with pytest.raises(ValueError, match=key.split(".")[-1]):
        changed_config(pipeline_preset("cpu"), {key: value})


def test_the_named_cases() -> None:
    cpu = pipeline_preset("cpu")
    for key, value, message in [
        ("train.lr", "NaN", "train.lr must be a finite number > 0"),
        ("train.batch_size", "null", "train.batch_size must be a whole number from 1"),
        ("selfplay.full_visits", "1", "selfplay.full_visits must be a whole number from 2 .*no policy target"),
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


def test_the_declared_bounds_themselves_are_taken() -> None:
    """A range is what it says: a closed end of a whole number or a number is a valid setting
    (but for a setting that bounds another, whose ends the other's value may not allow)."""
    cpu = pipeline_preset("cpu")
    bounding = {rule.high for rule in all_rules().values() if isinstance(rule.high, str)}
    for key, rule in all_rules().items():
        if rule.kind not in ("whole", "number") or key in bounding:
            continue
        ends = [(rule.low, rule.low_open), (_bound(rule.high, SETTINGS), rule.high_open)]
        for end, is_open in ends:
            if math.isfinite(end) and not is_open:
                changed, _ = changed_config(cpu, {key: json.dumps(end)})
                node = changed.to_dict()
                for part in key.split("."):
                    node = node[part]
                assert node == end, (key, end)
