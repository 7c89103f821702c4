"""Published-style NumPy kernels whose loops slice with their counters (PolyBench's linear
algebra, dynamic programming and solvers, written the way their NumPy ports write them):
each stays a loop (no LoopUnrolledWarning), and the compiled call changes its arguments
exactly as NumPy does."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tracejit as tj
from benchmarks.program_kernels import adi  # the benchmark's own program, checked here
from tests.conftest import assert_same


def trisolv(L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]


def ludcmp(A, b, x, y):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]
    for i in range(A.shape[0]):
        y[i] = b[i] - A[i, :i] @ y[:i]
    for i in range(A.shape[0] - 1, -1, -1):
        x[i] = (y[i] - A[i, i + 1 :] @ x[i + 1 :]) / A[i, i]


def nussinov(seq, table):
    N = seq.shape[0]
    for i in range(N - 1, -1, -1):
        for j in range(i + 1, N):
            if j - 1 >= 0:
                table[i, j] = max(table[i, j], table[i, j - 1])
            if i + 1 < N:
                table[i, j] = max(table[i, j], table[i + 1, j])
            if j - 1 >= 0 and i + 1 < N:
                if i < j - 1:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1] + int(seq[i] + seq[j] == 3))
                else:
                    table[i, j] = max(table[i, j], table[i + 1, j - 1])
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j])


def symm(alpha, beta, C, A, B):
    temp2 = np.empty((C.shape[1],), dtype=C.dtype)
    C *= beta
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[:i, j] += alpha * B[i, j] * A[i, :i]
            temp2[j] = B[:i, j] @ A[i, :i]
        C[i, :] += alpha * B[i, :] * A[i, i] + alpha * temp2


def trmm(alpha, A, B):
    for i in range(B.shape[0]):
        for j in range(B.shape[1]):
            B[i, j] += np.dot(A[i + 1 :, i], B[i + 1 :, j])
    B *= alpha


def syrk(alpha, beta, C, A):
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += alpha * A[i, k] * A[: i + 1, k]


def syr2k(alpha, beta, C, A, B):
    for i in range(A.shape[0]):
        C[i, : i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, : i + 1] += A[: i + 1, k] * alpha * B[i, k] + B[: i + 1, k] * alpha * A[i, k]


def covariance(M, float_n, data):
    mean = np.mean(data, axis=0)
    data -= mean
    cov = np.zeros((M, M), dtype=data.dtype)
    for i in range(M):
        cov[i:M, i] = cov[i, i:M] = data[:, i] @ data[:, i:M] / (float_n - 1.0)
    return cov


def durbin2(r):
    y = np.empty_like(r)
    alpha = -r[0]
    beta = 1.0
    y[0] = -r[0]
    for k in range(1, r.shape[0]):
        beta *= 1.0 - alpha * alpha
        alpha = -(r[k] + np.dot(np.flip(r[:k]), y[:k])) / beta
        y[:k] += alpha * np.flip(y[:k])
        y[k] = alpha
    return y


def lu2(A):
    for i in range(A.shape[0]):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, A.shape[0]):
            A[i, j] -= A[i, :i] @ A[:i, j]


def floyd_warshall(path):
    for k in range(path.shape[0]):
        path[:] = np.minimum(path[:], np.add.outer(path[:, k], path[k, :]))


N = 11  # above the unroll limit (8): every loop here is staged
RNG = np.random.default_rng(0)


def spd(n):
    a = RNG.random((n, n))
    return a @ a.T + n * np.eye(n)


CASES = {
    trisolv: lambda: (np.tril(spd(N)), np.zeros(N), RNG.random(N)),
    ludcmp: lambda: (spd(N), RNG.random(N), np.zeros(N), np.zeros(N)),
    nussinov: lambda: (RNG.integers(0, 4, N).astype(np.int32), np.zeros((N, N), np.int32)),
    symm: lambda: (1.5, 1.2, RNG.random((N, N + 3)), RNG.random((N, N)), RNG.random((N, N + 3))),
    trmm: lambda: (1.5, RNG.random((N, N)), RNG.random((N, N + 3))),
    syrk: lambda: (1.5, 1.2, RNG.random((N, N)), RNG.random((N, N + 2))),
    syr2k: lambda: (1.5, 1.2, RNG.random((N, N)), RNG.random((N, N + 2)), RNG.random((N, N + 2))),
    covariance: lambda: (N, float(N + 4), RNG.random((N + 4, N))),
    durbin2: lambda: (RNG.uniform(-0.3, 0.3, N) / N,),
    lu2: lambda: (spd(N),),
    adi: lambda: (2, N, RNG.random((N, N))),
    floyd_warshall: lambda: (RNG.random((N, N)) * 10,),
}


@pytest.mark.parametrize("kernel", list(CASES), ids=lambda k: k.__name__)
def test_kernel_stays_a_loop_and_agrees_with_numpy(kernel):
    args = CASES[kernel]()
    expected_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    expected = kernel(*expected_args)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        result = tj.function(kernel)(*args)
    if expected is not None:
        assert_same(result, expected, rtol=1e-9, atol=1e-12)
    for changed, reference in zip(args, expected_args, strict=True):
        if isinstance(reference, np.ndarray):
            assert_same(changed, reference, rtol=1e-9, atol=1e-12)
