"""The shipped models' learning curve across versions: ONE JSON line, and a PNG for the model card.

    python -m popucom.experiments.versions [--weights weights] [--plot docs/versions.png]

Each shipped model's strength table (weights/<name>.strength.json, from popucom.experiments.strength) rates
it at 50 and 200 visits by Bradley-Terry with 95% intervals, anchored at `random` = 0 through
the same bot opponents; its sidecar (<name>.run.json) counts the self-play positions behind it
(`rows_played`, or v1's `selfplay_positions`). The curve puts ratings against training data,
version by version, two ways: the head-to-head gaps between consecutive versions (at 50 visits)
chained from v1; and one Bradley-Terry fit over the pairings of every table at once (`joint`),
anchored at the target bot uct:10000 (TARGET) = 0, so that every version at 50 and 200 visits
sits on one scale (a version's own table cannot give that: its bot chain, anchored at
random, stretches when it loses no game to a bot). Nothing is played here: run
popucom.experiments.strength for a new version first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from popucom.arena.ratings import fit_bradley_terry
from popucom.benchmarks import machine_info
from popucom.fileio import read_metadata_text, write_bytes_atomic
from popucom.weights import read_sidecar, shipped_models

VISITS = (50, 200)
TARGET = "uct:10000"


def version_point(onnx: Path) -> dict | None:
    """Positions and ratings of one shipped model, or None (with a note on stderr) when its
    strength table or sidecar is missing."""
    name = onnx.stem
    table_path = onnx.with_name(f"{name}.strength.json")
    if not table_path.is_file():
        print(f"{name}: no {table_path.name}, left out", file=sys.stderr)
        return None
    try:
        sidecar = read_sidecar(onnx.with_suffix(".pt"))
        table = json.loads(read_metadata_text(table_path, "strength table"))
        ratings = table["ratings"]
    except (ValueError, KeyError, OSError) as e:
        raise SystemExit(f"{name}: {e}") from None
    positions = sidecar.get("rows_played", sidecar.get("selfplay_positions"))
    point = {"name": name, "positions": positions, "target": ratings.get(TARGET)}
    for visits in VISITS:
        point[f"elo@{visits}"] = ratings.get(f"{name}@{visits}")
    point["head_to_head"] = table.get("head_to_head", [])
    point["pairings"] = table.get("pairings", [])
    return point


def pairing_results(pairings: list[dict]) -> list[tuple[str, str, float]]:
    """One (player, opponent, score) per game of the recorded pairings."""
    results = []
    for pairing in pairings:
        try:
            counts = ((1.0, pairing["wins"]), (0.5, pairing["draws"]), (0.0, pairing["losses"]))
            results += [(pairing["model"], pairing["opponent"], score) for score, n in counts for _ in range(n)]
        except KeyError as e:
            raise SystemExit(f"a pairing of {pairing.get('model', '?')} lacks {e}") from None
    return results


def joint_ratings(points: list[dict]) -> None:
    """Adds `joint@50` and `joint@200`: one Bradley-Terry fit over every table's games, anchored at
    TARGET. An opponent that never scored a point (random, greedy) only says it is weaker than
    everyone; its games would push the ratings up by the prior's pull alone, so they are left out."""
    results = [r for p in points for r in pairing_results(p["pairings"])]
    scored = {o for _, o, s in results if s < 1.0} | {m for m, _, s in results if s > 0.0}
    results = [r for r in results if r[1] in scored]
    if not any(TARGET in (m, o) for m, o, _ in results):
        return
    ratings = fit_bradley_terry(results, TARGET)
    for point in points:
        for visits in VISITS:
            rating = ratings.get(f"{point['name']}@{visits}")
            if rating:
                point[f"joint@{visits}"] = {
                    "elo": round(rating.elo),
                    "low": round(rating.low),
                    "high": round(rating.high),
                    "games": rating.games,
                }


def chain(points: list[dict]) -> None:
    """Adds `chained`: each version's Elo over the first at 50 visits, summing the head-to-head
    gaps of consecutive versions (their 95% half-widths added in quadrature, as independent
    estimates). Far tighter than the random-anchored ratings, whose intervals carry the whole
    chain of bot opponents. Stops at the first version without a gap to its predecessor."""
    first = points[0]
    first["chained"] = {"elo": 0, "low": 0, "high": 0}
    for previous, point in zip(points, points[1:]):
        pair = (f"{point['name']}@50", f"{previous['name']}@50")
        gap = next((h for h in point["head_to_head"] if (h["a"], h["b"]) == pair), None)
        if gap is None or "chained" not in previous:
            continue
        low, high = gap["elo_difference_95"]
        base = previous["chained"]
        elo = base["elo"] + gap["elo_difference"]
        below = ((base["elo"] - base["low"]) ** 2 + (gap["elo_difference"] - low) ** 2) ** 0.5
        above = ((base["high"] - base["elo"]) ** 2 + (high - gap["elo_difference"]) ** 2) ** 0.5
        point["chained"] = {"elo": elo, "low": round(elo - below), "high": round(elo + above)}


def error_bars(ratings: list[dict]) -> list[list[float]]:
    return [[r["elo"] - r["low"] for r in ratings], [r["high"] - r["elo"] for r in ratings]]


def plot(points: list[dict], path: Path) -> None:
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.4))
    chained = [p for p in points if "chained" in p and p["positions"]]
    left.errorbar(
        [p["positions"] / 1000 for p in chained],
        [p["chained"]["elo"] for p in chained],
        yerr=error_bars([p["chained"] for p in chained]),
        marker="o",
        capsize=3,
    )
    for p in chained:
        left.annotate(
            p["name"].rsplit("-", 1)[-1],
            (p["positions"] / 1000, p["chained"]["elo"]),
            textcoords="offset points",
            xytext=(5, -10),
            fontsize=8,
        )
    left.set_ylabel(f"Elo over {points[0]['name']} (50 visits)")
    left.set_title("head-to-head gaps of consecutive versions, chained", fontsize=10)
    for visits, marker in zip(VISITS, "os"):
        rated = [p for p in points if f"joint@{visits}" in p and p["positions"]]
        right.errorbar(
            [p["positions"] / 1000 for p in rated],
            [p[f"joint@{visits}"]["elo"] for p in rated],
            yerr=error_bars([p[f"joint@{visits}"] for p in rated]),
            marker=marker,
            capsize=3,
            label=f"at {visits} visits",
        )
    right.axhline(0, linestyle="--", linewidth=0.8, color="grey")
    right.annotate(TARGET, (0.99, 0), xycoords=("axes fraction", "data"), ha="right", va="bottom", fontsize=8)
    right.set_ylabel(f"Bradley-Terry Elo ({TARGET} = 0)")
    right.set_title("one fit over every version's games", fontsize=10)
    right.legend(loc="upper left", fontsize=8)
    joint = any(f"joint@{visits}" in p for p in points for visits in VISITS)
    if not joint:
        right.text(0.5, 0.5, "no pairing results in the tables", ha="center", transform=right.transAxes)
    for ax in (left, right) if joint else (left,):
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
        ax.xaxis.set_minor_formatter(FuncFormatter(lambda x, _: f"{x:g}" if f"{x:g}"[0] in "235" else ""))
        ax.set_xlabel("self-play positions behind the model (thousands, log scale)")
        ax.grid(alpha=0.3, which="both")
    fig.suptitle("popucom shipped versions (popucom.experiments.strength)")
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    write_bytes_atomic(path, buffer.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", type=Path, default=None, help="folder of shipped models (default: weights/)")
    parser.add_argument("--plot", type=Path, default=None, help="write the curve here as PNG")
    args = parser.parse_args(argv)
    points = [p for p in (version_point(m) for m in shipped_models(args.weights)) if p]
    if not points:
        raise SystemExit("no shipped model has a strength table (run python -m popucom.experiments.strength first)")
    chain(points)
    joint_ratings(points)
    if args.plot:
        plot(points, args.plot)
    print(
        json.dumps(
            {
                "benchmark": "versions",
                "units": {
                    "positions": "self-play positions",
                    "elo": "Bradley-Terry, random = 0, 95% interval",
                    "joint": f"Bradley-Terry over all versions' games, {TARGET} = 0, 95% interval",
                },
                "versions": [{k: v for k, v in p.items() if k != "pairings"} for p in points],
                "plot": str(args.plot) if args.plot else None,
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
