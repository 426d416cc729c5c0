"""The PySide6 GUI, headless (QT_QPA_PLATFORM=offscreen), with pytest-qt.

Fast opponents: the network-free bots, and a tiny random network exported to ONNX for
everything that needs analysis. Skipped cleanly where PySide6 or pytest-qt is missing.
"""

import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QPointF, Qt, QTimer  # noqa: E402

from popucom import _core  # noqa: E402
from popucom.gui.game_tree import GameTree  # noqa: E402
from popucom.gui.main_window import MainWindow  # noqa: E402
from popucom.gui.records import from_sgf, load_game_records, to_sgf  # noqa: E402
from popucom.gui.tree_model import GameTreeModel  # noqa: E402

sq = _core.parse_square


def make_window(qtbot, opponent: str = "greedy", **kwargs) -> MainWindow:
    window = MainWindow(opponent, **kwargs)
    qtbot.addWidget(window)
    window.resize(1100, 700)
    window.show()
    return window


def click(qtbot, window: MainWindow, square: int) -> None:
    centre = window.board.square_rect(square).center()
    qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=centre.toPoint())


def test_click_a_legal_move_and_the_ai_answers(qtbot, tiny_onnx) -> None:
    window = make_window(qtbot, tiny_onnx, visits=64)
    click(qtbot, window, sq("e5"))
    assert window.tree.root.children[0].move == sq("e5")
    qtbot.waitUntil(lambda: window.tree.position.ply == 2, timeout=10_000)
    ai_node = window.tree.current
    assert ai_node.parent.move == sq("e5") and ai_node.position.to_move == _core.Color.BLACK
    assert ai_node.parent.analysis["visits"] >= 64  # the AI's search is kept on the node it searched
    assert window.last_message.startswith("AI played")
    # The tree was kept: the AI's search continues from its own move's subtree.
    assert window.bridge.opponent.search.position == ai_node.position
    # The player's next move reaches the session too: one tree for the whole game.
    resets = window.bridge.opponent.search.resets
    reply = next(iter(ai_node.position.legal_moves()))
    click(qtbot, window, reply)
    qtbot.waitUntil(lambda: window.tree.position.ply == 4, timeout=10_000)
    assert window.bridge.opponent.search.resets == resets
    assert window.bridge.opponent.search.position == window.tree.position


def test_bot_opponent_answers(qtbot) -> None:
    window = make_window(qtbot, "uct:200", mode="human-white")
    window.ai_move_now()  # Black is the AI in this mode
    qtbot.waitUntil(lambda: window.tree.position.ply == 1, timeout=10_000)
    click(qtbot, window, window.tree.position.legal_moves()[0])
    qtbot.waitUntil(lambda: window.tree.position.ply == 3, timeout=10_000)


def test_illegal_click_is_refused_with_a_message(qtbot) -> None:
    window = make_window(qtbot, "greedy", mode="human-human")
    click(qtbot, window, sq("e5"))
    click(qtbot, window, sq("e5"))  # occupied
    assert window.tree.position.ply == 1
    assert "e5 is illegal" in window.last_message and window.statusBar().currentMessage() == window.last_message
    # A floor painted by the opponent: set up by playing a line of three.
    tree = GameTree.from_moves("a1 a9 b1 b9 c1")  # Black's a1-b1-c1 pops and paints row 1
    tree.to_end()
    window.set_tree(tree)
    painted = [
        s for s in range(81) if tree.position.floor_at(s) == _core.Color.BLACK and tree.position.stone_at(s) is None
    ]
    assert painted and tree.position.to_move == _core.Color.WHITE
    click(qtbot, window, painted[0])
    assert window.tree.position.ply == 5 and "illegal" in window.last_message
    # Clicking outside the board does nothing and does not crash.
    qtbot.mouseClick(window.board, Qt.MouseButton.LeftButton, pos=QPointF(2, 2).toPoint())


def test_navigation_and_variations(qtbot) -> None:
    window = make_window(qtbot, "greedy", mode="human-human")
    for move in ("e5", "d4", "c3"):
        click(qtbot, window, sq(move))
    window._navigator(window.tree.back)()
    window._navigator(window.tree.back)()
    assert window.tree.current.move == sq("e5")
    click(qtbot, window, sq("f6"))  # a different move from an earlier position: a variation
    e5 = window.tree.root.children[0]
    assert [c.move for c in e5.children] == [sq("d4"), sq("f6")]
    assert window.tree.current.is_variation_head
    window._navigator(lambda: window.tree.sibling(-1))()  # up: to the main line's move
    assert window.tree.current.move == sq("d4")
    window._navigator(window.tree.forward)()
    assert window.tree.current.move == sq("c3")
    # The tree view shows every node exactly once, the variation under the move it branches from.
    model: GameTreeModel = window.tree_model
    seen = []

    def walk(parent):
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            seen.append(model.node(index))
            assert model.parent(index) == parent
            walk(index)

    from PySide6.QtCore import QModelIndex

    walk(QModelIndex())
    assert len(seen) == len(window.tree.nodes()) == 5
    variation = e5.children[1]
    assert model.node(model.parent(model.index_of(variation))) is e5
    # Clicking a node in the tree view goes there.
    window._on_tree_clicked(model.index_of(variation))
    assert window.tree.current is variation and window.board.position == variation.position
    # Promote the variation, then delete the old main line.
    window.promote_node(variation)
    assert e5.children[0] is variation and [n.move for n in window.tree.main_line()][1:] == [sq("e5"), sq("f6")]
    window.delete_node(e5.children[1])
    assert [c.move for c in e5.children] == [sq("f6")]
    window.delete_node(window.tree.root)  # refused with a message, not a crash
    assert "cannot be deleted" in window.last_message


def test_save_and_load_round_trip_with_variations_and_comments(qtbot, tmp_path) -> None:
    window = make_window(qtbot, "greedy", mode="human-human")
    for move in ("e5", "d4", "c3"):
        click(qtbot, window, sq(move))
    window.comment.setPlainText("a [bracketed] comment \\ with a backslash\nand two lines")
    window.go_to(window.tree.root.children[0])
    click(qtbot, window, sq("a1"))
    window.tree.root.comment = "root note"
    window.tree.properties.update(PB="me", PW="greedy")
    path = tmp_path / "game.sgf"
    assert window.save_path(path)
    text = path.read_text()
    assert "GM[81]" in text and "AP[popucom:" in text
    other = make_window(qtbot, "greedy", mode="human-human")
    assert other.open_path(path)
    assert to_sgf(other.tree) == text
    e5 = other.tree.root.children[0]
    assert [c.move for c in e5.children] == [sq("d4"), sq("a1")]
    assert e5.children[0].children[0].comment == "a [bracketed] comment \\ with a backslash\nand two lines"
    assert other.tree.root.comment == "root note" and other.tree.properties["PB"] == "me"
    # A file that does not parse is refused with the reason, and the game in progress is kept.
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[81];B[e5];W[e5])")
    before = other.tree
    assert not other.open_path(bad)
    assert "W[e5]" in other.last_message and other.tree is before
    bad.write_text("(;GM[1]SZ[19];B[dd])")
    assert not other.open_path(bad) and "another game" in other.last_message


def test_sgf_parser_edge_cases() -> None:
    tree = from_sgf("(;GM[81]KM[3]C[x\\]y\\\\z] ;B[e5] (;W[d4]) (;W[c3]C[second]ZA[10:0.25:-1.5]) )")
    assert tree.root.comment == "x]y\\z" and tree.root.position.komi == 3
    assert [c.move for c in tree.root.children[0].children] == [sq("d4"), sq("c3")]
    assert tree.root.children[0].children[1].analysis == {"visits": 10, "black_winrate": 0.25, "black_score": -1.5}
    for bad, reason in (
        ("(;GM[81];B[e5]", "expected ')'"),
        ("(;GM[81]KM[0.5])", "whole number"),
        ("(;GM[81];B[z9])", "B[z9]"),
        ("(;GM[81];W[e5])", "Black's turn"),
        ("x", "expected '('"),
    ):
        with pytest.raises(ValueError, match=reason.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
            from_sgf(bad)


def test_open_pipeline_and_arena_game_records(qtbot, tmp_path) -> None:
    records = tmp_path / "games.jsonl"
    records.write_text(
        '{"black": "a", "white": "b", "moves": "e5 d4 c3", "komi": 1, "result": "black", "score": 3}\n'
        '{"black": "b", "white": "a", "moves": "a1", "komi": 0, "result": "draw", "score": 0}\n'
    )
    games = load_game_records(records)
    assert len(games) == 2 and games[0][1].root.position.komi == 1
    window = make_window(qtbot, "greedy", mode="human-human")
    assert window.open_path(records)  # not shown modally in tests: the first game
    assert [n.move for n in window.tree.main_line()][1:] == [sq("e5"), sq("d4"), sq("c3")]
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"moves": "e5 e5"}\n')
    assert not window.open_path(broken) and "line 1" in window.last_message


def test_ui_stays_responsive_during_a_long_search_and_shows_analysis(qtbot, tiny_onnx) -> None:
    window = make_window(qtbot, tiny_onnx, mode="human-human")
    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(10)
    window.panel.analyze_button.setChecked(True)  # analysis runs until stopped
    qtbot.waitUntil(lambda: window.panel.table.rowCount() > 0, timeout=5_000)
    qtbot.wait(1000)
    timer.stop()
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    # A GUI thread that the search blocked would tick once or twice, with a gap as long as the
    # analysis (over a second); a free one ticks ~100 times. The bounds are loose on purpose: the
    # machine may be busy (a CI run beside a training run gave 23 ticks, longest gap 0.27 s; a run
    # at nice 15 beside two busy cores gave 25 ticks, longest gap 0.73 s).
    assert len(ticks) >= 10 and max(gaps) < 1.0, f"{len(ticks)} ticks, longest gap {max(gaps):.3f}s"
    assert window.board.heat is not None and window.tree.current.analysis["visits"] > 0
    # Hovering a top move previews its principal variation on the board.
    window.panel._hover(0, 0)
    assert window.board.preview == window.panel.pvs[0]
    # The move the AI would play is the one bold row (when it is among those listed). Drawn
    # here, in the GUI thread, so no newer snapshot lands between the drawing and the check.
    result, table = window.game.latest, window.panel.table
    window.panel.show_result(result, window.tree.current.position.to_move)
    chosen = _core.square_to_text(result.chosen)
    listed = [table.item(r, 0).text() for r in range(table.rowCount())]
    assert [text for r, text in enumerate(listed) if table.item(r, 0).font().bold()] == (
        [chosen] if chosen in listed else []
    )
    window.panel.stop_button.click()
    assert not window.bridge.busy


def test_unusable_model_is_refused_and_the_game_kept(qtbot, tmp_path) -> None:
    window = make_window(qtbot, "greedy", mode="human-human")
    click(qtbot, window, sq("e5"))
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"not a model")
    assert not window.set_opponent(str(junk))
    assert "junk.onnx" in window.last_message and window.bridge.opponent.spec == "greedy"
    assert window.tree.position.ply == 1
    window.panel.analyze_button.setChecked(True)  # bots cannot analyse: said, not crashed
    assert "needs a model" in window.last_message and not window.panel.analyze_button.isChecked()


def test_closing_during_a_search_is_clean(qtbot, tiny_onnx) -> None:
    window = make_window(qtbot, tiny_onnx, seconds=30.0)
    click(qtbot, window, sq("e5"))  # the AI now thinks for 30 s
    qtbot.waitUntil(lambda: window.bridge.busy, timeout=5_000)
    started = time.perf_counter()
    window.close()
    assert time.perf_counter() - started < 10.0  # not the 30 s the search was given
    assert not window.bridge.busy and window.tree.position.ply == 1


def test_without_a_shipped_model_the_gui_says_it_plays_a_bot(tmp_path) -> None:
    """`popucom gui` with no model to find: the bot plays, and stderr says why and how to point
    at a model (the window is made, its event loop not run)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "QApplication.exec = lambda *args: 0\n"
        "from popucom.gui import app\n"
        "sys.exit(app.main([]))\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", POPUCOM_WEIGHTS=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"popucom gui: warning: no shipped model in {tmp_path} (set POPUCOM_WEIGHTS" in out.stderr
    assert "the opponent is the uct:2000 bot" in out.stderr and "opponent uct:2000" in out.stderr


def test_a_long_analysis_keeps_its_memory_bounded_and_new_game_frees_it(qtbot, tiny_onnx) -> None:
    """The analysis tree stops at the search's tree_mb however long it runs, and New game throws
    it away at once (SearchTree::reset then gives a big tree's memory back)."""
    window = make_window(qtbot, tiny_onnx, mode="human-human")
    gs = window.bridge.opponent.search
    gs.max_tree_nodes = 2000  # tree_mb of about 2 MB, reached in a moment
    window.panel.analyze_button.setChecked(True)  # analysis runs until stopped
    qtbot.waitUntil(lambda: not gs.running, timeout=60_000)  # ... or until its tree is full
    assert 2000 <= gs.driver.search.num_nodes(0) <= 2000 + 16
    window.new_game()
    assert gs.driver.search.num_nodes(0) == 1 and gs.visits == 0


def test_the_analysis_shows_the_results_the_search_proved(qtbot) -> None:
    """A move the search proved shows its exact result and margin instead of its estimates."""
    from popucom.search.analysis import AnalysisResult

    window = make_window(qtbot)

    def move(square: str, proven: int | None) -> dict:
        exact = {"proven": proven, "exact_score": None if proven is None else 2.0 * proven}
        return {"move": sq(square), "visits": 9, "winrate": 0.6, "score": 1.5, "prior": 0.1, "lcb": 0.0,
                "pv": [sq(square)], **exact}  # fmt: skip

    moves = [move("e5", 1), move("d4", None), move("c3", -1), move("b2", 0)]
    window.panel.show_result(AnalysisResult(36, 0.6, 0.2, 1.5, moves), _core.Color.BLACK)
    table = window.panel.table
    rows = [(table.item(r, 2).text(), table.item(r, 3).text()) for r in range(table.rowCount())]
    assert rows == [("proven win", "+2"), ("60.0", "+1.5"), ("proven loss", "-2"), ("proven draw", "+0")]
    assert "exact result" in table.item(0, 2).toolTip() and not table.item(1, 2).toolTip()
