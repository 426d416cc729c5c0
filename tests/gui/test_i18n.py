"""The Simplified Chinese GUI: Qt's QTranslator with popucom/gui/i18n/*.ts/.qm.

The catalogue is complete and compiled from its source, the Chinese window shows no English
left untranslated, English stays the default for an English locale, the View > Language menu
switches at run time, and bad input (an unknown language, a missing .qm) is a message.
"""

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

import PySide6  # noqa: E402
from PySide6.QtCore import QLocale, QModelIndex, QSettings, Qt, QTranslator  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QAbstractButton,
    QComboBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QTableWidget,
    QTreeView,
    QWidget,
)

from popucom import _core  # noqa: E402
from popucom.gui import app, language  # noqa: E402
from popucom.gui.game_tree import GameTree  # noqa: E402

GUI = Path(language.__file__).parent
TS = language.I18N_DIR / "popucom_zh_CN.ts"
QM = language.catalogue("zh_CN")
PLACEHOLDER = re.compile(r"\{\w*\}")

# What the Chinese GUI may show in Latin letters, each for a reason: AI and UCT as Chinese
# players write them; Zero, the engine's name; SGF, a file format; Esc and Ctrl, key names;
# greedy, random and uct, the bot specs `--opponent` takes (shown beside their Chinese names);
# English, the language menu naming each language in its own. Coordinates (a1..i9), numbers,
# file names, glob patterns and the command that installs a CJK font are removed before the check.
ALLOWED_WORDS = {"AI", "UCT", "Zero", "SGF", "Esc", "Ctrl", "greedy", "random", "uct", "English"}
NOT_WORDS = re.compile(
    r"\*\.\w+|[\w.-]+\.(?:onnx|pt|pth|plan|engine|sgf|jsonl)\b|\b[a-i][1-9]\b|" + re.escape(language.FONT_INSTALL)
)
LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def ts_messages(path: Path) -> list[dict]:
    out = []
    for context in ET.parse(path).getroot().iter("context"):
        for message in context.iter("message"):
            translation = message.find("translation")
            comment = message.find("comment")
            out.append(
                {
                    "context": context.find("name").text,
                    "source": message.find("source").text,
                    "comment": comment.text if comment is not None else None,
                    "translation": translation.text or "",
                    "type": translation.get("type"),
                }
            )
    return out


def qt_tool(name: str) -> Path | None:
    """lupdate / lrelease as the PySide6 wheel ships them (pyside6-lupdate wraps these)."""
    tool = Path(PySide6.__file__).parent / name
    if tool.is_file():
        return tool
    found = shutil.which(name)
    return Path(found) if found else None


def untranslated(texts: list[str]) -> list[str]:
    bad = []
    for text in texts:
        words = set(LATIN_WORD.findall(NOT_WORDS.sub(" ", text))) - ALLOWED_WORDS
        if words or PLACEHOLDER.search(text):
            bad.append(f"{text!r}: {sorted(words)}")
    return bad


def model_texts(model, parent: QModelIndex | None = None) -> list[str]:
    """The display text of every row of an item model, depth first."""
    parent = parent if parent is not None else QModelIndex()
    texts = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        texts += [model.data(index) or "", *model_texts(model, index)]
    return texts


def shown_texts(window) -> list[str]:
    """Every text the window shows or offers: titles, labels, buttons, tooltips, placeholders,
    combo items, table headers and cells, list and tree rows, menus and actions, the status
    bar, and what the custom widgets paint."""
    texts = [window.windowTitle(), window.statusBar().currentMessage()]
    for widget in window.findChildren(QWidget):
        if not widget.isVisible() and not isinstance(widget, QMenu):
            continue
        texts += [widget.windowTitle(), widget.toolTip(), widget.statusTip()]
        if isinstance(widget, (QLabel, QAbstractButton)):
            texts.append(widget.text())
        if isinstance(widget, (QLineEdit, QPlainTextEdit)):
            texts.append(widget.placeholderText())
        if isinstance(widget, QComboBox):
            texts += [widget.itemText(i) for i in range(widget.count())]
            texts += [widget.itemData(i, Qt.ItemDataRole.ToolTipRole) or "" for i in range(widget.count())]
        if isinstance(widget, QTableWidget):
            for col in range(widget.columnCount()):
                texts.append(widget.horizontalHeaderItem(col).text())
                for row in range(widget.rowCount()):
                    texts += [widget.item(row, col).text(), widget.item(row, col).toolTip()]
        if isinstance(widget, QListWidget):
            texts += [widget.item(i).text() for i in range(widget.count())]
        if isinstance(widget, QTreeView):
            texts += model_texts(widget.model())
        if isinstance(widget, QMenu):
            texts.append(widget.title())
        for action in widget.actions():
            texts += [action.text(), action.toolTip(), action.statusTip()]
            if action.menu() is not None:
                texts.append(action.menu().title())
    texts += [window.panel.wdl_bar.text(), window.panel.chart.text()]
    return [t for t in texts if isinstance(t, str) and t.strip()]


# --- the catalogue ------------------------------------------------------------------------
def test_the_catalogue_is_complete_and_consistent(qapp) -> None:
    messages = ts_messages(TS)
    assert len(messages) > 100
    committed = QTranslator()
    assert committed.load(str(QM)), f"{QM} does not load"
    for m in messages:
        where = f"{m['context']}: {m['source']!r}"
        assert m["type"] is None and m["translation"].strip(), f"{where} is not translated (type {m['type']})"
        # The code fills the placeholders by name and Qt shows the & accelerators.
        assert set(PLACEHOLDER.findall(m["translation"])) == set(PLACEHOLDER.findall(m["source"])), where
        assert ("&" in m["source"]) == ("&" in m["translation"]), where
        # The compiled catalogue holds the .ts translation.
        assert committed.translate(m["context"], m["source"], m["comment"]) == m["translation"], where


def test_the_qm_is_compiled_from_the_ts(tmp_path) -> None:
    lrelease = qt_tool("lrelease")
    if lrelease is None:
        pytest.skip("lrelease is not installed (it comes with PySide6-Essentials)")
    fresh = tmp_path / "fresh.qm"
    subprocess.run([str(lrelease), "-silent", str(TS), "-qm", str(fresh)], check=True, timeout=60)
    assert fresh.read_bytes() == QM.read_bytes(), f"{QM.name} is stale: rebuild it with pyside6-lrelease (language.py)"


def test_every_string_the_code_translates_is_in_the_ts(tmp_path) -> None:
    lupdate = qt_tool("lupdate")
    if lupdate is None:
        pytest.skip("lupdate is not installed (it comes with PySide6-Essentials)")
    scanned = tmp_path / TS.name
    shutil.copy(TS, scanned)
    sources = sorted(str(p) for p in GUI.glob("*.py"))
    command = [str(lupdate), *sources, "-ts", str(scanned), "-no-obsolete", "-locations", "none", "-silent"]
    subprocess.run(command, check=True, timeout=60, capture_output=True)
    new = [f"{m['context']}: {m['source']!r}" for m in ts_messages(scanned) if m["type"] == "unfinished"]
    assert not new, "not in popucom_zh_CN.ts yet (run pyside6-lupdate, see language.py):\n" + "\n".join(new)
    assert len(ts_messages(scanned)) == len(ts_messages(TS)), "the .ts holds strings the code no longer has"


# --- the Chinese window -------------------------------------------------------------------
def test_the_english_detector_flags_english_and_passes_what_is_allowed() -> None:
    assert untranslated(["Analyze", "对手：bot 贪心", "胜率 {winrate}%", "Open model file…"]) == [
        "'Analyze': ['Analyze']",
        "'对手：bot 贪心': ['bot']",
        "'胜率 {winrate}%': ['winrate']",  # an unfilled placeholder is flagged too
        "'Open model file…': ['Open', 'file', 'model']",
    ]
    allowed = ["UCT 200 次模拟（uct:200）", "popucom-small-v11.pt", "d3 d5 i9", "模型 (*.onnx *.pt);;所有文件 (*)"]
    assert untranslated([*allowed, "泡姆棋 Zero", "AI 落子（Ctrl+G）", "English", "SGF (*.sgf)"]) == []


def test_the_chinese_window_shows_no_untranslated_english(qtbot, make_window, show_analysis, english_after) -> None:
    language.set_language("zh_CN")
    window = make_window("greedy", mode="human-human")
    tree = GameTree.from_moves("a1 a9 b1 b9 c1 c9 e5 d4 f6")
    tree.to_end()
    tree.back()
    tree.play("h3")  # a variation, so the tree view labels one
    window.set_tree(tree)
    window.go_to(tree.current)
    show_analysis(window)
    assert window.windowTitle() == "泡姆棋 Zero" and window.file_menu.title() == "文件(&F)"
    bad = untranslated(shown_texts(window))
    assert not bad, "English left in the Chinese GUI:\n" + "\n".join(bad)
    # Messages as they come: a move, refused moves, the mode, a finished game.
    messages = []
    window.on_square(_core.parse_square("g7"))
    messages.append(window.last_message)
    window.on_square(_core.parse_square("e5"))  # holds a stone
    messages.append(window.last_message)
    painted = next(s for s in range(81) if window.tree.position.floor_at(s) == _core.Color.WHITE)
    window.on_square(painted)  # Black to move on White's floor
    messages.append(window.last_message)
    window.mode_box.setCurrentIndex(0)
    messages.append(window.last_message)
    window.mode_box.setCurrentIndex(2)
    window.delete_node(window.tree.root)
    messages.append(window.last_message)
    assert messages[1] == "不能下 e5：该格已有棋子" and "对方染色" in messages[2]
    game = _core.Game(0)
    bot = _core.Bot("random", seed=3)
    while not game.is_over:
        game.play(bot.select_move(game.position))
    finished = GameTree.from_moves(game.record)
    finished.to_end()
    window.set_tree(finished)
    window.on_square(0)
    messages += [window.last_message, window.info.text()]
    bad = untranslated(messages)
    assert not bad, "English left in the Chinese GUI's messages:\n" + "\n".join(bad)


def test_the_language_menu_switches_at_run_time_and_remembers(qtbot, make_window, english_after, tmp_path) -> None:
    settings = QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat)
    window = make_window("greedy", mode="human-human", settings=settings)
    assert window.file_menu.title() == "&File" and window.panel.analyze_button.text() == "Analyze"
    window.language_actions["zh_CN"].trigger()
    qtbot.waitUntil(lambda: window.file_menu.title() == "文件(&F)", timeout=5_000)
    assert window.panel.analyze_button.text() == "分析" and window.mode_box.currentText() == "双人对弈"
    assert window.panel.table.horizontalHeaderItem(0).text() == "着法" and window.info.text().startswith("黑方")
    assert window.language_actions["zh_CN"].isChecked() and not window.language_actions["en"].isChecked()
    assert QSettings(str(tmp_path / "gui.ini"), QSettings.Format.IniFormat).value("language") == "zh_CN"
    assert language.choose_language(None, settings) == "zh_CN"  # the next start
    window.language_actions["en"].trigger()
    qtbot.waitUntil(lambda: window.file_menu.title() == "&File", timeout=5_000)
    assert window.windowTitle() == "Popucom Zero" and window.mode_box.currentText() == "Human vs human"
    assert language.choose_language(None, settings) == "en"


# --- a font for the language --------------------------------------------------------------
NO_FONT = "没有已安装的字体含简体中文字符，这些字会显示为方框；请安装一个：sudo apt-get install fonts-noto-cjk"


def test_chinese_without_a_cjk_font_is_warned_once_in_chinese(make_window, english_after, monkeypatch, capsys) -> None:
    monkeypatch.setattr(language, "font_installed", lambda name: name == "en")  # as on a machine without one
    monkeypatch.setattr(language, "_font_warned", set())
    language.set_language("zh_CN")  # --lang zh_CN, or a Chinese locale
    window = make_window("greedy")
    assert window.statusBar().currentMessage() == NO_FONT
    assert capsys.readouterr().err == f"popucom gui: warning: {NO_FONT}\n"
    make_window("greedy")  # once a run
    assert capsys.readouterr().err == ""


def test_switching_to_chinese_without_a_cjk_font_warns(make_window, english_after, monkeypatch, capsys) -> None:
    monkeypatch.setattr(language, "font_installed", lambda name: name == "en")
    monkeypatch.setattr(language, "_font_warned", set())
    window = make_window("greedy")
    assert "fonts-noto-cjk" not in window.last_message  # English needs no CJK font
    assert window.choose_language("zh_CN") and window.last_message == NO_FONT
    assert capsys.readouterr().err == f"popucom gui: warning: {NO_FONT}\n"


def test_whether_a_font_has_the_characters_comes_from_qt_else_fontconfig(qapp, monkeypatch, tmp_path) -> None:
    from PySide6.QtGui import QFontDatabase

    assert language.font_installed("en")
    has_cjk = QFontDatabase.WritingSystem.SimplifiedChinese in QFontDatabase.writingSystems()
    assert language.font_installed("zh_CN") == has_cjk  # Qt's font database, where Qt runs

    class NoQt:  # before a QGuiApplication: fontconfig's fc-list
        @staticmethod
        def instance():
            return None

    monkeypatch.setattr(language, "QGuiApplication", NoQt)
    fc_list = tmp_path / "fc-list"
    monkeypatch.setattr(language.shutil, "which", lambda name: str(fc_list) if name == "fc-list" else None)
    fc_list.write_text('#!/bin/sh\n[ "$1" = ":lang=zh-cn" ] && echo "Noto Sans CJK SC"\nexit 0\n')
    fc_list.chmod(0o755)
    assert language.font_installed("zh_CN")
    fc_list.write_text("#!/bin/sh\nexit 0\n")  # no font for the language
    assert not language.font_installed("zh_CN")
    monkeypatch.setattr(language.shutil, "which", lambda name: None)
    assert language.font_installed("zh_CN")  # no way to tell: no warning


# --- choosing the language ----------------------------------------------------------------
def test_english_is_the_default_for_an_english_locale(make_window, tmp_path) -> None:
    english = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    empty = QSettings(str(tmp_path / "none.ini"), QSettings.Format.IniFormat)
    assert language.choose_language(None, empty, english) == "en"
    assert language.choose_language(None, None, QLocale("C")) == "en"
    assert language.choose_language(None, None, QLocale("zh_CN")) == "zh_CN"
    assert language.choose_language(None, None, QLocale("zh_TW")) == "en"  # Traditional: not zh_CN
    assert language.choose_language("en", None, QLocale("zh_CN")) == "en"  # --lang first
    assert language.current_language() == "en"
    window = make_window("greedy")
    assert window.windowTitle() == "Popucom Zero" and window.file_menu.title() == "&File"
    assert window.mode_box.currentText() == "You (Black) vs AI" and window.panel.summary.text() == "no analysis"


def test_the_system_locale_picks_the_language() -> None:
    # language.py alone (it needs only Qt), not through the popucom package, which loads torch.
    code = (
        "import importlib.util as u; s = u.spec_from_file_location('language', %r); m = u.module_from_spec(s); "
        "s.loader.exec_module(m); print(m.system_language())" % language.__file__
    )
    for env, expected in (({"LANG": "en_US.UTF-8"}, "en"), ({"LANG": "zh_CN.UTF-8"}, "zh_CN")):
        clean = {k: v for k, v in os.environ.items() if k not in ("LANG", "LANGUAGE") and not k.startswith("LC_")}
        out = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == expected, (env, out.stdout)


def test_bad_languages_and_a_missing_catalogue_are_messages(
    make_window, english_after, monkeypatch, tmp_path, capsys
) -> None:
    with pytest.raises(language.LanguageError, match="unknown language 'klingon': choose one of en, zh_CN"):
        language.set_language("klingon")
    with pytest.raises(SystemExit) as stop:
        app.main(["--lang", "klingon"])
    assert stop.value.code == 2 and "unknown language 'klingon'" in capsys.readouterr().err
    assert language.normalize("zh-CN") == language.normalize("zh") == "zh_CN" and language.normalize("en_GB") == "en"
    window = make_window("greedy")
    monkeypatch.setattr(language, "I18N_DIR", tmp_path)  # as if the .qm had not been installed
    with pytest.raises(language.LanguageError, match="popucom_zh_CN.qm is missing"):
        language.set_language("zh_CN")
    assert not window.choose_language("zh_CN")
    assert "is missing" in window.last_message and language.current_language() == "en"
    assert window.language_actions["en"].isChecked() and window.file_menu.title() == "&File"
    (tmp_path / "popucom_zh_CN.qm").write_bytes(b"not a catalogue")
    with pytest.raises(language.LanguageError, match="cannot be read"):
        language.set_language("zh_CN")
