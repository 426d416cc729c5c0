"""Shared by the GUI tests: the offscreen platform, windows, and a mid-game position with an
analysis shown, so every drawing path of the board and the analysis panel runs.

Qt is imported inside the fixtures only: each test module skips itself (importorskip) where
PySide6 or pytest-qt is missing, and then never asks for these.
"""

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Black's a1-b1-c1 pops and paints rank 1 black, White's a9-b9-c9 paints rank 9 white; then
# stones of both colours stay on the board. White to move.
MIDGAME = "a1 a9 b1 b9 c1 c9 e5 d4 f6"


@pytest.fixture(scope="module")
def tiny_onnx(tmp_path_factory):
    """A tiny random network exported to ONNX: a model opponent that answers at once."""
    from popucom.nn.config import preset
    from popucom.nn.export import export_onnx
    from popucom.nn.model import PopucomNet

    return str(export_onnx(PopucomNet(preset("tiny")).eval(), tmp_path_factory.mktemp("gui") / "tiny.onnx"))


@pytest.fixture
def make_window(qtbot):
    """make_window(opponent="greedy", **MainWindow kwargs): a shown 1100x700 window."""
    from popucom.gui.main_window import MainWindow

    def make(opponent: str = "greedy", **kwargs) -> MainWindow:
        window = MainWindow(opponent, **kwargs)
        qtbot.addWidget(window)
        window.resize(1100, 700)
        window.show()
        return window

    return make


def _show_analysis(window, visits: int = 200) -> None:
    """Draws a real search of the current node through the window's own path (as a snapshot
    from the AI would arrive), stores shorter searches on the nodes before it so the win-rate
    chart has a line, and previews the top move's principal variation on the board."""
    from popucom.gui.game_controller import store
    from popucom.infer.fake import TinyEvaluator
    from popucom.search import analyze

    current = window.tree.current
    for node in current.path()[:-1]:
        store(node, analyze(node.position, TinyEvaluator(), visits=32))
    result = analyze(current.position, TinyEvaluator(), visits=visits)
    result.root_wdl = (0.45, 0.15, 0.40)  # as the network's own W/D/L would come
    window.game.analysing, window.game.latest = current, result
    window._draw_latest()
    window.game.analysing = None
    window.panel._hover(0, 0)  # as the pointer over the first row does


@pytest.fixture
def show_analysis():
    """show_analysis(window, visits=200): a real search of the current node, drawn as the AI's
    snapshots are, with the win-rate chart filled and the top PV previewed."""
    return _show_analysis


@pytest.fixture
def midgame_window(make_window):
    """A human-human window at MIDGAME (last move f6) with an analysis and a PV preview shown."""
    from popucom.gui.game_tree import GameTree

    window = make_window("greedy", mode="human-human")
    tree = GameTree.from_moves(MIDGAME)
    tree.to_end()
    window.set_tree(tree)
    _show_analysis(window)
    return window


@pytest.fixture
def english_after():
    """Whatever language a test installs, English (no translator) is back after it."""
    yield
    from popucom.gui import language

    language.set_language(language.ENGLISH)
