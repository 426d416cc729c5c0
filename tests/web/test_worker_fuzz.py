"""The page's engine worker (web/src/engine_worker.js) under hostile messages and hostile model
files, in headless Chromium: whatever a message holds (any type, missing or mistyped fields,
numbers at the float extremes, NaN, BigInt, prototype keys, lists far past a game's length,
models from other places or files that are no model), each request gets its one reply, a move
that is legal or an error that names the problem, and the worker stays usable: a plain search
right after every example plays a legal move. Hostile model files (tests/conftest.py's
hostile_model_files: empty, random, truncated, renamed, archives, broken graphs, a model whose
weights are stored outside the file...) reach the worker as blob URLs of the page's own origin,
as a file the user picked would; each is refused naming the network, or, where it is a working
network after all, plays a legal move; none is read from outside its bytes. Damaged network
files (cut, flipped, wrong shape, values that are not finite or overflow) get the same.
"""

from __future__ import annotations

import base64
import json
import math
import random
import struct
from pathlib import Path
from typing import Any

import pytest
from crafted_onnx import crafted
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from page_errors import is_clear

from popucom import _core
from popucom.nn import preset
from popucom.nn.export import export_onnx
from popucom.nn.native_file import network_file_bytes
from popucom.train import Trainer
from popucom.web import headless

MODEL = "models/popucom-small-v12.pcnet"
SQUARES = [_core.square_to_text(s) for s in range(_core.NUM_SQUARES)]
# Settings a search may be given, without the solver budgets: those at their tops cost seconds a
# move by design, and the settings fuzzers (tests/search, csrc/search) cover them.
SETTINGS = [
    name
    for name in _core.SearchParams.fields
    if name not in ("endgame_solve_max_nodes", "leaf_solve_max_nodes", "leaf_solve_move_nodes", "endgame_try_seconds")
]


@pytest.fixture
def page(browser: Any, web_url: str) -> Any:
    headless.open_page(browser, web_url)
    return browser


# --- values the structured clone carries that JSON does not ------------------------------------
# Python builds each message as JSON with these markers; the page revives them before posting.
SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
REVIVE = """
const special = {NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, undefined: undefined, bigint: 10n ** 30n};
const revive = (text) => JSON.parse(text, (key, value) =>
  value && typeof value === 'object' && '$special' in value ? special[value.$special] : value);
"""


def special(name: str) -> dict:
    return {"$special": name}


NUMBERS = st.one_of(
    st.sampled_from([0, 1, -1, 2, 0.5, -0.0, 2**31, 2**53, 2**63, 1e308, -1e308, 5e-324, 1e12, 10**6 + 1]),
    st.sampled_from([special("NaN"), special("Infinity"), special("-Infinity"), special("bigint")]),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=False, allow_infinity=False),
)
ANY = st.one_of(
    NUMBERS,
    st.none(),
    st.booleans(),
    st.just(special("undefined")),
    st.text(max_size=8),
    st.lists(st.integers(-2, 90), max_size=3),
    st.dictionaries(st.sampled_from(["a", "__proto__", "constructor", "toString"]), st.integers(), max_size=2),
)
MODELS = st.one_of(
    st.sampled_from(
        [
            MODEL,
            "models/no-such-model.onnx",
            "https://models.example.com/popucom.onnx",
            "../../../etc/passwd",
            "/etc/passwd",
            "file:///etc/passwd",
            "data:application/octet-stream;base64,AAAA",
            "javascript:alert(1)",
            "blob:null/0",
            "",
            "models/",
            "index.html",
            "constants.json",
            "wasm/popucom_core.wasm",
            "src/engine_worker.js",
            "models/popucom-small-v12.onnx?x=1#y",
        ]
    ),
    ANY,
)
MOVES = st.one_of(
    st.lists(st.sampled_from(SQUARES), max_size=8),
    st.lists(st.sampled_from([*SQUARES[:5], "E5", "z0", "", "e5\u0000", "a10", "pass"]), max_size=4),
    st.lists(ANY, max_size=3),
    st.just(["a1"] * 51),
    ANY,
)
VISITS = st.one_of(st.sampled_from([1, 2, 8, 16]), NUMBERS, ANY)
SEARCH_PARAMS = st.one_of(
    st.fixed_dictionaries(
        {"visits": VISITS}, optional={name: st.one_of(NUMBERS, st.booleans()) for name in SETTINGS[:8]}
    ),
    st.dictionaries(st.sampled_from([*SETTINGS, "no_such_setting", "__proto__", "constructor", "visits"]), ANY),
    ANY,
)


@st.composite
def messages(draw: st.DrawFn) -> dict | Any:
    kind = draw(st.sampled_from(["search", "search", "bench-net", "init", "new-game", "stop", "other", "raw"]))
    if kind == "raw":  # not an object at all
        return draw(ANY)
    if kind == "other":
        return {"type": draw(st.one_of(st.sampled_from(["SEARCH", "", "__proto__", "toString", "done"]), ANY))}
    if kind == "search":
        fields = {
            "moves": MOVES,
            "komi": st.one_of(st.integers(-81, 81), NUMBERS, ANY),
            "model": MODELS,
            "params": SEARCH_PARAMS,
            "seed": st.one_of(st.integers(0, 2**53), NUMBERS, ANY),
            "temperature": st.one_of(st.sampled_from([0, 1, 10, 10.5]), NUMBERS),
            "temperaturePlies": st.one_of(st.integers(0, 60), NUMBERS),
            "reportEveryMs": st.one_of(st.sampled_from([0, 50, 3600e3 + 1]), NUMBERS),
            "analysis": ANY,
        }
        return {"type": "search", **draw(st.fixed_dictionaries({}, optional=fields))}
    if kind == "bench-net":
        batch = st.one_of(st.sampled_from([1, 2, 0, -1, 1.5, 1025]), NUMBERS, ANY)
        repeats = st.one_of(st.sampled_from([1, 2, 0, 1001]), NUMBERS, ANY)
        return {
            "type": "bench-net",
            **draw(st.fixed_dictionaries({"batch": batch}, optional={"repeats": repeats, "model": MODELS})),
        }
    if kind == "init":
        return {"type": "init", **draw(st.fixed_dictionaries({}, optional={"constants": ANY}))}
    return {"type": kind}


def long_running(message: Any) -> bool:
    """A valid request the worker would honour at length (a bench of a thousand big batches):
    not hostile, only slow."""
    if not isinstance(message, dict) or message.get("type") != "bench-net":
        return False
    batch, repeats = message.get("batch"), message.get("repeats", 5)
    return all(isinstance(v, int) and not isinstance(v, bool) for v in (batch, repeats)) and batch * repeats > 64


# Sends each message as the page's client would (type search, bench-net and init wait for their
# reply; the others are posted as they are), then a plain search; reports every reply and any
# message the worker posted that no request was waiting for.
SEND = (
    REVIVE
    + """
const app = window.popucom.app;
const engine = app.engine ?? await app.engineStarting;
const stray = [];
const listen = (event) => { if (!engine.pending.has(event.data?.id)) stray.push(event.data); };
engine.worker.addEventListener('message', listen);
const late = (ms) => new Promise((_, no) => setTimeout(() => no(new Error(`no reply within ${ms} ms`)), ms));
const within = (promise, ms) => Promise.race([promise, late(ms)]);
const replies = [];
try {
  for (const text of args[0]) {
    const message = revive(text);
    const waits = message && typeof message === 'object' && ['search', 'bench-net', 'init'].includes(message.type);
    if (!waits) { engine.worker.postMessage(message); replies.push(null); continue; }
    try {
      const reply = await within(engine.request(message), 60000);
      replies.push({ok: true, type: reply.type ?? 'done', move: reply.move ?? null});
    } catch (error) {
      replies.push({ok: false, error: String(error?.message ?? error)});
    }
  }
  const plain = {moves: ['e5'], komi: 0, model: args[1], params: {visits: 4}, seed: 0};
  const after = await within(engine.search(plain), 60000);
  return {replies, after: after.move, stray: stray.map((m) => ({type: m?.type, message: m?.message ?? null}))};
} finally {
  engine.worker.removeEventListener('message', listen);
}
"""
)


def as_json(message: Any) -> str:
    return json.dumps(message, allow_nan=False)


def send(page: Any, batch: list[Any]) -> dict:
    return headless.page_call(page, SEND, [as_json(m) for m in batch], MODEL, timeout=300)


def legal_after(moves: Any, move: Any) -> bool:
    """Whether `move` is a legal square after `moves` (True where the moves are not plain squares:
    the worker read them its own way, and the square must at least be one)."""
    if move not in SQUARES:
        return False
    if not (isinstance(moves, list) and all(m in SQUARES for m in moves)):
        return True
    game = _core.Game.from_record(" ".join(moves))
    return game.is_legal(_core.parse_square(move))


def check_replies(batch: list[Any], result: dict) -> None:
    assert result["after"] in SQUARES and legal_after(["e5"], result["after"]), result
    for message, reply in zip(batch, result["replies"]):
        if reply is None:
            continue
        if reply["ok"]:
            if reply["type"] == "done":
                assert legal_after(message.get("moves", []), reply["move"]), (message, reply)
        else:
            assert is_clear(reply["error"]), (message, reply)
            assert "no reply within" not in reply["error"], (message, reply)
    for stray in result["stray"]:  # replies to posted messages: errors for what is not a request
        assert stray["type"] in ("error", "progress", "done", "ready", "bench-net"), stray
        if stray["type"] == "error":
            assert is_clear(stray["message"]), stray


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(batch=st.lists(messages(), min_size=1, max_size=4))
def test_any_message_gets_its_reply_and_the_worker_goes_on(page, batch: list[Any]) -> None:
    batch = [m for m in batch if not long_running(m)]
    check_replies(batch, send(page, batch))


def test_the_worker_message_kinds_reach_their_checks(page) -> None:
    """One message of each kind the fuzzer draws, with the reply each must get: the fuzzer's
    examples are not wasted on refusals at the door."""
    cases = [
        ({"type": "search", "moves": ["e5"], "model": MODEL, "params": {"visits": 2}}, "done"),
        ({"type": "search", "moves": ["e5", "e5"], "model": MODEL, "params": {"visits": 2}}, "move 2"),
        ({"type": "search", "model": MODEL, "params": {"visits": 2, "c_puct": -1}}, "c_puct"),
        ({"type": "search", "model": MODEL, "params": {"visits": 2, "__proto__": 1}}, "__proto__"),
        ({"type": "search", "model": MODEL, "params": {"visits": special("bigint")}}, "visits"),
        ({"type": "search", "model": MODEL, "komi": special("NaN")}, "komi"),
        ({"type": "search", "model": "https://models.example.com/x.onnx"}, "this site"),
        ({"type": "search", "model": "index.html", "params": {"visits": 2}}, "cannot load the network"),
        ({"type": "bench-net", "model": MODEL, "batch": 0}, "batch"),
        ({"type": "init", "constants": None}, "constants"),
    ]
    result = send(page, [message for message, _ in cases])
    check_replies([message for message, _ in cases], result)
    for (message, expected), reply in zip(cases, result["replies"]):
        if expected == "done":
            assert reply["ok"] and reply["type"] == "done", (message, reply)
        else:
            assert not reply["ok"] and expected in reply["error"], (message, reply)


# --- hostile model files -----------------------------------------------------------------------

LOAD_BLOB = """
const app = window.popucom.app;
const engine = app.engine ?? await app.engineStarting;
const bytes = Uint8Array.from(atob(args[0]), (c) => c.charCodeAt(0));
const url = URL.createObjectURL(new Blob([bytes], {type: 'application/octet-stream'}));
try {
  const done = await engine.search({moves: ['e5'], komi: 0, model: url, params: {visits: 4}, seed: 0});
  return {ok: true, move: done.move};
} catch (error) {
  return {ok: false, error: String(error?.message ?? error)};
} finally {
  URL.revokeObjectURL(url);
}
"""


@pytest.fixture(scope="module")
def good_models(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("good")
    trainer = Trainer(preset("tiny"))
    checkpoint = trainer.save(folder / "tiny.pt")
    return export_onnx(trainer.model.eval(), folder / "tiny.onnx"), checkpoint


def search_with_model_bytes(page: Any, data: bytes) -> dict:
    return headless.page_call(page, LOAD_BLOB, base64.b64encode(data).decode(), timeout=120)


def test_hostile_model_files_are_refused_or_play_legally(page, good_models, hostile_model_files) -> None:
    good_onnx, _ = good_models
    control = search_with_model_bytes(page, good_onnx.read_bytes())
    assert control["ok"] and legal_after(["e5"], control["move"]), control  # a model as bytes works
    failures, refused = [], 0
    for path, family in hostile_model_files(*good_models):
        if not path.is_file():  # a missing file or a folder: nothing a page can be given
            continue
        reply = search_with_model_bytes(page, path.read_bytes())
        if reply["ok"]:
            if not legal_after(["e5"], reply["move"]):
                failures.append(f"{path.name} ({family}): played {reply['move']}")
            if "external" in family or path.name == "ext.onnx":
                failures.append(f"{path.name} ({family}): weights stored outside the file were read")
        else:
            refused += 1
            if not (is_clear(reply["error"]) and "network" in reply["error"]):
                failures.append(f"{path.name} ({family}): {reply['error']!r}")
    after = search_with_model_bytes(page, good_onnx.read_bytes())
    assert after["ok"], after
    assert not failures, "\n".join(failures)
    assert refused > 40, refused


def test_a_tensor_stored_outside_the_file_is_refused_wherever_it_hides(page, good_models) -> None:
    """tests/crafted_onnx.py's placements (initializers, Constant nodes, sparse tensors, tensor
    lists, If branches nested twice, graph lists, local functions), each refused by the page's own
    check (web/src/onnx_check.js) before onnxruntime-web sees the bytes."""
    good_onnx, _ = good_models
    failures = []
    for placement, model in crafted(good_onnx).items():
        reply = search_with_model_bytes(page, model.SerializeToString())
        if reply["ok"] or "stored outside the file" not in reply["error"]:
            failures.append(f"{placement}: {reply}")
    assert not failures, "\n".join(failures)


# --- hostile network files ---------------------------------------------------------------------
HEADER = 12  # the magic and the format version (csrc/nn/native_net_file.h)
SHAPE_FIELDS = ("planes", "d", "layers", "heads", "mlp_hidden", "head_hidden", "legal_plane", "feature_version")
FIRST_VALUE = HEADER + 4 * len(SHAPE_FIELDS) + 3 * 4 + 4  # the embedding's first weight


def patched(data: bytes, offset: int, fmt: str, value: Any) -> bytes:
    return data[:offset] + struct.pack("<" + fmt, value) + data[offset + struct.calcsize(fmt) :]


def hostile_network_files(good: bytes) -> dict[str, bytes]:
    """Damaged copies of a good network file, each named by its damage."""
    files = {
        "empty": b"",
        "the magic alone": good[:8],
        "another format": patched(good, 8, "I", 99),
        "one byte more": good + b"\0",
        "a weight that is NaN": patched(good, FIRST_VALUE, "f", math.nan),
        "a weight that is infinite": patched(good, FIRST_VALUE, "f", math.inf),
        "a count past the end": patched(good, FIRST_VALUE - 4, "I", 0xFFFFFFFF),
    }
    for cut in (9, HEADER + 5, FIRST_VALUE + 3, len(good) // 2, len(good) - 1):
        files[f"cut at byte {cut}"] = good[:cut]
    for i, name in enumerate(SHAPE_FIELDS):
        files[f"{name} huge"] = patched(good, HEADER + 4 * i, "i", 1 << 30)
        files[f"{name} negative"] = patched(good, HEADER + 4 * i, "i", -1)
    files["11 planes"] = patched(good, HEADER, "i", 11)
    files["features of another version"] = patched(good, HEADER + 4 * 7, "i", _core.FEATURE_VERSION + 1)
    # Finite weights that overflow on the way: the outputs are not finite.
    values = bytearray(good)
    for offset in range(FIRST_VALUE, len(good) - 4, 4096):
        values[offset : offset + 4] = struct.pack("<f", 3e38)
    files["weights near the float maximum"] = bytes(values)
    rng = random.Random(5)
    for trial in range(8):
        flipped = bytearray(good)
        for _ in range(1 + trial):
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        files[f"{1 + trial} bits flipped"] = bytes(flipped)
    return files


def test_hostile_network_files_are_refused_or_play_legally(page, good_models) -> None:
    """The page's own format (models/*.pcnet) on the core's forward: a damaged file is refused
    naming the network and what is wrong, or plays a legal move; the engine goes on."""
    _, checkpoint = good_models
    from popucom.nn.checkpoint import load_network

    good = network_file_bytes(load_network(checkpoint))
    control = search_with_model_bytes(page, good)
    assert control["ok"] and legal_after(["e5"], control["move"]), control
    failures, refused = [], 0
    for damage, data in hostile_network_files(good).items():
        reply = search_with_model_bytes(page, data)
        if reply["ok"]:
            if not legal_after(["e5"], reply["move"]):
                failures.append(f"{damage}: played {reply['move']}")
        else:
            refused += 1
            if not (is_clear(reply["error"]) and "network" in reply["error"]):
                failures.append(f"{damage}: {reply['error']!r}")
    assert search_with_model_bytes(page, good)["ok"]
    assert not failures, "\n".join(failures)
    assert refused >= 25, refused
