#!/usr/bin/env bash
# GPU tests in two timed parts (device machine, carry=[".whl"]): everything but the sparse cost-scaling GPU file,
# then that file verbosely; a test that runs past FAULT_S seconds dumps its stack (faulthandler) so a hang is named.
set -uo pipefail
OUT="${OUT:-$PWD/gpu-round-out}"; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/numpy-*.whl || exit 2
export PYTHONPATH="/tmp/site:$PWD/src" PYTHONUNBUFFERED=1
F="-o faulthandler_timeout=${FAULT_S:-90} -p no:cacheprovider -m gpu"
timeout "${PART1_S:-330}" python3 -m pytest -q $F --durations=8 tests/ --deselect tests/assignment/test_cost_scaling_gpu.py \
    ${PART1_ARGS:-} 2>&1 | tee "$OUT/pytest-gpu-part1.log" | tail -n 40
timeout "${PART2_S:-200}" python3 -m pytest -v $F tests/assignment/test_cost_scaling_gpu.py 2>&1 \
    | tee "$OUT/pytest-gpu-cost-scaling.log" | tail -n 60
