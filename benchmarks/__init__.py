"""tracejit's benchmarks: workloads W1-W9 side by side with NumPy and, when importable, the
peers (TensorFlow's `tf.function` with and without `jit_compile`, `jax.jit`, `numba.njit`),
plus compile-latency, persistent-cache and scaling measurements, and kernels K1-K13
(kernels.py: loop-style and vectorised NumPy kernels, compile and run time next to NumPy's and
numba's).

Run from the repository root: `make bench` or `.venv/bin/python -m benchmarks [--quick]
[--only W2,W3|K1,K5|scale|latency|kernels] [--threads N] [--json PATH]`. This directory is
not installed with the package; it needs only NumPy and tracejit (the peers come with the
optional extra `bench`). `python -m benchmarks.buffer_pool` times W2 with the output buffer
pool off and on in one process.
"""
