"""The package's import graph (docs/architecture.md): no cycle between its parts, and the
engine-side code (engine, GUI, search, inference) never reaches the training stack. Read
from the source with ast, function-level (lazy) imports included."""

import ast
from pathlib import Path

import popucom

PACKAGE = Path(popucom.__file__).parent
PLAYING_SIDE = ("engine", "gui", "search", "infer", "player_spec")
TRAINING_SIDE = ("train", "pipeline", "selfplay", "arena")


def part(module: str) -> str:
    """popucom.search.batched -> search; popucom.weights -> weights."""
    return module.split(".")[1] if module.count(".") else "popucom"


def imported_modules(path: Path, package: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            if node.module:
                found.append(".".join(base + [node.module]))
            else:  # from .. import x: x may be a module or a name of the package
                found += [".".join(base + [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("popucom"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.startswith("popucom")]
    return found


def import_graph() -> dict[str, set[str]]:
    parts = {
        p.stem if p.is_file() else p.name
        for p in PACKAGE.iterdir()
        if (p.suffix == ".py" or (p / "__init__.py").exists()) and p.stem != "__init__"
    }
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        dotted = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = dotted.removesuffix(".__init__") if path.name == "__init__.py" else dotted.rsplit(".", 1)[0]
        source = part(dotted) if path.name != "__init__.py" or package != "popucom" else "popucom"
        for target in imported_modules(path, package):
            dest = part(target)
            if dest in parts and dest != source and dest != "_core" and source != "popucom":
                graph.setdefault(source, set()).add(dest)
    return graph


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def test_the_graph_is_read_from_the_source() -> None:
    graph = import_graph()
    assert {"infer", "search"} <= graph["engine"] | reachable(graph, "engine")
    assert "train" in graph["pipeline"] and "nn" in graph["train"]


def test_no_cycle_between_the_parts_of_the_package() -> None:
    graph = import_graph()
    cycles = sorted(p for p in graph if p in reachable(graph, p))
    assert not cycles, f"parts on an import cycle: {cycles}"


def test_the_playing_side_never_reaches_the_training_stack() -> None:
    graph = import_graph()
    for start in PLAYING_SIDE:
        assert not reachable(graph, start) & set(TRAINING_SIDE), (start, sorted(reachable(graph, start)))


def test_torch_is_loaded_before_the_compiled_core() -> None:
    """Importing torch after the core crashed a GPU machine's process (popucom/__init__.py):
    whatever a program imports first, the package loads torch before popucom._core."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "order = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name in ('torch', 'popucom._core'): order.append(name)\n"
        "sys.meta_path.insert(0, Watch())\n"
        "import popucom._core\n"
        "print(order)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['torch', 'popucom._core']"
