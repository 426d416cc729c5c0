"""Where every file of a pipeline run lives: the one place that knows the run directory's
layout. The pipeline (pipeline/run_dir.py's RunDir, which also creates the folders and reads
the run's progress), shipping and seeding (weights.py) and the experiments that read runs all
name a run's files through it. Pure paths: it imports nothing of the package, so the playing
side may use it without reaching the training stack.

    runs/NAME/pipeline.lock            who runs the pipeline now (absent when none)
    runs/NAME/stages/iter_K.json       the stages of iteration K recorded as finished
    runs/NAME/config.json              the resolved config (written once)
    runs/NAME/config_changes.jsonl     the settings changed on purpose (--change), and when
    runs/NAME/origin.json              where the run began (a shipped checkpoint, a grown run)
    runs/NAME/checkpoints/iter_K.pt    trainer state after K iterations (0 = random init)
    runs/NAME/checkpoints/iter_K.train.json   that training's figures (written before the .pt)
    runs/NAME/models/model_K.onnx      the exported network of iteration K
    runs/NAME/models/.template-H.onnx  the exported graph of architecture H, weights swapped per iteration
    runs/NAME/engines/                 TensorRT plans, cached by model hash + version + GPU
    runs/NAME/selfplay/iterK-C.pcs     training shards of iteration K (chunk C) ...
    runs/NAME/selfplay/iterK-C.games.jsonl   ... and their game records
    runs/NAME/eval/iter_K.json         evaluation of model K (+ .games.jsonl)
    runs/NAME/ladder/                  the strength ladder (popucom/arena/ladder.py)
    runs/NAME/warm_start/              the supervised phase's bot games
    runs/NAME/komi_stats.json          adaptive komi statistics
    runs/NAME/metrics.jsonl            one line per finished iteration
    runs/NAME/tb/                      TensorBoard scalars
"""

from __future__ import annotations

from pathlib import Path


class RunLayout:
    """The paths of the run directory `root`; creates nothing."""

    FOLDERS = ("checkpoints", "models", "selfplay", "eval", "engines", "tb", "stages")

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    config = property(lambda self: self.root / "config.json")
    config_changes = property(lambda self: self.root / "config_changes.jsonl")
    origin = property(lambda self: self.root / "origin.json")
    komi = property(lambda self: self.root / "komi_stats.json")
    metrics = property(lambda self: self.root / "metrics.jsonl")
    lock = property(lambda self: self.root / "pipeline.lock")
    selfplay = property(lambda self: self.root / "selfplay")
    engines = property(lambda self: self.root / "engines")
    ladder = property(lambda self: self.root / "ladder")
    warm_start = property(lambda self: self.root / "warm_start")
    tensorboard = property(lambda self: self.root / "tb")

    @staticmethod
    def model_name(k: int) -> str:
        """The name model k plays under (ratings, evaluations): model_K."""
        return f"model_{k:04d}"

    def checkpoint(self, k: int) -> Path:
        return self.root / "checkpoints" / f"iter_{k:04d}.pt"

    def checkpoints(self) -> list[Path]:
        """Every checkpoint of the run, oldest first."""
        return sorted((self.root / "checkpoints").glob("iter_*.pt"))

    def train_figures(self, k: int) -> Path:
        return self.root / "checkpoints" / f"iter_{k:04d}.train.json"

    def all_train_figures(self) -> list[Path]:
        """Every training's figures, oldest first."""
        return sorted((self.root / "checkpoints").glob("iter_*.train.json"))

    def model(self, k: int) -> Path:
        return self.root / "models" / f"{self.model_name(k)}.onnx"

    def export_template(self, key: str) -> Path:
        """The ONNX graph later exports of one architecture reuse (nn/export.py)."""
        return self.root / "models" / f".template-{key}.onnx"

    def evaluation(self, k: int) -> Path:
        return self.root / "eval" / f"iter_{k:04d}.json"

    def evaluation_games(self) -> list[Path]:
        """The game records of every evaluation so far, oldest first."""
        return sorted((self.root / "eval").glob("iter_*.games.jsonl"))

    def stages(self, k: int) -> Path:
        """The completion record of iteration k (the one that produces model k)."""
        return self.root / "stages" / f"iter_{k:04d}.json"
