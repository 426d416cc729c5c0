"""Which config a run continues with: its own, the command line's changeable settings, or a refusal."""

from dataclasses import asdict, replace

import pytest

from popucom.cli import build_parser, pipeline_config_from_args, settings_for_continuing
from popucom.pipeline.config import PipelineConfig, pipeline_preset
from popucom.pipeline.run_dir import RunDir, resolve_config


def config_for(argv: list[str]) -> PipelineConfig:
    return pipeline_config_from_args(build_parser().parse_args(["pipeline", *argv]))


def test_a_new_run_saves_the_requested_config(tmp_path) -> None:
    run = RunDir(tmp_path)
    assert resolve_config(run, pipeline_preset("tiny")) == pipeline_preset("tiny")
    assert PipelineConfig.load(run.config) == pipeline_preset("tiny")


def test_resume_may_change_threads_and_ladder_schedule_but_not_training(tmp_path) -> None:
    run = RunDir(tmp_path)
    tiny = pipeline_preset("tiny")
    resolve_config(run, tiny)
    faster = replace(tiny, inference_threads=1, ladder=replace(tiny.ladder, every_minutes=90.0))
    resolved = resolve_config(run, faster)
    assert resolved.ladder.every_minutes == 90.0 and resolved.inference_threads == 1
    assert PipelineConfig.load(run.config).ladder.every_minutes == 90.0  # the next resume keeps it
    with pytest.raises(ValueError, match=r"differs in: ladder"):
        resolve_config(run, replace(tiny, ladder=replace(tiny.ladder, opponents=("uct:200",))))
    with pytest.raises(ValueError, match=r"differs in: games_per_iteration"):
        resolve_config(run, replace(tiny, games_per_iteration=99))


def test_cli_continues_a_run_with_its_own_config(tmp_path) -> None:
    run = RunDir(tmp_path)
    started = replace(pipeline_preset("tiny"), seed=7, warm_start=None)  # as --resume-from leaves it
    started.save(run.config)
    assert config_for(["--run-dir", str(tmp_path)]) == started
    again = config_for(["--run-dir", str(tmp_path), "--ladder-every", "45", "--threads", "1"])
    assert again.ladder.every_minutes == 45.0 and again.inference_threads == 1
    assert resolve_config(run, again).seed == 7
    # An explicit preset is the preset, and a run started otherwise refuses it.
    explicit = config_for(["--run-dir", str(tmp_path), "--preset", "tiny"])
    assert explicit == pipeline_preset("tiny")
    with pytest.raises(ValueError, match="leave out --preset"):
        resolve_config(run, explicit)


def test_cli_new_run_defaults_to_the_cpu_preset(tmp_path) -> None:
    assert config_for(["--run-dir", str(tmp_path / "new")]) == pipeline_preset("cpu")
    with pytest.raises(ValueError, match="--ladder-every must be >= 0"):
        config_for(["--run-dir", str(tmp_path / "new"), "--ladder-every", "-5"])
    with pytest.raises(ValueError, match="--evaluate-every must be a positive number"):
        config_for(["--run-dir", str(tmp_path / "new"), "--evaluate-every", "0"])


def test_the_evaluation_schedule_may_change_on_resume_unless_gating(tmp_path) -> None:
    run = RunDir(tmp_path)
    resolve_config(run, pipeline_preset("tiny"))
    resolved = resolve_config(run, config_for(["--run-dir", str(tmp_path), "--evaluate-every", "10"]))
    assert resolved.evaluation.every == 10 and PipelineConfig.load(run.config).evaluation.every == 10
    assert config_for(["--run-dir", str(tmp_path / "gated"), "--gating"]).evaluation.every == 1
    with pytest.raises(ValueError, match="must be 1 with gating"):
        config_for(["--run-dir", str(tmp_path / "gated"), "--gating", "--evaluate-every", "3"])


def test_a_run_moves_to_a_gpu_box_and_back(tmp_path) -> None:
    """Self-play's size, threads and device follow the machine; what the targets are does not."""
    run = RunDir(tmp_path)
    cpu = replace(pipeline_preset("cpu"), warm_start=None)
    resolve_config(run, cpu)
    argv = ["--run-dir", str(tmp_path), "--device", "cuda", "--concurrent-games", "512", "--search-threads", "12"]
    gpu = config_for([*argv, "--games-per-iteration", "1500"])
    resolved = resolve_config(run, gpu)
    assert (resolved.device, resolved.games_per_iteration) == ("cuda", 1500)
    assert (resolved.selfplay.concurrent_games, resolved.selfplay.search_threads) == (512, 12)
    assert resolved.selfplay.full_visits == cpu.selfplay.full_visits
    assert PipelineConfig.load(run.config) == resolved
    with pytest.raises(ValueError, match=r"differs in: selfplay"):
        resolve_config(run, replace(gpu, selfplay=replace(gpu.selfplay, full_visits=400)))
    # Whoever continues the shipped run gets the preset's machine settings back.
    reset = settings_for_continuing(tmp_path)
    assert reset["device"] == "cpu" and reset["games_per_iteration"] == cpu.games_per_iteration
    assert reset["selfplay"] == asdict(cpu.selfplay)
    with pytest.raises(ValueError, match="--concurrent-games must be a positive number"):
        config_for([*argv[:2], "--concurrent-games", "0"])


def test_cli_refuses_a_negative_stop_after(tmp_path, capsys) -> None:
    from popucom.cli import main

    assert main(["pipeline", "--run-dir", str(tmp_path / "new"), "--stop-after", "-1"]) != 0
    assert "--stop-after must be >= 0 minutes" in capsys.readouterr().err
    assert not (tmp_path / "new").exists()  # refused before the run directory is made


def test_an_unreadable_origin_is_named(tmp_path) -> None:
    from popucom.pipeline.run_dir import selfplay_rows

    run = RunDir(tmp_path)
    assert selfplay_rows(run, 0) == (0, 0)  # no origin.json: a run of its own
    (tmp_path / "origin.json").write_text('{"rows_before": "many"')
    with pytest.raises(ValueError, match="origin.json is unreadable"):
        selfplay_rows(run, 0)


def test_a_run_started_before_compiled_training_takes_it_on_resume(tmp_path) -> None:
    """Compiling the training step changes its speed, not its targets: a run saved without it
    (older runs, older shipped sidecars) takes the requested setting, and shipping hands the
    preset's setting to whoever continues."""
    run = RunDir(tmp_path)
    cpu = replace(pipeline_preset("cpu"), warm_start=None)
    assert cpu.train.compile
    eager = replace(cpu, train=replace(cpu.train, compile=False))
    resolve_config(run, eager)
    assert resolve_config(run, cpu).train.compile
    assert PipelineConfig.load(run.config).train.compile
    eager.save(run.config)
    assert settings_for_continuing(tmp_path)["train"]["compile"] is True
    with pytest.raises(ValueError, match=r"differs in: train"):
        resolve_config(run, replace(cpu, train=replace(cpu.train, lr=1e-3)))
