"""The difficulty levels (popucom/levels.py) rated on one Bradley-Terry scale with the
network-free bots: every level against its neighbours and against random, greedy, uct:200 and
uct:2000 (the upper half of the ladder against uct:10000 too), plus bot-vs-bot calibration
games, from random openings with colours swapped, komi 0, anchored at random = 0.

Prints one JSON line (per pairing: games and score; ratings with 95% intervals; whether the
ladder is monotone and how the weakest level does against greedy) and optionally a Markdown
table. Games are appended to a file and reused: a second run plays only what is missing (a
level whose settings changed is a new player, its old games left out of the fit), so a run cut
short resumes and a finished one refits.

Usage: python -m popucom.experiments.levels [--games 40] [--threads 1] [--games-out FILE]
           [--markdown FILE] [--seed 7] [--opening-plies 2]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path

from popucom.arena.match import GameRecord, read_records, summarize
from popucom.arena.ratings import fit_bradley_terry, game_results
from popucom.arena.tournament import complete_pairing
from popucom.benchmarks import machine_info
from popucom.infer.contract import Evaluator
from popucom.levels import LEVELS, Level
from popucom.player import Player
from popucom.player_spec import load_evaluator

BOTS = ("random", "greedy", "uct:200", "uct:2000")
TOP_BOTS = ("uct:10000",)  # played by the upper half of the ladder only: the lower half loses every game
ANCHOR = "random"
PRIOR_ELO = 2000.0  # weak: it only keeps an undefeated record finite (as popucom.experiments.strength)


def pairings(levels: Sequence[Level], bots: Sequence[str], top_bots: Sequence[str]) -> list[tuple[str, str]]:
    """(a, b) player names to play: bot calibration (each bot against the next), every level
    against the next level, every level against `bots`, the upper half against `top_bots`."""
    names = [level.player_name for level in levels]
    chain = [*bots, *top_bots]
    pairs = list(zip(chain, chain[1:]))
    pairs += list(zip(names, names[1:]))
    for i, name in enumerate(names):
        pairs += [(name, bot) for bot in bots]
        if i >= len(names) // 2:
            pairs += [(name, bot) for bot in top_bots]
    return pairs


class Players:
    """The players of the pairings, levels of one network file sharing its loaded evaluator."""

    def __init__(self, levels: Sequence[Level], threads: int) -> None:
        self.levels = {level.player_name: level for level in levels}
        self.threads = threads
        self._evaluators: dict[str, Evaluator] = {}

    def get(self, name: str, seed: int) -> Player:
        """A fresh player `name` (a level's player_name or a bot spec) seeded `seed`: each batch
        of a pairing's games is seeded by how many were played before it, so a resumed run plays
        what an uninterrupted one would have (its own search, its temperature's samples)."""
        if name not in self.levels:
            return Player(name, bot=name, seed=seed)
        level = self.levels[name]
        spec = level.player_spec()
        evaluator = None
        if spec.is_network:
            if spec.source not in self._evaluators:
                self._evaluators[spec.source] = load_evaluator(spec, threads=self.threads)
            evaluator = self._evaluators[spec.source]
        return Player.from_spec(
            spec,
            evaluator=evaluator,
            seed=seed,
            name=name,
            temperature=level.temperature,
            temperature_plies=level.temperature_plies,
        )


def rate_levels(
    levels: Sequence[Level] = LEVELS,
    games: int = 40,
    *,
    bots: Sequence[str] = BOTS,
    top_bots: Sequence[str] = TOP_BOTS,
    threads: int = 1,
    opening_plies: int = 2,
    seed: int = 7,
    games_out: Path | None = None,
    markdown: Path | None = None,
) -> dict:
    """Plays what `games_out` lacks of `games` games per pairing, then fits the ratings over
    those pairings' games. Returns the JSON line's content; progress goes to stderr."""
    if games < 2 or games % 2:
        raise ValueError(f"games per pairing must be even and at least 2 (each opening twice), got {games}")
    games_out = games_out or Path("levels.games.jsonl")
    records = read_records(games_out) if games_out.exists() else []
    players = Players(levels, threads)
    pairs = pairings(levels, bots, top_bots)
    started = time.perf_counter()
    for a, b in pairs:

        def pair(played: int, a: str = a, b: str = b) -> tuple[Player, Player]:
            return players.get(a, seed=1 + played), players.get(b, seed=2 + played)

        complete_pairing(records, games_out, a, b, games, pair, opening_plies, seed)
    wanted = {frozenset(p) for p in pairs}
    used = [r for r in records if frozenset((r.black, r.white)) in wanted]
    result = summary(levels, pairs, used)
    result.update(
        games_per_pairing=games,
        opening_plies=opening_plies,
        seconds=round(time.perf_counter() - started),
        games_file=str(games_out),
        machine=machine_info(),
    )
    if markdown:
        markdown.write_text(markdown_tables(result))
    return result


def summary(levels: Sequence[Level], pairs: list[tuple[str, str]], records: list[GameRecord]) -> dict:
    """Pairings, ratings (random = 0, 95% intervals) and the ladder's checks over `records`."""
    ratings = fit_bradley_terry(game_results(records), anchor=ANCHOR, prior_elo=PRIOR_ELO)
    rows = []
    for a, b in pairs:
        s = summarize(records, a, b)
        rows.append(
            {
                "a": a,
                "b": b,
                "games": s["games"],
                "score": round((s["a_wins"] + 0.5 * s["draws"]) / max(s["games"], 1), 3),
                "wins": s["a_wins"],
                "draws": s["draws"],
                "losses": s["b_wins"],
            }
        )

    def rating(name: str) -> dict:
        r = ratings[name]
        return {"elo": round(r.elo), "low": round(r.low), "high": round(r.high), "games": r.games}

    level_rows = [{"level": lv.name, "player": lv.player_name, **rating(lv.player_name)} for lv in levels]
    elos = [row["elo"] for row in level_rows]
    names = {lv.player_name for lv in levels}
    weakest = summarize(records, levels[0].player_name, "greedy") if levels else {"games": 0}
    weakest_score = (
        round((weakest["a_wins"] + 0.5 * weakest["draws"]) / weakest["games"], 3) if weakest["games"] else None
    )
    return {
        "benchmark": "levels",
        "units": {"elo": f"Bradley-Terry, {ANCHOR} = 0, 95% interval (Elo scale)"},
        "levels": level_rows,
        "bots": {name: rating(name) for name in sorted(ratings, key=lambda n: ratings[n].elo) if name not in names},
        "pairings": rows,
        "monotone": all(x < y for x, y in zip(elos, elos[1:])),
        "weakest_vs_greedy": {
            "games": weakest["games"],
            "score": weakest_score,
            "losses": weakest.get("b_wins", 0),
            "draws": weakest.get("draws", 0),
        },
        "anchor": ANCHOR,
        "komi": 0,
    }


def markdown_tables(result: dict) -> str:
    """The ratings of the levels and the bots, then every pairing, as Markdown."""
    lines = ["| level | player | Elo (random = 0) | 95% interval | games |", "|---|---|---|---|---|"]
    lines += [
        f"| {r['level']} | {r['player']} | {r['elo']:+d} | [{r['low']:+d}, {r['high']:+d}] | {r['games']} |"
        for r in result["levels"]
    ]
    lines += [
        f"| (bot) | {name} | {r['elo']:+d} | [{r['low']:+d}, {r['high']:+d}] | {r['games']} |"
        for name, r in result["bots"].items()
    ]
    lines += ["", "| player | opponent | games | score | W-D-L |", "|---|---|---|---|---|"]
    lines += [
        f"| {r['a']} | {r['b']} | {r['games']} | {r['score']:.3f} | {r['wins']}-{r['draws']}-{r['losses']} |"
        for r in result["pairings"]
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pairing (even; default 40)")
    parser.add_argument("--threads", type=int, default=1, help="network threads (default 1)")
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--games-out",
        type=Path,
        default=Path("levels.games.jsonl"),
        help="game records are appended here and reused (default levels.games.jsonl)",
    )
    parser.add_argument("--markdown", type=Path, help="write the tables as Markdown here")
    args = parser.parse_args(argv)
    try:
        result = rate_levels(
            games=args.games,
            threads=args.threads,
            opening_plies=args.opening_plies,
            seed=args.seed,
            games_out=args.games_out,
            markdown=args.markdown,
        )
    except ValueError as e:
        raise SystemExit(f"levels: {e}") from None
    print(json.dumps(result))


if __name__ == "__main__":
    main()
