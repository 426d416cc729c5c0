"""The `popucom` command: one program, one subcommand per job."""

from __future__ import annotations

import argparse
import sys

from . import _core


def cmd_show(args: argparse.Namespace) -> int:
    """Replays a record and prints the final board and result."""
    try:
        game = _core.Game.from_record(args.record, komi=args.komi)
    except ValueError as e:
        print(f"popucom show: {e}", file=sys.stderr)
        return 2
    print(game)
    print(f"record ({len(game)} moves): {game.record}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from . import benchmarks

    if args.what == "rules":
        benchmarks.main_rules(games=args.games, repeats=args.repeats)
    elif args.what == "search":
        benchmarks.main_search(repeats=args.repeats)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="popucom", description="Popucom Zero: a Match-n-POP engine.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    show = sub.add_parser("show", help="replay a game record and print the board")
    show.add_argument("record", help="moves like 'e5 d4 c3' (Black first)")
    show.add_argument("--komi", type=int, default=0, help="komi White gives Black (default 0)")
    show.set_defaults(run=cmd_show)

    bench = sub.add_parser("bench", help="throughput benchmarks (one JSON line each)")
    bench.add_argument("what", choices=["rules", "search"], help="which benchmark")
    bench.add_argument("--games", type=int, default=200_000, help="random games per timed repeat (rules)")
    bench.add_argument("--repeats", type=int, default=5, help="timed repeats (the median is reported)")
    bench.set_defaults(run=cmd_bench)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
