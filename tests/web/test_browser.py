"""The web app in a real browser: the built site (`popucom web build`) served on 127.0.0.1 and
driven in Debian's headless Chromium through the page's test hook (window.popucom) and real
clicks. The page shows the board; a whole game of the AI against itself, and one against
clicked moves, play `popucom engine`'s moves from the same seed; the page keeps drawing while
the AI thinks, and "move now" ends the search; illegal clicks, hostile records and bad engine
requests are refused with a message while the game and the engine carry on; the Chinese page
shows no English; records round-trip with popucom/gui/records.py both ways; the page works
offline, and no request of any test leaves the page's origin (the last test).

Skipped, naming what to install, where chromium, chromedriver, emscripten or npm is missing
(tests/web/conftest.py).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import page_errors
import pytest

from popucom import _core
from popucom.arena.match import GameRecord, records_jsonl
from popucom.data.records import outcome_fields
from popucom.gui import records
from popucom.gui.game_tree import GameTree
from popucom.web import headless
from popucom.weights import weights_dir

VISITS = 32  # a whole game of searches in seconds, enough for the search to matter
MODEL = "popucom-small-v12"  # level `strongest` (best) in the page: levels.json
# The games compared with the engine's play without the clock-bound endgame tries (engine_command).
NO_TRIES = {"endgame_try_plies": 0}
NO_TRIES_SPEC = ",".join(f"{name}={value}" for name, value in NO_TRIES.items())


def state(driver: Any) -> dict:
    return driver.execute_script("return window.popucom.state();")


def new_game(driver: Any, **options: Any) -> dict:
    return headless.page_call(driver, "await window.popucom.newGame(args[0]); return window.popucom.state();", options)


def square(driver: Any, name: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{name}"]')


def message(driver: Any) -> str:
    return driver.execute_script("return document.querySelector('#message').textContent.trim();")


def play_clicks(driver: Any, moves: list[str]) -> None:
    """Plays `moves` by real clicks on the board (a human-human game)."""
    for number, move in enumerate(moves, len(state(driver)["moves"]) + 1):
        square(driver, move).click()
        headless.wait_until(driver, f"window.popucom.state().moves.length === {number}", timeout=10)


@pytest.fixture
def page(browser: Any, web_url: str) -> Any:
    """The page freshly opened (window.popucom.ready resolved) in the session's browser."""
    headless.open_page(browser, web_url)
    browser.get_log("performance")  # this test's requests only
    return browser


# --- the board ---------------------------------------------------------------------------------
def test_the_page_shows_the_board_a1_top_left(page) -> None:
    from selenium.webdriver.common.by import By

    board = page.find_element(By.CSS_SELECTOR, "#board")
    assert board.is_displayed() and board.size["width"] > 200
    cells = {cell.get_attribute("data-square"): cell for cell in board.find_elements(By.CSS_SELECTOR, "[data-square]")}
    assert sorted(cells) == sorted(_core.square_to_text(i) for i in range(_core.NUM_SQUARES))
    where = {name: cells[name].rect for name in ("a1", "i1", "a9", "i9")}
    assert where["a1"]["x"] < where["i1"]["x"] and where["a1"]["y"] == pytest.approx(where["i1"]["y"], abs=2)
    assert where["a1"]["y"] < where["a9"]["y"] and where["a9"]["x"] == pytest.approx(where["a1"]["x"], abs=2)
    assert state(page)["over"] is False and state(page)["moves"] == []


# --- same moves as the native engine -------------------------------------------------------------
def engine_command(visits: int) -> list[str]:
    """`popucom engine` on the page's model through the native backend in float32 on its
    portable kernels, the code the page's network file runs in WebAssembly, with the page's
    settings (the engine's seed is 0). Both play without the endgame tries, which end on the
    clock: a try that proves a move on one machine may not in time on another, or in the
    page's WebAssembly."""
    player = f"{weights_dir() / MODEL}.pt@{NO_TRIES_SPEC}"
    command = [sys.executable, "-m", "popucom.cli", "engine", "--player", player]
    return command + ["--visits", str(visits), "--backend", "native", "--threads", "1"]


ENGINE_ENV = {**os.environ, "POPUCOM_CPU_MATMUL": "fp32", "POPUCOM_CPU_ISA": "baseline"}


def engine_game(visits: int) -> list[str]:
    """A whole game of the engine against itself: genmove for both sides."""
    commands = "".join("genmove b\ngenmove w\n" for _ in range(_core.MOVES_PER_PLAYER)) + "quit\n"
    done = subprocess.run(
        engine_command(visits), input=commands, capture_output=True, text=True, timeout=280, check=True, env=ENGINE_ENV
    )
    return [line[2:] for line in done.stdout.splitlines() if line.startswith("= ") and line != "= "]


class Engine:
    """`popucom engine` asked one command at a time."""

    def __init__(self, visits: int) -> None:
        self.process = subprocess.Popen(
            engine_command(visits),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=ENGINE_ENV,
        )

    def ask(self, command: str) -> str:
        """The reply's text after '= '; AssertionError with the reply where it is '?'."""
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while (line := self.process.stdout.readline()) not in ("\n", ""):
            lines.append(line.rstrip("\n"))
        reply = "\n".join(lines)
        assert reply.startswith("="), f"{command}: {reply}"
        return reply[1:].strip()

    def close(self) -> None:
        self.process.communicate("quit\n", timeout=30)


def test_an_ai_game_from_a_fixed_seed_plays_the_engines_moves(page) -> None:
    with ThreadPoolExecutor(1) as pool:
        native = pool.submit(engine_game, VISITS)
        new_game(page, mode="ai-ai", level="strongest", seed=0, visits=VISITS, params=NO_TRIES)
        headless.wait_until(page, "window.popucom.state().over", timeout=270, poll=0.5)
        played = state(page)["moves"]
        expected = native.result()
    assert _core.Game.from_record(" ".join(expected)).is_over
    assert played == expected


# --- a thinking AI --------------------------------------------------------------------------------
# Frames the page draws in a second while whatever runs runs (a busy main thread draws none).
FRAMES_PER_SECOND = """
let frames = 0;
const start = performance.now();
await new Promise((done) => {
  const step = () => (++frames, performance.now() - start < 1000 ? requestAnimationFrame(step) : done());
  requestAnimationFrame(step);
});
return frames * 1000 / (performance.now() - start);
"""


def test_the_page_keeps_drawing_while_the_ai_thinks_and_move_now_ends_it(page) -> None:
    new_game(page, mode="human-black", level="strongest", visits=1_000_000)  # far longer than the test
    play_clicks(page, ["e5"])
    headless.wait_until(page, "window.popucom.state().thinking", timeout=10)
    assert headless.page_call(page, FRAMES_PER_SECOND) >= 20
    page.find_element("css selector", "#move-now").click()
    headless.wait_until(page, "(s => s.moves.length === 2 && !s.thinking)(window.popucom.state())", timeout=15)


def test_a_game_against_the_ai_from_a_fixed_seed_gets_the_engines_replies(page) -> None:
    """Black's moves clicked on the board (random legal ones), White's from the page's AI and from
    `popucom engine` told Black's moves: the same replies, the game to its end."""
    rng, game = random.Random(3), _core.Game()
    engine = Engine(VISITS)
    try:
        new_game(page, mode="human-black", level="strongest", seed=0, visits=VISITS, params=NO_TRIES)
        while not game.is_over:
            black = _core.square_to_text(rng.choice(sorted(game.legal_moves())))
            game.play(black)
            engine.ask(f"play b {black}")
            square(page, black).click()
            if game.is_over:
                break
            expected = engine.ask("genmove w")
            headless.wait_until(page, f"window.popucom.state().moves.length === {game.ply + 1}", timeout=60)
            assert state(page)["moves"][-1] == expected, f"ply {game.ply + 1} after {game.record}"
            game.play(expected)
    finally:
        engine.close()
    assert state(page)["moves"] == game.record.split() and state(page)["over"]


# --- refusals --------------------------------------------------------------------------------
def test_an_illegal_click_is_refused_with_a_message(page) -> None:
    new_game(page, mode="human-human")
    play_clicks(page, ["e5"])
    before = message(page)
    square(page, "e5").click()  # occupied
    shown = headless.wait_until(
        page, f"(m => m && m !== {json.dumps(before)} && m)(document.querySelector('#message').textContent.trim())", 10
    )
    assert "e5" in shown
    assert state(page)["moves"] == ["e5"] and state(page)["toMove"] == "white"


# Each: a file name, the text as head + body * times + tail (built in the page, so that a file of
# megabytes does not cross the driver), and words the refusal must contain. SGF nodes are counted
# from the root, node 1, as popucom/gui/records.py counts them.
HOSTILE_RECORDS = {
    "illegal move": ("illegal.sgf", "(;GM[81]FF[4]SZ[9]KM[0];B[e5];W[d4];B[d4])", "", 1, "", ["node 4", "d4"]),
    "wrong colour": ("turn.sgf", "(;GM[81]FF[4]SZ[9];B[e5];B[d4])", "", 1, "", ["node 3", "White"]),
    "off the board": ("off.sgf", "(;GM[81]SZ[9];B[j10])", "", 1, "", ["j10"]),
    "unclosed value": ("cut.sgf", "(;GM[81]FF[4]SZ[9];B[e5];W[d4", "", 1, "", ["]"]),
    "not SGF": ("junk.sgf", "hello, world", "", 1, "", ["("]),
    "empty": ("empty.sgf", "", "", 1, "", []),
    "another game": ("go.sgf", "(;GM[1]FF[4]SZ[19];B[dd];W[pp])", "", 1, "", ["GM[1]"]),
    "another board": ("big.sgf", "(;GM[81]SZ[19];B[e5])", "", 1, "", ["SZ[19]"]),
    "huge komi": ("komi.sgf", "(;GM[81]SZ[9]KM[1e400];B[e5])", "", 1, "", ["1e400"]),
    "analysis out of range": ("za.sgf", "(;GM[81]SZ[9];B[e5]ZA[10:NaN:0])", "", 1, "", ["ZA"]),
    "two moves in a node": ("two.sgf", "(;GM[81]SZ[9];B[e5]W[d4])", "", 1, "", ["node 2"]),
    "deep nesting": ("deep.sgf", "(;GM[81]SZ[9]", "(;", 200_000, "", []),
    "oversized": ("huge.sgf", "(;GM[81]SZ[9]C[", "x", 6 << 20, "])", ["MB"]),
    "JSONL not JSON": ("bad.jsonl", "{moves: e5}\n", "", 1, "", ["line 1"]),
    "JSONL illegal move": ("illegal.jsonl", '{"moves": "e5 d4 d4", "komi": 0}\n', "", 1, "", ["line 1", "d4"]),
    "JSONL not a record": ("list.jsonl", "[1, 2, 3]\n", "", 1, "", ["line 1"]),
    "JSONL bad result": ("result.jsonl", '{"moves": "e5", "result": "mine", "score": 1}\n', "", 1, "", ["mine"]),
    "JSONL deep JSON": ("nest.jsonl", '{"moves": ', "[", 100_000, "}", ["line 1"]),
    "JSONL no games": ("blank.jsonl", "\n\n", "", 1, "", []),
}
# The signs of an error the page did not expect (an exception's own text shown to the user).
# The curated cases hold no JSON null, so a "null" in their messages is a JavaScript null shown.
UNEXPECTED = (*page_errors.UNEXPECTED, "null")


def load_record(driver: Any, filename: str, head: str, body: str, times: int, tail: str) -> str | None:
    """Opens a record through window.popucom.loadRecordText; the refusal the page shows in #message,
    or None if the page took it."""
    return headless.page_call(
        driver,
        """const [name, head, body, times, tail] = args;
        const taken = await window.popucom.loadRecordText(head + body.repeat(times) + tail, name);
        return taken ? null : document.querySelector('#message').textContent.trim();""",
        filename,
        head,
        body,
        times,
        tail,
    )


def test_hostile_records_are_refused_naming_the_problem_and_the_game_is_kept(page) -> None:
    new_game(page, mode="human-human")
    play_clicks(page, ["e5", "d4"])
    failures = []
    for case, (filename, head, body, times, tail, words) in HOSTILE_RECORDS.items():
        refusal = load_record(page, filename, head, body, times, tail)
        if refusal is None:
            failures.append(f"{case}: taken")
        elif not all(word in refusal for word in words) or any(sign in refusal for sign in UNEXPECTED):
            failures.append(f"{case}: {refusal[:200]!r} (should name {words})")
        if state(page)["moves"] != ["e5", "d4"]:
            failures.append(f"{case}: the game became {state(page)['moves']}")
            new_game(page, mode="human-human")
            play_clicks(page, ["e5", "d4"])
    assert not failures, "\n".join(failures)


def test_a_hostile_file_chosen_in_the_file_dialog_is_refused(page, tmp_path: Path) -> None:
    new_game(page, mode="human-human")
    play_clicks(page, ["e5"])
    bad = tmp_path / "illegal.sgf"
    bad.write_text("(;GM[81]FF[4]SZ[9];B[c3];W[c3])")
    page.find_element("css selector", "#open-file").send_keys(str(bad))
    shown = headless.wait_until(page, "(m => m.includes('c3') && m)(window.popucom.state().message)", 10)
    assert "node 3" in shown
    assert state(page)["moves"] == ["e5"]


def test_markup_in_a_record_is_shown_as_text_never_run(page) -> None:
    attack = '<img src="x" onerror="window.pwned = 1"><script>window.pwned = 2</script>'
    text = f"(;GM[81]FF[4]SZ[9]PB[{attack}]C[{attack}];B[e5]C[{attack}])"
    assert load_record(page, "markup.sgf", text, "", 1, "") is None
    headless.page_call(page, "await window.popucom.tree.forward();")
    assert page.execute_script("return window.pwned === undefined && !document.querySelector('img[src=\"x\"]');")


# --- the engine after bad requests -------------------------------------------------------------
BAD_SEARCHES = {
    "an illegal move": {"moves": ["e5", "e5"]},
    "a square off the board": {"moves": ["z0"]},
    "moves that are not text": {"moves": [{"x": 1}]},
    "negative visits": {"params": {"visits": -5}},
    "a billion visits": {"params": {"visits": 10**12}},
    "an unknown parameter": {"params": {"no_such_setting": 1}},
    "a parameter out of range": {"params": {"visits": 16, "c_puct": -1}},
    "a parameter that is not a number": {"params": {"visits": 16, "c_puct": "NaN"}},
    "a komi off the board": {"komi": 10**6},
    "a model from another place": {"model": "../../../etc/passwd"},
    "a missing model": {"model": "models/no-such-model.onnx"},
    "a model on another site": {"model": "https://models.example.com/popucom.onnx"},
}


def engine_search(driver: Any, overrides: dict) -> dict:
    """One search request to the page's engine worker (window.popucom.app.engine, engine_link.js)
    with `overrides` on a small valid request: {ok, move} or {ok: false, error}."""
    return headless.page_call(
        driver,
        """const app = window.popucom.app;
        const request = Object.assign({moves: ['e5'], komi: 0, model: app.level.model, params: {visits: 16},
                                       seed: 0, temperature: 0, temperaturePlies: 0}, args[0]);
        try {
          const done = await app.engine.search(request);
          return {ok: true, move: done.move};
        } catch (error) {
          return {ok: false, error: String(error && error.message || error)};
        }""",
        overrides,
        timeout=60,
    )


def test_the_engine_refuses_bad_requests_and_keeps_searching(page) -> None:
    failures = []
    for case, overrides in BAD_SEARCHES.items():
        reply = engine_search(page, overrides)
        if reply["ok"]:
            failures.append(f"{case}: searched and played {reply['move']}")
        elif not reply["error"] or any(sign in reply["error"] for sign in UNEXPECTED):
            failures.append(f"{case}: {reply['error'][:200]!r}")
        after = engine_search(page, {})
        if not (after["ok"] and _core.Game.from_record("e5").is_legal(after["move"])):
            failures.append(f"after {case}: {after}")
    assert not failures, "\n".join(failures)
    new_game(page, mode="human-black", level="strongest", visits=16)  # and through the page
    play_clicks(page, ["e5"])
    headless.wait_until(page, "window.popucom.state().moves.length === 2", timeout=60)


# --- languages ---------------------------------------------------------------------------------
# Every string the user can see: rendered text, tooltips, placeholders, labels of the options of
# lists (shown when a list opens) and the title.
VISIBLE_TEXT = """
const texts = [document.title];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, element = node.parentElement, text = node.textContent.trim();
  if (!text || !element || element.closest('script, style, noscript, template')) continue;
  if (element.closest('option')) { texts.push(text); continue; }
  if (!element.getClientRects().length || getComputedStyle(element).visibility === 'hidden') continue;
  texts.push(text);
}
const buttons = 'input[type=button], input[type=submit]';
for (const element of document.querySelectorAll(`[title], [placeholder], [aria-label], ${buttons}`)) {
  for (const name of ['title', 'placeholder', 'aria-label', 'value']) {
    if (name === 'value' && !element.matches(buttons)) continue;
    const text = (element.getAttribute(name) || '').trim();
    if (text) texts.push(text);
  }
}
return texts;
"""
# Words that stay as they are in every language: names (the program's, file formats', keys'), and
# each language's own name in the language switch.
NAMES = {"popucom", "zero", "match", "pop", "sgf", "jsonl", "json", "ai", "onnx", "wasm", "pv", "lcb", "elo", "mb"}
NAMES |= {"home", "end", "esc", "english"}


def english_words(text: str) -> set[str]:
    """The words of `text` that a translation would change: runs of two or more Latin letters,
    without model names, squares (e5), results (B+3), numbers and NAMES."""
    text = re.sub(r"\bpopucom-\w+-v\d+\b|\b[a-i][1-9]\b|\b[BW]\+\d*|\bv\d+\b|\d+(\.\d+)?", " ", text)
    return {word for word in re.findall(r"[A-Za-z]{2,}", text) if word.lower() not in NAMES}


def test_the_chinese_page_shows_no_english(page) -> None:
    """With as much on show as the page has: a file of two games (its chooser), a variation in the
    tree and an analysis (win rates, top moves, the chart)."""
    games = [
        {"moves": moves, "komi": 0, "result": "black", "score": 1, "black": "甲", "white": "乙"}
        for moves in ("e5 d4 c3", "a1 b2")
    ]
    assert load_record(page, "games.jsonl", "\n".join(map(json.dumps, games)), "", 1, "") is None
    for _ in range(3):
        headless.page_call(page, "await window.popucom.tree.forward();")
    headless.page_call(page, "await window.popucom.tree.back();")
    play_clicks(page, ["f6"])  # a variation in the tree
    page.find_element("css selector", "#analyze").click()
    headless.wait_until(page, "document.querySelectorAll('#analysis tr[data-move]').length > 0", timeout=30)
    page.find_element("css selector", "#analyze").click()  # stopped, so that both languages show the same figures
    stopped = "!window.popucom.state().thinking && document.querySelector('#analyze').ariaPressed === 'false'"
    headless.wait_until(page, stopped, timeout=15)
    english = page.execute_script(VISIBLE_TEXT)
    headless.page_call(page, "await window.popucom.setLang('zh-CN');")
    chinese = page.execute_script(VISIBLE_TEXT)
    assert state(page)["lang"] == "zh-CN" and page.execute_script("return document.documentElement.lang") == "zh-CN"
    vocabulary = set().union(*(english_words(text) for text in english))
    untranslated = sorted({text for text in chinese if english_words(text) & vocabulary})
    assert not untranslated, f"English on the Chinese page: {untranslated}"
    headless.page_call(page, "await window.popucom.setLang('en');")
    assert sorted(page.execute_script(VISIBLE_TEXT)) == sorted(english)


def test_the_language_follows_the_browser(web_url: str, browser: Any, outside: tuple[str, list[str]]) -> None:
    with headless.chromium(lang="zh-CN", proxy=outside[0]) as chinese_browser:
        headless.open_page(chinese_browser, web_url)
        assert state(chinese_browser)["lang"] == "zh-CN"


# --- records, both ways with popucom/gui/records.py --------------------------------------------
def tree_lines(tree: GameTree) -> list[list[str]]:
    """Every line of a GUI game tree from the root to a leaf, in the file's order."""
    lines, pending = [], [(tree.root, [])]
    while pending:
        node, line = pending.pop()
        line = line + ([_core.square_to_text(node.move)] if node.move is not None else [])
        if not node.children:
            lines.append(line)
        pending.extend((child, line) for child in reversed(node.children))
    return lines


def save_record(driver: Any, kind: str) -> str:
    return headless.page_call(driver, "return await window.popucom.saveRecordText(args[0]);", kind)


def test_a_game_saved_in_the_page_opens_in_the_gui(page, tmp_path: Path) -> None:
    new_game(page, mode="human-human")
    play_clicks(page, ["e5", "d4", "c3", "f6"])
    headless.page_call(page, "await window.popucom.tree.back(); await window.popucom.tree.back();")
    play_clicks(page, ["g7"])  # a variation at move 3
    tree = records.from_sgf(save_record(page, "sgf"))
    assert tree_lines(tree) == [["e5", "d4", "c3", "f6"], ["e5", "d4", "g7"]]
    (tmp_path / "game.jsonl").write_text(save_record(page, "jsonl"))
    [(_, game)] = records.load_game_records(tmp_path / "game.jsonl")
    assert tree_lines(game)[0] in (["e5", "d4", "c3", "f6"], ["e5", "d4", "g7"])  # the line shown, or the main one


def test_a_game_saved_by_the_gui_opens_in_the_page(page) -> None:
    tree = GameTree.from_moves("e5 d4 c3 f6 g7", properties={"PB": "you", "PW": "popucom"})
    tree.go_to(tree.main_line()[2])
    tree.play("b2")
    tree.play("h8")
    tree.go_to(tree.main_line()[4])
    tree.play("a9")
    tree.current.comment = "a comment ] with \\ escapes"
    tree.main_line()[2].analysis = {"visits": 800, "black_winrate": 0.463, "black_score": -1.2}
    text = records.to_sgf(tree)
    assert load_record(page, "gui.sgf", text, "", 1, "") is None
    again = records.from_sgf(save_record(page, "sgf"))
    assert tree_lines(again) == tree_lines(tree)
    assert [node.comment for node in again.nodes()] == [node.comment for node in tree.nodes()]
    assert [node.analysis for node in again.nodes()] == [node.analysis for node in tree.nodes()]
    assert again.properties["PB"] == "you"
    for _ in range(5):
        headless.page_call(page, "await window.popucom.tree.forward();")
    assert state(page)["moves"] == ["e5", "d4", "c3", "f6", "g7"]


def random_game(seed: int) -> _core.Game:
    rng = random.Random(seed)
    game = _core.Game()
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game


def test_arena_records_open_in_the_page_and_come_back_the_same(page, tmp_path: Path) -> None:
    games = [random_game(seed) for seed in (1, 2)]
    arena = [
        GameRecord("random", "greedy", game.record, 0, opening_plies=0, **outcome_fields(game.position))
        for game in games
    ]
    assert load_record(page, "arena.games.jsonl", records_jsonl(arena), "", 1, "") is None
    for _ in range(len(games[0].record.split())):
        headless.page_call(page, "await window.popucom.tree.forward();")
    assert state(page)["moves"] == games[0].record.split() and state(page)["over"]
    (tmp_path / "saved.jsonl").write_text(save_record(page, "jsonl"))
    [(_, saved)] = records.load_game_records(tmp_path / "saved.jsonl")
    assert tree_lines(saved) == [games[0].record.split()]
    assert json.loads(save_record(page, "jsonl"))["result"] == arena[0].result


# --- network -----------------------------------------------------------------------------------
def test_the_page_works_offline_after_the_first_visit(browser: Any, web_dist: Path) -> None:
    with headless.serving(web_dist) as site:
        url = site.url
        headless.open_page(browser, url)
        headless.page_call(browser, "await navigator.serviceWorker.ready;")
        headless.wait_until(browser, "navigator.serviceWorker.controller !== null", timeout=30)
    browser.get_log("performance")
    headless.open_page(browser, url)  # the server is gone
    new_game(browser, mode="human-black", level="strongest", visits=16)
    play_clicks(browser, ["e5"])
    headless.wait_until(browser, "window.popucom.state().moves.length === 2", timeout=60)


def test_no_request_leaves_the_origin(page, web_url: str, outside: tuple[str, list[str]]) -> None:
    """Last in this file, so that it sees every test's requests (through the proxy) as well as a
    fresh load's and an AI move's (DevTools' log of the page, the page's Resource Timing)."""
    page.get(web_url)
    headless.page_call(page, "await window.popucom.ready;")
    new_game(page, mode="human-black", level="strongest", visits=16)
    play_clicks(page, ["e5"])
    headless.wait_until(page, "window.popucom.state().moves.length === 2", timeout=60)
    logged = headless.requested_urls(page)
    timed = page.execute_script("return performance.getEntriesByType('resource').map(e => e.name);")
    assert any(url.endswith(".wasm") for url in logged), logged  # the log saw the page load
    assert [url for url in logged + timed if not headless.same_origin(url, web_url)] == []
    assert headless.pages_requests(outside[1]) == []
