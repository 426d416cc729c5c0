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
   on the value-error loss alone over those games' training split, `--epochs` passes of it under
   random symmetries (the fixed trunk runs once per position: the fit then takes seconds);
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
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from popucom.benchmarks import machine_info
from popucom.fileio import read_metadata_text, write_text_atomic
from popucom.infer import load_evaluator
from popucom.nn.config import ModelConfig
from popucom.nn.export import export_onnx
from popucom.nn.new_head import head_parameters, with_value_error_head
from popucom.pipeline.config import PipelineConfig
from popucom.selfplay import KomiSampler, run_selfplay
from popucom.train.losses import value_squared_error
from popucom.train.trainer import Trainer, batch_tensors, load_network_with_checkpoint
from popucom.train.window import Batch, ReplayWindow
from popucom.weights import sidecar_path


def play_games(source: Path, out: Path, games: int, threads: int, seed: int) -> dict:
    """The source's self-play (its shipped settings and komi statistics) into out, unless done."""
    if any(out.glob("*.pcs")):
        return {"games": 0, "reused": sorted(p.name for p in out.glob("*.pcs"))}
    sidecar = json.loads(read_metadata_text(sidecar_path(source), "sidecar"))
    config = PipelineConfig.from_dict(sidecar["pipeline_config"])
    komi = KomiSampler()
    if sidecar.get("komi"):
        komi = KomiSampler.from_dict(sidecar["komi"], source=str(sidecar_path(source)))
    evaluator = load_evaluator(source, threads=threads)
    stats = run_selfplay(evaluator, config.selfplay, out, "u", games, komi, seed=seed, model_name=source.stem)
    return stats.summary()


def write_sidecar(source: Path, checkpoint: Path, model: ModelConfig) -> Path:
    """The source's sidecar for the checkpoint with the head: its run config with `model`."""
    sidecar = json.loads(read_metadata_text(sidecar_path(source), "sidecar"))
    sidecar["pipeline_config"]["model"] = model.to_dict()
    sidecar["name"] = checkpoint.stem
    sidecar["value_error_head_fitted_on"] = source.stem
    return write_text_atomic(sidecar_path(checkpoint), json.dumps(sidecar, indent=1) + "\n")


@torch.no_grad()
def head_inputs(net: torch.nn.Module, batches: Iterable[Batch]) -> dict[str, torch.Tensor]:
    """What the head reads (the pooled trunk) and its target, for every position of `batches`:
    the trunk and the value head are fixed, so each position's forward is needed once, and the
    head then trains on these rows at the cost of its own two small layers."""
    captured: list[torch.Tensor] = []
    hook = net.value_error_head.register_forward_pre_hook(lambda _module, args: captured.append(args[0]))
    net.eval()
    pooled, targets = [], []
    try:
        for batch in batches:
            tensors = batch_tensors(batch, torch.device("cpu"))
            targets.append(value_squared_error(net(tensors["features"]), tensors))
            pooled.append(captured.pop())
    finally:
        hook.remove()
    return {"pooled": torch.cat(pooled), "target": torch.cat(targets)}


def fit_head(
    net: torch.nn.Module, rows: dict[str, torch.Tensor], steps: int, batch: int, lr: float, seed: int
) -> list[float]:
    """AdamW on the head's parameters only, over `rows` (head_inputs); the loss every tenth of the way."""
    head = net.value_error_head
    optimizer = torch.optim.AdamW(head_parameters(net), lr=lr, weight_decay=0.0)
    delta = net.config.loss_weights.value_error_huber_delta
    generator = torch.Generator().manual_seed(seed)
    head.train()
    trace = []
    bar = tqdm(range(steps), desc="head fit", unit="step", dynamic_ncols=True)
    for step in bar:
        for group in optimizer.param_groups:  # cosine to a tenth
            group["lr"] = lr * (0.1 + 0.9 * 0.5 * (1 + np.cos(np.pi * step / max(1, steps))))
        picked = torch.randint(0, len(rows["target"]), (batch,), generator=generator)
        loss = F.huber_loss(head(rows["pooled"][picked]).squeeze(-1), rows["target"][picked], delta=delta)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if step % max(1, steps // 10) == 0 or step == steps - 1:
            trace.append(round(loss.item(), 5))
            bar.set_postfix_str(f"loss {trace[-1]:.4f}")
    net.eval()
    return trace


@torch.no_grad()
def held_out_figures(net: torch.nn.Module, rows: dict[str, torch.Tensor]) -> dict:
    """The head's loss on held-out rows against the best constant (the mean target) and the
    correlation of its predictions with the actual squared errors."""
    delta = net.config.loss_weights.value_error_huber_delta
    pred, target = net.value_error_head(rows["pooled"]).squeeze(-1), rows["target"]
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
    ap.add_argument("--epochs", type=float, default=2.0, help="augmented passes over the training rows the head sees")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.games < 1 or args.steps < 1 or args.threads < 1 or not args.epochs > 0:
        ap.error("--games, --steps and --threads must be at least 1, --epochs above 0")
    torch.set_num_threads(args.threads)
    began = time.perf_counter()
    selfplay = play_games(args.source, args.out / "selfplay", args.games, args.threads, args.seed)
    played = time.perf_counter()
    source_net, ckpt = load_network_with_checkpoint(args.source)
    net = with_value_error_head(source_net, seed=args.seed)
    window = ReplayWindow(args.out / "selfplay", window_samples=10**9, val_fraction=0.1)
    if len(window.val_rows) == 0:
        raise SystemExit("no held-out game among those played: play more games (--games)")
    rng = np.random.default_rng(args.seed)  # each sample under a random symmetry
    samples = round(args.epochs * len(window.train_rows))
    batches = [window.sample(rng, min(512, samples - i)) for i in range(0, samples, 512)]
    trace = fit_head(
        net, head_inputs(net, tqdm(batches, desc="trunk", unit="batch")), args.steps, args.batch, args.lr, args.seed
    )
    figures = held_out_figures(net, head_inputs(net, window.validation_batches(512)))
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
                "epochs": args.epochs,
                "loss_trace": trace,
                "held_out": figures,
                "seconds": {"selfplay": round(played - began, 1), "total": round(time.perf_counter() - began, 1)},
                "machine": machine_info(),
            }
        )
    )


if __name__ == "__main__":
    main()
