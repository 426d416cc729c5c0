"""The system tools `popucom web build` runs, found before any work starts so that a missing
one is one clear line naming the Debian package that provides it."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path


class MissingToolError(RuntimeError):
    """A tool the web build needs is not installed; the message names its package."""


@dataclass(frozen=True)
class Tool:
    command: str
    package: str  # the Debian package that installs it
    purpose: str


TOOLS = (
    Tool("emcc", "emscripten", "compiles the C++ rules and search to WebAssembly"),
    Tool("node", "nodejs", "runs emscripten's JavaScript tools and compresses the site"),
    Tool("npm", "npm", "installs onnxruntime-web, the network's runtime in the page"),
)

# Where Debian installs node modules such as acorn (node-acorn).
SYSTEM_NODE_FOLDERS = (Path("/usr/share/nodejs"), Path("/usr/lib/nodejs"), Path("/usr/local/lib/node_modules"))


@dataclass(frozen=True)
class Toolchain:
    emcc: str
    node: str
    npm: str
    env: dict[str, str]  # the environment to run them in (NODE_PATH set for emscripten's acorn)


def _install_hint(tool: Tool) -> str:
    return (
        f"{tool.command} not found ({tool.purpose}): "
        f"install the Debian package {tool.package} (sudo apt-get install {tool.package})"
    )


def _acorn_folder(emcc: str) -> Path | None:
    """A folder holding the acorn module emscripten's optimizer imports: emsdk ships it beside
    emcc (node_modules), Debian's package needs node-acorn."""
    bundled = Path(emcc).resolve().parent / "node_modules"
    if (bundled / "acorn").is_dir():
        return bundled
    for folder in SYSTEM_NODE_FOLDERS:
        if (folder / "acorn").is_dir():
            return folder
    return None


def find_toolchain() -> Toolchain:
    """The tools, or MissingToolError naming the first missing package."""
    found = {}
    for tool in TOOLS:
        path = shutil.which(tool.command)
        if path is None:
            raise MissingToolError(_install_hint(tool))
        found[tool.command] = path
    acorn = _acorn_folder(found["emcc"])
    if acorn is None:
        raise MissingToolError(
            "emscripten's JavaScript optimizer needs the acorn module: install the Debian package node-acorn "
            "(sudo apt-get install node-acorn)"
        )
    env = dict(os.environ)
    node_path = [p for p in env.get("NODE_PATH", "").split(os.pathsep) if p]
    if str(acorn) not in node_path:
        env["NODE_PATH"] = os.pathsep.join([*node_path, str(acorn)])
    return Toolchain(found["emcc"], found["node"], found["npm"], env)
