"""The code, the scripts and the documents say what is, not how it came to be: no issue numbers,
commit hashes or work sessions (that history lives in git). Generated and data files are left out."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLACES = ["popucom", "csrc", "tests", "bench", "scripts", "docs", ".ci", "weights", "web/src", "web/test"]
SUFFIXES = {".py", ".pyi", ".h", ".cpp", ".md", ".sh", ".txt", ".toml", ".js", ".html", ""}
HISTORY = re.compile(
    r"\bissues? #?\d+|\bcommit [0-9a-f]{7,40}\b|\b(first|second|third|fourth|fifth|this|that|a work) session\b",
    re.IGNORECASE,
)
THIS_FILE = Path(__file__).resolve()


def checked_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / "CMakeLists.txt", ROOT / "web" / "index.html"]
    for place in PLACES:
        files += [p for p in (ROOT / place).rglob("*") if p.is_file() and p.suffix in SUFFIXES]
    return [p for p in files if p.resolve() != THIS_FILE and "__pycache__" not in p.parts]


def test_no_history_words() -> None:
    found = []
    for path in checked_files():
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if HISTORY.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert len(checked_files()) > 200
    assert not found, "history words (say what is; git keeps the history):\n" + "\n".join(found)
