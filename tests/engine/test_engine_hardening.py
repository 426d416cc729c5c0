"""The engine under hostile input: bytes that are not text, bad time and komi values,
analyses cut off by analyses, closed pipes, and a seeded protocol fuzzer (issue 11, items 4-6)."""

import io
import os
import random
import subprocess
import sys

import pytest

from popucom.engine.gtp import Engine, decode_line

CLI = [sys.executable, "-m", "popucom.cli"]


def serve(engine: Engine, data: bytes) -> list[str]:
    """Runs the engine over `data`; the replies, split on the blank lines that end them."""
    engine.out = io.StringIO()
    engine.serve(io.BytesIO(data))
    text = engine.out.getvalue()
    assert text.endswith("\n\n") or text == ""
    return text[:-2].split("\n\n") if text else []


def test_invalid_utf8_gets_a_reply_and_the_engine_goes_on() -> None:
    env = dict(os.environ, PYTHONIOENCODING="utf-8:strict")  # the setting that used to kill the reader
    out = subprocess.run(
        [*CLI, "engine", "--player", "random"],
        input=b"name\n\xff\xfe oops\n2 name\nquit\n",
        capture_output=True,
        timeout=60,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.decode().split("\n\n")[:3] == ["= popucom", "? command is not UTF-8 text", "=2 popucom"]


@pytest.mark.parametrize("seconds", ["nan", "0", "-1", "inf"])
def test_bad_seconds_are_refused_up_front(seconds: str) -> None:
    out = subprocess.run(
        [*CLI, "engine", "--player", "greedy", "--seconds", seconds],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0 and "--seconds must be a number of seconds > 0" in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_komi_out_of_range_is_an_error_not_a_traceback() -> None:
    out = subprocess.run(
        [*CLI, "engine", "--player", "greedy", "--komi", "99999999999"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0 and "--komi must be a whole number from -81 to 81" in out.stderr
    assert "Traceback" not in out.stderr


def test_bad_komi_keeps_the_framing_and_the_old_komi() -> None:
    engine = Engine("random")
    replies = serve(
        engine,
        b"komi 5\nkomi 1e30\nclear_board\nkomi inf\nkomi nan\nkomi\nkomi 2.5\npopucom-rules\nkomi -81\nshowboard\n",
    )
    assert len(replies) == 10  # one reply per command, none split by a blank line
    assert replies[0] == "="
    for reply in replies[1:2] + replies[3:5]:
        assert reply.startswith("? komi must be a whole number from -81 to 81"), reply
    assert replies[2] == "="  # clear_board works after a refused komi
    assert replies[5].startswith("? syntax error") and replies[6].startswith("? komi must be a whole number")
    assert '"komi": 5' in replies[7]  # the refused values never took effect
    assert replies[8] == "=" and replies[9].startswith("=\n") and "komi -81" in replies[9]


def test_bad_engine_arguments_raise_value_error() -> None:
    for kwargs in ({"seconds": float("nan")}, {"seconds": -1.0}, {"komi": 10**11}, {"visits": 0}):
        with pytest.raises(ValueError):
            Engine("greedy", **kwargs)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from popucom.nn import PopucomNet, preset
    from popucom.nn.export import export_onnx

    return export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path_factory.mktemp("m") / "tiny.onnx")


def test_analysis_cut_off_by_another_analysis(tiny_model) -> None:
    engine = Engine(str(tiny_model), visits=16)
    data = b"play b e5\n" + b"popucom-analyze 1\n" * 40 + b"7 popucom-analyze 5\nname\ngenmove w\n"
    replies = serve(engine, data)
    assert len(replies) == 1 + 41 + 2
    assert replies[0] == "="
    for reply in replies[1:42]:
        head, *infos = reply.split("\n")
        assert head in ("=", "=7") and all(line.startswith("info move ") for line in infos), reply
    assert replies[42] == "= popucom" and replies[43].startswith("= ")
    assert "internal error" not in "".join(replies)


def test_closed_output_ends_the_engine_quietly() -> None:
    proc = subprocess.Popen(
        [*CLI, "engine", "--player", "random"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    proc.stdout.close()  # the reader is gone before the engine answers
    _, err = proc.communicate(b"name\n" * 200, timeout=60)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err and b"Exception ignored" not in err


# --- the fuzzer ------------------------------------------------------------------------------

WORDS = [
    "b",
    "w",
    "black",
    "e5",
    "a1",
    "i9",
    "j10",
    "E5",
    "z",
    "",
    "0",
    "1",
    "-1",
    "81",
    "-81",
    "82",
    "2.5",
    "1e30",
    "-1e30",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "9",
    "99999999999",
    "e5 d4",
    "#",
    "# comment",
    "\t",
    "\x00",
    "\x7f",
    "é",
    "五",
    "\u2028",
    "１",
    "+5",
    "5.0",
]


def fuzz_line(rng: random.Random, commands: list[str], long_line: int) -> bytes:
    r = rng.random()
    if r < 0.04:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b" ")
    if r < 0.05:
        return (rng.choice(commands) + " " + "x" * long_line).encode()
    words = [rng.choice(commands) if rng.random() < 0.85 else rng.choice(WORDS)]
    if rng.random() < 0.2:
        words.insert(0, str(rng.randrange(1000)))
    words += [rng.choice(WORDS) for _ in range(rng.choice([0, 1, 1, 2, 2, 3]))]
    line = " ".join(words).encode()
    return line + (b"\xff" if rng.random() < 0.02 else b"")


def fuzz_engine(commands_to_send: int, seed: int, long_line: int) -> None:
    """Random command streams: every non-blank line gets exactly one reply, = or ?, never an
    internal error, and the replies hold no blank line (the framing is never broken)."""
    rng = random.Random(seed)
    engine = Engine("random")
    commands = [c for c in engine.commands if c != "quit"]
    sent = 0
    while sent < commands_to_send:
        lines = [fuzz_line(rng, commands, long_line) for _ in range(200)]
        data = b"\n".join(lines).replace(b"\r", b"") + b"\n"
        expected = 0
        for raw in data.split(b"\n")[:-1]:
            text = decode_line(raw)
            parsed = None if text is None else engine.handle(text)
            if parsed is not None and parsed[1] == "quit":
                raise AssertionError("the fuzzer must not send quit")
            expected += text is None or parsed is not None
        replies = serve(engine, data)
        assert len(replies) == expected, (seed, sent)
        for reply in replies:
            assert reply[:1] in "=?" and reply, reply[:200]
            assert "internal error" not in reply, reply[:200]
        sent += len(lines)
        engine.running = True


def test_engine_fuzz() -> None:
    fuzz_engine(2000, seed=11, long_line=100_000)


@pytest.mark.slow
def test_engine_fuzz_long() -> None:
    for seed in range(5):
        fuzz_engine(8000, seed=100 + seed, long_line=1_000_000)


def test_endless_line_is_dropped_not_buffered(tmp_path, monkeypatch) -> None:
    import popucom.engine.gtp as gtp

    monkeypatch.setattr(gtp, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "input"
    path.write_bytes(b"name\n" + b"x" * 300_000 + b"\n2 name\n")
    engine = Engine("random")
    engine.out = io.StringIO()
    with open(path, "rb") as f:  # a real file descriptor, read as the engine reads stdin
        engine.serve(f)
    assert engine.out.getvalue().split("\n\n")[:3] == [
        "= popucom",
        "? line longer than 1000 bytes, ignored",
        "=2 popucom",
    ]


def test_visits_apply_to_best_and_to_model_files(tiny_model, tmp_path, monkeypatch) -> None:
    import shutil

    weights = tmp_path / "weights"
    weights.mkdir()
    shutil.copy(tiny_model, weights / "popucom-tiny-v1.onnx")
    monkeypatch.setenv("POPUCOM_WEIGHTS", str(weights))
    assert Engine("best", visits=7).visits == 7
    assert Engine(str(tiny_model), visits=9).visits == 9
    assert Engine(f"{tiny_model}@visits=5", visits=9).visits == 5  # the spec's own count wins
