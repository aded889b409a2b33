#!/usr/bin/env bash
# GPU smoke checks for the two baselines, one line per check. Run on a CUDA machine:
#   bash scripts/gpu_check.sh            (about 5-8 minutes on one H100/H200)
# It never runs in CI (no GPU there); record what it prints in the README / issue notes.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
echo "gpu_check: $($PY -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "NO CUDA")')"
status=0
run() {
  local name=$1; shift
  local t0=$SECONDS
  if out=$(timeout 240 "$@" 2>&1); then
    echo "$out" | sed "s/^/[$name] /"
    echo "[$name] done in $((SECONDS - t0)) s"
  else
    echo "$out" | tail -5 | sed "s/^/[$name] /"
    echo "[$name] FAILED (exit $?) after $((SECONDS - t0)) s"
    status=1
  fi
}
run ctv-smoke "$PY" -m agrieval.baselines.ctv._smoke --device cuda
run plantclef-smoke "$PY" -m agrieval.baselines.plantclef._smoke --device cuda
run bench-train "$PY" benchmarks/bench_train.py --device cuda
run bench-tiling "$PY" benchmarks/bench_tiling.py --device cuda
exit $status
