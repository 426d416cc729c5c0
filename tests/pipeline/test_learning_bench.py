"""popucom.experiments.learning's --model KEY=VALUE: architecture ablations at equal budget."""

import dataclasses

import pytest

from popucom.experiments import learning
from popucom.nn import PopucomNet
from popucom.pipeline.config import pipeline_preset


def test_model_overrides_are_typed_and_reach_the_network() -> None:
    overrides = learning.model_overrides(["mhc=true", "mhc_streams=2", "layer_scale_init=0.5", "attn_res=False"])
    assert overrides == {"mhc": True, "mhc_streams": 2, "layer_scale_init": 0.5, "attn_res": False}
    model = dataclasses.replace(pipeline_preset("cpu").model, **overrides)
    config = pipeline_preset("cpu", model=model)
    assert config.model.mhc and config.model.d_model == pipeline_preset("cpu").model.d_model
    net = PopucomNet(config.model)
    assert any("hyper" in type(m).__name__.lower() for m in net.modules())
    bad = {
        "mhc": "want KEY=VALUE",
        "colour=red": "want KEY=VALUE with KEY one of",
        "loss_weights=1": "want KEY=VALUE",  # not a plain number
        "mhc=yes": "'yes' is not a bool",
        "layers=2.5": "'2.5' is not a int",
    }
    for item, message in bad.items():
        with pytest.raises(ValueError, match=message):
            learning.model_overrides([item])
