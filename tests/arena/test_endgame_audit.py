"""The endgame audit against a brute-force recount, and the solver's move values against a plain
negamax, on games of the network-free bots (a few seconds)."""

import json
import random

import pytest

from popucom import _core
from popucom.arena.match import read_records
from popucom.arena.ratings import wilson_interval
from popucom.experiments import endgame_audit


def brute_value(position: _core.Position) -> int:
    """The exact value for the side to move by negamax over every move, no pruning at all."""
    if position.is_over:
        if position.result == _core.Result.DRAW:
            return 0
        black_won = position.result == _core.Result.BLACK_WIN
        return 1 if black_won == (position.to_move == _core.Color.BLACK) else -1
    return max(-brute_value(position.play(move)) for move in position.legal_moves())


def pruned_value(position: _core.Position, alpha: int = -1, beta: int = 1) -> int:
    """The same by alpha-beta (still no table, no move ordering): quick enough for 4 plies."""
    if position.is_over:
        return brute_value(position)
    best = -2
    for move in position.legal_moves():
        best = max(best, -pruned_value(position.play(move), -beta, -alpha))
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


@pytest.fixture(scope="module")
def bot_games(tmp_path_factory: pytest.TempPathFactory):
    """Eight games of greedy against random from 4-ply openings, written by the audit's --play."""
    path = tmp_path_factory.mktemp("audit") / "games.jsonl"
    assert endgame_audit.play_games("greedy", "random", 8, 4, threads=1, seed=3, out=path) == 8
    return path


def recount(records, plies: int, player: str | None) -> tuple[int, int, int]:
    """(positions, critical, lost) by brute force: every move's value by its own negamax."""
    positions = critical = lost = 0
    for record in records:
        game = _core.Game.from_record(record.moves, komi=record.komi)
        for position, move in zip(game.positions(), _core.parse_record(record.moves)):
            mover = record.black if position.to_move == _core.Color.BLACK else record.white
            if sum(position.moves_left) != plies or position.is_over or player not in (None, mover):
                continue
            values = {m: -brute_value(position.play(m)) for m in position.legal_moves()}
            positions += 1
            critical += len(set(values.values())) > 1
            lost += values[move] < max(values.values())
    return positions, critical, lost


@pytest.mark.parametrize("player", ["greedy", "random", None])
def test_the_audit_counts_what_a_brute_force_recount_finds(bot_games, player):
    records = read_records(bot_games)
    assert {r.black for r in records} == {"greedy", "random"}
    lost_any = 0
    for plies in (1, 2, 3):
        line = endgame_audit.audit(records, plies, player)
        positions, critical, lost = recount(records, plies, player)
        assert (line["positions"], line["critical"], line["lost"]) == (positions, critical, lost)
        assert line["interval"] == [round(x, 4) for x in wilson_interval(lost, critical)]
        assert line["share"] == (round(lost / critical, 4) if critical else None)
        lost_any += lost
    if player == "random":
        assert lost_any > 0  # the recount had something to find


def test_a_replay_decides_the_same_positions_and_the_solver_keeps_their_value(bot_games):
    # The positions, and so which are critical, are the recorded games'; only the moves change.
    # With its endgame solve reaching the horizon, a model never throws a value away there.
    records = read_records(bot_games)
    model = "weights/popucom-small-v1.onnx@visits=8"
    horizons = [1, 2, 3]
    solving = endgame_audit.replay_audit(records, horizons, "random", endgame_audit.replayer(model, 1, seed=0))
    blind = endgame_audit.replay_audit(
        records, horizons, "random", endgame_audit.replayer(f"{model},endgame_solve_plies=0", 1, seed=0)
    )
    assert blind["replay"] == "popucom-small-v1@8,endgame_solve_plies=0"
    for plies, with_solve, without in zip(horizons, solving["horizons"], blind["horizons"]):
        recorded = endgame_audit.audit(records, plies, "random")
        memo: dict = {}
        for _ in range(2):  # remembered results count as solved ones
            remembered = endgame_audit.audit(records, plies, "random", memo)
            assert {**remembered, "cpu_seconds": 0} == {**recorded, "cpu_seconds": 0}
        for line in (with_solve, without):
            assert (line["positions"], line["critical"]) == (recorded["positions"], recorded["critical"])
        assert with_solve["lost"] == 0
    assert sum(line["critical"] for line in solving["horizons"]) > 0  # it had something to keep
    assert solving["cpu_seconds_per_decision"] > 0
    moves = endgame_audit.replayed_moves(records, 2, "random", endgame_audit.replayer("greedy", 1, seed=0))
    assert moves and all(move in position.legal_moves() for position, move in moves)


def test_sessions_play_the_last_plies_as_the_gui_and_keep_the_exact_value(bot_games, capsys):
    # As the GUI's AI, told every move of the recorded games, the model decides the same
    # positions, with or without a kept solver table, and never throws a value away within its
    # solve horizon; each decision is timed.
    horizons = ["1", "2", "3"]
    model = "weights/popucom-small-v1.onnx@visits=8"
    args = [str(bot_games), "--player", "random", "--plies", *horizons, "--sessions", "--replay", model, model]
    endgame_audit.main([*args, "--table-mb", "8", "0"])
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    recorded = line["horizons"]
    kept, fresh = line["replays"]
    assert (kept["sessions"], kept["endgame_table_mb"], fresh["endgame_table_mb"]) == (True, 8, 0)
    for replay in (kept, fresh):
        for audited, mine in zip(recorded, replay["horizons"]):
            assert (mine["positions"], mine["critical"]) == (audited["positions"], audited["critical"])
            assert mine["lost"] == 0
        times = replay["move_time"]
        assert times["decisions"] >= sum(h["positions"] for h in replay["horizons"])
        assert 0 < times["median_s"] <= times["max_s"]
    assert sum(h["critical"] for h in recorded) > 0
    with pytest.raises(SystemExit, match="--table-mb one value per SPEC"):
        endgame_audit.main([*args, "--table-mb", "8"])


def test_solve_moves_matches_a_plain_negamax():
    # Random positions 2 to 4 plies from the end, komi either side; each move's value at 2 (at
    # 3 and 4 each would cost a negamax of its own in Python: there they must give the root's).
    rng = random.Random(11)
    checked = decided = 0
    while checked < 45:
        plies = 2 + checked % 3
        game = _core.Game(rng.randint(-3, 3))
        while sum(game.position.moves_left) > plies and not game.is_over:
            game.play(rng.choice(game.legal_moves()))
        if game.is_over:
            continue
        position = game.position
        value, moves, nodes = _core.solve_moves(position, plies)
        assert value == (brute_value(position) if plies == 2 else pruned_value(position))
        assert sorted(moves) == sorted(position.legal_moves())
        if plies == 2:
            for move, move_value in moves.items():
                assert move_value == -brute_value(position.play(move))
        assert value == max(moves.values())
        assert _core.solve_counted(position, plies)[0] == value and nodes > 0
        checked += 1
        decided += value != 0
    assert decided > 10


def test_deep_positions_are_refused():
    with pytest.raises(ValueError, match="moves remain"):
        _core.solve_moves(_core.Position(), 6)


def test_the_cli_plays_then_audits_one_json_line(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    endgame_audit.main(
        [str(path), "--play", "greedy", "uct:8", "--games", "2", "--player", "uct:8", "--plies", "2", "3"]
    )
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["benchmark"] == "endgame_audit" and line["games"] == 2 and line["player"] == "uct:8"
    assert [h["plies"] for h in line["horizons"]] == [2, 3]
    assert all(h["positions"] >= 1 and 0 <= h["lost"] <= h["critical"] <= h["positions"] for h in line["horizons"])
    assert "cpu" in line["machine"] and line["replays"] == []
    endgame_audit.main([str(path), "--player", "uct:8", "--plies", "2", "--replay", "greedy", "random"])
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [r["replay"] for r in line["replays"]] == ["greedy", "random"]
    assert all(r["horizons"][0]["positions"] == line["horizons"][0]["positions"] for r in line["replays"])
    endgame_audit.main([str(path), "--player", "uct:8", "--plies", "2", "--replay", "greedy", "--replays-only"])
    only = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    counts = [{k: h[k] for k in ("plies", "positions", "critical", "lost")} for h in line["replays"][0]["horizons"]]
    assert only["horizons"] == []
    assert [{k: h[k] for k in counts[0]} for h in only["replays"][0]["horizons"]] == counts
    with pytest.raises(SystemExit, match="unknown player"):
        endgame_audit.main([str(path), "--plies", "2", "--replay", "nonsense"])
    with pytest.raises(SystemExit, match="--plies"):
        endgame_audit.main([str(path), "--plies", "13"])
    with pytest.raises(SystemExit, match="no game of nobody"):
        endgame_audit.main([str(path), "--player", "nobody", "--plies", "2"])
    with pytest.raises(SystemExit, match="--games must be even"):
        endgame_audit.main([str(tmp_path / "other.jsonl"), "--play", "greedy", "random", "--games", "3"])


def test_wilson_interval():
    low, high = wilson_interval(20, 100)
    assert (round(low, 4), round(high, 4)) == (0.1334, 0.2888)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)
