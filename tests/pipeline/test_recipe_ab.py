"""popucom.experiments.recipe_ab: the copies of a run its two arms continue, the head-to-head
through the strength table, and the pooled score."""

import os
import shutil
from pathlib import Path

import pytest

from popucom.experiments import recipe_ab
from popucom.pipeline.lock import RunLock, RunLockedError


def fake_run(root: Path) -> Path:
    (root / "selfplay").mkdir(parents=True)
    (root / "selfplay" / "iter0001-0000.pcs").write_bytes(b"games")
    (root / "checkpoints").mkdir()
    (root / "checkpoints" / "iter_0002.pt").write_bytes(b"weights")
    (root / "config.json").write_text("{}")
    return root


def test_a_copy_shares_the_games_and_owns_everything_else(tmp_path: Path) -> None:
    base = fake_run(tmp_path / "base")
    recipe_ab.copy_run(base, tmp_path / "A")
    shard, copied_shard = base / "selfplay" / "iter0001-0000.pcs", tmp_path / "A" / "selfplay" / "iter0001-0000.pcs"
    assert os.path.samefile(shard, copied_shard)  # hard-linked: shards are never written in place
    checkpoint = tmp_path / "A" / "checkpoints" / "iter_0002.pt"
    assert checkpoint.read_bytes() == b"weights"
    assert not os.path.samefile(checkpoint, base / "checkpoints" / "iter_0002.pt")
    assert (tmp_path / "A" / "config.json").exists()
    assert not (tmp_path / "A" / "pipeline.lock").exists() and not (base / "pipeline.lock").exists()


def test_a_run_in_use_is_not_copied(tmp_path: Path) -> None:
    base = fake_run(tmp_path / "base")
    with RunLock(base / "pipeline.lock"), pytest.raises(RunLockedError):
        recipe_ab.copy_run(base, tmp_path / "A")
    assert not (tmp_path / "A").exists()


def test_the_arms_differ_only_in_their_changes() -> None:
    a = recipe_ab.arm_command(Path("runs/x/A"), 70, [])
    b = recipe_ab.arm_command(Path("runs/x/B"), 70, ["replay_ratio=2.5"])
    assert b[: a.index("runs/x/A")] == a[: a.index("runs/x/A")]
    assert a[a.index("--threads") + 1] == "1" and a[a.index("--stop-after") + 1] == "70"
    assert b[-2:] == ["--change", "replay_ratio=2.5"] and "--change" not in a


def test_the_pooled_score_counts_every_game() -> None:
    seeds = [{"games": 4, "wins": 2, "draws": 2, "losses": 0}, {"games": 4, "wins": 1, "draws": 0, "losses": 3}]
    pooled = recipe_ab.pooled(seeds)
    assert pooled["games"] == 8 and pooled["score"] == 0.5  # (3 wins + 2 halves) / 8
    low, high = pooled["score_95"]
    # Points 1,1,.5,.5,1,0,0,0 about 0.5: squares 6 x 0.25, variance 1.5 / 7, standard error 0.1637.
    assert low == pytest.approx(0.5 - 1.96 * 0.1637, abs=1e-3) and high == pytest.approx(0.5 + 1.96 * 0.1637, abs=1e-3)
    assert pooled["elo"] == 0 and pooled["elo_95"][0] < 0 < pooled["elo_95"][1]


def test_bad_arguments_are_refused_before_anything_runs(tmp_path: Path) -> None:
    base = fake_run(tmp_path / "base")

    def refusal(*args: str) -> str:
        with pytest.raises(SystemExit) as stopped:
            recipe_ab.main(["--minutes", "1", *args])
        return str(stopped.value)

    assert "not a run directory" in refusal("--base", str(tmp_path), "--out", str(tmp_path / "x"), "--change", "a=1")
    (tmp_path / "taken").mkdir()
    assert "exists" in refusal("--base", str(base), "--out", str(tmp_path / "taken"), "--change", "a=1")
    assert "at least one recipe change" in refusal("--base", str(base), "--out", str(tmp_path / "y"))
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_the_head_to_head_is_the_strength_table_of_b_against_a(tmp_path: Path, monkeypatch) -> None:
    from popucom.experiments import strength
    from popucom.nn import PopucomNet, preset
    from popucom.nn.export import export_onnx

    monkeypatch.setattr(strength, "CALIBRATION", [("random", "greedy", 2)])  # the anchor's games, few
    a = export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path / "A.onnx")
    b = Path(shutil.copy(a, tmp_path / "B.onnx"))  # one export: the arms' names come from the files
    result = recipe_ab.head_to_head(tmp_path, b, a, visits=2, games=2, seed=7)
    assert result["seed"] == 7 and result["games"] == 2
    assert result["wins"] + result["draws"] + result["losses"] == 2 and len(result["score_95"]) == 2
    assert (tmp_path / "h2h-seed7.jsonl").exists()
