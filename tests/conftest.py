"""Fixtures shared by the suite. The tests mirror the package layout (tests/search for
popucom/search, ...); tests/core holds the bindings, CLI, file and native-suite tests and
tests/game the rules tests with their pure-Python twin."""

import os

import pytest

# Exactness tests compare the torch evaluator with fp32 references at 1e-5; on a CPU with bf16
# arithmetic its default (auto) would narrow the matrix products. tests/infer/test_precision.py
# chooses the precision explicitly.
os.environ["POPUCOM_CPU_MATMUL"] = "fp32"


@pytest.fixture(scope="session")
def bot_shards(tmp_path_factory: pytest.TempPathFactory):
    """A small fixed dataset: 60 games of uct:64 self-play in 3 shards."""
    from popucom.data.bot_games import write_bot_games

    out = tmp_path_factory.mktemp("bot_shards")
    write_bot_games(out, games=60, spec="uct:64", games_per_shard=20, seed=1)
    return out


@pytest.fixture
def bad_exported_models(tmp_path):
    """The exported models every runtime that reads one must refuse, made from a good one:
    bad_exported_models(good) -> [(path, exception type, message pattern)]. The ONNX Runtime and
    OpenVINO backends are both held to them (popucom.infer.exported_model)."""
    import onnx

    import popucom

    def make(good) -> list[tuple]:
        model = onnx.load(str(good))
        for entry in model.metadata_props:
            if entry.key == "feature_version":
                entry.value = "999"
        onnx.save(model, str(tmp_path / "future.onnx"))
        del model.metadata_props[:]
        onnx.save(model, str(tmp_path / "anonymous.onnx"))
        (tmp_path / "corrupt.onnx").write_bytes(b"\x00garbage" * 10)
        renamed = onnx.load(str(good))
        renamed.graph.output[1].name = "value"  # the metadata still names wdl
        for node in renamed.graph.node:
            node.output[:] = ["value" if name == "wdl" else name for name in node.output]
        onnx.save(renamed, str(tmp_path / "renamed_output.onnx"))
        # Its largest tensor stored "outside the file", at a path that would leave the folder.
        external = onnx.load(str(good))
        weights = max(external.graph.initializer, key=lambda t: len(t.raw_data))
        weights.data_location = onnx.TensorProto.EXTERNAL
        entry = weights.external_data.add()
        entry.key, entry.value = "location", "../../../../etc/passwd"
        weights.ClearField("raw_data")
        (tmp_path / "ext.onnx").write_bytes(external.SerializeToString())
        # Batch 1 fixed in the graph's signature: passes the metadata, then any batch > 1 fails.
        fixed = onnx.load(str(good))
        for value in (*fixed.graph.input, *fixed.graph.output):
            batch = value.type.tensor_type.shape.dim[0]
            batch.ClearField("dim_param")
            batch.dim_value = 1
        onnx.save(fixed, str(tmp_path / "fixed_batch.onnx"))
        # The input declared float64 (cast to float32 inside, so the graph itself is valid).
        double = onnx.load(str(good))
        double.graph.input[0].type.tensor_type.elem_type = onnx.TensorProto.DOUBLE
        for node in double.graph.node:
            node.input[:] = ["features_f32" if name == "features" else name for name in node.input]
        cast = onnx.helper.make_node("Cast", ["features"], ["features_f32"], to=onnx.TensorProto.FLOAT)
        double.graph.node.insert(0, cast)
        onnx.save(double, str(tmp_path / "double_input.onnx"))
        assert popucom.FEATURE_VERSION != 999
        return [
            (tmp_path / "future.onnx", ValueError, "feature version 999"),
            (tmp_path / "anonymous.onnx", ValueError, "not a popucom model"),
            (tmp_path / "corrupt.onnx", ValueError, "not a readable ONNX model"),
            (tmp_path / "renamed_output.onnx", ValueError, "outputs .name: shape per position. are"),
            (tmp_path / "missing.onnx", FileNotFoundError, "no model at"),
            (tmp_path / "ext.onnx", ValueError, "ext.onnx: External data: tensor"),  # before any runtime reads it
            (tmp_path / "fixed_batch.onnx", ValueError, "fixed_batch.onnx: input 'features' has a fixed batch of 1"),
            (
                tmp_path / "double_input.onnx",
                ValueError,
                "double_input.onnx: input 'features' is float64, expected float32",
            ),
        ]

    return make
