"""The arena (own trees and networks per player, ratings, SPRT) and the GTP engine."""

import io
import json
import subprocess
import sys
import time

import numpy as np
import pytest

import popucom
from popucom.arena.match import make_openings, play_match, read_records, summarize
from popucom.arena.ratings import SPRT, colour_ratings, fit_bradley_terry, game_results, gap
from popucom.infer import EvalOutput, TinyEvaluator
from popucom.player import Player
from popucom.player_spec import DEFAULT_VISITS, PlayerSpec, load_evaluator
from popucom.search.game_search import SINGLE_GAME_LEAVES_PER_STEP


def test_arena_detects_a_real_difference() -> None:
    openings = make_openings(10, 4, seed=3)
    records = play_match(Player("uct:2000", bot="uct:2000"), Player("random", bot="random", seed=1), openings)
    assert len(records) == 20
    rating = gap(game_results(records), "uct:2000", "random")
    assert rating.low > 0  # the 95% interval is above zero


def test_identical_players_interval_contains_zero() -> None:
    openings = make_openings(10, 4, seed=4)
    records = play_match(Player("greedy-a", bot="greedy", seed=1), Player("greedy-b", bot="greedy", seed=2), openings)
    rating = gap(game_results(records), "greedy-a", "greedy-b")
    assert rating.low < 0 < rating.high


def test_every_opening_is_played_twice_with_colours_swapped() -> None:
    openings = make_openings(3, 4, seed=5)
    assert make_openings(3, 4, seed=5) == openings  # reproducible
    records = play_match(Player("a", bot="random", seed=1), Player("b", bot="random", seed=2), openings)
    for i, opening in enumerate(openings):
        first, second = records[2 * i], records[2 * i + 1]
        prefix = " ".join(popucom.square_to_text(m) for m in opening)
        assert first.moves.startswith(prefix) and second.moves.startswith(prefix)
        assert (first.black, first.white) == ("a", "b") and (second.black, second.white) == ("b", "a")
    s = summarize(records, "a", "b")
    assert s["games"] == 6 and s["a_black"]["wins"] + s["a_black"]["draws"] + s["a_black"]["losses"] == 3


class CurrentPlayer:
    """Which player is stepping its search right now (set by `moving`)."""

    name: str | None = None


def moving(player: Player, black_in_even_games: bool, games: int) -> Player:
    """Wraps the player's search step: the step may only search games where this player is to
    move (play_match(a, b) gives a Black in the even games), and CurrentPlayer names the player
    while the step (and so any network call) runs."""
    driver = player.many_games(games)  # the one the match then uses
    step, search = driver.step, driver.search

    def owned_step() -> int:
        for g in range(search.num_games):
            if not search.done(g):
                mine = popucom.Color.BLACK if (g % 2 == 0) == black_in_even_games else popucom.Color.WHITE
                assert search.position(g).to_move == mine, f"{player.name} searches game {g} on the other's move"
        CurrentPlayer.name = player.name
        try:
            return step()
        finally:
            CurrentPlayer.name = None

    driver.step = owned_step
    return player


class Instrumented:
    """An evaluator that fails if it is called while another player is moving."""

    feature_version = popucom.FEATURE_VERSION

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.calls = 0
        self.inner = TinyEvaluator()

    def __call__(self, features: np.ndarray) -> EvalOutput:
        assert CurrentPlayer.name == self.owner, f"{self.owner}'s network called on {CurrentPlayer.name}'s move"
        self.calls += 1
        return self.inner(features)


def test_each_player_uses_only_its_own_network() -> None:
    a_eval, b_eval = Instrumented("A"), Instrumented("B")
    openings = make_openings(2, 2, seed=6)
    records = play_match(
        moving(Player("A", evaluator=a_eval, visits=16), black_in_even_games=True, games=4),
        moving(Player("B", evaluator=b_eval, visits=16), black_in_even_games=False, games=4),
        openings,
    )
    assert len(records) == 4 and a_eval.calls > 0 and b_eval.calls > 0


def test_bradley_terry_fit_and_colour_ratings() -> None:
    results = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10 + [("b", "c", 1.0)] * 20 + [("b", "c", 0.0)] * 20
    ratings = fit_bradley_terry(results, anchor="c")
    assert ratings["c"].elo == 0
    assert abs(ratings["b"].elo) < 60  # 50% against c
    assert 120 < ratings["a"].elo - ratings["b"].elo < 260  # 75% is about +190 Elo
    assert ratings["a"].low < ratings["a"].elo < ratings["a"].high
    with pytest.raises(ValueError, match="anchor"):
        fit_bradley_terry(results, anchor="zed")
    records = play_match(
        Player("x", bot="greedy", seed=1), Player("y", bot="random", seed=1), make_openings(4, 4, seed=1)
    )
    colour = colour_ratings(records, "x")
    assert set(colour) == {"x/black", "x/white", "y/black", "y/white"}


def test_sprt_decides() -> None:
    sprt = SPRT(0, 50, 0.05, 0.05)
    assert sprt.decide([1.0, 1.0, 0.0, 1.0, 1.0, 1.0] * 10) == "H1"
    assert sprt.decide([0.0, 0.0, 1.0, 0.0, 0.5, 0.0] * 10) == "H0"
    assert sprt.decide([1.0, 0.0]) == "continue"


def test_player_specs() -> None:
    assert PlayerSpec.parse("uct:50").kind == "bot"
    with pytest.raises(ValueError, match="unknown player"):
        PlayerSpec.parse("alphazero")
    with pytest.raises(FileNotFoundError):
        PlayerSpec.parse("missing.onnx@visits=10")
    with pytest.raises(ValueError, match="visits must be at least 1"):
        PlayerSpec.parse("greedy@visits=0")
    with pytest.raises(ValueError, match="bots take no @options"):
        PlayerSpec.parse("greedy@visits=3")


def test_player_spec_search_options(tiny_model) -> None:
    spec = PlayerSpec.parse(f"{tiny_model}@visits=12,score_utility_weight=0.25,root_noise=false,gumbel_actions=8")
    assert spec.visits == 12 and spec.name == "tiny@12,score_utility_weight=0.25,root_noise=False,gumbel_actions=8"
    params = spec.search_params()
    assert (params.score_utility_weight, params.root_noise, params.gumbel_actions) == (0.25, False, 8)
    assert params.c_puct == popucom._core.SearchParams().c_puct  # the rest stay the core's defaults
    assert PlayerSpec.parse(f"{tiny_model}@c_puct=2").visits == DEFAULT_VISITS
    # A caller's visit count (the engine's --visits) replaces the default, never an @visits=N.
    assert spec.visits_given and spec.with_default_visits(50) == spec
    defaulted = PlayerSpec.parse(f"{tiny_model}@c_puct=2").with_default_visits(50)
    assert not defaulted.visits_given and defaulted.visits == 50 and defaulted.name == "tiny@50,c_puct=2.0"
    assert PlayerSpec.parse("greedy").with_default_visits(50).visits == DEFAULT_VISITS  # bots have no visits
    bad = {
        "nonsense=1": "bad option 'nonsense=1'",
        "c_puct": "bad option 'c_puct'",
        "c_puct=fast": "c_puct=fast is not a float",
        "c_puct=inf": "not a finite number",
        "gumbel_actions=2.5": "is not a int",
        "gumbel_actions=99999999999": "32-bit",
        "root_noise=maybe": "is not a bool",
        "visits=5,visits=6": "given twice",
        "visits=5@visits=6": "option 'visits' given twice",
        "c_puct=1@visits=6": "separated by commas",
        "endgame_solve_max_nodes=-5": "endgame_solve_max_nodes = -5 is out of range",
        "dirichlet_epsilon=1.5": r"want 0 <= dirichlet_epsilon <= 1",
        "leaves_per_game=0": "leaves_per_game = 0 is out of range",
    }
    for options, message in bad.items():
        with pytest.raises(ValueError, match=message):
            PlayerSpec.parse(f"{tiny_model}@{options}")
    # The settings reach the search of every user of a spec: arena player, engine, GUI opponent.
    evaluator = load_evaluator(spec)
    player = Player(spec.name, evaluator=evaluator, visits=spec.visits, params=spec.search_params())
    assert player.many_games(2).params.score_utility_weight == 0.25 and player.many_games(2).params.leaves_per_game == 4
    lcb = PlayerSpec.parse(f"{tiny_model}@lcb_selection_share=0.1,leaves_per_game=1")
    player = Player(lcb.name, evaluator=evaluator, visits=lcb.visits, params=lcb.search_params())
    assert player.many_games(2).params.lcb_selection_share == 0.1 and player.many_games(2).params.leaves_per_game == 1
    from popucom.engine.gtp import Engine

    engine = Engine(f"{tiny_model}@score_utility_weight=0.5", visits=20, out=io.StringIO())
    assert engine.visits == 20 and engine.search.driver.params.score_utility_weight == 0.5
    assert engine.search.driver.params.leaves_per_game == SINGLE_GAME_LEAVES_PER_STEP  # one tree batches its own
    engine = Engine(f"{tiny_model}@leaves_per_game=3", visits=20, out=io.StringIO())
    assert engine.search.driver.params.leaves_per_game == 3  # ... unless the spec says otherwise


def test_arena_command_round_robin(tmp_path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "popucom.cli",
            "arena",
            "greedy",
            "random",
            "uct:100",
            "--openings",
            "2",
            "--results",
            str(tmp_path / "r.jsonl"),
            "--games-out",
            str(tmp_path / "g.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "Bradley-Terry ratings" in out.stdout and "by colour" in out.stdout
    summary = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[-1])
    assert len(summary["pairs"]) == 3 and summary["games"] == 12
    assert len(read_records(tmp_path / "g.jsonl")) == 12
    bad = subprocess.run(
        [sys.executable, "-m", "popucom.cli", "arena", "greedy", "nonsense"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "unknown player 'nonsense'" in bad.stderr


class GtpClient:
    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "popucom.cli", "engine", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    def send(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def reply(self) -> str:
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, "engine closed its output"
            if line == "\n" and lines:
                return "".join(lines).rstrip("\n")
            if line != "\n":
                lines.append(line)

    def ask(self, line: str) -> str:
        self.send(line)
        return self.reply()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def test_engine_full_game_by_genmove() -> None:
    engine = GtpClient("--player", "greedy")
    try:
        assert engine.ask("protocol_version") == "= 2"
        assert engine.ask("7 name") == "=7 popucom"
        commands = engine.ask("list_commands")
        for c in ("genmove", "undo", "popucom-analyze", "popucom-set-position", "popucom-rules", "final_score"):
            assert c in commands
        assert engine.ask("known_command popucom-rules") == "= true"
        moves = []
        for ply in range(50):
            reply = engine.ask(f"genmove {'b' if ply % 2 == 0 else 'w'}")
            if reply.startswith("? the game is over"):
                break
            assert reply.startswith("= "), reply
            moves.append(reply[2:])
        game = popucom.Game.from_record(" ".join(moves))
        assert game.is_over
        score = engine.ask("final_score")
        assert score == "= 0" or score[2] in "BW", score
        assert engine.ask("quit") == "="
    finally:
        engine.close()


def test_engine_illegal_input_and_undo() -> None:
    engine = GtpClient("--player", "random")
    try:
        assert engine.ask("play b e5") == "="
        assert engine.ask("play b e6").startswith("? illegal move: it is White's turn")
        assert engine.ask("play w e5").startswith("? illegal move: e5 already holds a stone")
        assert engine.ask("play w j9").startswith("? cannot read move 'j9'")
        assert engine.ask("frobnicate").startswith("? unknown command")
        assert engine.ask("boardsize 19").startswith("? unacceptable size")
        assert engine.ask("komi 2.5").startswith("? komi must be a whole number")
        assert engine.ask("final_score").startswith("? the game is not over")
        assert engine.ask("popucom-set-position e5 d4 zz").startswith("? record move 3")
        assert engine.ask("undo") == "="
        assert engine.ask("undo").startswith("? cannot undo")
        assert engine.ask("popucom-set-position e5 d4") == "="
        board = engine.ask("showboard")
        assert "White" not in board.splitlines()[-1] or "Black to move" in board
        assert engine.ask("genmove w").startswith("? it is Black's turn")
        assert engine.ask("popucom-analyze").startswith("? analysis needs a model player")
        rules = json.loads(engine.ask("popucom-rules")[2:])
        assert rules["board_size"] == 9 and rules["moves_per_player"] == 25
    finally:
        engine.close()


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    from popucom.nn import PopucomNet, preset
    from popucom.nn.export import export_onnx

    return export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path_factory.mktemp("m") / "tiny.onnx")


def test_analysis_line_puts_the_move_it_would_play_first() -> None:
    from popucom.engine.gtp import analysis_line
    from popucom.search.analysis import AnalysisResult

    def move(square: str, visits: int) -> dict:
        at = popucom.parse_square(square)
        return {"move": at, "visits": visits, "winrate": 0.5, "score": 0.0, "prior": 0.1, "lcb": 0.0, "pv": [at]}

    moves = [move("e5", 90), move("d4", 80), move("c3", 10), move("b2", 0)]
    line = analysis_line(AnalysisResult(180, 0.5, 0.0, 0.0, moves, chosen=popucom.parse_square("d4")))
    listed = [(part.split()[0], part.split(" order ")[1].split()[0]) for part in line.split("info move ")[1:]]
    assert listed == [("d4", "0"), ("e5", "1"), ("c3", "2")]  # unvisited moves are left out
    assert " proven " not in line
    moves[0] |= {"proven": 1, "exact_score": 3.0}  # the search proved e5 a win by three floors
    line = analysis_line(AnalysisResult(180, 0.5, 0.0, 0.0, moves, chosen=popucom.parse_square("d4")))
    assert "info move e5 visits 90 " in line and " lcb 0.0000 proven win exactScore 3 order 1 pv e5" in line
    assert analysis_line(AnalysisResult(0, 0.5, 0.0, 0.0, [move("e5", 0)])) == ""


def test_engine_streams_analysis_until_the_next_command(tiny_model) -> None:
    engine = GtpClient("--player", str(tiny_model), "--visits", "32")
    try:
        assert engine.ask("play b e5") == "="
        engine.send("popucom-analyze 10")
        assert engine.proc.stdout.readline().strip() == "="
        info = engine.proc.stdout.readline()
        assert info.startswith("info move ") and " visits " in info and " winrate " in info and " pv " in info
        orders = [int(part.split(" order ")[1].split()[0]) for part in info.split("info move ")[1:]]
        assert orders == list(range(len(orders)))  # the move it would play first, as order 0
        time.sleep(0.3)
        engine.send("name")  # any command stops the analysis
        lines = []
        while True:
            line = engine.proc.stdout.readline()
            if line == "\n":
                break
            lines.append(line)
        assert all(line.startswith("info move ") for line in lines)
        assert engine.reply() == "= popucom"
        reply = engine.ask("genmove w")
        assert reply.startswith("= ") and popucom.parse_square(reply[2:]) != popucom.parse_square("e5")
    finally:
        engine.close()


def test_match_progress_advances_with_every_round_not_only_when_all_games_end(monkeypatch) -> None:
    """The games of a match move one ply per round and end together, so the bar counts plies:
    it must show part of the match played long before the last round."""
    import tqdm

    from popucom.arena.match import games_played

    openings = make_openings(2, 4, seed=3)
    games = []
    for opening in openings:
        for _ in range(2):
            game = popucom._core.Game()
            for move in opening:
                game.play(move)
            games.append(game)
    assert games_played(games, openings) == 0.0
    for game in games:
        for _ in range(10):
            game.play(game.legal_moves()[0])
    assert games_played(games, openings) == pytest.approx(4 * 10 / (popucom._core.MAX_GAME_PLIES - 4))

    readings = []
    update = tqdm.tqdm.update

    def spy(bar, n=1):
        result = update(bar, n)
        readings.append(bar.n)
        return result

    monkeypatch.setattr(tqdm.tqdm, "update", spy)
    play_match(Player("greedy", bot="greedy"), Player("random", bot="random", seed=1), openings, progress=True)
    assert readings[-1] == pytest.approx(4.0)
    assert len([r for r in readings if 0 < r < 1]) >= 5  # many readings before even one game's worth
    assert readings == sorted(readings)
