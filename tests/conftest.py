"""Fixtures shared by the suite. The tests mirror the package layout (tests/search for
popucom/search, ...); tests/core holds the bindings, CLI, file and native-suite tests and
tests/game the rules tests with their pure-Python twin."""

import os

import pytest

# Exactness tests compare the torch evaluator with fp32 references at 1e-5; on a CPU with bf16
# arithmetic its default (auto) would narrow the matrix products. tests/infer/test_precision.py
# chooses the precision explicitly.
os.environ["POPUCOM_CPU_MATMUL"] = "fp32"


@pytest.fixture(scope="session")
def bot_shards(tmp_path_factory: pytest.TempPathFactory):
    """A small fixed dataset: 60 games of uct:64 self-play in 3 shards."""
    from popucom.data.bot_games import write_bot_games

    out = tmp_path_factory.mktemp("bot_shards")
    write_bot_games(out, games=60, spec="uct:64", games_per_shard=20, seed=1)
    return out
