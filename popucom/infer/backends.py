"""The names of the inference backends, as a config, `--backend` and load_evaluator take them.
Apart from the factory that builds them (factory.py) so that a run's config can be checked
without loading numpy or a runtime."""

from __future__ import annotations

BACKENDS = ("auto", "native", "openvino", "onnx", "torch", "trt")
EXPORTED_BACKENDS = ("onnx", "openvino", "trt")  # the backends that run an exported model
CHECKPOINT_BACKENDS = ("native", "torch")  # the backends that run a training checkpoint
