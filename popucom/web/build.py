"""`popucom web build`: the browser app as a plain static site (default build/web/dist).

    dist/index.html, styles.css, src/*.js     the page (web/), sw.js at the root for its scope
    dist/wasm/popucom_core.{js,wasm}          the C++ core (popucom/web/wasm.py)
    dist/ort/                                 onnxruntime-web's files the worker loads
    dist/models/<version>.pcnet               the shipped networks the levels play, as network files
    dist/models/<version>.onnx                the strongest level's network as ONNX (onnxruntime-web)
    dist/levels.json, constants.json          generated from the package (site_data.py)
    dist/manifest.json                        every file with its size and hash, for the service worker

Each step says what it does on stdout. The tools are checked first (a missing one is one line
naming its Debian package); the core is recompiled only where its sources changed, `npm ci`
runs only when web/package-lock.json changed, and files are copied and compressed only when
they changed. Every file the server may send compressed gets a .br (node's zlib) and a .gz
beside it. Files a previous build left and this one does not make are removed, which is why
the output folder must be empty or an earlier build.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import shutil
import subprocess
import time
from collections.abc import Iterable
from errno import ENOENT
from pathlib import Path

from .toolchain import Toolchain, find_toolchain
from .wasm import build_core

REPO = Path(__file__).resolve().parent.parent.parent
WEB = REPO / "web"
CSRC = REPO / "csrc"
BUILD = REPO / "build" / "web"
DEFAULT_DIST = BUILD / "dist"
MANIFEST = "manifest.json"
MARKER = ".popucom-web-build"  # marks a folder this command writes (and may clean)
PAGE_SUFFIXES = (".html", ".css", ".svg", ".png", ".ico", ".webmanifest")  # web/'s own top-level files
SERVICE_WORKER = "sw.js"  # served from the root so that its scope is the whole site
# onnxruntime-web's wasm-only entry point and the runtime it loads (SIMD, threads when isolated).
ORT_FOLDER = "ort"
ORT_FILES = ("ort.wasm.min.mjs", "ort-wasm-simd-threaded.mjs", "ort-wasm-simd-threaded.wasm")
COMPRESSED_SUFFIXES = (".js", ".mjs", ".wasm", ".onnx", ".pcnet", ".json", ".html", ".css", ".svg")
COMPRESS_MIN_BYTES = 1024
ENCODINGS = (".br", ".gz")

# Brotli from node's zlib (no Python package needed): argv = quality, then file pairs.
BROTLI_SCRIPT = """
const zlib = require('zlib'), fs = require('fs');
const [quality, ...paths] = process.argv.slice(1);
for (let i = 0; i < paths.length; i += 2) {
  const out = zlib.brotliCompressSync(fs.readFileSync(paths[i]), {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: Number(quality),
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: fs.statSync(paths[i]).size } });
  fs.writeFileSync(paths[i + 1], out);
}
"""
BROTLI_QUALITY = 11


def say(message: str) -> None:
    print(f"web build: {message}", flush=True)


def check_output_folder(dist: Path) -> None:
    """Refuses to build into a folder that holds anything but an earlier build: stale files are
    removed. Marks the folder as a build's."""
    if dist.is_dir() and any(dist.iterdir()) and not (dist / MARKER).is_file():
        raise ValueError(f"{dist} is not empty and holds no earlier web build; give an empty or new folder")
    dist.mkdir(parents=True, exist_ok=True)
    (dist / MARKER).touch()


def copy_if_changed(source: Path, target: Path) -> Path:
    if target.is_file():
        same = target.stat().st_size == source.stat().st_size and target.stat().st_mtime >= source.stat().st_mtime
        if same:
            return target
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    return target


def install_npm_packages(tools: Toolchain) -> Path:
    """`npm ci` of web/package.json into build/web/npm (never into the source tree); returns
    its node_modules. Skipped while the lock file is the one installed."""
    lock = WEB / "package-lock.json"
    if not lock.is_file():
        raise FileNotFoundError(ENOENT, f"missing: run `npm install` in {WEB} once to create it", str(lock))
    npm_dir = BUILD / "npm"
    stamp = npm_dir / "installed-lock.sha256"
    digest = hashlib.sha256(lock.read_bytes() + (WEB / "package.json").read_bytes()).hexdigest()
    if stamp.is_file() and stamp.read_text() == digest and (npm_dir / "node_modules").is_dir():
        say("npm packages up to date")
        return npm_dir / "node_modules"
    say("npm ci (onnxruntime-web)")
    npm_dir.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(WEB / name, npm_dir / name)
    done = subprocess.run(
        [tools.npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"],
        cwd=npm_dir,
        env=tools.env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip()
        raise RuntimeError(f"npm ci failed (exit {done.returncode}); is the npm registry reachable?\n{output[-2000:]}")
    stamp.write_text(digest)
    return npm_dir / "node_modules"


def copy_page(dist: Path) -> list[Path]:
    """web/'s page files, web/src/*.js as src/, the service worker at the root."""
    if not (WEB / "src").is_dir():
        raise FileNotFoundError(ENOENT, "the page's sources are not in this checkout", str(WEB / "src"))
    made = []
    for source in sorted(WEB.iterdir()):
        if source.is_file() and source.suffix in PAGE_SUFFIXES:
            made.append(copy_if_changed(source, dist / source.name))
    for source in sorted((WEB / "src").glob("*.js")):
        target = dist / source.name if source.name == SERVICE_WORKER else dist / "src" / source.name
        made.append(copy_if_changed(source, target))
    assets = WEB / "assets"
    if assets.is_dir():
        for source in sorted(p for p in assets.rglob("*") if p.is_file()):
            made.append(copy_if_changed(source, dist / "assets" / source.relative_to(assets)))
    return made


def copy_onnxruntime(node_modules: Path, dist: Path) -> list[Path]:
    package = node_modules / "onnxruntime-web" / "dist"
    missing = [name for name in ORT_FILES if not (package / name).is_file()]
    if missing:
        raise FileNotFoundError(
            ENOENT, f"onnxruntime-web lacks {', '.join(missing)}: was its version changed?", str(package)
        )
    return [copy_if_changed(package / name, dist / ORT_FOLDER / name) for name in ORT_FILES]


def write_network_file_if_changed(checkpoint: Path, target: Path) -> Path:
    """The network file of a shipped checkpoint, written when its bytes differ from the file
    there (a new checkpoint, or a new format of the file)."""
    from ..fileio import write_bytes_atomic
    from ..nn.checkpoint import load_network
    from ..nn.native_file import network_file_bytes

    data = network_file_bytes(load_network(checkpoint))
    if not target.is_file() or target.read_bytes() != data:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_bytes_atomic(target, data)
    return target


def copy_models(dist: Path) -> list[Path]:
    """The network file of every shipped network the levels play, each once, and the
    strongest level's ONNX model for onnxruntime-web (an ONNX model of your own is served the
    same way)."""
    from ..levels import LEVELS, STRONGEST
    from .site_data import level_model

    made = []
    for model in {level_model(level) for level in LEVELS}:
        made.append(write_network_file_if_changed(model.checkpoint, dist / model.site_path))
    strongest = level_model(STRONGEST)
    onnx_path = Path(strongest.site_path).with_suffix(".onnx")
    made.append(copy_if_changed(strongest.onnx, dist / onnx_path))
    return sorted(made)


def write_if_changed(path: Path, text: str) -> Path:
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return path


def write_data(dist: Path) -> list[Path]:
    from .site_data import constants_json, levels_json

    return [
        write_if_changed(dist / "levels.json", json.dumps(levels_json(), indent=1) + "\n"),
        write_if_changed(dist / "constants.json", json.dumps(constants_json(), indent=1) + "\n"),
    ]


def write_manifest(dist: Path, files: Iterable[Path]) -> Path:
    """Every file of the site (compressed twins and the manifest itself apart): its path, size
    and the first 16 hex digits of its SHA-256, which change whenever the file does. The
    networks of the levels below the default, the ONNX model and onnxruntime-web are marked
    `precache: false`: the service worker caches each when it is first used, so a first visit
    downloads one network and no runtime it does not run."""
    from ..levels import STRONGEST
    from .site_data import MODELS_FOLDER, level_model

    default_model = level_model(STRONGEST).site_path
    entries = []
    for path in sorted(set(files)):
        data = path.read_bytes()
        site_path = path.relative_to(dist).as_posix()
        entry = {"path": site_path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()[:16]}
        model = site_path.startswith(MODELS_FOLDER + "/")
        if (model and site_path != default_model) or site_path.startswith(ORT_FOLDER + "/"):
            entry["precache"] = False
        entries.append(entry)
    version = hashlib.sha256(json.dumps(entries).encode()).hexdigest()[:16]
    return write_if_changed(dist / MANIFEST, json.dumps({"version": version, "files": entries}, indent=1) + "\n")


def compress(files: Iterable[Path], tools: Toolchain) -> list[Path]:
    """A .br and a .gz beside every compressible file, remade only when the file is newer."""
    made, brotli_pairs = [], []
    for path in files:
        if path.suffix not in COMPRESSED_SUFFIXES or path.stat().st_size < COMPRESS_MIN_BYTES:
            continue
        br, gz = path.with_name(path.name + ".br"), path.with_name(path.name + ".gz")
        made += [br, gz]
        if not gz.is_file() or gz.stat().st_mtime < path.stat().st_mtime:
            with gzip.open(gz, "wb", compresslevel=9) as out:
                out.write(path.read_bytes())
        if not br.is_file() or br.stat().st_mtime < path.stat().st_mtime:
            brotli_pairs += [str(path), str(br)]
    if brotli_pairs:
        say(f"compressing {len(brotli_pairs) // 2} files (brotli, gzip)")
        command = [tools.node, "-e", BROTLI_SCRIPT, str(BROTLI_QUALITY), *brotli_pairs]
        done = subprocess.run(command, env=tools.env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"brotli compression failed: {done.stderr.strip()[-2000:]}")
    return made


def remove_stale(dist: Path, keep: set[Path]) -> None:
    for path in sorted(dist.rglob("*"), reverse=True):
        if path.is_file() and path not in keep:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()


def build(dist: Path = DEFAULT_DIST) -> Path:
    """Builds the site into `dist`; returns it."""
    started = time.perf_counter()
    tools = find_toolchain()
    dist = dist.resolve()
    check_output_folder(dist)
    files = build_core(CSRC, BUILD / "obj", dist / "wasm", tools, say)
    node_modules = install_npm_packages(tools)
    say("copying the page, onnxruntime-web and the models")
    files += copy_page(dist) + copy_onnxruntime(node_modules, dist) + copy_models(dist)
    say("writing levels.json, constants.json")
    files += write_data(dist)
    compressed = compress(files, tools)
    manifest = write_manifest(dist, files)
    remove_stale(dist, set(files) | set(compressed) | {manifest, dist / MARKER})
    total = sum(path.stat().st_size for path in files)
    say(f"done in {time.perf_counter() - started:.1f} s: {len(files)} files, {total / 1e6:.1f} MB in {dist}")
    return dist


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, default=DEFAULT_DIST, help=f"output folder (default {DEFAULT_DIST})")
