"""Matches between two players over many concurrent games.

Each player searches with its own trees and its own network: on a player's
step only that player's evaluator runs, on the leaves of the games where it
is to move (one batched call). Every opening is played twice, colours swapped.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import _core
from ..data.records import outcome_fields, to_jsonl
from ..fileio import append_lines, json_lines
from ..limits import MAX_KOMI, check_komi
from ..player import Player


@dataclass
class GameRecord:
    black: str
    white: str
    moves: str
    komi: int
    result: str  # "black" | "white" | "draw"
    score: int
    end: str
    opening_plies: int

    def score_for(self, name: str) -> float:
        """1 win, 0.5 draw, 0 loss for the player `name`."""
        if self.result == "draw":
            return 0.5
        return 1.0 if (self.result == "black") == (self.black == name) else 0.0


def make_openings(count: int, plies: int, seed: int) -> list[list[int]]:
    """Reproducible random openings of `plies` moves (distinct where possible), each leaving a
    game still to play."""
    moves = 2 * _core.MOVES_PER_PLAYER
    if not 0 <= plies < moves:
        raise ValueError(f"opening plies must be from 0 to {moves - 1} (a game has at most {moves} moves), got {plies}")
    if count < 1:
        raise ValueError(f"the number of openings must be at least 1, got {count}")
    rng = random.Random(seed)
    openings, seen = [], set()
    for _ in range(count * 20):
        if len(openings) == count:
            break
        game = _core.Game()
        for _ in range(plies):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if game.is_over:  # a random opening that ends the game leaves nothing to compare
            continue
        key = tuple(game.moves)
        if key not in seen or len(seen) >= count * 10:
            seen.add(key)
            openings.append(list(game.moves))
    if not openings:
        raise ValueError(f"no random opening of {plies} plies leaves a game to play; use fewer opening plies")
    return openings


GAMES_BAR = "{desc}: {percentage:3.0f}%|{bar}| {n:.1f}/{total_fmt} games [{elapsed}<{remaining}{postfix}]"


def games_played(games: list[_core.Game], openings: list[list[int]]) -> float:
    """How much of the match is played, in games: a finished game counts 1, an unfinished one
    the share of its plies after the opening (games g and g + 1 share opening g // 2)."""
    total = 0.0
    for g, game in enumerate(games):
        start = len(openings[g // 2])
        total += 1.0 if game.is_over else (len(game) - start) / max(1, _core.MAX_GAME_PLIES - start)
    return total


def play_match(
    a: Player, b: Player, openings: list[list[int]], komi: int = 0, progress: bool = False, desc: str = "arena"
) -> list[GameRecord]:
    """Plays every opening twice (a as Black, then b as Black); returns the game records."""
    from tqdm import tqdm

    games, colours = [], []
    for opening in openings:
        for black, white in ((a, b), (b, a)):
            game = _core.Game(komi)
            for move in opening:
                game.play(move)
            games.append(game)
            colours.append((black, white))
    n = len(games)

    def to_move(g: int) -> Player:
        return colours[g][0] if games[g].to_move == _core.Color.BLACK else colours[g][1]

    # Every game moves one ply per round, so they all end in the same round: the bar counts
    # each game's plies as a share of a game, for a steady count and an honest ETA.
    bar = tqdm(total=n, desc=desc, unit="game", disable=not progress, dynamic_ncols=True, bar_format=GAMES_BAR)
    done = [False] * n
    while not all(done):
        for player in (a, b):
            mine = [g for g in range(n) if not games[g].is_over and to_move(g) is player]
            if not mine:
                continue
            player.play_moves(games, mine)
        for g in range(n):
            done[g] = games[g].is_over
        bar.update(games_played(games, openings) - bar.n)
        bar.set_postfix_str(f"{sum(done)} finished")
    bar.close()
    records = []
    for g, game in enumerate(games):
        final = game.position
        records.append(
            GameRecord(
                black=colours[g][0].name,
                white=colours[g][1].name,
                moves=game.record,
                komi=komi,
                **outcome_fields(final),
                opening_plies=len(openings[g // 2]),
            )
        )
    return records


def records_jsonl(records: list[GameRecord]) -> str:
    return to_jsonl(asdict(r) for r in records)


def append_records(path: str | Path, records: list[GameRecord]) -> None:
    """Appends game records as JSON lines in one write, on a line of their own after a torn one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    append_lines(path, records_jsonl(records))


RESULTS = ("black", "white", "draw")


def read_records(path: str | Path, replay: bool = False) -> list[GameRecord]:
    """The game records of a JSONL file; ValueError naming the file and line of a record that is
    malformed or holds an impossible result (it would silently change every rating fitted on it).
    With `replay` every record is also replayed through the rules (check_replay). A torn last line
    (a kill in the middle of an append) is skipped with a warning."""
    records = []
    for number, line in json_lines(path):
        where = f"{path}:{number}"
        try:
            record = GameRecord(**json.loads(line))
        except (ValueError, TypeError, RecursionError) as e:
            raise ValueError(f"{where}: malformed game record ({e}); fix or delete that line") from None
        if record.result not in RESULTS:
            raise ValueError(
                f"{where}: game record with result {record.result!r:.40}, "
                f"expected one of {', '.join(RESULTS)}; fix or delete that line"
            )
        if not (
            isinstance(record.black, str)
            and isinstance(record.white, str)
            and record.black
            and record.white
            and record.black != record.white
        ):
            raise ValueError(
                f"{where}: game record needs two different player names, "
                f"has black {record.black!r:.40} and white {record.white!r:.40}; fix or delete that line"
            )
        if replay:
            try:
                check_replay(record)
            except ValueError as e:
                raise ValueError(f"{where}: {e}; fix or delete that line") from None
        records.append(record)
    return records


def check_replay(record: GameRecord) -> None:
    """ValueError unless the record's moves replay under the rules, with its komi, to a finished
    game with the recorded result, score and ending: a record a rating can trust."""
    if isinstance(record.komi, str):  # check_komi reads text, as typed; a record holds a number
        raise ValueError(
            f"komi must be a whole number from {-MAX_KOMI} to {MAX_KOMI}, got the text {record.komi!r:.40}"
        )
    komi = check_komi(record.komi, "komi")
    if not isinstance(record.moves, str):
        raise ValueError(f"moves is {record.moves!r:.40}, not a record like 'e5 d4'")
    try:
        game = _core.Game.from_record(record.moves, komi=komi)
    except ValueError as e:
        raise ValueError(f"the moves do not replay ({e})") from None
    if not game.is_over:
        raise ValueError(f"the game is not over after its {len(game)} moves")
    plies = record.opening_plies
    if not (isinstance(plies, int) and not isinstance(plies, bool) and 0 <= plies <= len(game)):
        raise ValueError(f"opening_plies is {plies!r:.40}, want 0 to the {len(game)} moves of the game")
    replayed = outcome_fields(game.position)
    for key in ("result", "score", "end"):
        recorded = getattr(record, key)
        if type(recorded) is not type(replayed[key]) or recorded != replayed[key]:
            raise ValueError(f"{key} is recorded as {recorded!r:.40}, the moves give {replayed[key]!r}")


def summarize(records: list[GameRecord], a: str, b: str) -> dict:
    """Wins/draws/losses of a against b, overall and by a's colour."""
    out = {
        "games": 0,
        "a_wins": 0,
        "draws": 0,
        "b_wins": 0,
        "a_black": {"wins": 0, "draws": 0, "losses": 0},
        "a_white": {"wins": 0, "draws": 0, "losses": 0},
    }
    for r in records:
        if {r.black, r.white} != {a, b}:
            continue
        s = r.score_for(a)
        out["games"] += 1
        key = "a_black" if r.black == a else "a_white"
        if s == 1:
            out["a_wins"] += 1
            out[key]["wins"] += 1
        elif s == 0:
            out["b_wins"] += 1
            out[key]["losses"] += 1
        else:
            out["draws"] += 1
            out[key]["draws"] += 1
    return out
