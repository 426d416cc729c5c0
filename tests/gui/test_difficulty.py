"""The Difficulty menu: every level of popucom/levels.py listed weakest first with its rating,
none checked while the AI is no level; choosing one makes it the AI at its own visits and
temperature, and choosing a plain opponent again gives the visits back. Every level has its
texts in the GUI (popucom/gui/difficulty.py), in Chinese too."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import popucom.player as player_module  # noqa: E402
from popucom.gui import language  # noqa: E402
from popucom.gui.difficulty import LEVEL_TEXTS, level_title, menu_text  # noqa: E402
from popucom.infer import TinyEvaluator  # noqa: E402
from popucom.levels import LEVELS, level_named  # noqa: E402


@pytest.fixture
def tiny_networks(monkeypatch):
    """Every level's network is TinyEvaluator: the menu's paths without loading a model."""
    monkeypatch.setattr(player_module, "load_evaluator", lambda *args, **kwargs: TinyEvaluator())


def test_every_level_has_its_texts() -> None:
    assert list(LEVEL_TEXTS) == [level.name for level in LEVELS]


def test_the_menu_lists_the_levels_with_their_ratings(make_window) -> None:
    window = make_window("greedy", mode="human-human")
    actions = window.difficulty_menu.actions()
    assert window.difficulty_menu.title() == "&Difficulty"
    assert [a.text() for a in actions] == [f"{menu_text(level)}" for level in LEVELS]
    assert actions[0].text() == f"Beginner (rating {LEVELS[0].rating})"
    assert all(a.isCheckable() and not a.isChecked() for a in actions)  # the AI is no level yet
    assert window.level_actions["strongest"].statusTip().startswith("The newest model")


def test_choosing_a_level_sets_the_opponent_its_visits_and_back(qtbot, make_window, tiny_networks) -> None:
    window = make_window("greedy", mode="human-black", visits=800)
    window.level_actions["beginner"].trigger()
    beginner = level_named("beginner")
    opponent = window.bridge.opponent
    assert opponent.level is beginner and opponent.analyzes and opponent.move_temperature(0) == beginner.temperature
    assert window.visits_box.value() == beginner.player_spec().visits and window.budget() == (8, None)
    assert window.level_actions["beginner"].isChecked() and not window.level_actions["novice"].isChecked()
    assert window.opponent_box.currentText() == "Beginner level"
    assert window.last_message.startswith("AI: level Beginner: popucom-small-v1.pt on ")
    # The AI moves at the level (Black is the human: play, then the AI answers as White).
    window.on_square(40)
    qtbot.waitUntil(lambda: len(window.tree.current.path()) == 3, timeout=20_000)
    # Another level keeps the budget held before the first; a plain opponent gets it back.
    window.choose_level("intermediate")
    assert window.level_actions["intermediate"].isChecked() and not window.level_actions["beginner"].isChecked()
    assert window.visits_box.value() == level_named("intermediate").player_spec().visits
    greedy = window.opponent_box.findData("greedy")
    window.opponent_box.setCurrentIndex(greedy)
    window._on_opponent_chosen(greedy)
    assert window.bridge.opponent.level is None and window.bridge.opponent.spec == "greedy"
    assert window.visits_box.value() == 800 and not any(a.isChecked() for a in window.level_actions.values())


def test_the_chinese_menu(make_window, english_after) -> None:
    language.set_language("zh_CN")
    window = make_window("greedy", mode="human-human")
    assert window.difficulty_menu.title() == "难度(&D)"
    assert level_title(LEVELS[0]) == "入门"
    assert window.level_actions["beginner"].text() == f"入门（等级分 {LEVELS[0].rating}）"
