"""`popucom` never prints a traceback for bad input or a failed write:
`error: ...`, a non-zero exit status, and the traceback only with --debug."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLI = [sys.executable, "-m", "popucom.cli"]


def popucom(*args: str, cwd: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [*CLI, *args],
        capture_output=True,
        text=True,
        timeout=300,
        input=stdin,
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).parents[2])),
    )


def assert_clean_error(out: subprocess.CompletedProcess, message: str) -> None:
    assert out.returncode != 0
    assert "Traceback" not in out.stderr, out.stderr
    assert "error: " in out.stderr and message in out.stderr, out.stderr


def test_run_dir_that_is_a_file(tmp_path) -> None:
    (tmp_path / "f").write_text("x")
    out = popucom("pipeline", "--run-dir", str(tmp_path / "f"), "--preset", "tiny", "--iterations", "1")
    assert_clean_error(out, "is a file, not a directory")


def test_arena_opening_plies_out_of_range(tmp_path) -> None:
    out = popucom("arena", "greedy", "random", "--opening-plies", "60", cwd=tmp_path)
    assert_clean_error(out, "opening plies must be from 0 to 49")
    assert not (tmp_path / "arena").exists() or not list((tmp_path / "arena").iterdir())


def test_arena_komi_out_of_range(tmp_path) -> None:
    out = popucom("arena", "greedy", "random", "--komi", "99999999999", cwd=tmp_path)
    assert_clean_error(out, "--komi must be a whole number from -81 to 81")


def test_unwritable_games_out_fails_before_playing(tmp_path) -> None:
    (tmp_path / "dir.jsonl").mkdir()
    out = popucom(
        "arena",
        "greedy",
        "uct:100000",
        "--games-out",
        str(tmp_path / "dir.jsonl"),
        "--results",
        str(tmp_path / "r.jsonl"),
    )
    assert_clean_error(out, f"cannot write game records to {tmp_path / 'dir.jsonl'}")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a device that is always full)")
def test_games_survive_a_full_disk(tmp_path) -> None:
    out = popucom(
        "arena",
        "greedy",
        "random",
        "--openings",
        "2",
        "--games-out",
        "/dev/full",
        "--results",
        str(tmp_path / "r.jsonl"),
    )
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert "No space left on device" in out.stderr
    fallback = Path(out.stderr.split("they are in ")[-1].strip())
    try:
        records = [json.loads(line) for line in fallback.read_text().splitlines()]
    finally:
        fallback.unlink()
    assert len(records) == 4 and {r["black"] for r in records} == {"greedy", "random"}
    assert json.loads((tmp_path / "r.jsonl").read_text())["games"] == 4  # the rest was written


def test_refit_refuses_an_invalid_result(tmp_path) -> None:
    from popucom import _core
    from popucom.data.records import outcome_fields

    game = _core.Game()
    bot = _core.Bot("greedy", seed=1)
    while not game.is_over:
        game.play(bot.select_move(game.position))
    games = tmp_path / "g.jsonl"
    record = {
        "black": "greedy",
        "white": "random",
        "moves": game.record,
        "komi": 0,
        **outcome_fields(game.position),
        "opening_plies": 0,
    }
    games.write_text(json.dumps(record) + "\n" + json.dumps({**record, "result": "foo"}) + "\n")
    out = popucom(
        "arena", "greedy", "random", "--refit", "--games-out", str(games), "--results", str(tmp_path / "r.jsonl")
    )
    assert_clean_error(out, f"{games}:2: game record with result 'foo'")
    assert not (tmp_path / "r.jsonl").exists() or not (tmp_path / "r.jsonl").read_text()


def test_onnx_with_external_data_outside_its_folder(tmp_path, bad_exported_models) -> None:
    from popucom.nn import PopucomNet, preset
    from popucom.nn.export import export_onnx

    good = export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path / "m.onnx")
    external = next(path for path, _, _ in bad_exported_models(good) if path.name == "ext.onnx")
    out = popucom("engine", "--player", str(external), stdin="name\n")
    assert_clean_error(out, "External data")


def test_debug_shows_the_traceback() -> None:
    out = popucom("show", "e5 zz")
    assert_clean_error(out, "record move 2")
    for flags in (["--debug", "show", "e5 zz"], ["show", "e5 zz", "--debug"]):
        debug = popucom(*flags)
        assert debug.returncode != 0 and "Traceback" in debug.stderr and "record move 2" in debug.stderr


def test_closed_stdout_is_not_a_traceback() -> None:
    proc = subprocess.Popen(
        [*CLI, "bench", "rules", "--games", "1000", "--repeats", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert b"Traceback" not in err and b"Exception ignored" not in err, err


def test_show_komi_out_of_range() -> None:
    assert_clean_error(popucom("show", "e5", "--komi", "99999999999"), "--komi must be a whole number from -81 to 81")


def test_show_points_a_game_file_to_the_gui(tmp_path) -> None:
    game = tmp_path / "game.sgf"
    game.write_text("(;GM[1]FF[4];B[ee])\n")
    out = popucom("show", str(game))
    assert_clean_error(out, f"{game} is a game file, not a record of moves (like 'e5 d4 c3'): open it with")
    assert f"`popucom gui {game}`" in out.stderr
    out = popucom("show", "not there.jsonl")  # a game file's name, though missing
    assert_clean_error(out, "open it with `popucom gui 'not there.jsonl'`")
    assert_clean_error(popucom("show", "e5 zz"), "record move 2")  # a bad record stays a bad record


@pytest.mark.parametrize(
    "command",
    [
        ["train", "--data", "nowhere", "--checkpoint", "{bad}/ckpt.pt", "--preset", "tiny"],
        ["export", "--checkpoint", "nowhere.pt", "--out", "{bad}/m.onnx"],
        ["selfplay", "--model", "greedy", "--out", "{bad}/sp", "--games", "1"],
    ],
)
def test_unwritable_outputs_are_refused_before_work(tmp_path, command: list[str]) -> None:
    (tmp_path / "file").write_text("x")  # a parent that is a file: unwritable even for root
    out = popucom(*[c.replace("{bad}", str(tmp_path / "file")) for c in command])
    assert_clean_error(out, "cannot write")
    assert str(tmp_path / "file") in out.stderr


def test_log_lines_are_printed_as_they_are(capsys) -> None:
    """Below the CLI the package logs; the command prints INFO lines on stdout as they are and
    warnings on stderr, prefixed."""
    import logging

    from popucom import cli

    package = logging.getLogger("popucom")
    level = package.level
    try:
        cli.configure_logging(debug=False)
        cli.configure_logging(debug=False)  # configured again: still one line per record
        logging.getLogger("popucom.pipeline.stages").info("[iter 0] self-play: 12 games")
        logging.getLogger("popucom.pipeline.metrics").warning("metrics.jsonl:2: not a metrics line; skipped")
        out, err = capsys.readouterr()
        assert out == "[iter 0] self-play: 12 games\n"
        assert err == "warning: metrics.jsonl:2: not a metrics line; skipped\n"
    finally:
        for handler in [h for h in package.handlers if isinstance(h, cli.ConsoleHandler)]:
            package.removeHandler(handler)
        package.setLevel(level)


def test_preset_choices_come_from_the_preset_tables() -> None:
    from popucom.nn.config import PRESETS
    from popucom.pipeline.config import PIPELINE_PRESETS

    out = popucom("pipeline", "--preset", "huge")
    assert out.returncode == 2 and "invalid choice: 'huge'" in out.stderr
    assert all(repr(name) in out.stderr for name in PIPELINE_PRESETS)
    out = popucom("train", "--data", "d", "--checkpoint", "c.pt", "--preset", "huge")
    assert out.returncode == 2 and all(repr(name) in out.stderr for name in PRESETS)


@pytest.mark.parametrize(
    ("argv", "wants"),
    [
        (["engine", "--threads", "1000000"], "from 1 to 4096"),
        (["engine", "--threads", "0"], "from 1 to 4096"),
        (["arena", "greedy", "random", "--threads", "1000000"], "from 0 to 4096 (0: every core)"),
        (["arena", "greedy", "random", "--threads", "-3"], "from 0 to 4096"),
        (["selfplay", "--model", "m.onnx", "--out", "o", "--threads", "many"], "got 'many'"),
        (["pipeline", "--threads", "9" * 5000], "from 0 to 4096"),
    ],
)
def test_thread_counts_out_of_range_are_usage_errors(argv: list[str], wants: str, capsys) -> None:
    from popucom.cli import build_parser

    with pytest.raises(SystemExit) as stopped:
        build_parser().parse_args(argv)
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "argument --threads: the thread count must be a whole number" in err
    assert wants in err


def test_thread_counts_in_range_are_taken() -> None:
    from popucom.cli import build_parser

    assert build_parser().parse_args(["engine", "--threads", "4096"]).threads == 4096
    assert build_parser().parse_args(["arena", "greedy", "random", "--threads", "0"]).threads == 0


def test_engine_with_a_million_threads_ends_with_one_usage_line() -> None:
    out = popucom("engine", "--player", "greedy", "--threads", "1000000", stdin="name\n")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "argument --threads: the thread count must be a whole number from 1 to 4096" in out.stderr, out.stderr
