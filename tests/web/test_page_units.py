"""The page's own unit tests (web/test/*.test.mjs: the game tree, records, i18n, and the records
read through the built rules), run by node's test runner."""

from __future__ import annotations

import subprocess
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "web"


def test_the_page_modules_pass_their_node_tests(web_dist: Path, node: str) -> None:
    tests = sorted(str(path) for path in (WEB / "test").glob("*.test.mjs"))
    assert tests, "web/test holds no *.test.mjs"
    done = subprocess.run(
        [node, "--no-experimental-fetch", "--test", *tests], capture_output=True, text=True, timeout=300, cwd=WEB
    )
    summary = "\n".join(done.stdout.splitlines()[-12:])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, summary
