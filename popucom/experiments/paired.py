"""A paired comparison of two players against the same opponent on the same openings: ONE JSON line.

    python -m popucom.experiments.paired GAMES.jsonl --a NAME --b NAME --opponent NAME

Made for search-setting A/B tests: popucom.experiments.strength plays a model with other search settings
(`--search KEY=VALUE,...`) on the same openings and seeds as its defaults, into the same games
file. Each game of A is matched with B's game from the same opening with the same colour, so the
opening's own difficulty cancels out: the difference of the paired scores has a far smaller
standard error than the difference of two independent win rates. Reports the mean paired
difference (B - A) with its standard error, overall and by colour, how many pairs B won and
lost, and the mean final margin of each (floors, from the player's side) with the paired
margin difference: a less noisy signal than the result, which a one-floor win and a
twenty-floor win share.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from popucom.arena.match import GameRecord, read_records
from popucom.arena.ratings import mean_and_se
from popucom.benchmarks import machine_info


def games_by_opening(records: list[GameRecord], player: str, opponent: str) -> dict[tuple, list[GameRecord]]:
    """The games of `player` against `opponent`, keyed by (opening moves, player's colour), in
    file order (an opening that came up twice pairs its games in turn)."""
    games: dict[tuple, list[GameRecord]] = defaultdict(list)
    for r in records:
        if {r.black, r.white} != {player, opponent} or player == opponent:
            continue
        opening = tuple(r.moves.split()[: r.opening_plies])
        games[(opening, "black" if r.black == player else "white")].append(r)
    return games


def margin_for(record: GameRecord, player: str) -> int:
    """The final floor margin from `player`'s side (the record's score is Black's)."""
    return record.score if record.black == player else -record.score


def summarize_pairs(pairs: list[tuple[float, float, int, int]]) -> dict:
    """pairs: (A's score, B's score, A's margin, B's margin) per opening and colour."""
    n = len(pairs)
    if n == 0:
        return {"pairs": 0}
    diffs = [b - a for a, b, _, _ in pairs]
    mean, se = mean_and_se(diffs)
    margin_mean, margin_se = mean_and_se([mb - ma for _, _, ma, mb in pairs])
    return {
        "pairs": n,
        "score_a": round(sum(p[0] for p in pairs) / n, 4),
        "score_b": round(sum(p[1] for p in pairs) / n, 4),
        "difference": round(mean, 4),
        "difference_se": se if se is None else round(se, 4),
        "b_better": sum(d > 0 for d in diffs),
        "b_worse": sum(d < 0 for d in diffs),
        "margin_a": round(sum(p[2] for p in pairs) / n, 2),
        "margin_b": round(sum(p[3] for p in pairs) / n, 2),
        "margin_difference": round(margin_mean, 2),
        "margin_difference_se": margin_se if margin_se is None else round(margin_se, 2),
    }


def paired_comparison(records: list[GameRecord], a: str, b: str, opponent: str) -> dict:
    games_a = games_by_opening(records, a, opponent)
    games_b = games_by_opening(records, b, opponent)
    pairs: dict[str, list] = {"black": [], "white": []}
    for key, list_a in games_a.items():
        for ga, gb in zip(list_a, games_b.get(key, [])):
            pairs[key[1]].append((ga.score_for(a), gb.score_for(b), margin_for(ga, a), margin_for(gb, b)))
    return {
        "overall": summarize_pairs(pairs["black"] + pairs["white"]),
        "as_black": summarize_pairs(pairs["black"]),
        "as_white": summarize_pairs(pairs["white"]),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("games", type=Path, help="a games file (JSON lines, as popucom.experiments.strength writes)")
    parser.add_argument("--a", required=True, help="the baseline player's name")
    parser.add_argument("--b", required=True, help="the variant's name")
    parser.add_argument("--opponent", required=True, help="the common opponent's name")
    args = parser.parse_args(argv)
    try:
        records = read_records(args.games)
    except (OSError, ValueError) as e:
        raise SystemExit(f"paired: {e}") from None
    result = paired_comparison(records, args.a, args.b, args.opponent)
    if result["overall"]["pairs"] == 0:
        names = sorted({r.black for r in records} | {r.white for r in records})
        raise SystemExit(f"paired: no opening where both {args.a} and {args.b} met {args.opponent}; players: {names}")
    line = {"benchmark": "paired", "games_file": str(args.games), "a": args.a, "b": args.b, "opponent": args.opponent}
    print(json.dumps(line | result | {"machine": machine_info()}))


if __name__ == "__main__":
    main()
