"""The README's set-up says how to resume a stopped pipeline without rebuilding the package, and
which reinstall is incremental (an isolated `pip install .` compiles everything again: its
pybind11 lies in a new temporary folder each time, so every compile command changes)."""

from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def setup_section() -> str:
    text = README.read_text()
    return text[text.index("## Set-up") : text.index("## Play")]


def test_the_readme_resumes_with_popucom_pipeline_alone() -> None:
    setup = setup_section()
    assert "`popucom pipeline` alone resumes" in setup
    assert "Ctrl-C and rerun" not in setup  # the whole line: a 2.5-minute rebuild before the resume


def test_the_readme_names_the_incremental_reinstall() -> None:
    setup = setup_section()
    assert "pip install --no-build-isolation ." in setup
    assert "makes it incremental" not in setup  # not true of an isolated build
