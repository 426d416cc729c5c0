"""`popucom arena`: round-robin or SPRT matches, a results table and ratings."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
from pathlib import Path

from .match import append_records, make_openings, play_match, read_records, summarize
from .players import Player, PlayerSpec, load_evaluator
from .ratings import SPRT, colour_ratings, rate_players


def parse_sprt(text: str) -> SPRT:
    try:
        elo0, elo1, alpha, beta = (float(x) for x in text.split(","))
    except ValueError as e:
        raise ValueError(f"--sprt wants elo0,elo1,alpha,beta (e.g. 0,30,0.05,0.05), got '{text}'") from e
    if not (0 < alpha < 1 and 0 < beta < 1 and elo1 > elo0):
        raise ValueError("--sprt needs elo1 > elo0 and alpha, beta in (0, 1)")
    return SPRT(elo0, elo1, alpha, beta)


def format_table(pairs: list[dict], ratings: dict, colour: dict, anchor: str) -> str:
    lines = ["pair                                   games   W   D   L   (as Black W-D-L | as White W-D-L)"]
    for p in pairs:
        s = p["summary"]
        ab, aw = s["a_black"], s["a_white"]
        lines.append(f"{p['a'] + ' vs ' + p['b']:<38} {s['games']:>5} {s['a_wins']:>3} {s['draws']:>3} "
                     f"{s['b_wins']:>3}   ({ab['wins']}-{ab['draws']}-{ab['losses']} | "
                     f"{aw['wins']}-{aw['draws']}-{aw['losses']})")
    lines.append(f"\nBradley-Terry ratings (Elo scale, {anchor} = 0, 95% interval):")
    for r in sorted(ratings.values(), key=lambda r: -r.elo):
        lines.append(f"  {r.name:<30} {r.elo:+7.0f}  [{r.low:+6.0f}, {r.high:+6.0f}]  {r.games} games")
    lines.append("by colour:")
    for r in sorted(colour.values(), key=lambda r: -r.elo):
        lines.append(f"  {r.name:<30} {r.elo:+7.0f}  [{r.low:+6.0f}, {r.high:+6.0f}]")
    return "\n".join(lines)


def run_arena(args: argparse.Namespace) -> int:
    specs = [PlayerSpec.parse(p) for p in args.players]
    if len(specs) < 2:
        raise ValueError("the arena needs at least two players")
    if len({s.name for s in specs}) != len(specs):
        raise ValueError(f"player names must differ: {[s.name for s in specs]}")
    sprt = parse_sprt(args.sprt) if args.sprt else None
    if sprt and len(specs) != 2:
        raise ValueError("--sprt compares exactly two players")
    anchor = args.anchor or specs[0].name
    if anchor not in {s.name for s in specs} and not args.refit:
        raise ValueError(f"anchor '{anchor}' is not one of the players")
    threads = args.threads or os.cpu_count() or 1
    evaluators = {s.name: load_evaluator(s, args.device, threads) for s in specs if s.kind != "bot"}
    for name, ev in evaluators.items():
        print(f"{name}: {getattr(ev, 'describe', lambda: '')()}")
    openings = make_openings(args.openings, args.opening_plies, args.seed)

    def player(spec: PlayerSpec, games: int, seed: int) -> Player:
        if spec.kind == "bot":
            return Player(spec.name, games, bot=spec.source, seed=seed)
        return Player(spec.name, games, evaluator=evaluators[spec.name], visits=spec.visits, seed=seed)

    records, pairs = [], []
    start = time.perf_counter()
    for i, (a, b) in enumerate(itertools.combinations(specs, 2)):
        if sprt:
            chunk = 2  # openings per round
            decision = "continue"
            pair_records = []
            for r in range(0, len(openings), chunk):
                batch = openings[r:r + chunk]
                pair_records += play_match(player(a, 2 * len(batch), i), player(b, 2 * len(batch), i + 100),
                                           batch, komi=args.komi, progress=False)
                decision = sprt.decide([g.score_for(a.name) for g in pair_records])
                print(f"  {len(pair_records)} games: LLR {sprt.llr([g.score_for(a.name) for g in pair_records]):+.2f} "
                      f"(bounds {sprt.bounds()[0]:+.2f}, {sprt.bounds()[1]:+.2f}) -> {decision}")
                if decision != "continue":
                    break
        else:
            pair_records = play_match(player(a, 2 * len(openings), i), player(b, 2 * len(openings), i + 100),
                                      openings, komi=args.komi, progress=True, desc=f"{a.name} vs {b.name}")
            decision = None
        append_records(args.games_out, pair_records)
        records += pair_records
        pairs.append({"a": a.name, "b": b.name, "summary": summarize(pair_records, a.name, b.name),
                      **({"sprt": decision} if sprt else {})})
    pool = read_records(args.games_out) if args.refit else records
    ratings = rate_players(pool, anchor)
    colour = colour_ratings(pool, anchor)
    print(format_table(pairs, ratings, colour, anchor))
    elapsed = time.perf_counter() - start
    summary = {"time": time.time(), "players": [s.name for s in specs], "openings": len(openings),
               "komi": args.komi, "pairs": pairs, "anchor": anchor, "games": len(records),
               "games_per_s": len(records) / elapsed if elapsed else 0.0,
               "ratings": {n: r.__dict__ for n, r in ratings.items()},
               "colour_ratings": {n: r.__dict__ for n, r in colour.items()}}
    Path(args.results).parent.mkdir(parents=True, exist_ok=True)
    with open(args.results, "a") as f:
        f.write(json.dumps(summary) + "\n")
    return 0
