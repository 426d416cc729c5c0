"""A GTP-framed engine on stdin/stdout: `=`/`?` replies with optional ids, each
ended by a blank line; diagnostics go to stderr. See docs/engine_protocol.md.

Framing holds for any input: standard input is read as bytes (a line that is not
UTF-8 text is answered with `?`, whatever PYTHONIOENCODING says), every command
gets exactly one reply, and no reply contains a blank line (which would end it
early). Any command, another analysis included, ends a running analysis. A closed
standard output ends the engine quietly.

Numbers are read as GTP writes them, in ASCII: any other argument (a 400-digit
number, inf, '١٢') is answered with `?`, and budgets are bounded when the engine
starts (popucom.limits). A network output the search refuses (NaN) fails that
genmove with `?` or ends that analysis, and the next command searches as before.
Ctrl-C ends the running search before the engine exits.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import BinaryIO, TextIO

from .. import __version__, _core
from ..levels import LEVELS, Level, level_named, level_names
from ..limits import check_komi, check_seconds, check_visits
from ..player import Player
from ..player_spec import PlayerSpec
from ..search.analysis import AnalysisResult
from ..search.bot_session import BOT_ANALYSIS, BotSession
from ..search.game_search import GameSearch

COLOURS = {"b": _core.Color.BLACK, "black": _core.Color.BLACK, "w": _core.Color.WHITE, "white": _core.Color.WHITE}


class GtpError(Exception):
    """Answered with `?` and the message."""


MAX_INTERVAL_CS = 360_000  # an hour between analysis lines, in centiseconds


def parse_interval(args: list[str]) -> float:
    """popucom-analyze's interval in seconds: ASCII digits, 0 to MAX_INTERVAL_CS centiseconds
    (50 if not given). Python's int() would also take '１２', '1_0' and 400 digits."""
    if not args:
        return 0.5
    text = args[0]
    if not (text.isascii() and text.isdigit() and len(text) <= 7 and int(text) <= MAX_INTERVAL_CS):
        raise GtpError(f"syntax error: popucom-analyze [interval in centiseconds, 0 to {MAX_INTERVAL_CS}]")
    return int(text) / 100


# GTP: control characters other than tab and newline are removed; tabs become spaces.
_CONTROL = {c: None for c in range(32) if c not in (9, 10)} | {9: 32, 127: None}


def decode_line(raw: bytes | str) -> str | None:
    """The text of one input line with control characters removed; None if it is not UTF-8."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return raw.translate(_CONTROL)


MAX_LINE_BYTES = 16 << 20
TOO_LONG = b"\xff line too long"  # stands for a longer line; not UTF-8, so it can never be a command


def read_lines(stream: BinaryIO | TextIO) -> Iterator[bytes | str]:
    """The lines of `stream`, as bytes where it has a file descriptor. Reads the descriptor
    directly: a thread blocked in a buffered reader holds its lock, and an engine that ends
    while that thread waits would abort the interpreter's shutdown."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        yield from getattr(stream, "buffer", stream)
        return
    rest, skipping = b"", False
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        rest += chunk
        *complete, rest = rest.split(b"\n")
        for line in complete:
            if skipping:
                skipping = False
                yield TOO_LONG
            else:
                yield line + b"\n"
        if len(rest) > MAX_LINE_BYTES:  # a line without end must not eat the memory
            rest, skipping = b"", True
    if skipping:
        yield TOO_LONG
    elif rest:
        yield rest


QUEUED_BYTES = 4 << 20  # input read ahead of the command loop, at most (one line of any size passes)
LINE_COST = 100  # what a queued line costs beyond its bytes (the object, its slot)


class LineQueue:
    """The lines read ahead of the command loop, at most QUEUED_BYTES of them counting each line's
    LINE_COST: a client that writes faster than the engine answers is held back by the pipe (its
    writes block), not by the engine's memory. None ends the input."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = QUEUED_BYTES if limit is None else limit
        self.held = 0
        self._lines: deque[bytes | str | None] = deque()
        self._changed = threading.Condition()

    @staticmethod
    def _cost(line: bytes | str | None) -> int:
        return LINE_COST + (len(line) if line is not None else 0)

    def put(self, line: bytes | str | None) -> None:
        cost = self._cost(line)
        with self._changed:
            while self._lines and self.held + cost > self.limit:
                self._changed.wait()
            self._lines.append(line)
            self.held += cost
            self._changed.notify_all()

    def get(self) -> bytes | str | None:
        with self._changed:
            while not self._lines:
                self._changed.wait()
            line = self._lines.popleft()
            self.held -= self._cost(line)
            self._changed.notify_all()
            return line


def frame(head: str, text: str) -> str:
    """One GTP reply: head (`=id` or `?id`), the text without blank lines, and the blank line ending it."""
    lines = [line.rstrip() for line in text.replace("\r", "").split("\n")]
    body = "\n".join(line for line in lines if line.strip())
    if text.startswith("\n") and body:  # multi-line replies such as showboard start on their own line
        return f"{head}\n{body}\n\n"
    return f"{head} {body}\n\n" if body else f"{head}\n\n"


def analysis_line(result: AnalysisResult, most: int = 10) -> str:
    """One streamed analysis line: up to `most` searched moves, the move the engine would play
    first (`order 0`, as KataGo's analysis marks it; LCB and exact endgames make it differ from
    the most visited at times), then the rest most visited first."""
    moves = [m for m in result.moves if m["visits"] > 0]
    moves.sort(key=lambda m: m["move"] != result.chosen)  # stable: the rest keep their visit order
    parts = []
    for order, m in enumerate(moves[:most]):
        pv = " ".join(_core.square_to_text(s) for s in m["pv"])
        proven = m.get("proven")  # the exact result the search proved for the move, if any
        exact = f"proven {PROVEN_WORDS[proven]} exactScore {m['exact_score']:.0f} " if proven is not None else ""
        parts.append(
            f"info move {_core.square_to_text(m['move'])} visits {m['visits']} "
            f"winrate {m['winrate']:.4f} scoreMean {m['score']:.2f} prior {m['prior']:.4f} "
            f"lcb {max(m['lcb'], -1.0):.4f} {exact}order {order} pv {pv}"
        )
    return " ".join(parts)


PROVEN_WORDS = {1: "win", 0: "draw", -1: "loss"}  # a proven move's exact value, for its mover


class Engine:
    def __init__(
        self,
        player: str | None = None,
        visits: int | None = None,
        seconds: float | None = None,
        komi: int = 0,
        threads: int = 1,
        out: TextIO = sys.stdout,
        level: str | None = None,
        backend: str = "auto",
    ) -> None:
        """player: a player spec (`best` if neither it nor `level` is given); level: a
        difficulty level's name (popucom.levels), which sets its own visits and temperature;
        backend: the inference backend of every model player (popucom.infer)."""
        # Validated before anything is loaded: a NaN time never ends a search, a huge komi
        # overflows the core's 32-bit komi, a billion visits never end.
        seconds = check_seconds(seconds, "--seconds")
        komi = check_komi(komi, "--komi")
        visits = check_visits(visits, "--visits")
        self.threads = threads
        self.backend = backend
        self.level: Level | None = None
        self.search: GameSearch | BotSession | None = None  # set by use_player, below
        if level is not None:
            if player is not None:
                raise ValueError("give --level or --player, not both")
            if visits is not None or seconds is not None:
                raise ValueError(f"level {level[:100]} plays its own visits: --visits and --seconds go with --player")
            self.use_level(level_named(level))
        else:
            player = "best" if player is None else player
            spec = PlayerSpec.parse(player)
            if visits is not None:
                # --visits applies to any model player, `best` included (an @visits=N in the spec wins)
                spec = spec.with_default_visits(visits)
            if spec.is_network:
                check_visits(spec.visits, f"player '{player[:100]}': visits")
            self.use_player(spec, Player.from_spec(spec, threads=threads, backend=backend))
        self.seconds = seconds
        self.komi = komi
        self.game = _core.Game(komi)
        self.out = out
        self.lock = threading.Lock()
        self.running = True
        self.output_closed = False
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: "popucom",
            "version": lambda a: __version__,
            "known_command": lambda a: "true" if a and a[0].lower() in self.known_commands() else "false",
            "list_commands": lambda a: "\n".join(self.known_commands()),
            "quit": self.quit,
            "boardsize": self.boardsize,
            "clear_board": self.clear_board,
            "komi": self.set_komi,
            "play": self.play,
            "genmove": self.genmove,
            "undo": self.undo,
            "showboard": lambda a: "\n" + str(self.game),
            "final_score": self.final_score,
            "popucom-set-position": self.set_position,
            "popucom-rules": self.rules,
            "popucom-level": self.set_level,
            "popucom-levels": lambda a: "\n".join(f"{lv.name} {lv.rating} {lv.description}" for lv in LEVELS),
        }
        # Commands that keep answering after their `=` line, until the next command arrives;
        # serve() runs them (each returns the event that ends its stream).
        self.streaming: dict[str, Callable[[str, list[str]], threading.Event]] = {
            "popucom-analyze": self.start_analysis,
        }

    def use_player(self, spec: PlayerSpec, player: Player, level: Level | None = None) -> None:
        """Plays as `player` from now on, with a fresh tree: one for the whole game, kept across
        both sides' moves (and reset by jumps)."""
        if self.search is not None:
            self.search.stop()
        self.spec, self.player, self.level = spec, player, level
        self.search = player.session()
        self.visits = spec.visits if player.is_model else None

    def use_level(self, level: Level) -> None:
        self.use_player(level.player_spec(), level.player(threads=self.threads, backend=self.backend), level)

    def known_commands(self) -> list[str]:
        return [*self.commands, *self.streaming]

    # --- commands ---------------------------------------------------------------
    def quit(self, args: list[str]) -> str:
        self.running = False
        return ""

    def boardsize(self, args: list[str]) -> str:
        if args != [str(_core.BOARD_SIZE)]:
            raise GtpError(f"unacceptable size: the board is {_core.BOARD_SIZE}x{_core.BOARD_SIZE}")
        return ""

    def clear_board(self, args: list[str]) -> str:
        self.game = _core.Game(self.komi)
        return ""

    def set_komi(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: komi wants a number")
        try:
            komi = check_komi(args[0])
        except ValueError as e:
            raise GtpError(str(e)) from None
        # Replay first, set after: a failure leaves the old komi and game in place.
        self.game = _core.Game.from_record(self.game.record, komi=komi)
        self.komi = komi
        return ""

    def colour(self, args: list[str]) -> _core.Color:
        if not args or args[0].lower() not in COLOURS:
            raise GtpError("syntax error: want a colour b or w")
        return COLOURS[args[0].lower()]

    def play(self, args: list[str]) -> str:
        colour = self.colour(args)
        if len(args) != 2:
            raise GtpError("syntax error: play <b|w> <vertex>")
        if colour != self.game.to_move:
            raise GtpError(f"illegal move: it is {self.game.to_move.name.capitalize()}'s turn (there is no pass)")
        before = self.game.position
        try:
            self.game.play(args[1])
        except ValueError as e:
            raise GtpError(str(e)) from None
        self.tell_session(before, self.game.moves[-1])
        return ""

    def tell_session(self, before: _core.Position, move: int) -> None:
        """Every move played reaches the search session, so its tree lives for the whole game."""
        self.search.follow(before, move)

    def genmove(self, args: list[str]) -> str:
        colour = self.colour(args)
        if self.game.is_over:
            raise GtpError("the game is over")
        if colour != self.game.to_move:
            raise GtpError(f"it is {self.game.to_move.name.capitalize()}'s turn (there is no pass)")
        position = self.game.position
        move = self.searched_move(position)
        self.game.play(move)
        self.tell_session(position, move)
        return _core.square_to_text(move)

    def searched_move(self, position: _core.Position) -> int:
        self.search.set_position(position)
        try:
            result = self.search.search(visits=None if self.seconds else self.visits, seconds=self.seconds)
        except (ValueError, RuntimeError) as e:  # the network's output refused: the tree is as before
            raise GtpError(f"the search failed: {e}") from None
        return self.search.move_to_play(result, self.player.move_temperature(position.ply))

    def undo(self, args: list[str]) -> str:
        try:
            self.game.undo()
        except ValueError as e:
            raise GtpError(f"cannot undo: {e}") from None
        return ""

    def final_score(self, args: list[str]) -> str:
        p = self.game.position
        if not p.is_over:
            raise GtpError("the game is not over")
        margin = p.score + p.komi
        if p.end_reason == _core.EndReason.NO_LEGAL_MOVE:
            return "B+NoMove" if p.result == _core.Result.BLACK_WIN else "W+NoMove"
        return "0" if margin == 0 else f"B+{margin}" if margin > 0 else f"W+{-margin}"

    def set_position(self, args: list[str]) -> str:
        try:
            self.game = _core.Game.from_record(" ".join(args), komi=self.komi)
        except ValueError as e:
            raise GtpError(str(e)) from None
        return ""

    def set_level(self, args: list[str]) -> str:
        """`popucom-level`: the level playing (empty for a player that is no level);
        `popucom-level NAME`: play at that level from the next move (the game stays)."""
        if not args:
            return self.level.name if self.level is not None else ""
        if len(args) != 1:
            raise GtpError(f"syntax error: popucom-level [NAME], NAME one of {', '.join(level_names())}")
        try:
            level = level_named(args[0].lower())
            if self.seconds is not None:
                raise ValueError(f"level {level.name} plays its own visits, and this engine searches by --seconds")
            self.use_level(level)
        except (ValueError, RuntimeError, FileNotFoundError) as e:  # the player before stays
            raise GtpError(str(e)) from None
        return ""

    def rules(self, args: list[str]) -> str:
        return json.dumps(
            {
                "board_size": _core.BOARD_SIZE,
                "moves_per_player": _core.MOVES_PER_PLAYER,
                "match_length": _core.MATCH_LENGTH,
                "komi": self.komi,
                "pass": False,
                "no_legal_move": "loses",
                "score": "black floors - white floors + komi",
            }
        )

    # --- streaming analysis ----------------------------------------------------------
    def start_analysis(self, ident: str, args: list[str]) -> threading.Event:
        """Starts streaming; the caller sets the returned event and then stops self.search."""
        if not self.search.analyzes:
            raise GtpError(BOT_ANALYSIS)
        if self.game.is_over:
            raise GtpError("the game is over")
        interval = parse_interval(args)
        stop = threading.Event()
        self.search.set_position(self.game.position)
        self.write(f"={ident}\n")

        def report(result: AnalysisResult) -> None:
            line = analysis_line(result)
            if line and not stop.is_set():
                self.write(line + "\n")

        def failed(error: BaseException) -> None:
            # The `=` is out: the stream just ends here, and the next command ends the reply.
            print(f"analysis stopped: {type(error).__name__}: {error}", file=sys.stderr)

        try:
            self.search.start(callback=report, on_error=failed, report_every_s=max(interval, 0.05))
        except Exception as e:  # after the `=`, a `?` would be a second reply
            failed(e)
        return stop

    # --- I/O -------------------------------------------------------------------------
    def write(self, text: str) -> None:
        with self.lock:
            if self.output_closed:
                return
            try:
                self.out.write(text)
                self.out.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError):  # ValueError: the stream was closed
                # The reader has gone: nothing more can be answered, so stop (no traceback).
                self.output_closed = True
                self.running = False

    def handle(self, line: str) -> tuple[str, str, list[str]] | None:
        """Parses a line into (id, command, args); None for blank or comment lines."""
        line = line.split("#", 1)[0].strip()
        if not line:
            return None
        words = line.split()
        ident = words.pop(0) if words[0].isascii() and words[0].isdigit() else ""
        if not words:
            return ident, "", []
        return ident, words[0].lower(), words[1:]

    def respond(self, ident: str, command: str, args: list[str]) -> None:
        if command not in self.commands:
            self.write(frame(f"?{ident}", f"unknown command '{command[:100]}'"))
            return
        try:
            reply = self.commands[command](args)
            self.write(frame(f"={ident}", reply))
        except GtpError as e:
            self.write(frame(f"?{ident}", str(e)))
        except Exception as e:  # a bug must not kill the engine: answer and go on
            print(f"internal error in {command}: {e!r}", file=sys.stderr)
            self.write(frame(f"?{ident}", f"internal error: {e}"))

    def serve(self, stream: BinaryIO | TextIO) -> None:
        """Answers commands from `stream` (bytes preferred: a text stream's `.buffer` is used)
        until quit, end of input or a closed output."""
        lines = LineQueue()

        def reader() -> None:
            try:
                for line in read_lines(stream):
                    lines.put(line)
            except (OSError, ValueError) as e:  # input gone: end as at end of input
                print(f"cannot read standard input: {e}", file=sys.stderr)
            finally:
                lines.put(None)

        threading.Thread(target=reader, daemon=True).start()
        try:
            self.answer(lines)
        finally:  # Ctrl-C included: no search may outlive the engine
            if self.search is not None:
                self.search.stop()

    def answer(self, lines: LineQueue) -> None:
        """The command loop of serve(): one reply per line until quit, end of input (None) or a
        closed output."""
        pending: bytes | str | None = None
        while self.running:
            raw, pending = (pending if pending is not None else lines.get()), None
            if raw is None:
                return
            if raw is TOO_LONG:
                self.write(frame("?", f"line longer than {MAX_LINE_BYTES} bytes, ignored"))
                continue
            text = decode_line(raw)
            if text is None:
                self.write(frame("?", "command is not UTF-8 text"))
                continue
            parsed = self.handle(text)
            if parsed is None:
                continue
            ident, command, args = parsed
            if command not in self.streaming:
                self.respond(ident, command, args)
                continue
            try:
                stop = self.streaming[command](ident, args)
            except GtpError as e:
                self.write(frame(f"?{ident}", str(e)))
                continue
            except Exception as e:  # as respond(): answer and go on
                print(f"internal error in {command}: {e!r}", file=sys.stderr)
                self.write(frame(f"?{ident}", f"internal error: {e}"))
                continue
            # The analysis streams until the next line arrives; that line (another analysis
            # included) is then handled like any other, by the loop.
            pending = lines.get()
            stop.set()
            self.search.stop()
            self.write("\n")
            if pending is None:
                return


def run_engine(args: argparse.Namespace) -> int:
    engine = Engine(
        args.player,
        visits=args.visits,
        seconds=args.seconds,
        komi=args.komi,
        threads=args.threads,
        level=getattr(args, "level", None),
        backend=getattr(args, "backend", None) or "auto",
    )
    network = f" on {engine.player.description}" if engine.player.is_model else ""
    level = f" (level {engine.level.name})" if engine.level is not None else ""
    print(f"popucom engine ready: {engine.spec.name}{level}{network}", file=sys.stderr)
    engine.serve(sys.stdin)
    if engine.output_closed:
        # Keep Python's final flush of the dead pipe from printing an error at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        print("standard output was closed; engine stopped", file=sys.stderr)
    return 0
