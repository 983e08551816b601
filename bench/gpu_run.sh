#!/bin/bash
# The GPU check as one command for a lent GPU machine that has CuPy and PyTorch but no network:
#
#   bash bench/gpu_run.sh            # tests on 'cuda', minitorch.cuda checks, training steps
#
# Wheels in .whl/ (an ignored folder carried along) are installed first, into /tmp/site: carry
# the NumPy that CI uses here, so a failure is the GPU's and not a newer NumPy's. Logs go to $OUT
# (or ./gpu_out): env.log, tests.log, junit.xml, gpu_check.log. T_TESTS and T_CHECK cap the two
# long parts in seconds (defaults 300 and 130: about 8 minutes with the machine's start).
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
OUT=${OUT:-gpu_out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONPATH=$PWD
if compgen -G ".whl/*.whl" >/dev/null; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD
    # A carried NumPy that breaks the machine's CuPy is dropped again.
    $PY -c "import cupy; cupy.arange(3).sum()" 2>/dev/null || export PYTHONPATH=$PWD
fi
{
    date; nvidia-smi -L; $PY -V
    $PY -c "import numpy, cupy; print('numpy', numpy.__version__, 'cupy', cupy.__version__)"
} >"$OUT/env.log" 2>&1
cat "$OUT/env.log"
timeout $((${T_TESTS:-300} + ${T_CHECK:-130})) $PY bench/gpu_check.py --out "$OUT" \
    --test-timeout "${T_TESTS:-300}" --budget $((${T_TESTS:-300} + ${T_CHECK:-130} - 10)) \
    --steps 10 2>&1 | tee "$OUT/gpu_check.log" | tail -40
