"""The strength table of a model: the model at several visit counts against the
network-free bots (and other models), colours swapped, komi 0, plus bot-vs-bot
calibration games, rated together by Bradley-Terry anchored at `random` = 0.
Prints one JSON line (per pairing: games, score, win rate by colour; ratings
with 95% intervals) and writes a Markdown table for a model card.

OPPONENT is a bot (random, greedy, uct:N) or a model file with an optional visit count
(weights/popucom-small-v1.onnx@visits=50; 200 visits if not given).

Usage: python -m popucom.experiments.strength MODEL.onnx [--pairing VISITS:OPPONENT:GAMES ...]
           [--threads 2] [--search KEY=VALUE,...] [--games-out FILE] [--markdown FILE]

--search plays the model with other search settings (popucom._core.SearchParams fields,
e.g. score_utility_weight=0.2); they become part of its name, so a variant's games and
the defaults' games share a games file and are played on the same openings and seeds.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from popucom import _core
from popucom.arena.match import read_records, summarize
from popucom.arena.ratings import elo_from_score, fit_bradley_terry, game_results
from popucom.arena.tournament import complete_pairing
from popucom.benchmarks import machine_info
from popucom.infer import load_evaluator
from popucom.player import Player
from popucom.player_spec import PlayerSpec, is_bot, parse_search_options, search_params, search_suffix

DEFAULT_PAIRINGS = [
    "200:uct:10000:200",
    "200:uct:1000:100",
    "200:greedy:20",
    "200:random:20",
    "50:uct:10000:100",
    "50:uct:1000:100",
    "50:greedy:40",
    "50:random:40",
    "800:uct:10000:20",
]
CALIBRATION = [("random", "greedy", 40), ("greedy", "uct:1000", 40), ("uct:1000", "uct:10000", 40)]


def parse_pairing(text: str) -> tuple[int, str, int]:
    visits, _, rest = text.partition(":")
    opponent, _, games = rest.rpartition(":")
    if not (visits.isdigit() and games.isdigit() and opponent and int(games) % 2 == 0):
        raise SystemExit(f"bad pairing '{text}': want VISITS:OPPONENT:GAMES with an even number of games")
    return int(visits), opponent, int(games)


def model_player(name: str, model: Path, visits: int, threads: int, params: _core.SearchParams | None = None) -> Player:
    evaluator = load_evaluator(model, threads=threads)
    return Player(name, evaluator=evaluator, visits=visits, seed=visits, params=params)


MODEL_OPPONENT_VISITS = 200  # a model opponent's visits when its spec names none


def opponent_spec(text: str) -> PlayerSpec:
    """A bot, or a model file with its visits (MODEL_OPPONENT_VISITS unless `@visits=N`)."""
    return PlayerSpec.parse(text if is_bot(text) or "@" in text else f"{text}@visits={MODEL_OPPONENT_VISITS}")


def opponent_player(spec: PlayerSpec, threads: int, seed: int) -> Player:
    if not spec.is_network:
        return Player(spec.name, bot=spec.source, seed=seed)
    return model_player(spec.name, Path(spec.source), spec.visits, threads, spec.search_params())


def head_to_head(records: list, a: str, b: str, boot: int = 4000, seed: int = 0) -> dict | None:
    """a's score and Elo difference over b with a 95% interval, bootstrapped over openings
    (each opening is played twice with colours swapped, so its two games are resampled together;
    ratings.gap's Bradley-Terry interval treats them as independent)."""
    by_opening: dict[str, list[float]] = {}
    for r in records:
        if {r.black, r.white} == {a, b}:
            opening = " ".join(r.moves.split()[: r.opening_plies])
            by_opening.setdefault(opening, []).append(r.score_for(a))
    if not by_opening:
        return None
    groups = [np.asarray(v) for v in by_opening.values()]
    sums, counts = np.array([g.sum() for g in groups]), np.array([len(g) for g in groups])
    picks = np.random.default_rng(seed).integers(0, len(groups), size=(boot, len(groups)))
    scores = sums[picks].sum(1) / counts[picks].sum(1)
    low, high = np.quantile(scores, [0.025, 0.975])
    score = float(sums.sum() / counts.sum())
    return {
        "a": a,
        "b": b,
        "games": int(counts.sum()),
        "score": round(score, 3),
        "score_95": [round(float(low), 3), round(float(high), 3)],
        "elo_difference": round(elo_from_score(score)),
        "elo_difference_95": [round(elo_from_score(low)), round(elo_from_score(high))],
    }


def strength_table(
    model: Path,
    pairings: list[str] | None = None,
    *,
    name: str | None = None,
    threads: int = 2,
    opening_plies: int = 2,
    seed: int = 7,
    search: dict | None = None,
    games_out: Path | None = None,
    markdown: Path | None = None,
) -> dict:
    """Plays the pairings (VISITS:OPPONENT:GAMES; DEFAULT_PAIRINGS if None) still missing from
    the games file and the bot calibration games, then rates everything in the file. Returns the
    JSON line's content; progress goes to stderr. `search`: the model's SearchParams settings."""
    search = search or {}
    stem = name or model.stem

    def model_name(visits: int) -> str:
        return f"{stem}@{visits}{search_suffix(search)}"

    games_out = games_out or Path(f"strength-{stem}.games.jsonl")
    records = read_records(games_out) if games_out.exists() else []
    started = time.perf_counter()

    for a, b, games in CALIBRATION:

        def bots(played: int, a: str = a, b: str = b) -> tuple[Player, Player]:
            return Player(a, bot=a, seed=1), Player(b, bot=b, seed=2)

        complete_pairing(records, games_out, a, b, games, bots, opening_plies, seed + 1000, progress=False)
    played_pairings = [
        (visits, opponent_spec(text), games) for visits, text, games in map(parse_pairing, pairings or DEFAULT_PAIRINGS)
    ]
    for visits, opponent, games in played_pairings:

        def players(played: int, visits: int = visits, opponent: PlayerSpec = opponent) -> tuple[Player, Player]:
            return (
                model_player(model_name(visits), model, visits, threads, search_params(search)),
                opponent_player(opponent, threads, seed=visits + played),
            )

        complete_pairing(records, games_out, model_name(visits), opponent.name, games, players, opening_plies, seed)
    ratings = fit_bradley_terry(game_results(records), anchor="random", prior_elo=2000.0)
    rows = []
    for visits, opponent, _ in played_pairings:
        player = model_name(visits)
        opponent_label = opponent.name
        s = summarize(records, player, opponent_label)
        n = max(s["games"], 1)

        def rate(side: dict) -> float:
            played = side["wins"] + side["draws"] + side["losses"]
            return (side["wins"] + 0.5 * side["draws"]) / played if played else float("nan")

        rows.append(
            {
                "model": player,
                "visits": visits,
                "opponent": opponent_label,
                "games": s["games"],
                "score": round((s["a_wins"] + 0.5 * s["draws"]) / n, 3),
                "wins": s["a_wins"],
                "draws": s["draws"],
                "losses": s["b_wins"],
                "score_as_black": round(rate(s["a_black"]), 3),
                "score_as_white": round(rate(s["a_white"]), 3),
            }
        )
    table = {
        player: {"elo": round(r.elo), "low": round(r.low), "high": round(r.high), "games": r.games}
        for player, r in sorted(ratings.items(), key=lambda kv: kv[1].elo)
    }
    versus_models = [
        head_to_head(records, model_name(visits), opponent.name)
        for visits, opponent, _ in played_pairings
        if opponent.is_network
    ]
    if markdown:
        markdown.write_text(markdown_tables(rows, table, versus_models))
    return {
        "benchmark": "strength",
        "model": str(model),
        "pairings": rows,
        "ratings": table,
        "head_to_head": versus_models,
        "anchor": "random",
        "komi": 0,
        "seconds": round(time.perf_counter() - started),
        "games_file": str(games_out),
        "machine": machine_info(),
    }


def markdown_tables(rows: list[dict], table: dict[str, dict], versus_models: list[dict | None]) -> str:
    """The pairings, the ratings and the head-to-heads as Markdown tables for a model card."""
    lines = ["| model | opponent | games | score | as Black | as White | W-D-L |", "|---|---|---|---|---|---|---|"]
    lines += [
        f"| {r['model']} | {r['opponent']} | {r['games']} | {r['score']:.3f} | {r['score_as_black']:.3f} "
        f"| {r['score_as_white']:.3f} | {r['wins']}-{r['draws']}-{r['losses']} |"
        for r in rows
    ]
    lines += ["", "| player | Elo (random = 0) | 95% interval | games |", "|---|---|---|---|"]
    lines += [
        f"| {name} | {v['elo']:+d} | [{v['low']:+d}, {v['high']:+d}] | {v['games']} |" for name, v in table.items()
    ]
    if versus_models:
        lines += ["", "| model | previous | games | score [95%] | Elo difference [95%] |", "|---|---|---|---|---|"]
        lines += [
            f"| {h['a']} | {h['b']} | {h['games']} | {h['score']:.3f} [{h['score_95'][0]:.3f}, "
            f"{h['score_95'][1]:.3f}] | {h['elo_difference']:+d} [{h['elo_difference_95'][0]:+d}, "
            f"{h['elo_difference_95'][1]:+d}] |"
            for h in versus_models
            if h
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--name", help="the model's name in the table (default: the file's stem)")
    parser.add_argument("--pairing", action="append", help="VISITS:OPPONENT:GAMES (repeatable)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--search", default="", help="KEY=VALUE,... search settings of the model (SearchParams)")
    parser.add_argument(
        "--games-out",
        type=Path,
        help="game records are appended here (and reused: pairings already in the file are not played again)",
    )
    parser.add_argument("--markdown", type=Path, help="write the table as Markdown here")
    args = parser.parse_args(argv)
    search = parse_search_options(args.search, "--search") if args.search else {}
    if "visits" in search:
        raise SystemExit("--search: the model's visits come from --pairing")
    result = strength_table(
        args.model,
        args.pairing,
        name=args.name,
        threads=args.threads,
        opening_plies=args.opening_plies,
        seed=args.seed,
        search=search,
        games_out=args.games_out,
        markdown=args.markdown,
    )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
