"""The built page in headless Chromium, for the browser tests (tests/web) and the benchmark
(bench/web.py): the site served on a free port of 127.0.0.1 in a thread of this process, and
Debian's `chromium` driven by selenium through Debian's `chromedriver`.

Selenium never downloads a driver or a browser here: both paths are given. The browser runs
with a fresh profile in a temporary folder, without a sandbox (CI runs as root), the GPU or
most of its background services. A recording proxy catches every request the browser sends to
another host, whichever context sends it (page, worker, service worker); Chromium still calls a
few services of its own (CHROMIUM_OWN_HOSTS), which pages_requests() leaves out. The server
counts the bytes it sends (Site.bytes_sent). `page_call` runs an async function in the page and
returns its value, or raises PageError with the page's message.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# Debian's `chromium`, the browser itself: /usr/bin/chromium is a launcher that adds Google API
# keys (which start sign-in requests) and extensions.
CHROMIUM = Path("/usr/lib/chromium/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")  # Debian's `chromium-driver`
FLAGS = (
    "--headless=new",
    "--no-sandbox",  # Chromium's sandbox refuses to start as root
    "--disable-gpu",
    "--disable-dev-shm-usage",  # containers' /dev/shm is often too small for Chromium
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-component-extensions-with-background-pages",
    "--disable-client-side-phishing-detection",
    "--disable-domain-reliability",
    "--no-default-browser-check",
    "--no-pings",
    "--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter,Translate,"
    "NetworkTimeServiceQuerying,PreconnectToSearch,SigninInterceptBubble,ChromeSignin",
    "--window-size=1280,900",
)


class PageError(RuntimeError):
    """A script in the page threw or rejected: the page's own message."""


def missing_browser_tools() -> list[str]:
    """What is missing to drive the browser, each as what to install."""
    missing = []
    if not CHROMIUM.is_file():
        missing.append("chromium (apt-get install chromium)")
    if not CHROMEDRIVER.is_file():
        missing.append("chromedriver (apt-get install chromium-driver)")
    if importlib.util.find_spec("selenium") is None:
        missing.append("selenium (pip install -e '.[dev]')")
    return missing


class _CountingSocket:
    """A connection's socket that adds what the server sends through it to a Site's count."""

    def __init__(self, sock: socket.socket, site: Site) -> None:
        self._sock, self._site = sock, site

    def sendall(self, data: bytes) -> None:
        self._site.add_sent(len(data))
        self._sock.sendall(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


@dataclass
class Site:
    """A served site: its base URL and the bytes its server has sent (headers and bodies, as sent:
    compressed where the browser accepted it), the page's, its workers' and its service worker's."""

    url: str
    bytes_sent: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add_sent(self, count: int) -> None:
        with self._lock:
            self.bytes_sent += count


@contextlib.contextmanager
def serving(dist: Path) -> Iterator[Site]:
    """The static site in `dist` served on a free port of 127.0.0.1 (popucom.web.serve's server,
    with its headers) in a thread of this process; stopped on exit."""
    from .serve import make_server

    server = make_server(Path(dist), port=0)
    site = Site(server.url)
    serve_connection = server.finish_request
    server.finish_request = lambda request, address: serve_connection(_CountingSocket(request, site), address)
    thread = threading.Thread(target=server.serve_forever, name="popucom-web-serve", daemon=True)
    thread.start()
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


# The services Debian's Chromium calls by itself whatever the page does (its default search
# engine, Google sign-in and component updates), despite FLAGS: not the page's requests.
CHROMIUM_OWN_HOSTS = frozenset(
    {
        "start.duckduckgo.com",
        "accounts.google.com",
        "update.googleapis.com",
        "clients2.google.com",
        "content-autofill.googleapis.com",
    }
)


def request_host(request_line: str) -> str:
    """The host a proxied request line goes to ('CONNECT host:443 HTTP/1.1', 'GET http://host/...')."""
    parts = request_line.split()
    target = parts[1] if len(parts) > 1 else ""
    return (urlsplit(target).hostname if "://" in target else target.rpartition(":")[0] or target) or ""


def pages_requests(request_lines: list[str]) -> list[str]:
    """The proxied requests that are not Chromium's own (CHROMIUM_OWN_HOSTS)."""
    return [line for line in request_lines if request_host(line) not in CHROMIUM_OWN_HOSTS]


class _RecordingProxyHandler(BaseHTTPRequestHandler):
    """Refuses every request the browser sends through the proxy and records its request line."""

    def refuse(self) -> None:
        self.server.requests.append(self.requestline)
        with contextlib.suppress(ConnectionError):  # the browser may give up on the request first
            self.send_error(HTTPStatus.FORBIDDEN, "popucom tests: no request may leave the page's origin")

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_CONNECT = refuse

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@contextlib.contextmanager
def recording_proxy() -> Iterator[tuple[str, list[str]]]:
    """A proxy on 127.0.0.1 that refuses and records whatever reaches it, as (its address for
    chromium(proxy=...), the request lines so far). Chromium sends loopback requests (the site)
    directly and everything else through the proxy, from the page, its workers and its service
    worker alike, so the list holds every request that would have left the machine."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _RecordingProxyHandler)
    server.daemon_threads = True
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, name="popucom-web-proxy", daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", server.requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def chromium(log_network: bool = False, lang: str = "en-US", proxy: str | None = None) -> Iterator[Any]:
    """A headless Chromium under selenium (a webdriver.Chrome), closed and its profile removed on
    exit. log_network: keep the DevTools network events for requested_urls(); proxy: HOST:PORT
    that every request to another host goes through (recording_proxy)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--lang={lang}")
    options.add_experimental_option("prefs", {"intl.accept_languages": lang})
    if proxy is not None:
        options.add_argument(f"--proxy-server=http://{proxy}")
    if log_network:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    profile = tempfile.mkdtemp(prefix="popucom-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    try:
        driver.set_script_timeout(300)
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


# Wraps the async function body with the driver's callback: it gets `args` (the call's arguments)
# and hands back {ok, value} or {ok: false, error}, so that an exception in the page reaches the
# caller as its message, not as a script timeout. The body is part of the script the driver
# evaluates, never compiled in the page (a Content-Security-Policy may forbid that).
_ASYNC_CALL = """
const done = arguments[arguments.length - 1];
const args = Array.prototype.slice.call(arguments, 0, arguments.length - 1);
(async () => {{ {body}
}})().then((value) => done({{ok: true, value: value === undefined ? null : value}}),
          (error) => done({{ok: false, error: String((error && error.stack) || error)}}));
"""


def page_call(driver: Any, body: str, *args: Any, timeout: float = 120) -> Any:
    """The value of `body`, the body of an async function run in the page with `args` as
    `args[0]`, ...; PageError if it throws. The value must be JSON-like (no DOM nodes)."""
    driver.set_script_timeout(timeout)
    reply = driver.execute_async_script(_ASYNC_CALL.format(body=body), *args)
    if not reply["ok"]:
        raise PageError(reply["error"])
    return reply["value"]


def open_page(driver: Any, url: str, timeout: float = 60) -> float:
    """Navigates to `url` and waits for `window.popucom.ready`; the milliseconds from the start of
    the navigation to the moment it resolved (or, if it resolved before this could see it, to
    the moment this saw it), on the page's clock."""
    driver.get(url)  # returns after the load event: the page's module scripts have run
    deadline = time.monotonic() + timeout
    while not driver.execute_script("return !!(window.popucom && window.popucom.ready)"):
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url}: window.popucom did not appear within {timeout:.0f} s")
        time.sleep(0.05)
    return page_call(driver, "await window.popucom.ready; return performance.now();", timeout=timeout)


def wait_until(driver: Any, expression: str, timeout: float = 120, poll: float = 0.1) -> Any:
    """Polls the JS `expression` until it is truthy and returns its value; TimeoutError naming it."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(f"return ({expression});")
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true within {timeout:.0f} s: {expression}")
        time.sleep(poll)


def requested_urls(driver: Any) -> list[str]:
    """The URLs the page's document requested since the last call (DevTools' network events of the
    page's own target: not its workers'; needs chromium(log_network=True)), Chromium's own
    chrome:// pages left out. recording_proxy() sees the workers' requests too."""
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] in ("Network.requestWillBeSent", "Network.webSocketCreated"):
            url = message["params"].get("request", {}).get("url") or message["params"].get("url", "")
            if urlsplit(url).scheme not in ("chrome", "chrome-extension", "devtools"):
                urls.append(url)
    return urls


def same_origin(url: str, base: str) -> bool:
    """Whether `url` is served by the origin of `base`, or is data the page made itself."""
    parts, origin = urlsplit(url), urlsplit(base)
    if parts.scheme in ("data", "blob"):
        return True
    return (parts.scheme, parts.netloc) == (origin.scheme, origin.netloc)
