"""The torch evaluator's CPU batching: chunks, and self-play batches on worker threads."""

import numpy as np
import torch

from popucom.data.positions import random_features
from popucom.infer.torch_backend import PARALLEL_MIN_BATCH, TorchEvaluator
from popucom.nn import PopucomNet, preset


def test_worker_threads_give_the_outputs_of_one_call_and_restore_torch_threads() -> None:
    previous = torch.get_num_threads()
    try:
        torch.manual_seed(0)
        net = PopucomNet(preset("tiny")).eval()
        x = random_features(PARALLEL_MIN_BATCH + 37, seed=2)
        parallel = TorchEvaluator(net, threads=2)  # the torch path's own workers
        assert parallel.workers is not None and "workers" in parallel.describe()
        got = parallel.run_all(x)
        assert torch.get_num_threads() == 2  # the budget is back for whatever runs next (training)
        assert TorchEvaluator(net, threads=2).workers is parallel.workers  # no new threads per evaluator
        serial = TorchEvaluator(net, threads=1)
        assert serial.workers is None
        want = serial.run_all(x)
        assert got.keys() == want.keys()
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-5)
        small = random_features(5, seed=3)  # below PARALLEL_MIN_BATCH: one call on torch's threads
        np.testing.assert_allclose(
            parallel.run_all(small)["policy_logits"], serial.run_all(small)["policy_logits"], atol=1e-5
        )
    finally:
        torch.set_num_threads(previous)
