"""The `popucom` command: one program, one subcommand per job.

No Python traceback reaches the user for bad input or a failed write: every
failure ends as `error: ...` on stderr and a non-zero exit status (2 for input the
command refuses, 1 for anything else, 130 when interrupted); `--debug` (before or
after the subcommand) also prints the traceback.

Logging is configured here, once: the package's modules log to `logging.getLogger(__name__)`,
and their INFO lines (the pipeline's progress) are printed on stdout as they are, warnings
and errors on stderr as `warning: ...` / `error: ...`; `--debug` adds DEBUG lines, named by
their logger. Progress bars (tqdm) are not logging: they go to stderr, and `--quiet` turns
them off where a command has it.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from . import _core
from .infer.threads import resolve_threads
from .limits import BACKENDS, MODEL_PRESETS, PIPELINE_PRESETS, threads_argument
from .run_layout import RunLayout

if TYPE_CHECKING:
    from .nn.model import PopucomNet
    from .pipeline.config import PipelineConfig
    from .train.trainer import Checkpoint

DEBUG = False  # set by --debug: show tracebacks


class ConsoleHandler(logging.Handler):
    """The command's log output: INFO and DEBUG on stdout, WARNING and above on stderr. The
    streams are looked up at each record, so a redirected sys.stdout (pytest's capsys) is used."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            stream = sys.stderr if record.levelno >= logging.WARNING else sys.stdout
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - logging must never end the command
            self.handleError(record)


class ConsoleFormatter(logging.Formatter):
    def __init__(self, debug: bool) -> None:
        super().__init__()
        self.debug = debug

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        if record.exc_info and self.debug:
            message += "\n" + self.formatException(record.exc_info)
        if self.debug:
            return f"{record.levelname.lower()} {record.name}: {message}"
        return message if record.levelno < logging.WARNING else f"{record.levelname.lower()}: {message}"


def configure_logging(debug: bool) -> None:
    """Sends the package's log records to the console (see the module docstring); called once
    per command, and again only replaces its own handler."""
    package = logging.getLogger("popucom")
    for handler in [h for h in package.handlers if isinstance(h, ConsoleHandler)]:
        package.removeHandler(handler)
    handler = ConsoleHandler()
    handler.setFormatter(ConsoleFormatter(debug))
    package.addHandler(handler)
    package.setLevel(logging.DEBUG if debug else logging.INFO)


def describe_error(error: BaseException) -> str:
    """One line for the user: an OSError says what failed on which file, not its errno tuple."""
    if isinstance(error, OSError) and error.strerror:
        target = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{target}"
    text = str(error) or type(error).__name__
    return text if isinstance(error, (ValueError, RuntimeError)) else f"{type(error).__name__}: {text}"


def fail(command: str, error: Exception) -> int:
    if DEBUG:
        traceback.print_exception(error)
    print(f"error: popucom {command}: {describe_error(error)}", file=sys.stderr)
    return 2


GAME_FILE_SUFFIXES = (".sgf", ".jsonl", ".json")  # the game files `popucom gui FILE` opens (MainWindow.open_path)


def add_show_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help="moves like 'e5 d4 c3' (Black first)")
    p.add_argument("--komi", type=int, default=0, help="komi White gives Black (default 0)")


def cmd_show(args: argparse.Namespace) -> int:
    """Replays a record and prints the final board and result."""
    from .limits import check_komi

    try:
        game = _core.Game.from_record(args.record, komi=check_komi(args.komi, "--komi"))
    except ValueError as e:
        text = args.record.strip()
        if Path(text).suffix.lower() in GAME_FILE_SUFFIXES or (" " not in text and Path(text).is_file()):
            import shlex

            message = (
                f"{text} is a game file, not a record of moves (like 'e5 d4 c3'): "
                f"open it with `popucom gui {shlex.quote(text)}`"
            )
            return fail("show", ValueError(message))
        return fail("show", e)
    print(game)
    print(f"record ({len(game)} moves): {game.record}")
    return 0


def add_bench_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("what", choices=["rules", "search"], help="which benchmark")
    p.add_argument("--games", type=int, default=200_000, help="random games per timed repeat (rules)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats (the median is reported)")


def cmd_bench(args: argparse.Namespace) -> int:
    from . import benchmarks

    if args.what == "rules":
        benchmarks.main_rules(games=args.games, repeats=args.repeats)
    elif args.what == "search":
        benchmarks.main_search(repeats=args.repeats)
    return 0


def _pipeline_base_config(args: argparse.Namespace) -> PipelineConfig:
    """What the run starts from: a shipped checkpoint's config (--resume-from), the run
    directory's own config when it exists and no --preset is given, or the preset."""
    from .pipeline.config import PipelineConfig, pipeline_preset

    if args.resume_from:
        from .pipeline.resume_from import start_from_shipped

        return start_from_shipped(args.run_dir, args.resume_from)
    saved = RunLayout(args.run_dir).config
    if args.preset is None and saved.exists():
        return PipelineConfig.load(saved)
    return pipeline_preset(args.preset or "cpu")


def _positive(value: int | None, flag: str) -> int | None:
    if value is not None and value <= 0:
        raise ValueError(f"{flag} must be a positive number, got {value}")
    return value


def _minutes(value: float | None, flag: str) -> float | None:
    if value is not None and value < 0:
        raise ValueError(f"{flag} must be >= 0 minutes, got {value}")
    return value


def _evaluation_from_args(args: argparse.Namespace, base: PipelineConfig) -> object:
    """The evaluation settings with --gating and --evaluate-every applied."""
    from dataclasses import replace

    # Gating evaluates every model; an --evaluate-every beside it is refused by EvalConfig.
    evaluation: dict[str, object] = {"gating": True, "every": 1} if args.gating else {}
    if args.evaluate_every is not None:
        evaluation["every"] = _positive(args.evaluate_every, "--evaluate-every")
    return replace(base.evaluation, **evaluation)


def pipeline_config_from_args(args: argparse.Namespace) -> PipelineConfig:
    """The base config with the command line's overrides applied."""
    from dataclasses import replace

    base = _pipeline_base_config(args)
    if args.change:
        from .pipeline.config_change import apply_changes, parse_changes

        if args.preset:
            raise ValueError("--change alters the run's own config: leave out --preset")
        base = apply_changes(args.run_dir, base, parse_changes(args.change))
    overrides: dict[str, object] = {
        field: value
        for field, value in (("backend", args.backend), ("device", args.device), ("inference_threads", args.threads))
        if value
    }
    if args.gating or args.evaluate_every is not None:
        overrides["evaluation"] = _evaluation_from_args(args, base)
    selfplay = {
        name: value
        for name, value in (
            ("root_search", args.root_search),
            ("concurrent_games", _positive(args.concurrent_games, "--concurrent-games")),
            ("search_threads", _positive(args.search_threads, "--search-threads")),
        )
        if value
    }
    if selfplay:
        overrides["selfplay"] = replace(base.selfplay, **selfplay)
    if args.games_per_iteration:
        overrides["games_per_iteration"] = _positive(args.games_per_iteration, "--games-per-iteration")
    if args.no_warm_start:
        overrides["warm_start"] = None
    if _minutes(args.ladder_every, "--ladder-every") is not None:
        if base.ladder is None:
            raise ValueError(f"preset '{base.preset}' has no strength ladder to schedule")
        overrides["ladder"] = replace(base.ladder, every_minutes=args.ladder_every)
    return replace(base, **overrides)


def add_pipeline_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run-dir", default="runs/default", help="where everything of the run lives (default runs/default)")
    p.add_argument(
        "--preset",
        choices=PIPELINE_PRESETS,
        metavar="PRESET",
        help="hardware preset: %(choices)s (default: an existing run's own config, else cpu)",
    )
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        metavar="BACKEND",
        help="inference backend: %(choices)s (preset default; auto: the fastest here)",
    )
    p.add_argument("--device", choices=["cpu", "cuda"], help="inference device (preset default)")
    p.add_argument("--threads", type=threads_argument(), default=0, help="inference threads (default: all cores)")
    p.add_argument("--iterations", type=int, help="stop once this many iterations are complete (default: never)")
    p.add_argument(
        "--stop-after",
        type=float,
        metavar="MINUTES",
        help="end by this many minutes: no new iteration that would end later, judged by the last one "
        "(a lent machine's time, or the hours one has)",
    )
    p.add_argument("--gating", action="store_true", help="keep the previous model unless the new one passes an SPRT")
    p.add_argument("--ray-address", help="run self-play workers as Ray actors on this cluster ([cluster] extra)")
    p.add_argument(
        "--root-search",
        choices=["puct", "gumbel"],
        help="self-play root search: PUCT with noise and forced playouts, or Gumbel (preset default)",
    )
    p.add_argument(
        "--no-warm-start",
        action="store_true",
        help="start from a random network instead of the preset's supervised phase on bot games",
    )
    p.add_argument(
        "--resume-from",
        metavar="CKPT",
        help="start this (new) run directory from a shipped training checkpoint, e.g. "
        "weights/popucom-small-v1.pt, with its config and komi statistics",
    )
    p.add_argument(
        "--ladder-every",
        type=float,
        metavar="MINUTES",
        help="minutes of run time between strength-ladder points (preset default; may change on resume)",
    )
    p.add_argument(
        "--evaluate-every",
        type=int,
        metavar="N",
        help="without --gating, every N-th model plays the quick evaluation, against the model N "
        "iterations older (preset default; may change on resume)",
    )
    p.add_argument(
        "--concurrent-games",
        type=int,
        help="self-play games searched at once, their leaves batched for one network call "
        "(preset default; may change on resume, e.g. on a GPU box)",
    )
    p.add_argument("--search-threads", type=int, help="C++ search threads in self-play (preset default; may change)")
    p.add_argument(
        "--games-per-iteration", type=int, help="self-play games between two trainings (preset default; may change)"
    )
    p.add_argument(
        "--change",
        action="append",
        metavar="KEY=VALUE",
        help="change a setting of the run's own config on purpose, e.g. train.min_lr_ratio=0.3 or "
        "selfplay.full_visits=96 (repeatable; saved, and recorded in the run's config_changes.jsonl)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def cmd_pipeline(args: argparse.Namespace) -> int:
    from .pipeline import run_pipeline

    try:
        config = pipeline_config_from_args(args)
        _minutes(args.stop_after, "--stop-after")
        if args.ray_address:
            from .pipeline.cluster import run_cluster_pipeline

            run_cluster_pipeline(
                args.run_dir, config, args.iterations, args.ray_address, stop_after_minutes=args.stop_after
            )
        else:
            run_pipeline(
                args.run_dir,
                config,
                iterations=args.iterations,
                progress=not args.quiet,
                stop_after_minutes=args.stop_after,
            )
    except KeyboardInterrupt:
        print("\ninterrupted: everything written so far is kept; run the same command to resume", file=sys.stderr)
        return 130
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("pipeline", e)
    return 0


def add_grow_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--from", dest="source", required=True, metavar="RUN_DIR", help="the run to grow from")
    p.add_argument("--run-dir", required=True, help="the new run's directory")
    p.add_argument(
        "--preset",
        choices=MODEL_PRESETS,
        metavar="PRESET",
        help="model preset the shape flags change: %(choices)s (default: the source run's network)",
    )
    p.add_argument("--d-model", type=int, help="width (unchanged unless given)")
    p.add_argument("--layers", type=int, help="attention + MLP layer pairs")
    p.add_argument("--heads", type=int, help="attention heads (head widths 8, 16 and 32 have the fast CPU kernel)")
    p.add_argument("--mlp-ratio", type=int, help="MLP hidden width over d_model")
    p.add_argument("--epochs", type=float, default=2.0, help="passes over the source's replay window (default 2)")
    p.add_argument(
        "--teacher-share",
        type=float,
        default=0.0,
        help="how far each target moves towards the source network's prediction, 0-1 (default 0: the games only)",
    )
    p.add_argument(
        "--threads", type=threads_argument(), default=0, help="torch threads for the training (default: all cores)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def cmd_grow(args: argparse.Namespace) -> int:
    from .infer.threads import set_torch_threads
    from .pipeline.grow import grow_run, grown_model

    try:
        shape = {
            name: _positive(value, flag)
            for name, value, flag in (
                ("d_model", args.d_model, "--d-model"),
                ("layers", args.layers, "--layers"),
                ("heads", args.heads, "--heads"),
                ("mlp_ratio", args.mlp_ratio, "--mlp-ratio"),
            )
            if value is not None
        }
        model = grown_model(args.source, args.preset, **shape)  # ModelConfig names a shape it cannot build
        threads = set_torch_threads(args.threads)
        print(f"grow: training on {threads} torch thread(s)")
        figures = grow_run(
            args.source,
            args.run_dir,
            model,
            epochs=args.epochs,
            progress=not args.quiet,
            teacher_share=args.teacher_share,
        )
    except KeyboardInterrupt:
        print("\ninterrupted: run the same command again to retrain the grown network", file=sys.stderr)
        return 130
    except (ValueError, RuntimeError, OSError) as e:
        return fail("grow", e)
    print(json.dumps(figures))
    print(f"continue it with: popucom pipeline --run-dir {args.run_dir}")
    return 0


def add_selfplay_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="a .onnx model or .pt checkpoint")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--out", required=True, help="directory for the shards and game records")
    p.add_argument("--prefix", default="selfplay")
    p.add_argument(
        "--preset",
        default="cpu",
        choices=PIPELINE_PRESETS,
        metavar="PRESET",
        help="search settings preset: %(choices)s (default cpu)",
    )
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--threads", type=threads_argument(), default=0, help="network threads (default: all cores)")
    p.add_argument("--seed", type=int, default=0)


def cmd_selfplay(args: argparse.Namespace) -> int:
    from .fileio import check_writable
    from .pipeline.config import pipeline_preset
    from .player_spec import PlayerSpec, load_evaluator
    from .selfplay import KomiSampler, run_selfplay

    try:
        check_writable(Path(args.out) / "komi_stats.json", "self-play data")
        spec = PlayerSpec.parse(args.model)
        evaluator = load_evaluator(spec, device=args.device, threads=resolve_threads(args.threads))
        config = pipeline_preset(args.preset).selfplay
        out = Path(args.out)
        komi = KomiSampler.load(out / "komi_stats.json")
        existing = len(list(out.glob(f"{args.prefix}-*.pcs")))
        print(f"self-play: {args.games} games, model {spec.source} on {evaluator.describe()}")
        stats = run_selfplay(
            evaluator,
            config,
            out,
            args.prefix,
            args.games,
            komi,
            out / "komi_stats.json",
            seed=args.seed,
            first_chunk=existing,
            model_name=Path(spec.source).stem,
        )
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("selfplay", e)
    print(json.dumps(stats.summary()))
    return 0


def add_train_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", required=True)
    p.add_argument("--checkpoint", required=True, help="resumed if it exists, created otherwise")
    p.add_argument(
        "--preset",
        default="small",
        choices=MODEL_PRESETS,
        metavar="PRESET",
        help="model preset: %(choices)s (default small)",
    )
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--window", type=int, default=500_000, help="newest samples to train on")
    p.add_argument("--device", default="cpu")
    p.add_argument("--log-dir", help="TensorBoard directory")


def cmd_train(args: argparse.Namespace) -> int:
    from .fileio import check_writable
    from .nn.config import preset
    from .train import ReplayWindow, TrainConfig, Trainer

    try:
        check_writable(args.checkpoint, "the checkpoint")
        model = preset(args.preset)
        if Path(args.checkpoint).exists():
            trainer = Trainer.resume(args.checkpoint, model_config=model, log_dir=args.log_dir, device=args.device)
        else:
            trainer = Trainer(
                model, TrainConfig(batch_size=args.batch, lr=args.lr), log_dir=args.log_dir, device=args.device
            )
        window = ReplayWindow(args.data, args.window)
        val = window.validation_batches(512, limit=4096) if len(window.val_rows) else None
        metrics = trainer.train(window, args.steps, val_batches=val)
        try:
            trainer.save(args.checkpoint)
        except OSError as e:  # keep the training: save it where it can be written, and say where
            import tempfile

            fallback = trainer.save(Path(tempfile.mkdtemp(prefix="popucom-train-")) / Path(args.checkpoint).name)
            return fail(
                "train",
                ValueError(
                    f"cannot write {args.checkpoint} ({e.strerror or e}); the trained checkpoint is saved as {fallback}"
                ),
            )
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("train", e)
    print(json.dumps({"step": trainer.step, **metrics}))
    return 0


def add_export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--checkpoint", required=True)
    p.add_argument("--out", required=True, help="NAME.onnx (an ONNX model) or NAME.pcnet (a network file)")


def cmd_export(args: argparse.Namespace) -> int:
    from .fileio import check_writable
    from .nn.native_file import NETWORK_FILE_SUFFIX
    from .train.trainer import load_network_with_checkpoint

    network_file = Path(args.out).suffix == NETWORK_FILE_SUFFIX
    try:
        check_writable(args.out, "the network file" if network_file else "the ONNX model")
        net, ckpt = load_network_with_checkpoint(args.checkpoint)
        path, runtime, diff = (export_network_file if network_file else export_onnx_model)(net, ckpt, args.out)
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("export", e)
    print(
        f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB, preset {ckpt.model_config.preset}, "
        f"{runtime} vs torch max abs difference {diff:.2e})"
    )
    return 0


def export_onnx_model(net: PopucomNet, ckpt: Checkpoint, out: str) -> tuple[Path, str, float]:
    """The ONNX model, and its largest difference from torch through onnxruntime."""
    from .infer.parity import max_abs_difference
    from .nn.export import export_onnx

    path = export_onnx(net, out, extra_metadata={"step": str(ckpt.step)})
    return path, "onnxruntime", max(max_abs_difference(net, path, 1), max_abs_difference(net, path, 64))


def export_network_file(net: PopucomNet, ckpt: Checkpoint, out: str) -> tuple[Path, str, float]:
    """The network file, and its largest difference from torch through the native forward
    (float32 products: the file's own precision)."""
    from .infer.native_backend import NativeEvaluator
    from .infer.parity import output_difference
    from .nn.native_file import write_network_file

    path = write_network_file(net, out)
    run_all = NativeEvaluator.from_network_file(path, threads=1, cpu_matmul="fp32").run_all
    return path, "the native forward", max(output_difference(net, run_all, batch) for batch in (1, 64))


def add_build_engine_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True)
    p.add_argument("--cache", default="engines")
    p.add_argument("--max-batch", type=int, default=1024)
    p.add_argument("--precision", default="fp16", choices=["fp16", "bf16", "fp32"])


def cmd_build_engine(args: argparse.Namespace) -> int:
    try:
        from .infer.trt_backend import build_engine

        plan = build_engine(args.model, args.cache, max_batch=args.max_batch, precision=args.precision)
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("build-engine", e)
    print(f"engine: {plan}")
    return 0


def add_arena_arguments(p: argparse.ArgumentParser) -> None:
    from .arena.cli import add_arguments

    add_arguments(p)


def cmd_arena(args: argparse.Namespace) -> int:
    from .arena.cli import run_arena

    try:
        return run_arena(args)
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("arena", e)


def settings_for_continuing(run_dir: str | Path) -> dict:
    """What a shipped run's config resets for whoever continues it: the machine settings of
    the run's preset (their own cores, device and self-play sizes, where this run moved to
    another machine) and the preset's ladder schedule (where --ladder-every changed it)."""
    from .pipeline.config import PipelineConfig, pipeline_preset
    from .pipeline.run_dir import with_machine_settings

    config = PipelineConfig.load(RunLayout(run_dir).config)
    shipped = config.to_dict()
    reset = with_machine_settings(config, pipeline_preset(config.preset)).to_dict()
    return {key: value for key, value in reset.items() if value != shipped[key]}


def add_ship_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run-dir", required=True)
    p.add_argument("--iteration", type=int, required=True, help="the model to ship (model_NNNN)")
    p.add_argument("--name", required=True, help="popucom-<preset>-v<N>, e.g. popucom-small-v4")
    p.add_argument("--weights-dir", help="default: $POPUCOM_WEIGHTS, else the source tree's weights/, else ./weights")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a version of the same name already shipped (or one whose ship did not finish)",
    )


def cmd_ship(args: argparse.Namespace) -> int:
    from .weights import ship

    try:
        from .pipeline.run_dir import RunDir, rows_played

        continue_with = settings_for_continuing(args.run_dir)
        # The rows behind the model: a run continued from it keeps its replay window's size.
        notes = {"rows_played": rows_played(RunDir(args.run_dir), args.iteration)}
        shipped = ship(
            args.run_dir,
            args.iteration,
            args.name,
            args.weights_dir,
            notes,
            continue_with=continue_with,
            force=args.force,
        )
        for path in shipped:
            print(path)
    except (ValueError, FileNotFoundError, OSError) as e:
        return fail("ship", e)
    return 0


def add_engine_arguments(p: argparse.ArgumentParser) -> None:
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--player",
        help="best (the newest shipped model, the default: $POPUCOM_WEIGHTS, the source tree's weights/ "
        "or the one installed with the package), random, greedy, uct:N "
        "or a model (.onnx/.pt)",
    )
    who.add_argument(
        "--level",
        help="a difficulty level: beginner, novice, casual, intermediate, advanced, expert or strongest "
        "(popucom/levels.py; it sets its own visits)",
    )
    p.add_argument("--visits", type=int, help="visits per move for a model player")
    p.add_argument("--seconds", type=float, help="time per move for a model player (instead of visits)")
    p.add_argument("--komi", type=int, default=0)
    p.add_argument("--threads", type=threads_argument(lowest=1), default=1, help="network threads (default 1)")
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        metavar="BACKEND",
        help="inference backend of a model player: %(choices)s (default auto: the fastest here)",
    )


def cmd_engine(args: argparse.Namespace) -> int:
    from .engine.gtp import run_engine

    try:
        return run_engine(args)
    except (ValueError, RuntimeError, FileNotFoundError) as e:
        return fail("engine", e)


def add_gui_arguments(p: argparse.ArgumentParser) -> None:
    from .gui.app import add_arguments

    add_arguments(p)


def cmd_gui(args: argparse.Namespace) -> int:
    from .gui.app import run

    return run(args)


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    from .web.build import add_arguments as add_build_arguments
    from .web.serve import add_arguments as add_serve_arguments

    p.add_argument("action", nargs="?", choices=["build", "serve"], default="serve", help="default: serve")
    add_build_arguments(p)
    add_serve_arguments(p)


def cmd_web(args: argparse.Namespace) -> int:
    """`popucom web build [--out DIR]` builds the browser app; `popucom web [--port N] [--dir DIR]` serves it."""
    from .web import build, serve
    from .web.toolchain import MissingToolError

    try:
        if args.action == "build":
            build.build(args.out)
        else:
            serve.serve(args.dir, args.port)
    except (MissingToolError, ValueError, RuntimeError, OSError) as e:
        return fail("web build" if args.action == "build" else "web", e)
    return 0


# Each subcommand: its name, its help line, the function that adds its flags and the one that runs it.
SUBCOMMANDS = (
    ("pipeline", "self-play -> train -> export -> evaluate, forever (resumable)", add_pipeline_arguments, cmd_pipeline),
    (
        "grow",
        "start a new run from another run's newest model with a bigger network trained on its window",
        add_grow_arguments,
        cmd_grow,
    ),
    ("selfplay", "play self-play games with one model and write training shards", add_selfplay_arguments, cmd_selfplay),
    ("train", "train (or resume) a checkpoint on a directory of shards", add_train_arguments, cmd_train),
    ("export", "export a checkpoint to ONNX (checked against PyTorch)", add_export_arguments, cmd_export),
    (
        "build-engine",
        "build (or find cached) the TensorRT engine of an ONNX model",
        add_build_engine_arguments,
        cmd_build_engine,
    ),
    ("arena", "play players against each other; Bradley-Terry ratings with error bars", add_arena_arguments, cmd_arena),
    (
        "ship",
        "copy a run's model, checkpoint and config to weights/ as popucom-<preset>-v<N>",
        add_ship_arguments,
        cmd_ship,
    ),
    ("engine", "a GTP-style text engine on stdin/stdout (docs/engine_protocol.md)", add_engine_arguments, cmd_engine),
    ("gui", "play against the AI and review games (PySide6, the [gui] extra)", add_gui_arguments, cmd_gui),
    (
        "web",
        "the game in the browser: `web build` makes the site (emscripten, npm), `web` serves it",
        add_web_arguments,
        cmd_web,
    ),
    ("show", "replay a game record and print the board", add_show_arguments, cmd_show),
    ("bench", "throughput benchmarks (one JSON line each)", add_bench_arguments, cmd_bench),
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="popucom", description="Popucom Zero: a Match-n-POP engine.")
    parser.add_argument("--debug", action="store_true", help="print Python tracebacks of errors")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, help_line, add_arguments, run in SUBCOMMANDS:
        command = sub.add_parser(name, help=help_line)
        add_arguments(command)
        command.set_defaults(run=run)
        # --debug is also accepted after the subcommand
        command.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    global DEBUG
    args = build_parser().parse_args(argv)
    DEBUG = bool(getattr(args, "debug", False)) or os.environ.get("POPUCOM_DEBUG", "") not in ("", "0")
    configure_logging(DEBUG)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of our output has gone (`popucom ... | head`): nothing to report to it, and
        # Python's final flush of stdout must not print an error either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as e:  # the last line of defence: bad input or a failed write, never a traceback
        if DEBUG:
            traceback.print_exc()
        print(
            f"error: popucom {args.command}: {describe_error(e)}"
            + ("" if DEBUG else " (run with --debug for the traceback)"),
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
