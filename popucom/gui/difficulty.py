"""The difficulty levels (popucom/levels.py) as the GUI shows them: each level's name and
what it plays like, in the GUI's language, and the Difficulty menu's entry text with its rating.

The texts are keyed by level name, so a level added to popucom/levels.py without a text here
fails tests/gui/test_difficulty.py rather than showing an English name in a translated GUI.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from ..levels import Level

# name: (title, description), translated in context "Level".
LEVEL_TEXTS: dict[str, tuple[str, str]] = {
    "beginner": (
        QT_TRANSLATE_NOOP("Level", "Beginner"),
        QT_TRANSLATE_NOOP(
            "Level",
            "An early model, a very short noisy search, every move sampled: the greedy bot beats it at times",
        ),
    ),
    "novice": (
        QT_TRANSLATE_NOOP("Level", "Novice"),
        QT_TRANSLATE_NOOP(
            "Level",
            "An early model with a very short search, its moves sampled for most of the game",
        ),
    ),
    "casual": (
        QT_TRANSLATE_NOOP("Level", "Casual"),
        QT_TRANSLATE_NOOP(
            "Level",
            "An early model with a very short search, varying its opening",
        ),
    ),
    "intermediate": (
        QT_TRANSLATE_NOOP("Level", "Intermediate"),
        QT_TRANSLATE_NOOP(
            "Level",
            "An older model with a very short search, varying its opening",
        ),
    ),
    "advanced": (
        QT_TRANSLATE_NOOP("Level", "Advanced"),
        QT_TRANSLATE_NOOP(
            "Level",
            "An older model with a short search, varying its opening",
        ),
    ),
    "expert": (
        QT_TRANSLATE_NOOP("Level", "Expert"),
        QT_TRANSLATE_NOOP(
            "Level",
            "A recent model with a short search, varying its opening a little",
        ),
    ),
    "strongest": (
        QT_TRANSLATE_NOOP("Level", "Strongest"),
        QT_TRANSLATE_NOOP(
            "Level",
            "The newest model at the engine's default search: its full strength",
        ),
    ),
}


def level_title(level: Level) -> str:
    """The level's name in the GUI's language."""
    return QCoreApplication.translate("Level", LEVEL_TEXTS[level.name][0])


def level_description(level: Level) -> str:
    """What the level plays like, in the GUI's language."""
    return QCoreApplication.translate("Level", LEVEL_TEXTS[level.name][1])


def menu_text(level: Level) -> str:
    """The Difficulty menu's entry: the name and the rating (Elo, random = 0)."""
    return QCoreApplication.translate("Level", "{level} (rating {rating})", "Elo, the random bot at 0").format(
        level=level_title(level), rating=level.rating
    )
