"""Deliberate changes to a run's recipe: `popucom pipeline --change train.min_lr_ratio=0.3`.

A run refuses to resume with settings that shape its training targets other than its own
(run_dir.resolve_config), so that a mistyped --preset cannot quietly change a long run. A
change on purpose (a higher floor rate for a run that has levelled off, more visits per
recorded move) goes through here instead: the run's config.json is rewritten while the run is
locked, and runs/NAME/config_changes.jsonl records when (after which iteration) and what
changed, for the run's report and the model card.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence

from ..fileio import json_lines, write_text_atomic
from .config import PipelineConfig
from .lock import RunLock
from .run_dir import RunDir

# A run's network keeps its shape (popucom grow starts a run with another); the preset is
# where the run came from.
_FIXED = ("model", "preset")


def parse_changes(items: Sequence[str]) -> dict[str, str]:
    """KEY=VALUE arguments -> {KEY: VALUE}, the last of a repeated key winning."""
    changes: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--change {item!r}: want KEY=VALUE, e.g. train.min_lr_ratio=0.3")
        changes[key.strip()] = value.strip()
    return changes


def _value(text: str) -> object:
    """JSON (numbers, true/false, null, lists), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _fits(old: object, new: object) -> bool:
    if isinstance(old, bool) or isinstance(new, bool):
        return isinstance(old, bool) and isinstance(new, bool)
    if isinstance(old, float):
        return isinstance(new, (int, float))
    if old is None or new is None:  # null reaches the config's own checks (config_check.py), which name the range
        return True
    if isinstance(old, (list, tuple)):  # JSON has lists where the config has tuples
        return isinstance(new, list) and len(new) == len(old)
    return type(old) is type(new)


def changed_config(config: PipelineConfig, changes: Mapping[str, str]) -> tuple[PipelineConfig, dict]:
    """`config` with each dotted key set to its value, and {key: [old, new]} for those that
    differ. Keys name existing settings of PipelineConfig.to_dict(); a value must be of the
    setting's kind (an integer where a float is wanted is fine) and within the setting's range
    (config_check, checked when the changed config is made)."""
    data = config.to_dict()
    record: dict[str, list] = {}
    for key, text in changes.items():
        *sections, leaf = key.split(".")
        if (sections or [leaf])[0] in _FIXED:
            raise ValueError(f"--change {key}: a run's network and preset are fixed (popucom grow starts a new shape)")
        node = data
        for section in sections:
            if not isinstance(node.get(section), dict):
                raise ValueError(f"--change {key}: the config has no section '{section}' there")
            node = node[section]
        if leaf not in node or isinstance(node[leaf], dict):
            settings = ", ".join(k for k, v in node.items() if not isinstance(v, dict))
            raise ValueError(f"--change {key}: no such setting; this section has: {settings}")
        old, new = node[leaf], _value(text)
        if not _fits(old, new):
            name = type(old).__name__
            article = "an" if name[0] in "aeiou" else "a"
            kind = f"{len(old)} values" if isinstance(old, (list, tuple)) else f"{article} {name}"
            raise ValueError(f"--change {key}={text}: want {kind}, like the current {old!r}")
        if isinstance(old, float) and new is not None:
            new = float(new)
        elif isinstance(old, tuple) and new is not None:
            new = tuple(tuple(x) if isinstance(x, list) else x for x in new)
        if new != old:
            node[leaf] = new
            record[key] = [old, new]
    try:
        changed = PipelineConfig.from_dict(data)
    except (TypeError, ValueError) as e:
        raise ValueError(f"--change: the changed config is not valid: {e}") from None
    return changed, record


def apply_changes(run_dir: str, base: PipelineConfig, changes: Mapping[str, str]) -> PipelineConfig:
    """`base` (the run's own config, or a new run's) with the changes; for a run that has a
    config.json the changed config is saved to it, and every change that did something is
    recorded in config_changes.jsonl, both while the run is locked."""
    changed, record = changed_config(base, changes)
    if not record:
        return changed
    run = RunDir(run_dir)
    with RunLock(run.lock):
        if run.config.exists():
            changed.save(run.config)
        history = run.config_changes
        when = time.strftime("%Y-%m-%d %H:%M:%S %z")
        line = {"time": when, "after_iteration": run.latest_model(), "changes": record}
        # Rewritten whole, so a kill cannot tear it; a torn last line (a hand edit) is left out.
        earlier = "".join(text + "\n" for _, text in json_lines(history)) if history.exists() else ""
        write_text_atomic(history, earlier + json.dumps(line) + "\n")
    for key, (old, new) in record.items():
        print(f"pipeline: {key} changed from {old!r} to {new!r} (recorded in {history})")
    return changed
