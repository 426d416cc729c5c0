"""popucom.experiments.versions: the shipped versions' learning curve from their strength tables."""

import json
from pathlib import Path

import pytest

from popucom.experiments import versions


def ship_fake(
    folder: Path, version: int, positions: int, gap: tuple[int, int, int] | None, pairings: list[dict] | None = None
) -> None:
    """A shipped model's files as popucom.experiments.versions reads them (the ONNX file only needs to exist)."""
    name = f"popucom-small-v{version}"
    (folder / f"{name}.onnx").write_bytes(b"")
    (folder / f"{name}.run.json").write_text(json.dumps({"pipeline_config": {}, "rows_played": positions}))
    rating = {"elo": 1000 + 100 * version, "low": 800 + 100 * version, "high": 1200 + 100 * version, "games": 400}
    table = {
        "ratings": {f"{name}@50": rating, f"{name}@200": rating, "uct:10000": rating},
        "head_to_head": [],
        "pairings": pairings or [],
    }
    if gap:
        elo, low, high = gap
        previous = f"popucom-small-v{version - 1}@50"
        table["head_to_head"].append(
            {"a": f"{name}@50", "b": previous, "elo_difference": elo, "elo_difference_95": [low, high]}
        )
    (folder / f"{name}.strength.json").write_text(json.dumps(table))


def test_gaps_chain_with_their_intervals_added_in_quadrature(tmp_path: Path) -> None:
    ship_fake(tmp_path, 1, 30_000, None)
    ship_fake(tmp_path, 2, 60_000, (100, 70, 130))  # +-30
    ship_fake(tmp_path, 3, 120_000, (50, 10, 90))  # +-40
    points = [versions.version_point(m) for m in versions.shipped_models(tmp_path)]
    versions.chain(points)
    assert [p["chained"]["elo"] for p in points] == [0, 100, 150]
    assert points[2]["chained"]["low"] == 150 - 50 and points[2]["chained"]["high"] == 150 + 50  # sqrt(30^2 + 40^2)
    assert points[1]["positions"] == 60_000 and points[1]["elo@200"]["elo"] == 1200
    versions.plot(points, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")


def test_a_version_without_a_gap_to_its_predecessor_ends_the_chain(tmp_path: Path) -> None:
    ship_fake(tmp_path, 1, 30_000, None)
    ship_fake(tmp_path, 2, 60_000, None)
    ship_fake(tmp_path, 3, 120_000, (50, 10, 90))
    points = [versions.version_point(m) for m in versions.shipped_models(tmp_path)]
    versions.chain(points)
    assert "chained" in points[0] and "chained" not in points[1] and "chained" not in points[2]


def test_a_corrupt_strength_table_is_named(tmp_path: Path) -> None:
    ship_fake(tmp_path, 1, 30_000, None)
    (tmp_path / "popucom-small-v1.strength.json").write_text("{not json")
    with pytest.raises(SystemExit, match="popucom-small-v1"):
        versions.version_point(tmp_path / "popucom-small-v1.onnx")


def pairing(model: str, opponent: str, wins: int, draws: int, losses: int) -> dict:
    return {"model": model, "opponent": opponent, "wins": wins, "draws": draws, "losses": losses}


def test_one_fit_over_every_table_puts_all_versions_on_the_target_scale(tmp_path: Path) -> None:
    v1, v2 = "popucom-small-v1", "popucom-small-v2"
    ship_fake(tmp_path, 1, 30_000, None, [pairing(f"{v1}@50", "uct:10000", 100, 0, 100)])
    ship_fake(
        tmp_path,
        2,
        60_000,
        None,
        [
            pairing(f"{v2}@50", f"{v1}@50", 300, 0, 100),  # 3:1 odds = +191 Elo
            pairing(f"{v2}@200", "uct:10000", 300, 0, 100),
            pairing(f"{v2}@50", "random", 400, 0, 0),
        ],
    )
    points = [versions.version_point(m) for m in versions.shipped_models(tmp_path)]
    versions.joint_ratings(points)
    first, second = points
    assert abs(first["joint@50"]["elo"]) <= 5  # an even score against the anchor
    assert 170 <= second["joint@50"]["elo"] <= 200 and 170 <= second["joint@200"]["elo"] <= 200
    assert first["joint@50"]["low"] < first["joint@50"]["elo"] < first["joint@50"]["high"]
    # random never scored: its 400 losses are left out rather than pulling v2@50 up
    assert second["joint@50"]["games"] == 400
    assert "joint@200" not in first  # v1 has no 200-visit games


def test_a_pairing_without_its_counts_is_named(tmp_path: Path) -> None:
    ship_fake(tmp_path, 1, 30_000, None, [{"model": "popucom-small-v1@50", "opponent": "uct:10000", "wins": 3}])
    points = [versions.version_point(m) for m in versions.shipped_models(tmp_path)]
    with pytest.raises(SystemExit, match="popucom-small-v1@50 lacks 'draws'"):
        versions.joint_ratings(points)
