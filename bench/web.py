"""The web app's speed in headless Chromium: time to an interactive board, bytes of the first
visit, network evaluations/s at batch 1, 8 and 16 and AI move time at 100, 200 and 800 visits
(popucom/web/benchmark.py says what each figure is). One JSON line.

Usage: python bench/web.py [--repeats 3] [--tiny] [--screenshot docs/web_en.png [--lang zh-CN]]
--tiny: one repeat, batch 1 and a 16-visit move: checks that the benchmark runs, no figures.
--screenshot also saves the real page in headless Chromium during an analysis (a game with a
variation, the analysis view and the chart filled), in --lang (default en).
Needs what the web app's build and tests need: emscripten, npm, chromium, chromium-driver (README).
"""

import argparse
import json
import time
from pathlib import Path

from popucom.web import headless
from popucom.web.benchmark import BATCHES, VISITS, run
from popucom.web.build import DEFAULT_DIST

# The game the GUI's screenshot shows (bench/gui_search.py), its last move in two variations.
SCREENSHOT_GAME = (
    "(;GM[81]FF[4]SZ[9]KM[0];B[d5];W[a9];B[e5];W[b9];B[f5];W[c9];B[e4];W[d7];B[e3];W[e7];B[c3];W[f7]"
    "(;B[g3])(;B[h3]C[a variation]))"
)


def screenshot(out: Path, lang: str) -> None:
    """The built page (build/web/dist) during an analysis, saved as a PNG."""
    with headless.serving(DEFAULT_DIST) as site, headless.chromium(lang=lang) as driver:
        driver.set_window_size(1280, 1300)  # the whole page: board, tree, analysis and chart
        headless.open_page(driver, site.url)
        headless.page_call(driver, "await window.popucom.setLang(args[0]);", lang)
        game = "return await window.popucom.loadRecordText(args[0], 'game.sgf');"
        assert headless.page_call(driver, game, SCREENSHOT_GAME), driver.find_element("id", "message").text
        for _ in range(13):
            headless.page_call(driver, "await window.popucom.tree.forward();")
        headless.page_call(driver, "await window.popucom.tree.nextVariation();")
        driver.find_element("css selector", "#analyze").click()
        time.sleep(4)  # the analysis view, the heat map and the chart fill in
        out.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(out))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats of each figure (the median is reported)")
    parser.add_argument("--tiny", action="store_true", help="one repeat, batch 1, a 16-visit move: a smoke check")
    parser.add_argument("--screenshot", type=Path, help="also save the page during an analysis as this PNG")
    parser.add_argument("--lang", default="en", choices=["en", "zh-CN"], help="the screenshot's language")
    args = parser.parse_args()
    result = run(1, (1,), (16,)) if args.tiny else run(args.repeats, BATCHES, VISITS)
    if args.screenshot:
        screenshot(args.screenshot, args.lang)
        result["screenshot"] = str(args.screenshot)
    print(json.dumps(result), flush=True)
