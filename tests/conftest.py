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


@pytest.fixture
def hostile_model_files(tmp_path, bad_exported_models):
    """Model files a user might open (downloaded, damaged, renamed, crafted), made from a good
    exported model and a good checkpoint of the same network: hostile_model_files(good_onnx,
    good_checkpoint) -> [(path, family)]. Every loader must refuse each with a ValueError (or
    FileNotFoundError) naming the file, never another exception, a hang or a crash."""
    import pickle
    import random

    import onnx
    import torch

    from popucom.nn.checkpoint_file import payload_sha256, read_checkpoint, write_checkpoint

    out = tmp_path / "hostile"
    out.mkdir()
    files: list[tuple] = []

    def add(name: str, data: bytes, family: str) -> None:
        (out / name).write_bytes(data)
        files.append((out / name, family))

    def add_checkpoint(name: str, state: dict, family: str) -> None:
        files.append((write_checkpoint(out / name, state), family))

    def make(good_onnx, good_checkpoint) -> list[tuple]:
        onnx_bytes, pt_bytes = good_onnx.read_bytes(), good_checkpoint.read_bytes()
        rng = random.Random(77)
        suffixes = (".onnx", ".pt", ".pth")
        for suffix in suffixes:
            add(f"empty{suffix}", b"", "zero bytes")
            add(f"zeros{suffix}", bytes(4096), "zero bytes")
            add(f"text{suffix}", b"this is not a model\n" * 20, "text")
            for seed in range(3):
                add(f"random{seed}{suffix}", rng.randbytes(rng.choice([7, 1000, 100_000])), "random bytes")
        for cut in (1, 16, len(onnx_bytes) // 3, len(onnx_bytes) - 7):
            add(f"truncated_{cut}.onnx", onnx_bytes[:cut], "truncated")
        for cut in (1, 64, len(pt_bytes) // 2, len(pt_bytes) - 30):
            add(f"truncated_{cut}.pt", pt_bytes[:cut], "truncated")
        add("bad_magic.onnx", b"\xff\xfe\xfd\xfc" + onnx_bytes[4:], "wrong magic")
        add("bad_magic.pt", b"PK\x05\x06" + pt_bytes[4:], "wrong magic")
        add("checkpoint_renamed.onnx", pt_bytes, "renamed")
        add("onnx_renamed.pt", onnx_bytes, "renamed")
        add("onnx_renamed.pth", onnx_bytes, "renamed")
        add("json.onnx", b'{"popucom_format": "popucom-onnx"}', "text")
        add("zip.onnx", _zip({"model.onnx": onnx_bytes}), "archive")
        add("zip.pt", _zip({"a.txt": b"hello"}), "archive")
        (out / "folder.onnx").mkdir()
        files.append((out / "folder.onnx", "directory"))
        files.append((out / "missing.pt", "missing"))
        # Exported models that parse but are not ours, or not this build's (tests/conftest's
        # bad_exported_models: metadata, external data, fixed batch, float64 input, ...).
        for path, _, _ in bad_exported_models(good_onnx):
            files.append((path, "exported model"))
        identity = onnx.helper.make_model(
            onnx.helper.make_graph(
                [onnx.helper.make_node("Identity", ["x"], ["y"])],
                "foreign",
                [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
                [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
            )
        )
        add("foreign.onnx", identity.SerializeToString(), "exported model")
        broken = onnx.load_from_string(onnx_bytes)
        broken.graph.node[len(broken.graph.node) // 2].op_type = "NoSuchOperator"
        add("unknown_op.onnx", broken.SerializeToString(), "broken graph")
        cut_graph = onnx.load_from_string(onnx_bytes)
        del cut_graph.graph.node[len(cut_graph.graph.node) // 2]
        add("missing_node.onnx", cut_graph.SerializeToString(), "broken graph")
        no_weights = onnx.load_from_string(onnx_bytes)
        biggest = max(no_weights.graph.initializer, key=lambda t: len(t.raw_data))
        biggest.ClearField("raw_data")
        add("no_weights.onnx", no_weights.SerializeToString(), "broken graph")
        huge_dims = onnx.load_from_string(onnx_bytes)
        biggest = max(huge_dims.graph.initializer, key=lambda t: len(t.raw_data))
        biggest.dims[:] = [1 << 20, 1 << 20]
        add("huge_initializer.onnx", huge_dims.SerializeToString(), "broken graph")
        # Checkpoints: unsafe, damaged or crafted, most with a valid sha256.
        add("pickle.pt", pickle.dumps({"format": "popucom-checkpoint", "model": {}}), "unsafe pickle")
        evil = {"meta": "{}", "sha256": "0", "tensors": {"w": _Evil(str(out / "pwned"))}}
        add("evil.pt", _torch_bytes(evil), "unsafe pickle")
        add("legacy.pt", _torch_bytes({"meta": "{}", "sha256": "0", "tensors": {}}, zip_format=False), "legacy")
        add("version1.pt", _torch_bytes({"format": "popucom-checkpoint", "version": 1}), "old version")
        add("deflated.pt", _deflated(pt_bytes), "zip bomb")
        meta = "[" * 100_000 + "]" * 100_000
        add(
            "nested_meta.pt", _torch_bytes({"meta": meta, "sha256": payload_sha256(meta, {}), "tensors": {}}), "nesting"
        )
        add("bad_sha.pt", _torch_bytes({"meta": "{}", "sha256": "0" * 64, "tensors": {}}), "checksum")
        state = {k: v for k, v in read_checkpoint(good_checkpoint).items() if k not in ("format", "version")}
        config = state["model_config"]
        crafted = {
            "huge_width.pt": {"d_model": 65536, "heads": 2},
            "huge_depth.pt": {"layers": 1_000_000},
            "huge_in_bounds.pt": {"d_model": 2048, "layers": 64, "heads": 16, "mlp_ratio": 16},
            "wrong_width.pt": {"d_model": 64},
            "wrong_depth.pt": {"layers": config["layers"] + 1},
            "negative.pt": {"layers": -1},
            "zero_heads.pt": {"heads": 0},
            "bool_width.pt": {"d_model": True},
            "text_width.pt": {"d_model": "32"},
            "float_width.pt": {"d_model": 32.5},
            "nan_scale.pt": {"layer_scale_init": float("nan")},
            "inf_theta.pt": {"pope_theta_max": float("inf")},
            "unknown_key.pt": {"surprise": 1},
            "future_features.pt": {"feature_version": 999},
            "few_planes.pt": {"input_planes": 3},
            "mhc_one_stream.pt": {"mhc": True, "mhc_streams": 1},
            "bad_loss_weights.pt": {"loss_weights": {"policy": float("-inf")}},
            "loss_weights_text.pt": {"loss_weights": "heavy"},
        }
        for name, changes in crafted.items():
            add_checkpoint(name, {**state, "model_config": {**config, **changes}}, "crafted config")
        tensors = state["model"]
        first = sorted(tensors)[0]
        reshaped = {**tensors, first: torch.zeros(tensors[first].numel() + 1)}
        add_checkpoint("wrong_shape.pt", {**state, "model": reshaped}, "wrong shapes")
        add_checkpoint(
            "wrong_dtype.pt", {**state, "model": {**tensors, first: tensors[first].double()}}, "wrong shapes"
        )
        add_checkpoint(
            "missing_tensor.pt", {**state, "model": {k: v for k, v in tensors.items() if k != first}}, "wrong shapes"
        )
        add_checkpoint("extra_tensor.pt", {**state, "model": {**tensors, "extra": torch.zeros(3)}}, "wrong shapes")
        add_checkpoint("model_not_tensors.pt", {**state, "model": {k: 1.0 for k in tensors}}, "wrong shapes")
        add_checkpoint("no_model.pt", {k: v for k, v in state.items() if k != "model"}, "incomplete")
        add_checkpoint("no_config.pt", {k: v for k, v in state.items() if k != "model_config"}, "incomplete")
        add_checkpoint("config_list.pt", {**state, "model_config": [1, 2]}, "incomplete")
        return files

    return make


class _Evil:
    """Unpickling this runs a shell command that leaves `marker`: what a hostile checkpoint carries."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        import os

        return os.system, (f"touch {self.marker}",)


def _zip(entries: dict, compression: int = 0) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _deflated(raw: bytes) -> bytes:
    """A torch zip with every entry deflated: the same contents, far fewer bytes."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return _zip({info.filename: archive.read(info.filename) for info in archive.infolist()}, zipfile.ZIP_DEFLATED)


def _torch_bytes(obj, zip_format: bool = True) -> bytes:
    import io

    import torch

    buffer = io.BytesIO()
    torch.save(obj, buffer, _use_new_zipfile_serialization=zip_format)
    return buffer.getvalue()
