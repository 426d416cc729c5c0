"""popucom/_core.pyi is pybind11-stubgen's output for the built core (popucom/core_stub.py), so
the stub says what the bindings do: a binding added, renamed or re-typed without regenerating it
fails here."""

import difflib

import pytest

from popucom import core_stub


def test_the_stub_is_the_generated_one() -> None:
    committed = core_stub.STUB_PATH.read_text()
    first_line = committed.splitlines()[0]
    if core_stub.generator_versions() not in first_line:
        # Another pybind11 or stubgen spells the same signatures differently; the stub is
        # regenerated with the pinned ones (pyproject's [dev], the pybind11 of the build).
        pytest.skip(f"stub made by other tool versions ({first_line}), here {core_stub.generator_versions()}")
    generated = core_stub.generate()
    lines = committed.splitlines(True), generated.splitlines(True)
    diff = "".join(difflib.unified_diff(*lines, "committed", "generated"))
    assert not diff, f"popucom/_core.pyi is stale: rebuild, then run `python -m popucom.core_stub`\n{diff[:4000]}"


def test_machine_dependent_values_are_left_out() -> None:
    text = core_stub.STUB_PATH.read_text()
    assert "BUILD_INFO: dict[str, str | bool]\n" in text
    assert "'compiler'" not in text and "baseline_only" not in text
