"""tracejit's benchmarks: workloads W1-W9 side by side with NumPy and, when importable, the
peers (TensorFlow's `tf.function` with and without `jit_compile`, `jax.jit`, `numba.njit`),
plus compile-latency, persistent-cache and scaling measurements, kernels K1-K29
(kernels.py: loop-style and vectorised NumPy kernels, compile and run time next to NumPy's and
numba's), and loop kernels L1-L8 (loop_kernels.py: Cholesky, LU, Gram-Schmidt, CSR ... whose
loops slice with the counter, at N = 100, 400, 1,000, next to NumPy, numba and JAX).

Run from the repository root: `make bench` or `.venv/bin/python -m benchmarks [--quick]
[--only W2,W3|K1,K5|L1,L6|scale|latency|kernels|loops] [--loop-sizes 100,400] [--threads N]
[--json PATH]`. This directory is
not installed with the package; it needs only NumPy and tracejit (the peers come with the
optional extra `bench`). `python -m benchmarks.buffer_pool` times W2 with the output buffer
pool off and on in one process.
"""
