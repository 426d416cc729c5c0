"""Starting the GUI: the `popucom gui` arguments, the thread budget, the language, the
QApplication (after checking that Qt's platform plugin can load: qt_platform.py)."""

from __future__ import annotations

import argparse
import sys

from ..infer.threads import machine_threads
from .modes import MODE_KEYS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", nargs="?", help="an .sgf game or a .jsonl game-record file to open")
    parser.add_argument(
        "--opponent",
        help="a model (.onnx, .pt, .plan, .pcnet) or a bot: random, greedy, uct:N "
        "(default: the newest shipped model, found as `best` is, else uct:2000 with a warning)",
    )
    parser.add_argument("--mode", default=MODE_KEYS[0], choices=MODE_KEYS)
    parser.add_argument("--visits", type=int, default=800, help="AI visits per move (default 800)")
    parser.add_argument("--seconds", type=float, help="AI time per move instead of visits")
    # The tree search runs between network calls, never during one, so the network may use
    # every core (the UI thread idles while the AI thinks).
    parser.add_argument(
        "--network-threads",
        type=int,
        default=min(4, machine_threads()),
        help="CPU threads of the network (default: all cores, at most 4)",
    )
    parser.add_argument("--search-threads", type=int, default=1, help="C++ tree-search threads (default 1)")
    parser.add_argument(
        "--lang",
        type=_language_name,
        help="the GUI's language: en or zh_CN (default: the View > Language choice, else the system locale)",
    )


def _language_name(text: str) -> str:
    """--lang's type: an unknown name is an argparse error (usage and message, exit 2)."""
    try:
        from .language import LanguageError, normalize
    except ImportError:  # no PySide6: run() says so
        return text
    try:
        return normalize(text)
    except LanguageError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    try:
        from PySide6.QtCore import QSettings
        from PySide6.QtWidgets import QApplication
    except ImportError:
        print("popucom gui: PySide6 is not installed; pip install 'popucom[gui]'", file=sys.stderr)
        return 2
    from .qt_platform import check_xcb

    if QApplication.instance() is None:
        problem = check_xcb()
        if problem is not None:  # Qt would abort the process, naming at most one package
            print(problem, file=sys.stderr)
            return 2
    from . import language
    from .ai import default_opponent
    from .main_window import MainWindow

    opponent, notice = (args.opponent, None) if args.opponent else default_opponent()
    if notice is not None:  # the bot plays, and the user is told why
        print(f"popucom gui: warning: {notice}", file=sys.stderr)
    # The thread budget is explicit and printed: on a small machine the network and the
    # search share the cores with the UI, which must stay responsive.
    print(
        f"popucom gui: opponent {opponent}; threads: search {args.search_threads} + network "
        f"{args.network_threads} = {args.search_threads + args.network_threads} (UI thread aside)",
        file=sys.stderr,
    )
    app = QApplication.instance() or QApplication(sys.argv[:1])
    settings = QSettings("popucom", "gui")  # where View > Language keeps its choice
    try:
        chosen = language.choose_language(getattr(args, "lang", None), settings)
        language.set_language(chosen)
    except language.LanguageError as e:
        print(f"popucom gui: {e}; the GUI stays in English", file=sys.stderr)
    try:
        window = MainWindow(
            opponent,
            mode=args.mode,
            visits=args.visits,
            seconds=args.seconds,
            network_threads=args.network_threads,
            search_threads=args.search_threads,
            settings=settings,
        )
    except (ValueError, FileNotFoundError, RuntimeError) as e:
        print(f"popucom gui: cannot use opponent {opponent}: {e}", file=sys.stderr)
        return 2
    window.resize(1280, 800)
    window.show()
    if args.game and not window.open_path(args.game):
        print(f"popucom gui: {window.last_message}", file=sys.stderr)
    if args.mode == "ai-ai":
        window.ai_move_now()
    return app.exec()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="popucom gui", description="Play and analyse Match-n-POP.")
    add_arguments(parser)
    return run(parser.parse_args(argv))
