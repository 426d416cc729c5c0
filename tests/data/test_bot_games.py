"""Bot games: shards of their own seeds, so a killed warm start keeps what it finished."""

import pytest

from popucom.data.bot_games import write_bot_games
from popucom.data.shards import read_shard


def test_a_rerun_keeps_the_finished_shards_and_replays_the_missing_one_exactly(tmp_path) -> None:
    paths = write_bot_games(tmp_path, games=5, spec="uct:16", games_per_shard=2, seed=3, threads=2)
    assert [p.name for p in paths] == ["uct16-3-00000.pcs", "uct16-3-00001.pcs", "uct16-3-00002.pcs"]
    assert [read_shard(p).header["num_games"] for p in paths] == [2, 2, 1]
    original = [p.read_bytes() for p in paths]
    kept = paths[0].stat().st_mtime_ns
    paths[1].unlink()  # as a kill during that shard leaves it (shards are written atomically)
    assert write_bot_games(tmp_path, games=5, spec="uct:16", games_per_shard=2, seed=3, threads=1) == paths
    assert paths[0].stat().st_mtime_ns == kept  # not replayed
    assert [p.read_bytes() for p in paths] == original  # the replayed shard is the same games


def test_progress_counts_the_kept_games(tmp_path, capsys) -> None:
    write_bot_games(tmp_path, games=4, spec="random", games_per_shard=2, seed=1)
    (tmp_path / "random-1-00001.pcs").unlink()
    write_bot_games(tmp_path, games=4, spec="random", games_per_shard=2, seed=1, progress=True)
    shown = capsys.readouterr().err
    assert "random games" in shown and "2/4" in shown and "4/4" in shown


@pytest.mark.parametrize("games", [0, 3])
def test_shard_count_follows_the_games(tmp_path, games) -> None:
    assert len(write_bot_games(tmp_path, games=games, spec="random", games_per_shard=2)) == (games + 1) // 2
