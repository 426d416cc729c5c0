"""The trainer: Muon + AdamW with one lr schedule, metrics,
TensorBoard and exact, atomic checkpoints.

Muon (torch.optim.Muon, adjust_lr_fn="match_rms_adamw") takes the hidden 2D
matrices (attention q/k/v/out, MLP up/down); AdamW takes everything else
(embedding, heads, norms, biases, LayerScale gains, PoPE phase biases, depth
pseudo-queries, mHC maps). Both follow the same lr: linear warm-up, then
cosine decay to min_lr_ratio at total_steps, then constant. The losses, one per
network head, are in losses.py.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..infer.precision import cpu_has_bf16
from ..limits import shown_value
from ..nn.checkpoint import network_from_state, read_model_state
from ..nn.checkpoint_file import write_checkpoint
from ..nn.config import ModelConfig
from ..nn.model import PopucomNet
from .config import TrainConfig
from .losses import TARGET_FIELDS, accuracy, losses, teacher_targets
from .window import Batch, ReplayWindow

logger = logging.getLogger(__name__)
# The bar of the step that compiles: steps and time so far, no rate or ETA (one over the
# compile's minute said 17 hours); the bar after it has both, over compiled steps.
COMPILING_BAR = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}, ETA once compiled{postfix}]"


# Beyond any run; the learning-rate schedule works on the step as a float, exact far beyond it.
MAX_STEP = 10**12


def lr_factor(step: int, config: TrainConfig) -> float:
    if step < config.warmup_steps:
        return (step + 1) / config.warmup_steps
    progress = min(1.0, (step - config.warmup_steps) / max(1, config.total_steps - config.warmup_steps))
    return config.min_lr_ratio + (1 - config.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))


def batch_tensors(batch: Batch, device: torch.device) -> dict[str, torch.Tensor]:
    return {
        name: torch.from_numpy(np.ascontiguousarray(getattr(batch, name))).to(device)
        for name in ("features", *TARGET_FIELDS)
    }


@dataclass
class Checkpoint:
    model_config: ModelConfig
    train_config: TrainConfig
    step: int
    state: dict[str, Any]


def load_checkpoint(path: str | Path, expect: ModelConfig | None = None) -> Checkpoint:
    """Reads a checkpoint without running code from it (nn/checkpoint_file.py); raises ValueError if it
    is unsafe, corrupt, incomplete or its model differs from `expect`."""
    state, model_config = read_model_state(path, expect, required=(("train_config", dict), ("step", int)))
    try:
        train_config = TrainConfig.from_dict(state["train_config"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"checkpoint {path} has a train config this build cannot read: {e}") from None
    return Checkpoint(model_config, train_config, checked_step(path, state["step"]), state)


def checked_step(path: str | Path, step: int) -> int:
    """A checkpoint's step, refused (ValueError naming the file and field) unless it counts steps
    from 0 to MAX_STEP: a negative one trains with a negative learning rate (warm-up), a huge one
    breaks every resume."""
    if isinstance(step, bool) or not 0 <= step <= MAX_STEP:
        raise ValueError(f"checkpoint {path}: 'step' is {shown_value(step)}, not a step count from 0 to {MAX_STEP}")
    return step


def load_network_with_checkpoint(path: str | Path, expect: ModelConfig | None = None) -> tuple[PopucomNet, Checkpoint]:
    """The network of a checkpoint (eval mode) and the checkpoint itself (its step and train
    config); nn.checkpoint.load_network is the inference-side twin that returns the network only."""
    ckpt = load_checkpoint(path, expect=expect)
    return network_from_state(path, ckpt.state, ckpt.model_config), ckpt


def adamw_param_groups(
    model: torch.nn.Module, params: list[torch.nn.Parameter], weight_decay: float
) -> list[dict[str, Any]]:
    """Decay only the weight matrices. Decay on gains, biases, the per-cell embedding or
    PoPE's phase bias delta pulls them to 0, where delta = 0 makes attention unable to
    tell left from right."""
    no_decay_names = ("delta", "cell_embedding", "queries", "gamma", "b_pre", "b_post", "b_res", "alpha")
    names = {id(p): name for name, p in model.named_parameters()}
    decay, keep = [], []
    for p in params:
        leaf = names.get(id(p), "").rsplit(".", 1)[-1]
        (keep if p.ndim < 2 or leaf in no_decay_names else decay).append(p)
    return [{"params": decay, "weight_decay": weight_decay}, {"params": keep, "weight_decay": 0.0}]


class Trainer:
    def __init__(
        self,
        model_config: ModelConfig,
        train_config: TrainConfig | None = None,
        device: str | torch.device = "cpu",
        log_dir: str | Path | None = None,
        model: torch.nn.Module | None = None,
        teacher: torch.nn.Module | None = None,
        teacher_share: float = 0.0,
    ) -> None:
        """`model` overrides the PopucomNet built from model_config (the ablation's conv baseline);
        it must return the heads of popucom.nn.outputs.HEADS and offer muon_parameters().
        With a `teacher` network (frozen, on the same device), every target is moved
        `teacher_share` of the way to its prediction (losses.teacher_targets)."""
        self.model_config = model_config
        self.config = train_config or TrainConfig()
        self.device = torch.device(device)
        torch.manual_seed(self.config.seed)
        self.model = (model if model is not None else PopucomNet(model_config)).to(self.device)
        self.step = 0
        self.rng = np.random.default_rng(self.config.seed)
        muon_params = self.model.muon_parameters()
        muon_ids = {id(p) for p in muon_params}
        other = [p for p in self.model.parameters() if id(p) not in muon_ids]
        c = self.config
        self.muon = (
            torch.optim.Muon(muon_params, lr=c.lr, weight_decay=c.weight_decay, adjust_lr_fn="match_rms_adamw")
            if muon_params
            else None
        )
        self.adamw = torch.optim.AdamW(
            adamw_param_groups(self.model, other, c.weight_decay), lr=c.lr, betas=c.adam_betas
        )
        self.optimizers = [opt for opt in (self.muon, self.adamw) if opt is not None]
        self.autocast_dtype = self.choose_autocast(c)
        self.teacher = teacher.eval().requires_grad_(False) if teacher is not None else None
        self.teacher_share = teacher_share
        # The eager module stays self.model (evaluation, checkpoints, the measured steps).
        self.train_forward = torch.compile(self.model) if c.compile else self.model
        self.compiled_steps = 0  # the first one compiles (about a minute, once per machine)
        self.writer = None
        self.log_dir = Path(log_dir) if log_dir else None

    def choose_autocast(self, c: TrainConfig) -> torch.dtype | None:
        """bf16 on CUDA, and on a CPU with bf16 arithmetic where `cpu_bf16` asks for it (a run
        that moves to a CPU without it trains in fp32, with a warning: slower, not wrong)."""
        if self.device.type == "cuda":
            return torch.bfloat16
        if not c.cpu_bf16:
            return None
        if not cpu_has_bf16():
            logger.warning("train.cpu_bf16: this CPU has no bf16 arithmetic; training in fp32")
            return None
        return torch.bfloat16

    # --- one step ---------------------------------------------------------------
    def current_lr(self) -> float:
        return self.config.lr * lr_factor(self.step, self.config)

    def train_step(self, batch: Batch, measure: bool = False) -> dict[str, float]:
        self.model.train()
        lr = self.current_lr()
        for opt in self.optimizers:
            for group in opt.param_groups:
                group["lr"] = lr
        tensors = batch_tensors(batch, self.device)
        with torch.autocast(self.device.type, dtype=self.autocast_dtype, enabled=self.autocast_dtype is not None):
            # Measured steps run eagerly: the attention-logit monitor lives outside compiled graphs.
            out = self.model(tensors["features"]) if measure else self.compiled_forward(tensors["features"])
        targets = tensors
        if self.teacher is not None:
            with torch.no_grad():
                targets = teacher_targets(tensors, self.teacher(tensors["features"]), self.teacher_share)
        terms = losses(out, targets, self.model_config)
        if not torch.isfinite(terms["total"]):
            raise FloatingPointError(f"training loss is not finite at step {self.step}: {terms['total'].item()}")
        for opt in self.optimizers:
            opt.zero_grad(set_to_none=True)
        terms["total"].backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
        measure = measure and self.muon is not None
        before = [p.detach().clone() for p in self.muon.param_groups[0]["params"]] if measure else None
        for opt in self.optimizers:
            opt.step()
        self.step += 1
        metrics = {f"loss/{k}": float(v.detach()) for k, v in terms.items()}
        metrics.update(accuracy(out, tensors))
        metrics["lr"] = lr
        metrics["grad_norm"] = float(grad_norm)
        if measure:
            deltas = [(p.detach() - b).pow(2).mean() for p, b in zip(self.muon.param_groups[0]["params"], before)]
            metrics["update_rms/muon"] = float(torch.stack(deltas).mean().sqrt())
            metrics["max_attention_logit"] = self.model.max_attention_logit()
        return metrics

    def compiled_forward(self, features: torch.Tensor) -> dict[str, torch.Tensor]:
        """The training forward through torch.compile when configured; a compiler that fails on
        this machine (no C++ compiler, an unsupported operation) leaves the run training eagerly,
        with a warning, rather than stopped."""
        if self.train_forward is self.model:
            return self.model(features)
        try:
            out = self.train_forward(features)
            self.compiled_steps += 1
            return out
        except Exception as e:  # torch's compiler errors share no base class; a model error recurs below
            logger.warning(f"torch.compile failed ({type(e).__name__}: {e}); training continues eagerly")
            self.train_forward = self.model
            return self.model(features)

    @torch.no_grad()
    def evaluate(self, batches: list[Batch]) -> dict[str, float]:
        self.model.eval()
        totals: dict[str, float] = {}
        count = 0
        for batch in batches:
            tensors = batch_tensors(batch, self.device)
            out = self.model(tensors["features"])
            metrics = {f"loss/{k}": float(v) for k, v in losses(out, tensors, self.model_config).items()}
            metrics.update(accuracy(out, tensors))
            for k, v in metrics.items():
                totals[k] = totals.get(k, 0.0) + v * len(batch)
            count += len(batch)
        return {k: v / max(count, 1) for k, v in totals.items()}

    # --- loops ------------------------------------------------------------------
    def train(
        self,
        window: ReplayWindow,
        steps: int,
        progress: bool = True,
        log_every: int = 50,
        val_batches: list[Batch] | None = None,
        on_step: Callable[[], None] | None = None,
    ) -> dict[str, float]:
        """Trains `steps` steps on batches sampled from the window; returns the last metrics.
        `on_step` is called after each step (the warm start's overall estimate)."""
        from tqdm import tqdm

        last: dict[str, float] = {}
        compiling = self.train_forward is not self.model and self.compiled_steps == 0

        def new_bar(initial: int):
            desc = "train (compiling the step, once)" if compiling else "train"
            # No rate or ETA while compiling: a rate over the compile's minute is no estimate.
            fmt = COMPILING_BAR if compiling else None
            return tqdm(
                total=steps,
                initial=initial,
                desc=desc,
                unit="step",
                disable=not progress,
                dynamic_ncols=True,
                bar_format=fmt,
            )

        bar = new_bar(0)
        for i in range(steps):
            batch = window.sample(self.rng, self.config.batch_size)
            measure = (self.step % log_every == 0) or i == steps - 1
            last = self.train_step(batch, measure=measure)
            if measure:
                self.log(last, prefix="train")
            bar.set_postfix(
                loss=f"{last['loss/total']:.3f}",
                policy=f"{last['loss/policy']:.3f}",
                value=f"{last['loss/value']:.3f}",
                lr=f"{last['lr']:.2e}",
            )
            bar.update(1)
            if on_step is not None:
                on_step()
            if compiling and (self.compiled_steps or self.train_forward is self.model):
                # The one-off compile is behind: a fresh bar, whose rate and ETA count the
                # compiled steps only (the compile's minute had made the first ETA hours long).
                compiling = False
                bar.close()
                bar = new_bar(i + 1)
        bar.close()
        if val_batches:
            val = self.evaluate(val_batches)
            self.log(val, prefix="val")
            last.update({f"val/{k}": v for k, v in val.items()})
        return last

    def log(self, metrics: dict[str, float], prefix: str) -> None:
        if self.log_dir is None:
            return
        if self.writer is None:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.log_dir))
        for k, v in metrics.items():
            self.writer.add_scalar(f"{prefix}/{k}", v, self.step)
        self.writer.flush()

    # --- checkpoints --------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Tensors, arrays and JSON-able values only, so the file loads with weights_only=True."""
        return {
            "model_config": self.model_config.to_dict(),
            "train_config": self.config.to_dict(),
            "step": self.step,
            "model": self.model.state_dict(),
            "muon": self.muon.state_dict() if self.muon is not None else None,
            "adamw": self.adamw.state_dict(),
            "rng": {
                "sampler": self.rng.bit_generator.state,
                "torch": torch.get_rng_state(),
                "python": random.getstate(),
                "numpy": np.random.get_state(legacy=False),
            },
        }

    def save(self, path: str | Path) -> Path:
        return write_checkpoint(path, self.state_dict())

    @classmethod
    def resume(
        cls,
        path: str | Path,
        model_config: ModelConfig | None = None,
        device: str | torch.device = "cpu",
        log_dir: str | Path | None = None,
        train_config: TrainConfig | None = None,
    ) -> Trainer:
        """A trainer continuing exactly from a checkpoint (refused if its model differs from model_config)."""
        ckpt = load_checkpoint(path, expect=model_config)
        trainer = cls(ckpt.model_config, train_config or ckpt.train_config, device=device, log_dir=log_dir)
        state = ckpt.state
        trainer.model.load_state_dict(state["model"])
        if trainer.muon is not None:
            trainer.muon.load_state_dict(state["muon"])
        trainer.adamw.load_state_dict(state["adamw"])
        trainer.step = ckpt.step
        trainer.rng.bit_generator.state = state["rng"]["sampler"]
        torch.set_rng_state(state["rng"]["torch"])
        random.setstate(state["rng"]["python"])
        np.random.set_state(state["rng"]["numpy"])
        return trainer
