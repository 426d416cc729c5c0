"""`popucom arena`: round-robin or SPRT matches, a results table and ratings."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from ..fileio import append_lines
from ..infer.threads import resolve_threads
from ..limits import BACKENDS, check_komi, threads_argument
from ..player import Player
from ..player_spec import PlayerSpec, load_evaluator
from .match import GameRecord, make_openings, play_match, read_records, records_jsonl, summarize
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
        lines.append(
            f"{p['a'] + ' vs ' + p['b']:<38} {s['games']:>5} {s['a_wins']:>3} {s['draws']:>3} "
            f"{s['b_wins']:>3}   ({ab['wins']}-{ab['draws']}-{ab['losses']} | "
            f"{aw['wins']}-{aw['draws']}-{aw['losses']})"
        )
    lines.append(f"\nBradley-Terry ratings (Elo scale, {anchor} = 0, 95% interval):")
    for r in sorted(ratings.values(), key=lambda r: -r.elo):
        lines.append(f"  {r.name:<30} {r.elo:+7.0f}  [{r.low:+6.0f}, {r.high:+6.0f}]  {r.games} games")
    lines.append("by colour:")
    for r in sorted(colour.values(), key=lambda r: -r.elo):
        lines.append(f"  {r.name:<30} {r.elo:+7.0f}  [{r.low:+6.0f}, {r.high:+6.0f}]")
    return "\n".join(lines)


def check_appendable(path: str | os.PathLike, what: str) -> None:
    """Fails before any game is played if `path` cannot be appended to."""
    path = Path(path)
    try:
        if path.exists() and path.is_dir():
            raise IsADirectoryError(21, "is a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as e:
        raise ValueError(f"cannot write {what} to {path}: {e.strerror or e}") from None


class SafeAppender:
    """Appends to `path`; if that fails mid-run (disk full, file gone read-only), what was
    played goes to a fallback file in the temp directory instead, and the run says where."""

    def __init__(self, path: str | os.PathLike, what: str) -> None:
        self.path, self.what = Path(path), what
        self.fallback: Path | None = None
        self.error = ""

    def append(self, text: str) -> None:
        """Appends whole lines, on a line of their own after a torn one (fileio.append_lines)."""
        if self.fallback is None:
            try:
                append_lines(self.path, text)
                return
            except OSError as e:
                self.error = e.strerror or str(e)
                fd, name = tempfile.mkstemp(prefix=f"popucom-{self.path.stem}-", suffix=self.path.suffix or ".jsonl")
                os.close(fd)
                self.fallback = Path(name)
                print(
                    f"error: cannot write {self.what} to {self.path} ({self.error}); writing them to "
                    f"{self.fallback} instead",
                    file=sys.stderr,
                )
        append_lines(self.fallback, text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `popucom arena`, which run_arena reads."""
    p.add_argument(
        "players",
        nargs="+",
        help="random, greedy, uct:N, best (newest shipped model), model.onnx[@visits=N,KEY=VALUE...], ckpt.pt[@...]",
    )
    p.add_argument("--openings", type=int, default=10, help="openings per pair, each played twice (colours swapped)")
    p.add_argument("--opening-plies", type=int, default=4)
    p.add_argument("--komi", type=int, default=0)
    p.add_argument("--anchor", help="the player fixed at 0 Elo (default: the first)")
    p.add_argument("--results", default="arena/results.jsonl", help="summary lines (pairs, ratings) are appended here")
    p.add_argument("--games-out", default="arena/games.jsonl", help="every game record is appended here")
    p.add_argument("--sprt", help="elo0,elo1,alpha,beta: stop early (two players only)")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        metavar="BACKEND",
        help="inference backend of the model players: %(choices)s (default auto: the fastest here)",
    )
    p.add_argument("--threads", type=threads_argument(), default=0, help="network threads (default: all cores)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--refit", action="store_true", help="fit ratings over every game in --games-out, not just this run's"
    )


def _checked_arena_args(args: argparse.Namespace) -> tuple[int, list[PlayerSpec], SPRT | None, str]:
    """komi, the players, the SPRT (or None) and the anchor, every flag checked before a model loads."""
    komi = check_komi(args.komi, "--komi")
    make_openings(1, args.opening_plies, args.seed)  # refuses bad --opening-plies before models load
    if args.openings < 1:
        raise ValueError(f"--openings must be at least 1, got {args.openings}")
    check_appendable(args.games_out, "game records")
    check_appendable(args.results, "results")
    if args.refit:
        read_records(args.games_out, replay=True)  # a bad record is reported now, not after the games
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
    return komi, specs, sprt, anchor


def _play_until_decided(
    sprt: SPRT, a: Player, b: Player, a_name: str, openings: list, komi: int
) -> tuple[list[GameRecord], str]:
    """Two openings at a time until the SPRT decides (or the openings run out): the games and the decision."""
    chunk = 2  # openings per round
    decision = "continue"
    records: list[GameRecord] = []
    for r in range(0, len(openings), chunk):
        records += play_match(a, b, openings[r : r + chunk], komi=komi, progress=False)
        scores = [g.score_for(a_name) for g in records]
        decision = sprt.decide(scores)
        low, high = sprt.bounds()
        print(f"  {len(records)} games: LLR {sprt.llr(scores):+.2f} (bounds {low:+.2f}, {high:+.2f}) -> {decision}")
        if decision != "continue":
            break
    return records, decision


def run_arena(args: argparse.Namespace) -> int:
    komi, specs, sprt, anchor = _checked_arena_args(args)
    threads = resolve_threads(args.threads)
    backend = getattr(args, "backend", None) or "auto"
    evaluators = {s.name: load_evaluator(s, args.device, threads, backend) for s in specs if s.is_network}
    for name, ev in evaluators.items():
        print(f"{name}: {ev.describe()}")
    openings = make_openings(args.openings, args.opening_plies, args.seed)

    def player(spec: PlayerSpec, seed: int) -> Player:
        return Player.from_spec(spec, seed=seed, evaluator=evaluators.get(spec.name))

    records: list[GameRecord] = []
    pairs = []
    games_out = SafeAppender(args.games_out, "game records")
    results_out = SafeAppender(args.results, "results")
    start = time.perf_counter()
    for i, (a, b) in enumerate(itertools.combinations(specs, 2)):
        if sprt:
            pair_records, decision = _play_until_decided(sprt, player(a, i), player(b, i + 100), a.name, openings, komi)
        else:
            pair_records = play_match(
                player(a, i),
                player(b, i + 100),
                openings,
                komi=komi,
                progress=True,
                desc=f"{a.name} vs {b.name}",
            )
            decision = None
        games_out.append(records_jsonl(pair_records))  # after every pair: a later failure loses nothing
        records += pair_records
        pairs.append(
            {
                "a": a.name,
                "b": b.name,
                "summary": summarize(pair_records, a.name, b.name),
                **({"sprt": decision} if sprt else {}),
            }
        )
    pool = records
    if args.refit:
        pool = read_records(args.games_out, replay=True)
        pool += read_records(games_out.fallback, replay=True) if games_out.fallback else []
    ratings = rate_players(pool, anchor)
    colour = colour_ratings(pool, anchor)
    print(format_table(pairs, ratings, colour, anchor))
    elapsed = time.perf_counter() - start
    summary = {
        "time": time.time(),
        "players": [s.name for s in specs],
        "openings": len(openings),
        "komi": komi,
        "pairs": pairs,
        "anchor": anchor,
        "games": len(records),
        "games_per_s": len(records) / elapsed if elapsed else 0.0,
        "ratings": {n: r.__dict__ for n, r in ratings.items()},
        "colour_ratings": {n: r.__dict__ for n, r in colour.items()},
    }
    results_out.append(json.dumps(summary) + "\n")
    failed = [out for out in (games_out, results_out) if out.fallback]
    for out in failed:
        print(
            f"error: {out.what} could not be written to {out.path} ({out.error}); they are in {out.fallback}",
            file=sys.stderr,
        )
    return 1 if failed else 0
