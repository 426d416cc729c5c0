"""Architecture ablation: plain / +AttnRes / +mHC / both, and a conv ResNet of
about the same parameter count, trained for the same steps on one fixed
dataset of uct bot games. One JSON line per variant: validation losses and
accuracies, parameters, CPU inference positions/s.

Usage: python -m popucom.experiments.arch_ablation [--games 1200] [--steps 300] [--preset small] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from popucom.benchmarks import machine_info
from popucom.data.bot_games import write_bot_games
from popucom.nn import PopucomNet, preset
from popucom.nn.conv_baseline import ConvResNet
from popucom.train import ReplayWindow, TrainConfig, Trainer

VARIANTS = {
    "plain": dict(attn_res=False, mhc=False),
    "attn_res": dict(attn_res=True, mhc=False),
    "mhc": dict(attn_res=False, mhc=True),
    "attn_res+mhc": dict(attn_res=True, mhc=True),
}


def inference_positions_per_s(model: torch.nn.Module, batch: int = 256, repeats: int = 5) -> float:
    model.eval()
    x = torch.zeros(batch, model.config.input_planes, 9, 9)
    x[:, 5] = 1
    times = []
    with torch.inference_mode():
        model(x)
        for _ in range(repeats):
            start = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - start)
    return batch / statistics.median(times)


def conv_matching(config, target_params: int) -> ConvResNet:
    best = None
    for channels in range(16, 129, 4):
        for blocks in (2, 3, 4, 5, 6):
            net = ConvResNet(config, channels, blocks)
            gap = abs(net.num_parameters() - target_params)
            if best is None or gap < best[0]:
                best = (gap, channels, blocks)
    return ConvResNet(config, best[1], best[2])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--data", type=Path, help="reuse or write the dataset here")
    parser.add_argument("--only", nargs="*", help="variants to run")
    parser.add_argument(
        "--inference-only",
        action="store_true",
        help="only measure CPU inference positions/s of each variant (untrained weights)",
    )
    args = parser.parse_args(argv)
    if args.inference_only:
        target = PopucomNet(preset(args.preset, **VARIANTS["attn_res"])).num_parameters()
        for name in args.only or [*VARIANTS, "conv_resnet"]:
            config = preset(args.preset, **VARIANTS.get(name, {}))
            model = conv_matching(config, target) if name == "conv_resnet" else PopucomNet(config)
            print(
                json.dumps(
                    {
                        "benchmark": "arch_ablation_inference",
                        "variant": name,
                        "preset": args.preset,
                        "parameters": model.num_parameters(),
                        "cpu_inference_positions_per_s": round(inference_positions_per_s(model, repeats=9)),
                        "batch": 256,
                        "threads": torch.get_num_threads(),
                        "machine": machine_info(),
                    }
                ),
                flush=True,
            )
        return

    data = args.data or Path(tempfile.mkdtemp(prefix="popucom-ablation-"))
    if not list(data.glob("*.pcs")):
        start = time.perf_counter()
        write_bot_games(data, args.games, f"uct:{args.rollouts}", games_per_shard=200, seed=2026)
        print(
            f"# dataset: {args.games} uct:{args.rollouts} games in {time.perf_counter() - start:.0f}s -> {data}",
            file=sys.stderr,
        )
    window = ReplayWindow(data, 10**7)
    val = window.validation_batches(512)
    train_config = TrainConfig(
        batch_size=args.batch, lr=2e-3, warmup_steps=max(1, args.steps // 10), total_steps=args.steps, seed=0
    )
    transformer_params = None
    names = args.only or [*VARIANTS, "conv_resnet"]
    for name in names:
        config = preset(args.preset, **VARIANTS.get(name, {}))
        if name == "conv_resnet":
            model = conv_matching(config, transformer_params or PopucomNet(preset(args.preset)).num_parameters())
        else:
            model = PopucomNet(config)
            transformer_params = (
                transformer_params or PopucomNet(preset(args.preset, **VARIANTS["attn_res"])).num_parameters()
            )
        torch.manual_seed(0)
        trainer = Trainer(config, train_config, model=model)
        trainer.rng = np.random.default_rng(0)  # every variant sees the same batches
        start = time.perf_counter()
        trainer.train(window, args.steps, progress=False)
        train_s = time.perf_counter() - start
        metrics = trainer.evaluate(val)
        print(
            json.dumps(
                {
                    "benchmark": "arch_ablation",
                    "variant": name,
                    "preset": args.preset,
                    "parameters": trainer.model.num_parameters(),
                    "steps": args.steps,
                    "batch": args.batch,
                    "train_samples": int(len(window.train_rows)),
                    "val_samples": int(len(window.val_rows)),
                    "val_policy_ce": round(metrics["loss/policy"], 4),
                    "val_value_ce": round(metrics["loss/value"], 4),
                    "val_score_huber": round(metrics["loss/score"], 4),
                    "val_ownership_mse": round(metrics["loss/ownership"], 4),
                    "val_policy_top1": round(metrics["policy_top1"], 4),
                    "val_value_accuracy": round(metrics["value_accuracy"], 4),
                    "train_seconds": round(train_s, 1),
                    "cpu_inference_positions_per_s": round(inference_positions_per_s(trainer.model)),
                    "machine": machine_info(),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
