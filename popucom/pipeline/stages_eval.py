"""The stages that measure model k+1: the evaluation (against the previous model and the
baseline bot, with optional SPRT gating) and the strength ladder, by run time."""

from __future__ import annotations

import json
import logging

from ..arena.match import GameRecord, make_openings, play_match, read_records, records_jsonl, summarize
from ..arena.ratings import SPRT, rate_players
from ..fileio import write_text_atomic
from ..player import Player
from .run_dir import best_model, first_model, run_wall_hours, selfplay_rows
from .stages import Iteration, make_evaluator

logger = logging.getLogger(__name__)


def stage_evaluate(it: Iteration) -> dict:
    """Model k+1 against the previous model (with gating: the model self-play uses now;
    without: the model `evaluation.every` iterations older) and against the baseline bot;
    ratings over all evaluation games. With gating, the new model replaces that one in
    self-play only if it passes the SPRT. Without gating only every `evaluation.every`-th
    model plays (the others record nothing)."""
    config, run, k, progress = it.config, it.run, it.k, it.progress
    ev = config.evaluation
    if (k + 1) % ev.every:
        return {}
    path = run.evaluation(k + 1)
    if path.exists():
        return json.loads(path.read_text())
    openings = make_openings(ev.openings, ev.opening_plies, seed=config.seed + k)
    previous = best_model(config, run, k) if ev.gating else max(first_model(run), k + 1 - ev.every)
    new_name, old_name = run.model_name(k + 1), run.model_name(previous)

    def network(name: str, index: int) -> Player:
        return Player(name, evaluator=make_evaluator(config, run, index), visits=ev.visits, seed=index)

    new = network(new_name, k + 1)
    records = play_match(new, network(old_name, previous), openings, progress=progress, desc=f"eval vs {old_name}")
    records += play_match(
        new, Player(ev.baseline, bot=ev.baseline, seed=k), openings, progress=progress, desc=f"eval vs {ev.baseline}"
    )
    games_path = path.with_suffix(".games.jsonl")
    write_text_atomic(games_path, records_jsonl(records))
    everything: list[GameRecord] = []
    for f in run.evaluation_games():
        everything += read_records(f, replay=True)
    ratings = rate_players(everything, anchor=ev.baseline)
    vs_old = summarize(records, new_name, old_name)
    scores = [r.score_for(new_name) for r in records if {r.black, r.white} == {new_name, old_name}]
    accepted = True
    if ev.gating:
        accepted = SPRT(ev.sprt_elo0, ev.sprt_elo1, ev.sprt_alpha, ev.sprt_beta).decide(scores) != "H0"
    result = {
        "iteration": k + 1,
        "vs_previous": vs_old,
        "vs_baseline": summarize(records, new_name, ev.baseline),
        "ratings": {name: r.__dict__ for name, r in ratings.items()},
        "anchor": ev.baseline,
        "accepted": accepted,
        "previous": old_name,
    }
    write_text_atomic(path, json.dumps(result, indent=1))
    return result


def stage_ladder(it: Iteration) -> dict:
    """A ladder point for the new model when `ladder.every_minutes` of run time have passed since
    the last point (or the run's start: a run continued from a shipped model on a lent machine
    for a few minutes with a long schedule plays none)."""
    config, run, k = it.config, it.run, it.k
    if config.ladder is None:
        return {}
    from ..arena.ladder import Ladder, LadderPoint
    from ..infer import load_evaluator

    ladder = Ladder(run.ladder, config.ladder)
    hours = run_wall_hours(run, k) + sum(it.seconds.values()) / 3600
    points = ladder.points()
    if (hours - (points[-1].wall_hours if points else 0.0)) * 60 < config.ladder.every_minutes:
        return {}
    name = run.model_name(k + 1)
    point = LadderPoint(name, k + 1, hours, selfplay_rows(run, k)[0])
    threads = config.ladder.threads
    ladder.play_point(point, lambda: load_evaluator(run.model(k + 1), threads=threads), progress=it.progress)
    ratings = ladder.refit()
    ladder.plot(ratings, title=f"{run.root.name}: strength ladder at {config.ladder.visits} visits")
    mine = ratings[name]
    logger.info(
        f"[iter {k + 1}] ladder: {name} at {config.ladder.visits} visits {mine.elo:+.0f} "
        f"[{mine.low:+.0f}, {mine.high:+.0f}] Elo over random; curve in {ladder.folder / 'curve.png'}"
    )
    return {"model": name, "elo": mine.elo, "low": mine.low, "high": mine.high, "wall_hours": hours}
