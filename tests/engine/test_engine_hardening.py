"""The engine under hostile input: bytes that are not text, bad time, komi and visit values,
numbers of every size and script, analyses cut off by analyses, a network that returns NaN,
closed pipes, Ctrl-C, and a seeded protocol fuzzer."""

import io
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import popucom.player as player_module
from popucom.engine.gtp import Engine, decode_line
from popucom.infer import EvalOutput, TinyEvaluator
from popucom.levels import LEVELS

CLI = [sys.executable, "-m", "popucom.cli"]


@pytest.fixture
def model_engine(tmp_path, monkeypatch):
    """model_engine(evaluator=None, **kwargs): an Engine with a model player whose network is
    `evaluator` (TinyEvaluator by default): the engine's model paths without loading a model."""
    path = tmp_path / "fake.onnx"
    path.write_bytes(b"")

    def make(evaluator=None, player: str = "", **kwargs) -> Engine:
        monkeypatch.setattr(player_module, "load_evaluator", lambda *args, **kwargs: evaluator or TinyEvaluator())
        return Engine(f"{path}{player}", **kwargs)

    return make


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
    for kwargs in ({"seconds": float("nan")}, {"seconds": -1.0}, {"komi": 10**11}, {"visits": 0}, {"visits": 2**31}):
        with pytest.raises(ValueError):
            Engine("greedy", **kwargs)


@pytest.mark.parametrize("visits", [str(2**31), str(10**6 + 1), "4" * 400])
def test_cli_huge_visits_are_refused_up_front(visits: str) -> None:
    out = subprocess.run(
        [*CLI, "engine", "--player", "greedy", "--visits", visits],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0 and "--visits must be a whole number from 1 to 1000000" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_huge_visits_in_a_player_spec_are_refused(model_engine) -> None:
    with pytest.raises(ValueError, match="visits must be a whole number from 1 to 1000000"):
        model_engine(player="@visits=2147483647")
    with pytest.raises(ValueError, match="visits must be a whole number from 1 to 1000000"):
        model_engine(visits=2**31)
    assert model_engine(visits=10**6).visits == 10**6


# Numbers of every size, sign and script: each must get a reply (= or ?), never kill the engine.
NUMBERS = [
    "4" * 400,
    str(2**63),
    str(-(2**63)),
    str(2**31),
    "1e400",
    "-1e400",
    "1e-400",
    "-5",
    "-0",
    "+5",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "１２",
    "٣",
    "½",
    "²",
    "1_0",
    "0x10",
    "5.5",
    "",
]
NON_ASCII = {"１２", "٣", "½", "²"}
NUMERIC_COMMANDS = {"popucom-analyze", "komi", "boardsize"}  # every command that takes a number


@pytest.mark.parametrize("command", ["popucom-analyze", "komi", "boardsize", "known_command", "undo"])
def test_any_number_argument_gets_a_reply_and_the_engine_goes_on(model_engine, command: str) -> None:
    engine = model_engine(visits=8)
    data = b"".join(f"{command} {number}\nname\n".encode() for number in NUMBERS)
    replies = serve(engine, data)
    assert len(replies) == 2 * len(NUMBERS), replies
    for number, reply, name in zip(NUMBERS, replies[::2], replies[1::2]):
        assert reply[:1] in "=?" and "internal error" not in reply, (number, reply[:200])
        assert name == "= popucom", (number, name)
        if number in NON_ASCII and command in ("popucom-analyze", "komi"):
            assert reply.startswith("?"), (number, reply)  # GTP numbers are ASCII
        if command == "popucom-analyze" and number.lstrip("+-") and not number.isdigit():
            assert reply.startswith("? syntax error"), (number, reply)


def test_analyze_interval_range(model_engine) -> None:
    engine = model_engine(visits=8)
    replies = serve(engine, b"popucom-analyze 0\npopucom-analyze 360000\npopucom-analyze 360001\nname\n")
    assert replies[0].startswith("=") and replies[1].startswith("=")
    assert replies[2].startswith("? syntax error: popucom-analyze [interval in centiseconds, 0 to 360000]")
    assert replies[3] == "= popucom"


def test_numeric_ids_are_ascii(model_engine) -> None:
    engine = model_engine(visits=8)
    replies = serve(engine, ("4" * 400 + " name\n١٢ name\n").encode())
    assert replies[0] == "=" + "4" * 400 + " popucom"
    assert replies[1].startswith("? unknown command")


class NanOnce(TinyEvaluator):
    """TinyEvaluator, except that call number `bad_call` answers NaN values."""

    def __init__(self, bad_call: int) -> None:
        self.calls, self.bad_call = 0, bad_call

    def __call__(self, features: np.ndarray) -> EvalOutput:
        self.calls += 1
        out = super().__call__(features)
        if self.calls == self.bad_call:
            out.wdl[:] = np.nan
        return out


@pytest.mark.parametrize("bad_call", [1, 2])  # the root's evaluation, a search batch
def test_a_nan_network_output_gets_a_reply_and_the_engine_goes_on(model_engine, bad_call: int) -> None:
    engine = model_engine(NanOnce(bad_call), visits=40)
    replies = serve(engine, b"genmove b\ngenmove b\ngenmove w\nshowboard\n")
    assert replies[0].startswith("? the search failed: ") and "not finite" in replies[0], replies[0]
    assert replies[1].startswith("= ") and replies[2].startswith("= "), replies
    assert "internal error" not in "".join(replies)


def test_a_nan_during_analysis_ends_the_stream_and_the_engine_goes_on(model_engine, capfd) -> None:
    engine = model_engine(NanOnce(3), visits=40)
    engine.out = io.StringIO()
    reader, writer = os.pipe()
    os.write(writer, b"popucom-analyze 1\n")
    with open(reader, "rb") as stream:
        import threading

        serving = threading.Thread(target=engine.serve, args=(stream,))
        serving.start()
        time.sleep(1.0)  # the analysis hits the NaN and stops; the engine waits for the next line
        os.write(writer, b"genmove b\npopucom-analyze 1\n")
        time.sleep(0.5)
        os.write(writer, b"name\n")
        os.close(writer)
        serving.join(30)
    assert not serving.is_alive()
    replies = engine.out.getvalue()[:-2].split("\n\n")
    assert [r.split("\n")[0][:1] for r in replies] == ["=", "=", "=", "="], replies
    assert replies[1].startswith("= ") and replies[3] == "= popucom"
    assert len(replies[2].split("\n")) > 1  # the second analysis streams again
    assert "analysis stopped: " in capfd.readouterr().err


INTERRUPTED_ENGINE = """
import signal
import sys
# Python keeps SIGINT ignored when it starts with it ignored, as every process started from a
# background job in a shell does (a test run under nohup ... &): Ctrl-C from a terminal has it.
signal.signal(signal.SIGINT, signal.default_int_handler)
import popucom.player as player_module
from popucom.cli import main
from popucom.infer import TinyEvaluator
player_module.load_evaluator = lambda *args, **kwargs: TinyEvaluator()
sys.exit(main(["engine", "--player", sys.argv[1], "--threads", "2"]))
"""


def test_ctrl_c_during_analysis_exits_130(tmp_path) -> None:
    """SIGINT while the search thinks in the background (inside the core, the GIL released):
    exit status 130 and the interrupted message, no abort."""
    model = tmp_path / "fake.onnx"
    model.write_bytes(b"")
    for _ in range(2):
        proc = subprocess.Popen(
            [sys.executable, "-c", INTERRUPTED_ENGINE, str(model)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        proc.stdin.write(b"popucom-analyze 5\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == b"=\n"
        assert proc.stdout.readline().startswith(b"info move ")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, (proc.returncode, err[-2000:])
        assert b"interrupted" in err and b"terminate called" not in err and b"Traceback" not in err, err[-2000:]


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
    *NUMBERS,
]


def fuzz_line(rng: random.Random, commands: list[str], long_line: int, words: list[str]) -> bytes:
    r = rng.random()
    if r < 0.04:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))).replace(b"\n", b" ")
    if r < 0.05:
        return (rng.choice(commands) + " " + "x" * long_line).encode()
    line_words = [rng.choice(commands) if rng.random() < 0.85 else rng.choice(words)]
    if rng.random() < 0.2:
        line_words.insert(0, str(rng.randrange(1000)))
    if line_words[0] in NUMERIC_COMMANDS and rng.random() < 0.7:
        line_words.append(rng.choice(NUMBERS))  # the commands that take a number get every kind often
    line_words += [rng.choice(words) for _ in range(rng.choice([0, 1, 1, 2, 2, 3]))]
    line = " ".join(line_words).encode()
    return line + (b"\xff" if rng.random() < 0.02 else b"")


def fuzz_engine(
    commands_to_send: int, seed: int, long_line: int, engine: Engine | None = None, more_words: tuple[str, ...] = ()
) -> None:
    """Random command streams: every non-blank line gets exactly one reply, = or ?, never an
    internal error, and the replies hold no blank line (the framing is never broken)."""
    rng = random.Random(seed)
    words = [*WORDS, *more_words]
    engine = engine or Engine("random")
    commands = [c for c in engine.known_commands() if c != "quit"]
    sent = 0
    while sent < commands_to_send:
        lines = [fuzz_line(rng, commands, long_line, words) for _ in range(200)]
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


def test_engine_fuzz_with_a_model_player(model_engine) -> None:
    """The same with a model player: genmove searches and popucom-analyze streams."""
    fuzz_engine(3000, seed=12, long_line=10_000, engine=model_engine(visits=8))


def test_engine_fuzz_at_a_level(monkeypatch) -> None:
    """The same with the engine at a difficulty level, the level names among the words, so that
    popucom-level switches levels mid-stream (every level's network a tiny fake one)."""
    monkeypatch.setattr(player_module, "load_evaluator", lambda *args, **kwargs: TinyEvaluator())
    names = tuple(level.name for level in LEVELS)
    fuzz_engine(1500, seed=13, long_line=10_000, engine=Engine(level="beginner"), more_words=names)


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


def test_input_read_ahead_is_bounded_and_every_line_still_answered(monkeypatch) -> None:
    """A client that writes without waiting for replies while the engine is busy is held back by
    the pipe once the engine has queued its share (gtp.QUEUED_BYTES), and every line it sent is
    answered in order once the engine goes on."""
    import threading

    from popucom.engine import gtp

    monkeypatch.setattr(gtp, "QUEUED_BYTES", 100_000)
    engine = Engine("random")
    engine.out = io.StringIO()
    busy, stop = threading.Event(), threading.Event()
    name = engine.commands["name"]

    def first_one_waits(args):
        busy.wait(timeout=60)
        return name(args)

    engine.commands["name"] = first_one_waits
    read, write = os.pipe()
    sent = [0]
    chunk = b"name\n" * 1000

    def client() -> None:
        try:
            while not stop.is_set() and sent[0] < 8 << 20:
                sent[0] += os.write(write, chunk)
        finally:
            os.close(write)

    with os.fdopen(read, "rb") as stream:
        serving = threading.Thread(target=engine.serve, args=(stream,))
        serving.start()
        writer = threading.Thread(target=client)
        writer.start()
        before, still = -1, 0
        while still < 5 and writer.is_alive():  # until the client has been held for half a second
            time.sleep(0.1)
            still = still + 1 if sent[0] == before else 0
            before = sent[0]
        held = sent[0]
        stop.set()
        busy.set()
        writer.join(timeout=60)
        serving.join(timeout=120)
    assert not serving.is_alive()
    assert held < 2 << 20, f"the engine read {held} bytes ahead"  # the limit, the pipe and a read
    replies = engine.out.getvalue().split("\n\n")[:-1]
    assert len(replies) == sent[0] // 5 and set(replies) == {"= popucom"}


def test_komi_in_other_digits_or_with_underscores_is_refused_by_the_shared_check() -> None:
    """check_komi reads text as ASCII decimal only (limits.parse_decimal), so the engine's komi
    needs no rule of its own: '１２', '1_0' and '٣' get a ? naming the komi's range, the komi stays."""
    engine = Engine("random")
    replies = serve(engine, "komi 3\nkomi １２\nkomi 1_0\nkomi ٣\nkomi 12\n".encode())
    assert replies[0] == "=" and replies[-1] == "="
    for reply in replies[1:4]:
        assert reply.startswith("? komi must be a whole number from -81 to 81"), reply
    engine = Engine("random")
    serve(engine, "komi 3\nkomi 1_0\n".encode())
    assert engine.komi == 3
