"""Training data: compact shard files and game generation."""

from .shards import FIELDS, FORMAT_VERSION, Shard, ShardError, read_shard, samples_from_game, write_shard

__all__ = ["FIELDS", "FORMAT_VERSION", "Shard", "ShardError", "read_shard", "samples_from_game", "write_shard"]
