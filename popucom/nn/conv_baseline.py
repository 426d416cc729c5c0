"""A small convolutional ResNet with the same heads, used only as the
architecture ablation's baseline (popucom.experiments.arch_ablation). Not a production model."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from .config import ModelConfig
from .model import LEGAL_PLANE, MASKED_LOGIT, SCORE_SCALE
from .outputs import WDL


class ResBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class ConvResNet(nn.Module):
    def __init__(self, config: ModelConfig, channels: int, blocks: int) -> None:
        super().__init__()
        self.config = config
        self.stem = nn.Sequential(
            nn.Conv2d(config.input_planes, channels, 3, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()
        )
        self.blocks = nn.Sequential(*[ResBlock(channels) for _ in range(blocks)])
        self.cell_head = nn.Conv2d(channels, 3, 1)
        self.value_head = nn.Sequential(
            nn.Linear(channels, config.head_hidden), nn.GELU(), nn.Linear(config.head_hidden, len(WDL))
        )
        self.score_head = nn.Sequential(
            nn.Linear(channels, config.head_hidden), nn.GELU(), nn.Linear(config.head_hidden, 1)
        )

    def forward(self, features: torch.Tensor) -> dict[str, torch.Tensor]:
        """The heads of outputs.HEADS, keyed by name, as PopucomNet returns them."""
        h = self.blocks(self.stem(features))
        cells = self.cell_head(h).flatten(2)  # (N, 3, 81)
        illegal = features[:, LEGAL_PLANE].flatten(1) < 0.5
        pooled = h.mean(dim=(2, 3))
        return {
            "policy_logits": cells[:, 0].masked_fill(illegal, MASKED_LOGIT),
            "soft_policy_logits": cells[:, 1].masked_fill(illegal, MASKED_LOGIT),
            "wdl_logits": self.value_head(pooled),
            "score": self.score_head(pooled).squeeze(-1) * SCORE_SCALE,
            "ownership": torch.tanh(cells[:, 2]),
        }

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def muon_parameters(self) -> list[nn.Parameter]:
        return []  # torch.optim.Muon takes 2D matrices only; convolutions train with AdamW

    def max_attention_logit(self) -> float:
        return 0.0
