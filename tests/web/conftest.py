"""Fixtures of the web app's tests: the built site (built once per session), the site served on
127.0.0.1 and a headless Chromium driving it (popucom.web.headless).

Where a tool the build or the browser needs is missing, the tests that need it skip and name
what to install; with POPUCOM_WEB_TESTS=required (CI, which installs them) they fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from popucom.web import headless

REQUIRED = os.environ.get("POPUCOM_WEB_TESTS") == "required"


def skip_or_fail(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"{reason} (POPUCOM_WEB_TESTS=required)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def web_dist() -> Path:
    """build/web/dist, built (or found up to date) by `popucom web build`."""
    from popucom.web import build, toolchain

    try:
        toolchain.find_toolchain()
    except toolchain.MissingToolError as e:
        skip_or_fail(f"the web build: {e}")
    return build.build()


@pytest.fixture(scope="session")
def node() -> str:
    """The node executable (the page's unit tests, the wasm probe)."""
    found = shutil.which("node")
    if found is None:
        skip_or_fail("the web app's node tests need node (apt-get install nodejs)")
    return found


@pytest.fixture(scope="session")
def web_url(web_dist: Path) -> Iterator[str]:
    """The built site served on a free port of 127.0.0.1: 'http://127.0.0.1:PORT/'."""
    with headless.serving(web_dist) as site:
        yield site.url


@pytest.fixture(scope="session")
def outside() -> Iterator[tuple[str, list[str]]]:
    """The proxy every request of the session's browsers to another host goes through, refused
    and recorded: (its address, the request lines so far)."""
    with headless.recording_proxy() as proxy:
        yield proxy


@pytest.fixture(scope="session")
def browser(outside: tuple[str, list[str]]) -> Iterator[Any]:
    """One headless Chromium for the session (a selenium webdriver.Chrome) that logs its DevTools
    network events and sends requests to other hosts to `outside`; each test opens the page it
    needs (web_url)."""
    missing = headless.missing_browser_tools()
    if missing:
        skip_or_fail(f"the browser tests need {', '.join(missing)}")
    with headless.chromium(log_network=True, proxy=outside[0]) as driver:
        yield driver
