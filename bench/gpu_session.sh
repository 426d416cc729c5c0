#!/usr/bin/env bash
# One call on a lent GPU machine (../.library/device): that machine has its own python3 with
# CUDA torch and onnxruntime and no network, so nothing comes from a registry. Within BUDGET_S
# seconds it builds the package, runs the GPU tests, times self-play on the GPU
# (bench/selfplay.py) and the training step eager against compiled (bench/train_step.py),
# continues a shipped model's run with GPU self-play and training (popucom pipeline
# --resume-from ... --stop-after) and ships the newest model of that run.
# What is worth keeping lands in $OUT: the log, the bench line, the shipped files and the
# run's records (config, metrics, stage records, game records; no training shards).
#
#   OUT=/tmp/gpu bash bench/gpu_session.sh            # on the GPU machine
#   DEVICE=cpu SKIP_BUILD=1 BUDGET_S=300 GAMES=100 CONCURRENT=100 bash bench/gpu_session.sh   # a dry run here
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/popucom-gpu}
BUDGET_S=${BUDGET_S:-565}
DEVICE=${DEVICE:-cuda}
# Continues the newest shipped model and ships the result as the next version.
NEWEST=$(ls weights/popucom-small-v*.pt | sort -V | tail -1)
RESUME=${RESUME:-$NEWEST}
NEXT=$(basename "$NEWEST" .pt | sed 's/.*-v//')
NAME=${NAME:-popucom-small-v$((NEXT + 1))}
RUN=${RUN:-/tmp/popucom-gpu-run}
CORES=$(nproc)
SEARCH_THREADS=${SEARCH_THREADS:-$((CORES > 4 ? CORES - 2 : 1))}
CONCURRENT=${CONCURRENT:-1024}
GAMES=${GAMES:-3000}
PY=${PY:-python3}
START=$SECONDS
mkdir -p "$OUT"
exec > >(tee "$OUT/session.log") 2>&1
export PYTHONUNBUFFERED=1 CMAKE_BUILD_PARALLEL_LEVEL=$CORES
say() { echo "[$((SECONDS - START)) s] $*"; }
left() { echo $((BUDGET_S - (SECONDS - START))); }
# faulthandler: a crash in native code prints the Python stack.
POPUCOM=("$PY" -X faulthandler -c "import sys; from popucom.cli import main; sys.exit(main())")

say "machine: $CORES cores; $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1)"
$PY -c "import torch, onnxruntime as ort, pybind11; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(),
'| onnxruntime', ort.__version__, ort.get_available_providers(), '| pybind11', pybind11.__version__)"

if [ -z "${SKIP_BUILD:-}" ]; then
  say "build"
  $PY -m pip install --no-build-isolation --no-deps --no-compile -q -e . >"$OUT/build.log" 2>&1 \
    || { tail -40 "$OUT/build.log"; exit 1; }
fi

say "GPU tests"
timeout 150 $PY -m pytest -q -p no:cacheprovider tests/infer/test_gpu.py -rs 2>&1 | tail -6

say "self-play benchmark"
timeout 90 $PY bench/selfplay.py --preset small --device "$DEVICE" --backends torch --threads 2 \
  --games "$CONCURRENT" --concurrent "$CONCURRENT" --leaves-per-game 2 --search-threads "$SEARCH_THREADS" \
  | grep '^{' | tee "$OUT/selfplay_gpu.jsonl"

# Compiled against eager training steps; the compile it pays also fills torch's cache for the run.
say "training-step benchmark"
timeout 240 $PY bench/train_step.py --preset small --batch 128 --threads 2 --device "$DEVICE" --repeats 8 \
  | grep '^{' | tee "$OUT/train_step_gpu.jsonl"

# The run stops before an iteration that would end past the deadline (a minute is kept for
# shipping and packing); the hard timeout is the fallback, and loses only the iteration in flight.
minutes=$(( ($(left) - 60) / 60 ))
say "pipeline: $RESUME continued for up to $minutes minutes on $DEVICE"
timeout -s INT -k 15 $(( $(left) - 40 )) "${POPUCOM[@]}" pipeline --run-dir "$RUN" --resume-from "$RESUME" \
  --device "$DEVICE" --threads 2 --concurrent-games "$CONCURRENT" --search-threads "$SEARCH_THREADS" \
  --games-per-iteration "$GAMES" --ladder-every 1000 --stop-after "$minutes" --quiet

latest=$($PY -X faulthandler -c "from popucom.pipeline.run_dir import RunDir; print(RunDir('$RUN').latest_model())")
say "shipping iteration ${latest:-?} as $NAME"
if [ "${latest:-0}" -gt 0 ]; then
  "${POPUCOM[@]}" ship --run-dir "$RUN" --iteration "$latest" --name "$NAME" --weights-dir "$OUT/weights"
fi
(cd "$RUN" && tar czf "$OUT/run-records.tgz" config.json metrics.jsonl komi_stats.json origin.json stages eval \
  checkpoints/*.train.json selfplay/*.games.jsonl)
ls -l "$OUT" "$OUT/weights" 2>&1
say "done"
