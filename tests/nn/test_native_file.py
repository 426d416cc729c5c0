"""Network files (popucom.nn.native_file, csrc/nn/native_net_file.h): what the page's engine
loads holds the network bit for bit, and bytes that are no such file are refused by name."""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from popucom import _core
from popucom.data.positions import random_features
from popucom.nn import PopucomNet, preset
from popucom.nn.native import NativeForward
from popucom.nn.native_file import network_file_bytes, network_file_shape, write_network_file

needs_float_native = pytest.mark.skipif(
    not _core.native_net_supported(16, bf16=False), reason="this build has no kernels for heads of width 16"
)


def perturbed_tiny() -> PopucomNet:
    torch.manual_seed(9)
    net = PopucomNet(preset("tiny")).eval()
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return net


NET = perturbed_tiny()
GOOD = network_file_bytes(NET)


@needs_float_native
def test_a_network_file_computes_what_the_network_it_was_written_from_computes(tmp_path) -> None:
    path = write_network_file(NET, tmp_path / "tiny.pcnet")
    data = path.read_bytes()
    assert data == GOOD and data[:8] == _core.NATIVE_NET_MAGIC
    c = NET.config
    assert network_file_shape(data) == {
        "planes": c.input_planes, "d": c.d_model, "layers": c.layers, "heads": c.heads,
        "mlp_hidden": NET.sublayers[1].inner.up.out_features, "head_hidden": c.head_hidden,
        "legal_plane": 5, "feature_version": c.feature_version, "value_error": NET.value_error_head is not None,
    }  # fmt: skip
    x = random_features(6, seed=2).reshape(6, c.input_planes, 81)
    from_network = NativeForward(NET, bf16=False)(x)
    from_file = _core.NativeNet.from_file_bytes(data).forward(x, c.input_planes)
    assert len(from_network) == len(from_file) == 5
    for a, b in zip(from_network, from_file, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_network_the_native_forward_cannot_run_gets_no_file() -> None:
    with pytest.raises(ValueError, match="no network file for this network: it serves the attention-residual"):
        network_file_bytes(PopucomNet(preset("tiny", mhc=True)))


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"", "not a popucom network file"),
        (b"PK\x03\x04" + GOOD[4:], "not a popucom network file"),
        (GOOD[:8] + struct.pack("<I", 7) + GOOD[12:], "format version 7, this build reads 1"),
        (GOOD[:12] + struct.pack("<i", 0) + GOOD[16:], "planes is 0, outside 1..256"),
        (GOOD[:24] + struct.pack("<i", 3) + GOOD[28:], r"inconsistent shape \(width 32, 3 heads"),
        (GOOD[:-1], "cut short in value_error_bias2"),
        (GOOD + b"\0\0", "2 bytes after the last array"),
        (GOOD[:40] + struct.pack("<i", 0) + GOOD[44:], "feature_version is 0, outside 1..65535"),
        (GOOD[:60] + struct.pack("<f", math.nan) + GOOD[64:], "embed_weight holds a value that is not finite"),
    ],
)
def test_bytes_that_are_no_network_file_are_refused_by_name(data: bytes, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        _core.NativeNet.from_file_bytes(data)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_damage_is_refused_or_reads_a_network(data: st.DataObject) -> None:
    """Cut, spliced or overwritten anywhere: a ValueError (or the CPU's refusal of an odd head
    width, a RuntimeError) or a network whose outputs have the contract's shapes."""
    damaged = bytearray(GOOD)
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["cut", "overwrite", "insert"]))
        at = data.draw(st.integers(0, max(0, len(damaged) - 1)))
        if kind == "cut":
            del damaged[at:]
        elif kind == "overwrite":
            chunk = data.draw(st.binary(min_size=1, max_size=8))
            damaged[at : at + len(chunk)] = chunk
        else:
            damaged[at:at] = data.draw(st.binary(min_size=1, max_size=8))
    try:
        net = _core.NativeNet.from_file_bytes(bytes(damaged))
    except (ValueError, RuntimeError) as e:
        assert str(e).startswith(("network file:", "native net:")), e
        return
    planes = network_file_shape(bytes(damaged))["planes"]
    outputs = net.forward(np.zeros((2, planes, 81), np.float32), planes)
    assert outputs[0].shape == (2, 81) and outputs[1].shape == (2, 3)
