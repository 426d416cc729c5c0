"""The PySide6 GUI (the [gui] extra): play against the AI, review games in a game tree,
analyse live. `popucom gui` or `scripts/gui.py` start it; see the README's "Play".

Parts, each testable alone: game_tree (the model, no Qt), records (SGF-style and JSONL
files), board_view, tree_model, analysis_panel, ai (the opponent and its worker threads),
main_window, which wires them, and app (the command line). language installs the
translation (English in the code, Simplified Chinese from i18n/popucom_zh_CN.qm);
qt_platform checks, before Qt starts, that the X11 plugin's system libraries are there.
"""
