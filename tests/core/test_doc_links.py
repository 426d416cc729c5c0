"""Every relative link in the documents leads to a file of this repository, and every section
anchor to a heading of that file: a clone must hold everything its documents point at (the
rules among them, docs/rules.md)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#+\s+(.*?)\s*$", re.MULTILINE)


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "weights").rglob("*.md"))]


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def broken_links(document: Path) -> list[str]:
    broken = []
    for target in LINK.findall(document.read_text()):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue  # a web address
        path, _, section = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if ROOT not in linked.parents or not linked.exists():
            broken.append(f"{target} (no such file in the repository)")
        elif section and linked.suffix == ".md":
            if section not in {anchor(h) for h in HEADING.findall(linked.read_text())}:
                broken.append(f"{target} (no such section)")
    return broken


def test_document_links_stay_inside_the_repository() -> None:
    found = [f"{doc.relative_to(ROOT)}: {link}" for doc in documents() for link in broken_links(doc)]
    assert not found, "links that a clone cannot follow:\n" + "\n".join(found)


def test_the_readme_links_the_rules() -> None:
    assert "](docs/rules.md)" in (ROOT / "README.md").read_text()
