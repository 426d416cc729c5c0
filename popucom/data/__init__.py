"""Training data: compact shard files and game generation."""

from .positions import random_positions
from .shards import FIELDS, FORMAT_VERSION, Shard, ShardError, read_shard, samples_from_game, write_shard

__all__ = [
    "FIELDS",
    "FORMAT_VERSION",
    "Shard",
    "ShardError",
    "random_positions",
    "read_shard",
    "samples_from_game",
    "write_shard",
]
