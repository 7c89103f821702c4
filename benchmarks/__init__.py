"""tracejit's benchmarks: workloads W1-W9 side by side with NumPy and, when importable, the
peers (TensorFlow's `tf.function` with and without `jit_compile`, `jax.jit`, `numba.njit`),
plus compile-latency, persistent-cache and scaling measurements.

Run from the repository root: `make bench` or `.venv/bin/python -m benchmarks [--quick]
[--only W2,W3|scale|latency] [--threads N] [--json PATH]`. This directory is not installed with
the package; it needs only NumPy and tracejit (the peers come with the optional extra `bench`).
"""
