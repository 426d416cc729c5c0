"""Hostile files opened in the GUI: each model file of tests/conftest.py's hostile_model_files
and each bad game record is refused through the function the window's open uses, with a
ValueError (or FileNotFoundError) naming the file, and the window keeps its opponent and game."""

import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from popucom.gui.ai import make_opponent
from popucom.infer import load_evaluator
from popucom.infer.choice import Machine
from popucom.nn import preset
from popucom.nn.export import export_onnx
from popucom.train import Trainer


@pytest.fixture(scope="module")
def good_models(tmp_path_factory):
    """An exported model and a checkpoint of the same tiny network, in a folder of their own."""
    folder = tmp_path_factory.mktemp("good")
    trainer = Trainer(preset("tiny"))
    checkpoint = trainer.save(folder / "tiny.pt")
    return export_onnx(trainer.model.eval(), folder / "tiny.onnx"), checkpoint


def refusal(load, path) -> str | None:
    """None when `load(path)` raises a ValueError or FileNotFoundError naming the file; else what
    went wrong instead."""
    try:
        load(path)
    except (ValueError, FileNotFoundError) as e:
        return None if path.name in str(e) else f"{type(e).__name__} without the file's name: {e}"
    except BaseException as e:  # noqa: BLE001 - this is what the test looks for
        return f"{type(e).__name__}: {str(e)[:200]}"
    return "loaded"


# What `auto` meets on other machines: no openvino (exported models run on ONNX Runtime), and a
# CPU without AVX-512 (checkpoints run on the native forward's AVX2 kernels).
MACHINES = {
    "here": None,
    "no_openvino": Machine(cpu_level="avx2", openvino=False),
    "avx2": Machine(cpu_level="avx2", openvino=True),
}


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_every_hostile_model_file_is_a_clear_error(good_models, hostile_model_files, monkeypatch, machine) -> None:
    if MACHINES[machine] is not None:
        monkeypatch.setattr(Machine, "here", classmethod(lambda cls: MACHINES[machine]))
    files = hostile_model_files(*good_models)
    assert len(files) >= 70 and len({family for _, family in files}) >= 15
    loaders = {
        "gui": lambda path: make_opponent(str(path)),  # the window's open (MainWindow.set_opponent)
        "onnx": lambda path: load_evaluator(path, backend="onnx"),
    }
    failures = []
    for path, family in files:
        for name, load in loaders.items():
            if name != "gui" and path.suffix != ".onnx":
                continue
            started = time.perf_counter()
            problem = refusal(load, path)
            if problem is None and time.perf_counter() - started > 10:
                problem = f"took {time.perf_counter() - started:.0f} s"
            if problem:
                failures.append(f"{name} {path.name} ({family}): {problem}")
    assert not failures, f"{len(failures)} of {len(files)} files:\n" + "\n".join(failures)
    assert not (files[0][0].parent / "pwned").exists()  # no pickled code ran


def test_the_window_refuses_them_and_keeps_its_game(qtbot, make_window, good_models, hostile_model_files) -> None:
    window = make_window("greedy", mode="human-human")
    window.tree.play("e5")
    for path, _ in hostile_model_files(*good_models)[::5]:
        assert not window.set_opponent(str(path)), path.name
        assert path.name in window.last_message and window.bridge.opponent.spec == "greedy"
    assert window.tree.position.ply == 1


HOSTILE_RECORDS = {
    "inf.sgf": "(;GM[81]KM[inf];B[e5])",
    "huge.sgf": "(;GM[81]KM[1e30])",
    "far.sgf": "(;GM[81]KM[200])",
    "nested.sgf": "(;GM[81]" + "(;" * 3000 + ")" * 3000 + ")",
    "za.sgf": "(;GM[81];B[e5]ZA[1:nan:0])",
    "inf.jsonl": '{"moves": "e5", "komi": Infinity}\n',
    "nested.jsonl": "[" * 3000 + "]" * 3000 + "\n",
    "bytes.sgf": b"\xff\xfe(;GM[81])",
}


def test_hostile_game_records_are_a_message_never_a_crash(qtbot, make_window, tmp_path) -> None:
    window = make_window("greedy", mode="human-human")
    window.tree.play("e5")
    for name, content in HOSTILE_RECORDS.items():
        path = tmp_path / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        assert not window.open_path(path), name
        assert window.last_message.startswith(f"Cannot open {name}"), window.last_message
    assert window.tree.position.ply == 1


@pytest.mark.parametrize("beside", ["unknown_op.onnx", "fixed_batch.onnx", "random0.onnx", "checkpoint_renamed.onnx"])
def test_a_hostile_model_beside_a_good_checkpoint_is_passed_over(
    good_models, hostile_model_files, monkeypatch, tmp_path, beside
) -> None:
    # On a machine where auto would take OpenVINO on NAME.onnx beside NAME.pt, a bad one is never
    # the one that serves (the native forward or torch does).
    monkeypatch.setattr(Machine, "here", classmethod(lambda cls: MACHINES["avx2"]))
    files = dict((path.name, path) for path, _ in hostile_model_files(*good_models))
    checkpoint = tmp_path / "paired.pt"
    checkpoint.write_bytes(good_models[1].read_bytes())
    (tmp_path / "paired.onnx").write_bytes(files[beside].read_bytes())
    assert make_opponent(str(checkpoint)).model_description.startswith(("native", "torch"))
