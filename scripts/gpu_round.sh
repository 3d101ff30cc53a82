#!/usr/bin/env bash
# The whole GPU round in one device call (see docs/DEVELOPING.md).
#
#   scripts/gpu_round.sh [SECTION ...]     sections: info tests sanitize sanitize-families bench bench-big bench-paper
#                                          bench-assign bench-open bench-batch
#                                          (default: info tests sanitize bench bench-assign)
#
# Run from the repository root on the device machine, with carry=[".whl", ".devdata"].
# Everything it writes goes under $OUT (default: ./gpu-round-out): logs and result files, at most
# two folders down, as the device tool returns them.
set -uo pipefail

OUT="${OUT:-$PWD/gpu-round-out}"
mkdir -p "$OUT"
SECTIONS="${*:-info tests sanitize bench bench-assign}"
export PYTHONUNBUFFERED=1
# the real inputs: carried as .devdata (a copy of ../shared/data, which does not travel)
[[ -z "${MATCHFLOW_DATA:-}" && -f .devdata/MANIFEST.md ]] && export MATCHFLOW_DATA="$PWD/.devdata"
# numba-cuda performance warnings are silenced inside the library (matchflow._cuda.quiet), not here
status=0

section() { echo; echo "=================== $* ($(date -u +%H:%M:%S))"; }
want() { [[ " $SECTIONS " == *" $1 "* ]]; }

# ------------------------------------------------------------------ setup
# The image's NumPy 2.5 breaks numba-cuda 0.30: install the carried wheels (NumPy 2.4, lap, lapx).
section setup
if ! python3 -c 'import numpy, sys; sys.exit(0 if numpy.__version__.startswith("2.4") else 1)' 2>/dev/null; then
    wheels=(.whl/numpy-*.whl)
    for w in .whl/*.whl; do [[ "$w" != .whl/numpy-* ]] && wheels+=("$w"); done  # peers, dask (what the image lacks)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "${wheels[@]}" || { echo "wheel install failed"; exit 2; }
fi
export PYTHONPATH="/tmp/site:$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH="$PWD:$PYTHONPATH"   # for `python3 -m benchmarks...`
python3 -c 'import numpy, numba, scipy; print("numpy", numpy.__version__, "numba", numba.__version__, "scipy", scipy.__version__)'

# ------------------------------------------------------------------ info
if want info; then
    section "matchflow info"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"
    python3 -m matchflow info 2>&1 | tee "$OUT/info.txt" || python3 -c 'import matchflow; print(matchflow.info())' | tee "$OUT/info.txt"
fi

# ------------------------------------------------------------------ tests
if want tests; then
    section "GPU tests (pytest -m gpu)"
    timeout "${TEST_TIMEOUT:-1200}" python3 -m pytest -q -m gpu -p no:cacheprovider --durations=10 ${PYTEST_ARGS:-tests/} 2>&1 | tee "$OUT/pytest-gpu.log" | tail -n 40
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi

# ------------------------------------------------------------------ sanitize
# compute-sanitizer (memcheck and racecheck) on small instances of the kernels changed since the last round.
if want sanitize; then
    section "compute-sanitizer"
    cat > /tmp/gpr_sanitize.py <<'EOF'
# Small instances of the kernels changed since the last sanitized round (SANITIZE_ONLY: gpr, init, hungarian):
# the persistent G-PR and start kernels (shared grid-sync slots and reads of matchflow._cuda) and every GPU
# Hungarian kernel (moved to their own module, shared block reduction and broadcast reads). Public API only.
import os
import numpy as np, scipy.sparse as sp
from matchflow import BipartiteGraph, generators, gpu
only = os.environ.get("SANITIZE_ONLY", "gpr,init,hungarian").split(",")
a = sp.random(300, 260, density=0.02, random_state=3, format="csr")
g = BipartiteGraph.from_csr(a.indptr, a.indices, a.shape)
if "gpr" in only:
    for v in ("first", "noshrink", "shrink"):
        for bfs in ("rows", "frontier"):
            r, c, ic, st = gpu.push_relabel_matching(g, variant=v, bfs=bfs, init="greedy", block_size=64,
                                                     shrink_threshold=8, loop="persistent", hub_degree=2)
            print(v, bfs, int((r >= 0).sum()), "grid", st["grid_size"], "phases", st["grid_syncs"])
if "init" in only:
    for loop in ("persistent", "host"):
        for ties in ("ids", "hashed"):
            r, c, st = gpu.initial_matching(g, init="karp-sipser", block_size=64, loop=loop, init_ties=ties,
                                            hub_degree=2)
            print("karp-sipser", loop, ties, int((r >= 0).sum()), "rounds", st["init_rounds"])
    gs = generators.delaunay(2000, seed=1)
    gs = BipartiteGraph.from_csr(gs.indptr, gs.indices, gs.shape) if hasattr(gs, "indptr") else gs
    r, c, st = gpu.initial_matching(gs, init="symmetric", block_size=64, init_aug_rounds=2)
    print("symmetric", int((r >= 0).sum()), "rounds", st["init_rounds"])
if "hungarian" in only:
    rng = np.random.default_rng(1)
    for dt in (np.int32, np.float64):
        C = (rng.integers(0, 40, size=(40, 40)) if dt == np.int32 else rng.random((40, 40))).astype(dt)
        for loop in ("persistent", "host"):
            c4r, u, v, st = gpu.hungarian(C, block_size=32, loop=loop, grid_size=4)
            print("hungarian", dt.__name__, loop, float(C[np.arange(40), c4r].sum()), "rounds", st["iterations"])
EOF
    for tool in memcheck racecheck; do
        timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --print-limit 20 python3 /tmp/gpr_sanitize.py \
            > "$OUT/sanitizer-$tool.log" 2>&1
        echo "$tool: exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard" "$OUT/sanitizer-$tool.log" | head -n 8
    done
fi

# ------------------------------------------------------------------ sanitize-families
# compute-sanitizer on each family's own small script (scripts/sanitize_<family>.py; SANITIZE_FAMILIES: a comma
# list, default every script): logs under $OUT/san/, packed into results.tgz at the end.
if want sanitize-families; then
    section "compute-sanitizer, family scripts"
    mkdir -p "$OUT/san"
    fams="${SANITIZE_FAMILIES:-$(ls scripts/sanitize_*.py 2>/dev/null | sed 's#scripts/sanitize_##; s#\.py##' | paste -sd, -)}"
    for fam in ${fams//,/ }; do
        for tool in memcheck racecheck; do
            timeout "${SANITIZE_TIMEOUT:-300}" compute-sanitizer --tool "$tool" --print-limit 20 \
                python3 "scripts/sanitize_$fam.py" > "$OUT/san/sanitizer-$fam-$tool.log" 2>&1
            echo "$fam $tool: exit $?"
            grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|hazard" "$OUT/san/sanitizer-$fam-$tool.log" | head -n 6
        done
    done
fi

# ------------------------------------------------------------------ benchmarks
if want bench || want bench-big; then
    section "G-PR benchmark"
    extra=()
    want bench-big && extra+=(--big)
    timeout -s INT "${BENCH_TIMEOUT:-3000}" python3 -m benchmarks.bench_gpr --out "$OUT" --repeat "${BENCH_REPEAT:-5}" --reps "${BENCH_REPS:-20}" \
        ${BENCH_ARGS:-} "${extra[@]}" 2>&1 | tee "$OUT/bench-gpr.log" | tail -n 60
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi

# ------------------------------------------------------------------ paper-size inputs
# Delaunay 2^20..2^24, RGG 2^20..2^24, Kronecker 20/21, meshes with holes, road-like: built here (too big to
# carry), light protocol (main configurations, every result certified). PAPER_ONLY: comma list of names.
if want bench-paper; then
    section "G-PR benchmark, paper-size inputs"
    # one process per input (a kernel that never returns cannot be interrupted; it loses one input only)
    names="${PAPER_ONLY:-$(python3 -c 'from benchmarks.bench_gpr import PAPER_SIZES; print(",".join(PAPER_SIZES))')}"
    files=()
    for name in ${names//,/ }; do
        echo "--- $name ($(date -u +%H:%M:%S))"
        timeout -s KILL "${PAPER_TIMEOUT:-300}" python3 -m benchmarks.bench_gpr --inputs paper --only "$name" --out "$OUT/paper" \
            --repeat "${BENCH_REPEAT:-3}" --reps "${PAPER_REPS:-5}" --name "$name" > "$OUT/paper-$name.log" 2>&1
        echo "exit $?"; grep -E "^  [A-Z]|^   CPU|built|FAIL|Error" "$OUT/paper-$name.log" | tail -n 12
        [[ -f "$OUT/paper/matching/$name.json" ]] && files+=("$OUT/paper/matching/$name.json")
    done
    if [[ ${#files[@]} -gt 0 ]]; then
        python3 -m benchmarks.bench_gpr --merge "${files[@]}" --out "$OUT" --repeat "${BENCH_REPEAT:-3}" \
            --name "${PAPER_NAME:-gpr_paper}" > "$OUT/bench-gpr-paper.log" 2>&1 || status=1
    fi
fi

# ------------------------------------------------------------------ assignment benchmark
# The Lopes et al. Table 1 re-run: GPU Hungarian vs our CPU methods, SciPy and lap/lapx.
if want bench-assign; then
    section "assignment benchmark (Table 1)"
    timeout -s INT "${ASSIGN_TIMEOUT:-1500}" python3 -m benchmarks.bench_assignment --out-dir "$OUT" \
        ${ASSIGN_ARGS:---sizes 512 1024 2048 4096 8192 --ranges 0.1 1 10 --seeds 2 --max-seconds 3} \
        2>&1 | tee "$OUT/bench-assign.log" | tail -n 40
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi

# ------------------------------------------------------------------ batched assignment benchmark
# issue 23: SciPy loop, lapx batch, our CPU, torch-linear-assignment and our GPU columns on the same inputs
if want bench-batch; then
    section "batched assignment benchmark"
    timeout -s INT "${BATCH_TIMEOUT:-400}" python3 -m benchmarks.bench_batch --repeat "${BENCH_REPEAT:-2}" \
        --machine "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1) ($(nproc)-core host)" \
        --out "$OUT" ${BATCH_ARGS:-} 2>&1 | tee "$OUT/bench-batch.log" | tail -n 30
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
fi

# ------------------------------------------------------------------ what the open issues still need on a GPU
# (docs/STATUS.md, "Open"): grid cuts on the real photographs (MATCHFLOW_DATA must hold images/*.npy, written by
# `python3 -m benchmarks.bench_grid_gpu --save-images DIR` on a machine with scikit-image), 20 certified repeats
# on every general network, the float Hungarian with the one-pass certificate granularity, the first-use rule's
# device tests and gpu.warm_up().
if want bench-open; then
    section "open-issue measurements"
    python3 -m pytest -q -m gpu -p no:cacheprovider -k "auto or warm" tests/ 2>&1 | tee "$OUT/pytest-auto.log" | tail -n 5
    python3 -c 'import matchflow.gpu as g, matchflow._methods as m; g.warm_up(); assert m.gpu_warm(); print("warm_up ok")' \
        2>&1 | tee -a "$OUT/pytest-auto.log"
    timeout -s INT "${OPEN_TIMEOUT:-240}" python3 -m benchmarks.bench_grid_gpu --gpu --only real --reps 20 --budget 3 \
        --no-fresh --suffix real --out "$OUT" 2>&1 | tail -n 12
    timeout -s INT "${OPEN_TIMEOUT:-240}" python3 -m benchmarks.bench_flow --gpu-general --reps 20 --rep-seconds 30 \
        --suffix r20 --out "$OUT/flow-general" 2>&1 | tail -n 14
    timeout -s INT "${OPEN_TIMEOUT:-240}" python3 -m benchmarks.bench_gpu_e2e --assignment-only --reps 3 \
        --float-sizes 4096,8192 --sizes 4096 --out "$OUT" --name assignment-float-granularity 2>&1 | tail -n 8
fi

# the device tool returns a few files only: pack the result folders and per-input logs into one archive
if [[ -d "$OUT/matching" || -d "$OUT/paper" || -d "$OUT/san" ]]; then
    (cd "$OUT" && tar czf results.tgz $(ls -d matching paper paper-*.log san 2>/dev/null) && rm -rf matching paper paper-*.log san)
fi

section "done (status $status)"
ls -la "$OUT" "$OUT"/* 2>/dev/null | head -n 40
exit $status
