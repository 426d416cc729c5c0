"""The wasm core of the web app, checked in node against the native core (popucom._core): the
same rules on random games, errors as messages (never a crash), and the search loop of the
engine worker reproducing `popucom engine`'s moves with the same network and seed.

Uses the site built once per session (conftest.py's web_dist); skips naming the Debian package
when emscripten, node or npm is missing.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from popucom import _core

PROBE = Path(__file__).with_name("wasm_probe.mjs")
COLOURS = {_core.Color.BLACK: "black", _core.Color.WHITE: "white"}
RESULTS = {
    _core.Result.ONGOING: None,
    _core.Result.BLACK_WIN: "black",
    _core.Result.WHITE_WIN: "white",
    _core.Result.DRAW: "draw",
}
END_REASONS = {
    _core.EndReason.NONE: None,
    _core.EndReason.MOVES_EXHAUSTED: "moves-exhausted",
    _core.EndReason.NO_LEGAL_MOVE: "no-legal-move",
}


@pytest.fixture(scope="module")
def probe_site(web_dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site's modules and wasm, copied where node reads .js as ES modules, with the probe."""
    site = tmp_path_factory.mktemp("wasm_site")
    for folder in ("src", "wasm"):
        shutil.copytree(web_dist / folder, site / folder)
    (site / "package.json").write_text('{"type": "module"}\n')
    shutil.copy(PROBE, site / PROBE.name)
    return site


def run_probe(site: Path, request: dict, timeout: float = 120) -> dict:
    done = subprocess.run(
        ["node", str(site / PROBE.name), str(site)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def native_state(game: _core.Game) -> dict:
    p = game.position
    cells = []
    for square in range(_core.NUM_SQUARES):
        stone, floor = p.stone_at(square), p.floor_at(square)
        cells.append([COLOURS.get(stone), COLOURS.get(floor)])
    return {
        "legal": sorted(_core.square_to_text(s) for s in (p.legal_moves() if not p.is_over else [])),
        "cells": cells,
        "toMove": COLOURS[p.to_move],
        "ply": p.ply,
        "over": p.is_over,
        "result": RESULTS[p.result],
        "endReason": END_REASONS[p.end_reason],
        "score": p.score,
        "komi": p.komi,
        "movesLeft": {"black": p.moves_left[0], "white": p.moves_left[1]},
    }


def random_games(count: int, komi: int, seed: int) -> list[tuple[list[str], list[dict]]]:
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        game = _core.Game(komi)
        moves, states = [], [native_state(game)]
        while not game.position.is_over:
            move = rng.choice(game.position.legal_moves())
            game.play(move)
            moves.append(_core.square_to_text(move))
            states.append(native_state(game))
        games.append((moves, states))
    return games


def test_rules_match_the_native_core_on_random_games(probe_site: Path) -> None:
    for komi, seed in ((0, 1), (-5, 2), (7, 3)):
        games = random_games(20, komi, seed)
        reply = run_probe(probe_site, {"mode": "rules", "komi": komi, "games": [moves for moves, _ in games]})
        for (moves, states), wasm_states in zip(games, reply, strict=True):
            for ply, (native, wasm) in enumerate(zip(states, wasm_states, strict=True)):
                assert wasm == native, f"komi {komi}, after {moves[:ply]}"


def test_bad_input_is_an_error_message_and_the_core_stays_usable(probe_site: Path) -> None:
    out = run_probe(probe_site, {"mode": "errors"})
    assert out["occupied"] == "RulesError: illegal move: e5 already holds a stone"
    assert "the column must be a letter a-i" in out["unreadable"]
    assert out["notText"].startswith("RulesError: a move is a square name")
    assert "komi must be a whole number" in out["komi"]
    assert "unknown search setting 'c_pucx'" in out["unknownParam"]
    assert "c_puct" in out["paramRange"] and "out of range" in out["paramRange"]
    assert "wants a whole number" in out["paramWhole"]
    assert "finite" in out["paramNaN"]
    assert "seed must be a whole number" in out["badSeed"]
    assert "no game has handle 9999" in out["badHandle"]
    assert "nothing to undo" in out["undoEmpty"]
    white_ahead = _core.Game.from_record("a1 c3 i9 c4 a9 c5")  # White's three in a row painted
    assert out["negativeScore"] == white_ahead.position.score < 0 and out["negativeKomi"] == -7
    assert "not finite" in out["poisoned"]
    assert out["afterPoison"]["visits"] >= 32 and out["afterPoison"]["legal"]


def test_search_on_a_fake_network_reaches_its_visits(probe_site: Path) -> None:
    out = run_probe(probe_site, {"mode": "search", "visits": 64, "plies": 6})
    assert len(out["moves"]) == 6
    game = _core.Game.from_record(" ".join(out["moves"]))  # every move legal
    assert len(game) == 6
    assert out["progress"] and max(out["progress"]) >= 64


def test_search_plays_the_engines_moves(probe_site: Path, web_dist: Path) -> None:
    """onnxruntime-web in node and onnxruntime in Python: the same moves at the same seed, as
    `popucom engine --player weights/popucom-small-v12.onnx` plays them (GameSearch, one tree
    kept across both sides' moves)."""
    from popucom.player import Player
    from popucom.weights import weights_dir

    model = weights_dir() / "popucom-small-v12.onnx"
    ort = web_dist.parent / "npm" / "node_modules" / "onnxruntime-web" / "dist" / "ort.node.min.mjs"
    if not (model.is_file() and ort.is_file()):
        pytest.skip(f"needs {model} and onnxruntime-web in {ort.parent} (popucom web build)")
    visits, plies = 50, 12
    player = Player.from_spec(f"{model}@visits={visits}")
    search = player.session()
    game = _core.Game()
    for _ in range(plies):
        search.set_position(game.position)
        result = search.search(visits=visits)
        game.play(search.move_to_play(result, player.move_temperature(game.position.ply)))
    expected = [_core.square_to_text(m) for m in game.moves]
    out = run_probe(
        probe_site, {"mode": "search", "visits": visits, "plies": plies, "ort": str(ort), "model": str(model)}
    )
    assert out["moves"] == expected
