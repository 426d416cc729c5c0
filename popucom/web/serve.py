"""`popucom web`: serves a built site (popucom/web/build.py) on 127.0.0.1 and prints its URL.

The page needs an http origin (module imports fail from file://). Every response carries
`Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`,
which make the page cross-origin isolated so that onnxruntime-web may use threads; any
static host that sends these two headers does the same (docs/web.md). A file is sent as its
precompressed .br or .gz twin when the browser accepts that encoding. Dot files are not
served. Only this machine can connect: the server binds the loopback address.
"""

from __future__ import annotations

import argparse
import email.utils
import os
import sys
from errno import ENOENT
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO

from .build import DEFAULT_DIST

HOST = "127.0.0.1"
DEFAULT_PORT = 8750
ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}
CONTENT_TYPES = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".onnx": "application/octet-stream",
    ".pcnet": "application/octet-stream",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".css": "text/css",
    ".html": "text/html",
}
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # preferred first


def accepted_encodings(header: str) -> set[str]:
    """The content codings an Accept-Encoding header allows (q=0 excluded)."""
    accepted = set()
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        q = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
        try:
            if float(q) > 0:
                accepted.add(name.strip().lower())
        except ValueError:
            continue
    return accepted


class SiteHandler(SimpleHTTPRequestHandler):
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **CONTENT_TYPES}
    quiet = True

    def end_headers(self) -> None:
        for name, value in ISOLATION_HEADERS.items():
            self.send_header(name, value)
        self.send_header("Cache-Control", "no-cache")  # revalidate: the service worker keeps the offline copy
        super().end_headers()

    def send_head(self) -> BinaryIO | None:
        path = Path(self.translate_path(self.path))  # inside self.directory: translate_path drops '..'
        if any(part.startswith(".") for part in path.relative_to(self.directory).parts):
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        if not path.is_file():
            return super().send_head()  # directories (index.html, redirects) and 404s
        accepted = accepted_encodings(self.headers.get("Accept-Encoding", ""))
        encoding, body = next(
            (
                (name, path.with_name(path.name + suffix))
                for name, suffix in ENCODINGS
                if name in accepted and path.with_name(path.name + suffix).is_file()
            ),
            (None, path),
        )
        try:
            f = open(body, "rb")  # the base class copies it out and closes it
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        stat = os.fstat(f.fileno())
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(str(path)))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(stat.st_size))
        self.send_header("Last-Modified", email.utils.formatdate(stat.st_mtime, usegmt=True))
        self.end_headers()
        return f

    def log_message(self, format: str, *args: object) -> None:
        if not self.quiet:
            super().log_message(format, *args)


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host if isinstance(host, str) else host.decode()}:{port}/"


def make_server(directory: Path, port: int = DEFAULT_PORT, quiet: bool = True) -> SiteServer:
    """A server of `directory` on 127.0.0.1 (port 0: any free port); call serve_forever().
    Raises FileNotFoundError when the folder holds no built site."""
    directory = Path(directory).resolve()
    if not (directory / "index.html").is_file():
        raise FileNotFoundError(
            ENOENT, "no built site here (no index.html): run `popucom web build` first", str(directory)
        )
    handler = type("Handler", (SiteHandler,), {"quiet": quiet})
    return SiteServer((HOST, port), partial(handler, directory=str(directory)))


def serve(directory: Path = DEFAULT_DIST, port: int = DEFAULT_PORT) -> None:
    """Serves until Ctrl-C, printing the URL first."""
    server = make_server(directory, port, quiet=False)
    print(f"serving {directory} at {server.url} (Ctrl-C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port on 127.0.0.1 (default {DEFAULT_PORT}, 0: any free)"
    )
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIST, help=f"the built site (default {DEFAULT_DIST})")
