"""What the GUI's AI feels like: the time of an 800-visit move and the time until the
analysis view gets its first update, through the same GameSearch the GUI uses, with the
GUI's default thread budget (1 network thread + 1 search thread). One JSON line.

The model is the newest weights/*.onnx if there is one, else the `small` preset with
random weights (the same network cost; random weights are fine for timing).

Usage: python bench/gui_search.py [--visits 800] [--repeats 3] [--backend auto] [--screenshot docs/gui_en.png]
--backend is the inference backend (popucom.infer.factory; auto, the GUI's, picks the fastest
here); the line names the one that ran. --screenshot also renders the main window offscreen
during an analysis and saves it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path


def model_path(workdir: Path) -> Path:
    from popucom.weights import newest_for_cpu

    found = newest_for_cpu()
    if found is not None:
        return found
    import torch

    from popucom.nn.config import preset
    from popucom.nn.export import export_onnx
    from popucom.nn.model import PopucomNet

    torch.manual_seed(0)
    return export_onnx(PopucomNet(preset("small")).eval(), workdir / "small-random.onnx")


def time_search(path: Path, visits: int, repeats: int, threads: int, backend: str = "auto") -> dict:
    from popucom.infer import load_evaluator
    from popucom.search import GameSearch

    evaluator = load_evaluator(path, backend=backend, threads=threads)
    evaluator(__import__("numpy").zeros((16, 12, 9, 9), "float32"))  # warm-up (session start-up)
    move_s, first_s = [], []
    for r in range(repeats):
        gs = GameSearch(evaluator, seed=r)  # a fresh tree and cache: no reuse flatters the figure
        start = time.perf_counter()
        result = gs.search(visits=visits)
        move_s.append(time.perf_counter() - start)
        gs = GameSearch(evaluator, seed=r)
        first = threading.Event()
        start = time.perf_counter()
        gs.start(visits=visits, callback=lambda _, first=first: first.set())
        first.wait()
        first_s.append(time.perf_counter() - start)
        gs.stop()
    return {
        "backend": getattr(evaluator, "describe", lambda: backend)(),
        "visits": result.visits,
        "move_s": statistics.median(move_s),
        "first_update_ms": 1000 * statistics.median(first_s),
        "visits_per_s": visits / statistics.median(move_s),
    }


def screenshot(model: Path, out: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from popucom.gui.game_tree import GameTree
    from popucom.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow(str(model), mode="human-black")
    window.resize(1400, 820)
    tree = GameTree.from_moves("d5 a9 e5 b9 f5 c9 e4 d7 e3 e7 c3 f7 g3")
    tree.to_end()
    tree.back()
    tree.play("h3")  # a variation, so the tree view shows one
    tree.current.comment = "a variation"
    window.set_tree(tree)
    window.show()
    for node in tree.current.path()[1:-1]:  # a short search per move fills the win-rate chart
        window.analysing = node
        node.analysis = None
        search = window.bridge.opponent.search
        search.set_position(node.position)
        window._store(node, search.search(visits=32))
    window.analysing = None
    window.panel.analyze_button.setChecked(True)
    deadline = time.perf_counter() + 3.0
    while time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.01)
    if window.panel.pvs:
        window.board.set_preview(window.panel.pvs[0][:4])
    app.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(out))
    window.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--visits", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--threads",
        type=int,
        default=max(1, min(4, os.cpu_count() or 1)),
        help="network threads (default: the GUI's, all cores up to 4)",
    )
    parser.add_argument("--model", type=Path, help="default: the newest shipped model, else a random small one")
    parser.add_argument("--backend", default="auto", help="inference backend (default auto, as the GUI)")
    parser.add_argument("--screenshot", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.model or model_path(Path(tmp))
        line = {
            "bench": "gui_search",
            "model": path.name,
            "network_threads": args.threads,
            "search_threads": 1,
            **time_search(path, args.visits, args.repeats, args.threads, args.backend),
        }
        if args.screenshot:
            screenshot(path, args.screenshot)
            line["screenshot"] = str(args.screenshot)
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in line.items()}))


if __name__ == "__main__":
    main()
