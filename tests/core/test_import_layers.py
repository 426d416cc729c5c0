"""The package's import graph (docs/architecture.md), as import-linter contracts in
pyproject.toml: no import cycle between the parts of any package, and the playing side
(engine, GUI, search, inference) never reaches the training stack, and nothing but the command
line imports the experiments. grimp reads the graph from the source, function-level (lazy)
imports included."""

from pathlib import Path

import pytest
from importlinter import configuration
from importlinter.application import use_cases

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
CONTRACTS = {
    "no import cycle between the parts of a package",
    "the playing side never reaches the training stack",
    "experiments sit on top: nothing but each other and the command line imports them",
}


def test_the_import_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    configuration.configure()
    options = use_cases.read_user_options(str(PYPROJECT))
    assert CONTRACTS <= {contract["name"] for contract in options.contracts_options}
    kept = use_cases.lint_imports(config_filename=str(PYPROJECT), cache_dir=None, no_logo=True)
    report = capsys.readouterr().out
    assert kept, report
    assert f"Contracts: {len(options.contracts_options)} kept, 0 broken." in report
