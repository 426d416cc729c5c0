"""`popucom web` and `popucom web build` without a browser or emscripten: the server's headers,
types and precompressed files, and the one-line errors for a missing tool or a missing site."""

from __future__ import annotations

import gzip
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path

import pytest

from popucom import cli
from popucom.web import toolchain
from popucom.web.serve import SiteServer, make_server


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[SiteServer, Path]]:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>")
    (tmp_path / "wasm").mkdir()
    wasm = b"\0asm" + bytes(2000)
    (tmp_path / "wasm" / "core.wasm").write_bytes(wasm)
    (tmp_path / "wasm" / "core.wasm.gz").write_bytes(gzip.compress(wasm))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.js").write_text("export {};\n")
    (tmp_path / "model.onnx").write_bytes(b"onnx")
    (tmp_path / ".popucom-web-build").touch()
    server = make_server(tmp_path, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, tmp_path
    finally:
        server.shutdown()
        server.server_close()


def fetch(url: str, encoding: str | None = None) -> tuple[int, Message, bytes]:
    """(status, headers (case-insensitive), body)."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, b""


def test_the_server_isolates_the_page_and_names_the_types(site: tuple[SiteServer, Path]) -> None:
    server, _ = site
    assert server.url.startswith("http://127.0.0.1:")
    for path, kind in (
        ("", "text/html"),
        ("src/main.js", "text/javascript"),
        ("model.onnx", "application/octet-stream"),
    ):
        status, headers, _ = fetch(server.url + path)
        assert status == 200 and headers["Content-Type"].startswith(kind), path
        assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
        assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"


def test_the_server_sends_a_precompressed_twin_only_when_accepted(site: tuple[SiteServer, Path]) -> None:
    server, folder = site
    plain = (folder / "wasm" / "core.wasm").read_bytes()
    status, headers, body = fetch(server.url + "wasm/core.wasm", "br, gzip")
    assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Content-Type"] == "application/wasm"
    assert gzip.decompress(body) == plain
    status, headers, body = fetch(server.url + "wasm/core.wasm", "gzip;q=0")
    assert "Content-Encoding" not in headers and body == plain


def test_the_server_hides_dot_files(site: tuple[SiteServer, Path]) -> None:
    server, _ = site
    assert fetch(server.url + ".popucom-web-build")[0] == 404


def test_serving_a_folder_without_a_site_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["web", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: popucom web: no built site here (no index.html): run `popucom web build` first: {tmp_path}"


def test_a_missing_tool_names_its_debian_package(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(toolchain.shutil, "which", lambda command: None if command == "emcc" else f"/usr/bin/{command}")
    assert cli.main(["web", "build", "--out", str(tmp_path / "dist")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "install the Debian package emscripten" in err
    assert not (tmp_path / "dist").exists()
