"""Multi-core kernels (passes/parallelize.py, codegen/emit_parallel.py): results are
bit-identical for every thread count (np.array_equal, NaN positions included) and match eager
NumPy; small calls make no thread; the count is a run-time setting."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly
from tracejit.compiler import options
from tracejit.ir import parallel_contract
from tracejit.runtime import settings

THREAD_COUNTS = (1, 2, 3, 4)
BIG = 1_000_003  # big enough for threads, and divisible by no piece count


@pytest.fixture(autouse=True)
def _restore_thread_count():
    before = tj.config.num_threads()
    yield
    tj.config.set_num_threads(before)


def per_thread_count(function, *args):
    """{thread count: result} of one compiled function (compiled once)."""
    results = {}
    for count in THREAD_COUNTS:
        tj.config.set_num_threads(count)
        results[count] = np.asarray(function(*args))
    return results


def assert_identical_and_right(function, *args, rtol=1e-5, atol=1e-6):
    results = per_thread_count(function, *args)
    for count, result in results.items():
        assert result.dtype == results[1].dtype and result.shape == results[1].shape
        assert np.array_equal(result, results[1], equal_nan=True), f"{count} threads differ"
    assert_same(results[1], np.asarray(run_eagerly(function, *args)), rtol=rtol, atol=atol)
    return results[1]


def assert_forks(function, *args) -> None:
    """The compiled kernel has a fork/join (some loop was outlined for threads)."""
    assert "tracejit_parallel_fork" in function.get_concrete_function(*args).llvm_ir


def with_specials(x: np.ndarray) -> np.ndarray:
    """`x` with NaN, +-Inf and -0.0 sprinkled in, at chunk edges too."""
    x = x.copy()
    flat = x.reshape(-1)
    if flat.size:
        for i, value in zip((0, flat.size // 2, flat.size // 3, -1),
                            (np.nan, np.inf, -np.inf, -0.0), strict=True):  # fmt: skip
            flat[i] = value
    return x


def test_elementwise_is_outlined_and_identical():
    @tj.function
    def f(x, y):
        return x**2 + 3 * y - np.tanh(x) * 0.5

    rng = np.random.default_rng(0)
    x = with_specials(rng.standard_normal(BIG).astype(np.float32))
    y = rng.standard_normal(BIG).astype(np.float32)
    assert_identical_and_right(f, x, y)
    assert_forks(f, x, y)


def test_small_call_makes_no_threads():
    @tj.function
    def f(x, y):
        return x * y + 1

    x = np.arange(4, dtype=np.float32)
    assert_identical_and_right(f, x, x)
    ir = f.get_concrete_function(x, x).llvm_ir
    assert "tracejit_parallel_fork" not in ir and "pthread_create" not in ir


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.int64, np.bool_])
def test_elementwise_dtypes(dtype):
    @tj.function
    def f(x, y):
        return np.where(x > y, x, y) + x * y

    rng = np.random.default_rng(1)
    x = (rng.standard_normal(BIG) * 10).astype(dtype)
    y = (rng.standard_normal(BIG) * 10).astype(dtype)
    assert_identical_and_right(f, x, y)


def test_broadcasting_2d_and_noncontiguous():
    @tj.function
    def f(x, row, col):
        return np.exp(x * row - col)

    rng = np.random.default_rng(2)
    base = rng.standard_normal((1001, 602)).astype(np.float32)
    x = base[::2, ::2]  # non-contiguous: the caller copies it
    row = rng.standard_normal(301).astype(np.float32)
    col = rng.standard_normal((501, 1)).astype(np.float32)
    assert_identical_and_right(f, x, row, col)


def test_few_rows_fewer_than_threads():
    """Two rows: the row loop is split into 2 chunks even with 3 or 4 threads."""

    @tj.function
    def f(x):
        return np.sum(x * x, axis=1)

    x = with_specials(np.random.default_rng(3).standard_normal((2, 400_003)).astype(np.float32))
    assert_identical_and_right(f, x, rtol=1e-4)
    assert_forks(f, x)


@pytest.mark.parametrize("reduce", [np.sum, np.mean, np.max, np.min, np.argmax])
def test_whole_array_reductions(reduce):
    @tj.function
    def f(x, y):
        return reduce((x - y) ** 2)

    rng = np.random.default_rng(4)
    x = rng.standard_normal(1_000_003).astype(np.float32)
    y = rng.standard_normal(1_000_003).astype(np.float32)
    assert_identical_and_right(f, x, y, rtol=1e-4)


def test_sum_with_nan_and_inf():
    @tj.function
    def f(x):
        return np.sum(x)

    x = with_specials(np.random.default_rng(5).standard_normal(2_000_000).astype(np.float32))
    assert np.isnan(assert_identical_and_right(f, x))
    assert_forks(f, x)  # the blocks' partial sums are computed in parallel


@pytest.mark.parametrize("axis", [0, 1])
def test_axis_reductions(axis):
    @tj.function
    def f(x):
        return np.sum(x, axis=axis)

    x = np.random.default_rng(6).standard_normal((700, 1300)).astype(np.float32)
    assert_identical_and_right(f, x, rtol=1e-4)


@pytest.mark.parametrize("shape", [(512, 512, 512), (130, 70, 301), (7, 900, 1000)])
def test_matmul(shape):
    m, k, n = shape

    @tj.function
    def f(a, b):
        return a @ b

    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    assert_identical_and_right(f, a, b, rtol=1e-3, atol=1e-3)
    if m * k * n >= 512**3:  # the smaller ones are below the work threshold
        assert_forks(f, a, b)


def test_batched_matmul_splits_batches():
    """A batch of products (tile_matmul's batch loop) is shared out whole products at a time;
    B is broadcast over the batch, and N = 10 is narrower than one chunk of columns."""

    @tj.function
    def f(a, b):
        return a @ b

    rng = np.random.default_rng(9)
    a = rng.standard_normal((6, 250, 300)).astype(np.float32)
    b = rng.standard_normal((1, 300, 10)).astype(np.float32)
    assert_identical_and_right(f, a, b, rtol=1e-3, atol=1e-3)
    assert_forks(f, a, b)


@pytest.mark.parametrize("k", [0, 1, 257, 700])
def test_matmul_of_unknown_shapes(k):
    """Chunks of columns and depth blocks of run-time length; K = 0 gives zeros (C's fill is
    kept when K may be 0)."""

    spec = tj.TensorSpec([None, None], tj.float64)

    @tj.function(input_signature=(spec, spec))
    def f(a, b):
        return a @ b

    rng = np.random.default_rng(10)
    a, b = rng.standard_normal((301, k)), rng.standard_normal((k, 530))
    result = assert_identical_and_right(f, a, b, rtol=1e-9, atol=1e-9)
    if k == 0:
        assert not result.any()


@pytest.mark.parametrize("kind", ["values", "indices"])
def test_sorts_share_their_counting(kind):
    """A long line's radix sort counts its digits in chunks split over threads (each chunk
    its own counts, added in order): np.sort and a stable argsort, with NaN, +-inf and
    -0.0 among ties, identical for every thread count."""

    @tj.function
    def f(x):
        return np.sort(x) if kind == "values" else np.argsort(x, kind="stable")

    rng = np.random.default_rng(12)
    x = with_specials(rng.integers(-50, 50, BIG).astype(np.float32))  # many equal keys
    assert_identical_and_right(f, x, rtol=0, atol=0)
    assert_forks(f, x)


@pytest.mark.parametrize("transposed", [False, True])
def test_matrix_vector_row_blocks(transposed):
    """m @ v and v @ m.T (tile_matvec's blocks of rows) split over threads."""

    @tj.function
    def f(m, v):
        return v @ m.T if transposed else m @ v

    rng = np.random.default_rng(8)
    m = rng.standard_normal((1201, 2000)).astype(np.float32)  # a remainder row block too
    v = rng.standard_normal(2000).astype(np.float32)
    assert_identical_and_right(f, m, v, rtol=1e-4, atol=1e-4)
    assert_forks(f, m, v)


def test_mlp():
    @tj.function
    def mlp(x, w1, b1, w2, b2):
        return np.maximum(x @ w1 + b1, 0) @ w2 + b2

    rng = np.random.default_rng(8)
    args = (
        rng.standard_normal((256, 784)).astype(np.float32),
        rng.standard_normal((784, 512)).astype(np.float32) * 0.05,
        rng.standard_normal(512).astype(np.float32),
        rng.standard_normal((512, 10)).astype(np.float32) * 0.05,
        rng.standard_normal(10).astype(np.float32),
    )
    assert_identical_and_right(mlp, *args, rtol=1e-3, atol=1e-3)
    assert_forks(mlp, *args)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # sin(inf) in NumPy
@pytest.mark.parametrize("size", [0, 1, 3, 5, 70_001, BIG])
def test_dynamic_length_decided_at_run_time(size):
    @tj.function(input_signature=(tj.TensorSpec([None], tj.float32),))
    def f(x):
        return np.sin(x) * np.cos(x) + x

    x = with_specials(np.random.default_rng(9).standard_normal(size).astype(np.float32))
    assert_identical_and_right(f, x)


def test_dynamic_length_sum():
    @tj.function(input_signature=(tj.TensorSpec([None], tj.float32),))
    def f(x):
        return np.sum(x * 2)

    for size in (0, 3, 4097, 1_000_001):
        x = np.random.default_rng(size).standard_normal(size).astype(np.float32)
        assert_identical_and_right(f, x, rtol=1e-4)


def test_eight_python_threads_call_concurrently():
    @tj.function
    def f(x, w):
        return np.tanh(x @ w) + np.sum(x)

    rng = np.random.default_rng(10)
    inputs = [rng.standard_normal((300, 400)).astype(np.float32) for _ in range(8)]
    w = rng.standard_normal((400, 300)).astype(np.float32)
    tj.config.set_num_threads(1)
    expected = [np.asarray(f(x, w)) for x in inputs]
    tj.config.set_num_threads(3)
    results: list[np.ndarray | None] = [None] * 8
    errors: list[BaseException] = []

    def call(i: int) -> None:
        try:
            for _ in range(3):
                results[i] = np.asarray(f(inputs[i], w))
        except BaseException as error:  # noqa: BLE001  (reported below)
            errors.append(error)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for got, want in zip(results, expected, strict=True):
        assert np.array_equal(got, want, equal_nan=True)


def test_thread_count_setting(monkeypatch):
    tj.config.set_num_threads(3)
    assert tj.config.num_threads() == 3 == settings.THREAD_COUNT.value
    tj.config.set_num_threads(10_000)
    assert tj.config.num_threads() == parallel_contract.MAX_THREADS
    with pytest.raises(ValueError, match=">= 1"):
        tj.config.set_num_threads(0)
    monkeypatch.setattr(settings, "DEFAULT_THREAD_COUNT", settings.DEFAULT_THREAD_COUNT)
    monkeypatch.setattr(settings, "DEFAULT_IS_CHOSEN", settings.DEFAULT_IS_CHOSEN)
    options.apply_runtime_environment({"TRACEJIT_NUM_THREADS": "5"})
    tj.config.set_num_threads(2)
    tj.config.set_num_threads(None)  # back to the environment's
    assert tj.config.num_threads() == 5 == settings.RUN_THREAD_COUNT.value  # chosen: not fitted
    assert options.thread_count_from_environment({"TRACEJIT_NUM_THREADS": "lots"}) is None
    monkeypatch.setattr(settings.os, "sched_getaffinity", lambda _: {0, 1, 2})
    assert settings.available_cpus() == 3


CACHE_SCRIPT = textwrap.dedent("""
    import ctypes, json, sys
    import numpy as np
    import tracejit as tj
    from tracejit.codegen import shared_library
    from tracejit.runtime import runtime_binding
    from tracejit.runtime import thread_pool
    from tracejit.ir import parallel_contract as pc
    from tracejit.runtime import settings

    tj.config.set_cache_dir(sys.argv[1])

    @tj.function
    def f(x):
        return np.tanh(x) * 2 + np.sum(x)

    x = np.linspace(-3.0, 3.0, 1_000_003).astype(np.float32)
    outs = []
    for count in (1, 2, 3):
        tj.config.set_num_threads(count)
        outs.append(f(x).tobytes().hex())
    runtime_binding.wait_until_ready(60)
    engine = f.get_concrete_function(x)._compilation.jit._engine
    slot = engine.get_global_value_address(pc.THREADS_GLOBAL)
    bound = ctypes.c_void_p.from_address(slot).value == ctypes.addressof(settings.RUN_THREAD_COUNT)
    pool = engine.get_global_value_address(thread_pool.POOL_GLOBAL)
    pooled = ctypes.c_void_p.from_address(pool).value == thread_pool.pool_address()
    shared_library.wait_for_builds()
    print(json.dumps({"same": len(set(outs)) == 1, "out": outs[0], "bound": bound,
                      "pooled": pooled, "loaded_as": type(engine).__name__}))
""")


def run_cached(cache_dir) -> dict:
    done = subprocess.run([sys.executable, "-c", CACHE_SCRIPT, str(cache_dir)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_cached_code_reads_the_thread_count_of_the_process_loading_it(tmp_path):
    """Object code and linked libraries from the disk cache find this process's thread count
    and thread pool (globals filled in after loading), and give the same bits."""
    runs = [run_cached(tmp_path) for _ in range(3)]
    assert runs[0]["loaded_as"] == "ExecutionEngine"  # then object code or a library (cc)
    assert runs[2]["loaded_as"] in ("ExecutionEngine", "SharedLibrary")
    for run in runs:
        assert run["same"] and run["bound"] and run["pooled"] and run["out"] == runs[0]["out"]
