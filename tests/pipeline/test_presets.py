"""The pipeline presets are data (popucom/pipeline/presets/NAME.json): each file holds the
settings where it differs from the dataclass defaults, and reads back as exactly the preset the
snapshot in tests/pipeline/data/pipeline_presets.json records (its `model` by preset name, the
model presets being popucom.nn.config's). A change to a preset shows up as a diff of that file."""

import dataclasses
import json
from importlib import resources
from pathlib import Path

import pytest

from popucom.nn.config import preset
from popucom.pipeline.config import (
    PIPELINE_PRESETS,
    PRESET_FOLDER,
    SECTIONS,
    PipelineConfig,
    pipeline_preset,
    read_presets,
)

SNAPSHOT = json.loads((Path(__file__).parent / "data" / "pipeline_presets.json").read_text())
SHIPPED = resources.files("popucom.pipeline").joinpath(PRESET_FOLDER)


def preset_file(name: str) -> dict:
    return json.loads(SHIPPED.joinpath(f"{name}.json").read_text())


def test_every_snapshot_preset_ships_and_no_other() -> None:
    assert sorted(PIPELINE_PRESETS) == sorted(SNAPSHOT)


@pytest.mark.parametrize("name", sorted(SNAPSHOT))
def test_a_preset_reads_back_as_its_snapshot(name: str) -> None:
    expected = dict(SNAPSHOT[name])
    expected["model"] = preset(expected["model"]).to_dict()
    config = pipeline_preset(name)
    assert config == PipelineConfig.from_dict(expected)
    # JSON's view as well: the same numbers of the same kinds (an int stays an int).
    assert json.dumps(config.to_dict(), sort_keys=True) == json.dumps(expected, sort_keys=True)


@pytest.mark.parametrize("name", sorted(SNAPSHOT))
def test_a_preset_file_holds_only_what_differs_from_the_defaults(name: str) -> None:
    data = preset_file(name)
    defaults = PipelineConfig().to_dict()
    for key, value in data.items():
        if key in ("notes", "model"):  # the reasons; the model preset, always named
            continue
        if key in SECTIONS and value is not None:
            section = dataclasses.asdict(SECTIONS[key]())
            assert all(section[k] != v for k, v in value.items()), (name, key)
        else:
            assert defaults[key] != value, (name, key)
    assert isinstance(data.get("notes", {}), dict)


def write_preset(folder: Path, name: str, data: object) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


def test_a_preset_file_of_defaults_is_the_default_config(tmp_path: Path) -> None:
    write_preset(tmp_path, "plain", {"notes": {"preset": "ignored by the reader"}})
    (tmp_path / "README.txt").write_text("not a preset")
    assert read_presets(tmp_path) == {"plain": PipelineConfig(preset="plain")}


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ({"games_per_iteration": 0}, "games_per_iteration"),  # config_check's range
        ({"train": {"lr": -1.0}}, "train.lr"),
        ({"ladder": {"games": 3}}, "ladder.games"),
        ({"gamez_per_iteration": 12}, "gamez_per_iteration"),  # a misspelt setting
        ({"selfplay": {"full_visitz": 12}}, "full_visitz"),
        ({"model": "huge"}, "huge"),
        ({"train": 5}, "pipeline preset"),
        ([1, 2], "JSON object"),
    ],
)
def test_a_bad_preset_file_is_refused_naming_the_file(tmp_path: Path, data: object, named: str) -> None:
    path = write_preset(tmp_path, "bad", data)
    with pytest.raises(ValueError, match=named) as error:
        read_presets(tmp_path)
    assert str(path) in str(error.value)


def test_a_preset_file_that_is_not_json_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"games_per_iteration": ')
    with pytest.raises(ValueError, match="broken.json"):
        read_presets(tmp_path)
