"""Fits the value-error head onto a trained network, its trunk and other heads held fixed, so
that the uncertainty-weighted search (SearchParams.uncertainty_weighting) can be tried on the
very network it would change: the fitted network plays exactly as the source with the weighting
off. Prints ONE JSON line.

    python -m popucom.experiments.value_error_head weights/popucom-small-v11.pt OUT_DIR
        [--games 2000] [--steps 3000] [--threads 2]

1. self-play: `--games` games of the source with its shipped self-play settings (its .run.json),
   written as shards with short-term value targets (data/short_term.py) into OUT_DIR/selfplay
   (kept: a second run with more steps reuses them);
2. the head, fresh on the source's pooled trunk (nn/new_head.py), trains `--steps` AdamW steps
   on the value-error loss alone over those games' training split;
3. on the held-out games it reports the head's loss against the best constant prediction, and
   the correlation of predicted and actual squared errors: how much of the value head's error
   the head tells apart;
4. writes OUT_DIR/NAME.pt (a checkpoint: the source's step and train config with the new
   network, the optimiser state fresh), OUT_DIR/NAME.onnx and OUT_DIR/NAME.run.json (the
   source's sidecar with the head in its model config), where NAME is the source's name with
   `-u` appended: `popucom pipeline --run-dir DIR --resume-from OUT_DIR/NAME.pt` continues the
   source's training with the head.

Then compare in the arena, paired, the fitted network with the weighting on and off, e.g.
    python -m popucom.experiments.strength OUT_DIR/NAME.pt --search uncertainty_weighting=true \\
        --pairing 200:OUT_DIR/NAME.pt@visits=200:200
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from popucom.benchmarks import machine_info
from popucom.fileio import write_text_atomic
from popucom.infer import load_evaluator
from popucom.nn.config import ModelConfig
from popucom.nn.export import export_onnx
from popucom.nn.new_head import head_parameters, with_value_error_head
from popucom.pipeline.config import PipelineConfig
from popucom.selfplay import KomiSampler, run_selfplay
from popucom.train.losses import value_squared_error
from popucom.train.trainer import Trainer, batch_tensors, load_network_with_checkpoint
from popucom.train.window import ReplayWindow
from popucom.weights import sidecar_path


def play_games(source: Path, out: Path, games: int, threads: int, seed: int) -> dict:
    """The source's self-play (its shipped settings and komi statistics) into out, unless done."""
    if any(out.glob("*.pcs")):
        return {"games": 0, "reused": sorted(p.name for p in out.glob("*.pcs"))}
    sidecar = json.loads(sidecar_path(source).read_text())
    config = PipelineConfig.from_dict(sidecar["pipeline_config"])
    with tempfile.TemporaryDirectory() as folder:
        stats_path = Path(folder) / "komi_stats.json"
        stats_path.write_text(json.dumps(sidecar.get("komi") or {}))
        komi = KomiSampler.load(stats_path) if sidecar.get("komi") else KomiSampler()
    evaluator = load_evaluator(source, threads=threads)
    stats = run_selfplay(evaluator, config.selfplay, out, "u", games, komi, seed=seed, model_name=source.stem)
    return stats.summary()


def write_sidecar(source: Path, checkpoint: Path, model: ModelConfig) -> Path:
    """The source's sidecar for the checkpoint with the head: its run config with `model`."""
    sidecar = json.loads(sidecar_path(source).read_text())
    sidecar["pipeline_config"]["model"] = model.to_dict()
    sidecar["name"] = checkpoint.stem
    sidecar["value_error_head_fitted_on"] = source.stem
    return write_text_atomic(sidecar_path(checkpoint), json.dumps(sidecar, indent=1) + "\n")


def head_loss(net: torch.nn.Module, tensors: dict[str, torch.Tensor], delta: float) -> tuple[torch.Tensor, ...]:
    out = net(tensors["features"])
    target = value_squared_error(out, tensors)
    return F.huber_loss(out["value_error"], target, delta=delta), out["value_error"], target


def fit_head(net: torch.nn.Module, window: ReplayWindow, steps: int, batch: int, lr: float, seed: int) -> list[float]:
    """AdamW on the head's parameters only; the losses every tenth of the way."""
    for p in net.parameters():
        p.requires_grad_(False)
    params = head_parameters(net)
    for p in params:
        p.requires_grad_(True)
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    delta = net.config.loss_weights.value_error_huber_delta
    rng = np.random.default_rng(seed)
    net.train()
    trace = []
    for step in range(steps):
        for group in optimizer.param_groups:  # cosine to a tenth
            group["lr"] = lr * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * step / max(1, steps))))
        loss, _, _ = head_loss(net, batch_tensors(window.sample(rng, batch), torch.device("cpu")), delta)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % max(1, steps // 10) == 0 or step == steps - 1:
            trace.append(round(loss.item(), 5))
    net.eval()
    for p in net.parameters():
        p.requires_grad_(True)
    return trace


@torch.no_grad()
def held_out_figures(net: torch.nn.Module, window: ReplayWindow) -> dict:
    """The head's validation loss against the best constant (the mean target) and the
    correlation of its predictions with the actual squared errors."""
    delta = net.config.loss_weights.value_error_huber_delta
    preds, targets = [], []
    if len(window.val_rows) == 0:
        raise ValueError("no held-out game among those played: play more games (--games)")
    for b in window.validation_batches(512):
        _, pred, target = head_loss(net, batch_tensors(b, torch.device("cpu")), delta)
        preds.append(pred)
        targets.append(target)
    pred, target = torch.cat(preds), torch.cat(targets)
    constant = torch.full_like(target, float(target.mean()))
    order = lambda t: t.argsort().argsort().double()  # noqa: E731 - ranks for Spearman's rho
    return {
        "validation_rows": len(target),
        "loss": float(F.huber_loss(pred, target, delta=delta)),
        "constant_loss": float(F.huber_loss(constant, target, delta=delta)),
        "mean_target": float(target.mean()),
        "mean_prediction": float(pred.mean()),
        "pearson": float(torch.corrcoef(torch.stack([pred.double(), target.double()]))[0, 1]),
        "spearman": float(torch.corrcoef(torch.stack([order(pred), order(target)]))[0, 1]),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="a shipped checkpoint (.pt with its .run.json beside it)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.games < 1 or args.steps < 1 or args.threads < 1:
        ap.error("--games, --steps and --threads must be at least 1")
    torch.set_num_threads(args.threads)
    began = time.perf_counter()
    selfplay = play_games(args.source, args.out / "selfplay", args.games, args.threads, args.seed)
    played = time.perf_counter()
    source_net, ckpt = load_network_with_checkpoint(args.source)
    net = with_value_error_head(source_net, seed=args.seed)
    window = ReplayWindow(args.out / "selfplay", window_samples=10**9, val_fraction=0.1)
    trace = fit_head(net, window, args.steps, args.batch, args.lr, args.seed)
    figures = held_out_figures(net, window)
    name = f"{args.source.stem}-u"
    trainer = Trainer(net.config, ckpt.train_config, model=net)
    trainer.step = ckpt.step
    trainer.save(args.out / f"{name}.pt")
    export_onnx(net, args.out / f"{name}.onnx")
    write_sidecar(args.source, args.out / f"{name}.pt", net.config)
    print(
        json.dumps(
            {
                "experiment": "value_error_head",
                "source": str(args.source),
                "model": str(args.out / f"{name}.pt"),
                "selfplay": {k: selfplay[k] for k in ("games", "positions", "seconds") if k in selfplay},
                "train_rows": len(window.train_rows),
                "steps": args.steps,
                "loss_trace": trace,
                "held_out": figures,
                "seconds": {"selfplay": round(played - began, 1), "total": round(time.perf_counter() - began, 1)},
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
