#!/usr/bin/env bash
# The prepared GPU check, for a session that has a GPU machine lent: installs
# the CUDA extras, runs the GPU tests, then the self-play benchmark of torch
# vs TensorRT at the base preset. Everything it prints goes to $OUT when set.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/popucom-gpu}
mkdir -p "$OUT"
pip install --quiet -e '.[dev,trt]' onnxruntime-gpu 2>&1 | tail -3
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
python -m pytest -q tests/infer/test_gpu.py -rs 2>&1 | tee "$OUT/gpu_tests.txt"
python bench/selfplay.py --preset base --device cuda --backends torch trt --games 256 --concurrent 256 \
  --full-visits 200 --fast-visits 50 2>&1 | grep '^{' | tee "$OUT/selfplay_gpu.jsonl"
