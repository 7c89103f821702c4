"""Tiered execution (frontend/api/tiered.py, runtime/graph_interpreter.py): a new trace's first
call is interpreted with NumPy and compiled in the background; later calls run machine code.

The suite runs with tiering off (tests/conftest.py); every test here turns it on. The
interpreter's values are checked against eager NumPy over many examples through the plan
itself (no compile per example); end to end, a few functions per family check that the first
call is interpreted, the second compiled, and both equal eager NumPy.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tracejit.compiler import driver
from tracejit.compiler.options import OPTIONS, from_environment
from tracejit.frontend.api import tiered
from tracejit.frontend.numpy_api.elementwise import UFUNC_RULES
from tracejit.runtime import graph_interpreter
from tracejit.runtime.graph_interpreter import Plan

pytestmark = pytest.mark.filterwarnings("ignore:.*tj.function retracing")
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
DTYPES = [np.bool_, *INTS, *FLOATS]
# ulp bounds of the compiled transcendentals (as tests/numpy/test_elementwise.py)
TRANSCENDENTAL = {"exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "cbrt", "sin",
                  "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh",
                  "tanh", "arcsinh", "arccosh", "arctanh", "power", "float_power"}  # fmt: skip


@pytest.fixture(autouse=True)
def tiering_on():
    tj.config.set_tiered_compilation(True)
    yield
    tj.config.wait_for_compiles()  # no test's compile runs into the next test
    tj.config.set_tiered_compilation(False)


def eager(function, *args):
    tj.config.run_functions_eagerly(True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return function(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def ulps(a: np.ndarray, b: np.ndarray) -> int:
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]

    def ordered(x):
        raw = np.asarray(x).view(bits).astype(np.int64)
        magnitude = raw & np.int64(np.iinfo(bits).max)
        return np.where(raw < 0, -magnitude, magnitude)

    distance = np.abs(ordered(a) - ordered(b))
    return int(distance.max()) if distance.size else 0


def assert_matches(got, want, max_ulps: int = 0, rtol: float = 0.0) -> None:
    """Same structure, type, dtype, shape; ints and bools exact; floats within `max_ulps` (or
    `rtol`, for sums whose order differs), NaN where NumPy has NaN."""
    if isinstance(want, dict):
        assert got.keys() == want.keys()
        for key in want:
            name = str(key)
            bound = 4 if name in TRANSCENDENTAL else 2 if name == "hypot" else max_ulps
            bound = 64 if name in ("logaddexp", "logaddexp2") else bound  # as test_elementwise
            assert_matches(got[key], want[key], bound, rtol)
        return
    if isinstance(want, tuple | list):
        assert type(got) is type(want) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert_matches(g, w, max_ulps, rtol)
        return
    zero_d = isinstance(want, np.ndarray) and want.ndim == 0
    assert isinstance(got, type(want)) or (isinstance(got, np.generic) and zero_d), (
        type(got),
        type(want),
    )
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want)
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want)
    elif rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)
    elif want.dtype.kind == "c":
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)
    else:
        nan = np.isnan(want)
        np.testing.assert_array_equal(np.isnan(got), nan)
        assert ulps(got[~nan], want[~nan]) <= max_ulps


def interpret(function, *args):
    """What a first call returns, through the interpreter alone (no compile is queued)."""
    concrete = function.get_concrete_function(*args)
    inputs = [np.asarray(a, order="C") for a in args]
    plan = graph_interpreter.plan(concrete.graph.module, concrete.graph.function_name)
    return concrete._results(list(args), plan.run(inputs))


def elements(dtype) -> st.SearchStrategy:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind == "f":
        special = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan]
        return st.one_of(st.floats(width=dtype.itemsize * 8), st.sampled_from(special))
    info = np.iinfo(dtype)
    special = [0, 1, info.max, info.min, info.bits]
    if dtype.kind == "i":
        special += [-1, info.min + 1, -7]
    return st.one_of(st.integers(int(info.min), int(info.max)), st.sampled_from(special))


def _accepts(ufunc: np.ufunc, dtype) -> bool:
    try:
        ufunc.resolve_dtypes((np.dtype(dtype),) * ufunc.nin + (None,) * ufunc.nout)
    except TypeError:
        return False
    return True


_UFUNCS: dict = {}


def all_ufuncs(dtype) -> tj.Function:
    """Every supported ufunc NumPy accepts on `dtype`, on x and y (y broadcast along x);
    not an integer power of a traced exponent, whose check for a negative exponent (a
    tj.assert) is not interpreted (test_integer_division_remainder_and_overflow has `x ** 3`)."""
    if dtype not in _UFUNCS:
        integral = np.dtype(dtype).kind in "biu"
        chosen = [
            u for u in UFUNC_RULES if _accepts(u, dtype) and not (integral and u is np.power)
        ]

        def apply(u, x, y):
            return u(x) if u.nin == 1 else u(x, y)

        def body(x, y):
            return {u.__name__: apply(u, x, y) for u in chosen}

        _UFUNCS[dtype] = tj.function(body)
    return _UFUNCS[dtype]


# --- the interpreter equals eager NumPy --------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_every_ufunc_interpreted_equals_eager(dtype, data):
    # x non-contiguous (a transposed view), y broadcast along x's rows; or 0-d and empty
    shape = data.draw(st.sampled_from([(4, 3), (0, 3), ()]))
    x = data.draw(hnp.arrays(dtype, shape[::-1], elements=elements(dtype))).T
    y = data.draw(hnp.arrays(dtype, shape[-1:], elements=elements(dtype)))
    function = all_ufuncs(dtype)
    got, want = interpret(function, x, y), eager(function, x, y)
    assert_matches(got, want)


def test_interpreted_logaddexp2_of_near_equal_values():
    """x + log2(1 + 2**-(x - y)) cancels for near-equal x and y: an ulp off in exp2 or log1p
    shows as 1% of the result. NumPy's loop calls C's exp2f and log1pf, correctly rounded;
    the interpreter evaluates float32 transcendentals in float64 to match (NumPy's own
    float32 np.exp2 gave 4.947e-06 here, for NumPy's 5.00679e-06)."""
    function = all_ufuncs(np.float32)
    x = np.full((3, 4), -0.99999, np.float32).T
    y = np.full(3, -1.0, np.float32)
    got, want = interpret(function, x, y), eager(function, x, y)
    assert_matches(got["logaddexp2"], want["logaddexp2"])


def test_interpreted_power_of_minus_inf():
    """An array exponent of 0.5s is pow() in NumPy (inf at -inf), a scalar one sqrt (NaN)."""
    function = all_ufuncs(np.float32)
    x = np.full((3, 4), -np.inf, np.float32).T
    y = np.full(3, 0.5, np.float32)
    got, want = interpret(function, x, y), eager(function, x, y)
    assert_matches(got["power"], want["power"])


@tj.function
def reductions(x):
    return (
        np.sum(x, axis=0),
        np.prod(x, axis=1, keepdims=True),
        np.max(x),
        np.min(x, axis=0),
        np.mean(x, axis=1),
        np.argmax(x, axis=0),
        np.argmin(x),
        np.any(x > 0, axis=1),
        np.all(x != 0),
        np.cumsum(x, axis=1),
    )


@tj.function
def shapes_and_matmul(x, y):
    return (
        x.T @ y,
        np.reshape(x, (-1,))[::2],
        np.concatenate([x, y], axis=1)[1:, ::-1],
        np.pad(x, ((1, 0), (0, 2))),
        np.where(x > y, x, -y),
        np.clip(x, -1, 1),
        x.astype(np.float16),
        np.transpose(np.stack([x, y]), (2, 0, 1)),
    )


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64, np.float32, np.float64])
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_reductions_shapes_and_matmul_interpreted_equal_eager(dtype, data):
    small = st.integers(-5, 5) if np.dtype(dtype).kind in "if" else st.integers(0, 5)
    x = data.draw(hnp.arrays(dtype, (3, 4), elements=small))
    y = data.draw(hnp.arrays(dtype, (3, 4), elements=small))
    assert_matches(interpret(reductions, x), eager(reductions, x), rtol=1e-6)
    assert_matches(interpret(shapes_and_matmul, x, y), eager(shapes_and_matmul, x, y), rtol=1e-6)


@settings(max_examples=20, deadline=None)
@given(
    x=hnp.arrays(np.int32, 5, elements=st.integers(-(2**31), 2**31 - 1)),
    y=hnp.arrays(np.int32, 5, elements=st.integers(-(2**31), 2**31 - 1)),
)
def test_integer_division_remainder_and_overflow(x, y):
    @tj.function
    def f(x, y):
        return x // y, x % y, x * y + x, -x, x << (y & 31), x >> 3, x**3, np.abs(x)

    assert_matches(interpret(f, x, y), eager(f, x, y))


# --- end to end: first call interpreted, second compiled ------------------------------------
def _fresh_twenty_ops():
    def twenty_ops(x, y):
        a = x * y + 1.0
        b = np.exp(-a * a) - x
        c = np.sqrt(np.abs(np.tanh(b)) + 1.0)
        d = (np.maximum(c, y) - np.minimum(a, x)) / (1.0 + x * x)
        return np.sum(d), np.max(np.tanh(b)) * np.mean(b), d[::2], x // 0.5, (x > y) & (y < 0)

    return tj.function(twenty_ops)


def test_first_call_interpreted_second_compiled_both_equal_eager():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(50).astype(np.float32)
    y = rng.standard_normal(50).astype(np.float32)
    x[3], y[4] = np.nan, np.inf
    f = _fresh_twenty_ops()
    want = eager(f, x, y)
    first = f(x, y)
    concrete = f.get_concrete_function(x, y)
    assert concrete.tier.job is not None  # it was interpreted and the compile queued
    assert_matches(first, want, rtol=1e-5)
    assert isinstance(first[0], np.float32)  # 0-d results are NumPy scalars
    second = f(x, y)
    assert concrete.is_compiled and concrete._kernel is not None
    assert_matches(second, want, rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_outputs_never_alias_inputs_constants_or_each_other():
    @tj.function
    def f(x):
        c = np.array([1.0, 2.0, 3.0])
        return x, x, c, x.T, x.reshape(-1)

    x = np.arange(6.0).reshape(2, 3)
    out = f(x)
    assert f.get_concrete_function(x)._compilation is None  # interpreted
    for i, a in enumerate(out):
        assert a.flags.writeable and a.flags.c_contiguous
        assert not np.shares_memory(a, x)
        for b in out[i + 1 :]:
            assert not np.shares_memory(a, b)
    np.testing.assert_array_equal(out[3], x.T)
    out[2][0] = 99.0
    np.testing.assert_array_equal(f(x)[2], [1.0, 2.0, 3.0])


def test_nested_functions_and_pure_control_flow_are_interpreted():
    @tj.function
    def inner(x):
        return x * 2 + 1

    @tj.function
    def outer(x, n):
        total = inner(x)
        for _ in tj.range(n):
            total = total @ x if np.sum(total) < 1e6 else total - 1
        return total

    x = np.arange(4, dtype=np.int64).reshape(2, 2)
    first = outer(x, 12)
    concrete = outer.get_concrete_function(x, 12)
    assert concrete.tier.job is not None
    assert_matches(first, eager(outer, x, 12))
    assert_matches(outer(x, 12), eager(outer, x, 12))


def test_wait_for_compiles_finishes_the_background_compile():
    f = _fresh_twenty_ops()
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    f(x, x)
    concrete = f.get_concrete_function(x, x)
    tj.config.wait_for_compiles()
    assert concrete.is_compiled and concrete.fast_call is not None
    assert "define" in concrete.llvm_ir


def test_tiering_off_compiles_before_the_first_call_returns():
    tj.config.set_tiered_compilation(False)
    assert not tj.config.tiered_compilation()
    f = tj.function(lambda x: x + 1)
    f(np.ones(3))
    assert f.get_concrete_function(np.ones(3))._compilation is not None


def test_environment_variable_decides_until_set(monkeypatch):
    assert not from_environment({"TRACEJIT_TIERED": "0"}).tiered
    assert from_environment({"TRACEJIT_TIERED": "1"}).tiered
    assert from_environment({}).tiered  # on by default
    monkeypatch.setattr(OPTIONS, "tiered", True)
    tj.config.set_tiered_compilation(False)
    assert not tj.config.tiered_compilation() and not OPTIONS.tiered


def test_a_background_compile_error_is_raised_by_the_next_call(monkeypatch):
    error = RuntimeError("the compiler broke")

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(driver, "compile", broken)
    f = tj.function(lambda x: x * 3)
    x = np.arange(3.0)
    np.testing.assert_array_equal(f(x), x * 3)  # interpreted: no compile needed yet
    with pytest.raises(RuntimeError) as raised:
        f(x)
    assert raised.value is error
    with pytest.raises(RuntimeError) as raised:
        _ = f.get_concrete_function(x).llvm_ir
    assert raised.value is error


def test_eight_threads_calling_a_new_function_all_get_right_answers():
    f = _fresh_twenty_ops()
    rng = np.random.default_rng(1)
    inputs = [tuple(rng.standard_normal((2, 40)).astype(np.float32)) for _ in range(8)]
    wants = [eager(f, *args) for args in inputs]
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def call(k: int) -> None:
        try:
            barrier.wait()
            for _ in range(4):
                assert_matches(f(*inputs[k]), wants[k], rtol=1e-5)
        except BaseException as error:  # noqa: BLE001
            failures.append(error)

    threads = [threading.Thread(target=call, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not failures, failures[0]
    assert f.experimental_get_tracing_count() == 1


# --- what is not interpreted compiles before the first call returns -----------------------
def _variable_function():
    v = tj.Variable(np.ones(3))

    @tj.function
    def f(x):
        v.assign(v + x)
        return v.read_value()

    f._keep = v
    return f


def _written_argument(x):
    x[0] = 5.0
    return x + 1


def _tensor_array(x):
    ta = tj.TensorArray(np.float64, size=2)
    ta = ta.write(0, x).write(1, x + 1)
    return ta.stack()


def _print(x):
    tj.print(x)
    return x + 1


def _py_function(x):
    return tj.py_function(np.negative, [x], np.float64)


def _assert(x):
    tj.debugging.assert_positive(x + 10)
    return x


def _gather(x):
    return x[(x > 1).astype(np.int64)]  # run-time indices


def _dynamic_slice(x):
    return x[np.argmin(x)]


def _nonzero(x):
    return x[x > 0]


def _sort(x):
    return np.sort(x)


EXCLUDED = {
    f.__name__.lstrip("_"): f
    for f in (_print, _py_function, _assert, _gather, _dynamic_slice, _nonzero, _sort,
              _tensor_array, _written_argument)  # fmt: skip
}


@pytest.mark.parametrize("family", sorted(EXCLUDED))
def test_excluded_op_families_are_not_interpreted(family):
    f = tj.function(EXCLUDED[family])
    concrete = f.get_concrete_function(np.arange(3.0))
    assert tiered._interpretable(concrete) is False


def test_complex_powers_are_interpreted_as_numpy_computes_them():
    """z ** 2, z ** -1 and z ** 0.5 are NumPy's np.square, np.reciprocal and np.sqrt (its
    operator's shortcuts, which differ from np.power at infinities); np.power is cpow."""

    def powers(z):
        return z**2, np.power(z, 2), z**-1, np.power(z, -1), z**0.5, np.power(z, 0.5)

    z = np.array([complex(-np.inf, 0), complex(np.inf, 1), 1j, -4, 0], np.complex128)
    function = tj.function(powers)
    assert isinstance(tiered._interpretable(function.get_concrete_function(z)), Plan)
    with np.errstate(all="ignore"):
        got, want = interpret(function, z), powers(z)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)


def test_variables_and_unknown_dims_are_not_interpreted():
    concrete = _variable_function().get_concrete_function(np.arange(3.0))
    assert tiered._interpretable(concrete) is False
    f = tj.function(lambda x: x * 2, input_signature=[tj.TensorSpec([None], np.float64)])
    assert tiered._interpretable(f.get_concrete_function()) is False


def test_an_excluded_function_compiles_before_its_first_call_returns():
    f = tj.function(lambda x: np.sort(x)[::-1])
    x = np.array([3.0, 1.0, 2.0])
    np.testing.assert_array_equal(f(x), [3.0, 2.0, 1.0])
    concrete = f.get_concrete_function(x)
    assert concrete.is_compiled and concrete.tier.job is None


def test_a_result_of_the_wrong_type_makes_the_interpreter_refuse(monkeypatch):
    from tracejit.ir.elementwise import AddOp

    monkeypatch.setattr(AddOp, "evaluate", lambda self, x, y: (x + y).astype(np.float64))
    f = tj.function(lambda x: x + 1)
    x = np.arange(3, dtype=np.float32)
    result = f(x)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, x + 1)  # compiled code, not the bad evaluation
    assert f.get_concrete_function(x)._compilation is not None


def test_a_long_loop_is_abandoned_and_compiled(monkeypatch):
    monkeypatch.setattr(graph_interpreter, "LOOP_BUDGET_SECONDS", 0.0)

    @tj.function
    def f(x):
        for _ in tj.range(50):
            x = x + 1
        return x

    np.testing.assert_array_equal(f(np.zeros(2)), [50.0, 50.0])
    assert f.get_concrete_function(np.zeros(2))._compilation is not None


def test_a_cached_trace_is_loaded_not_interpreted(tmp_path):
    def body(x):
        return np.tanh(x) * 3

    x = np.linspace(0, 1, 5)
    tj.config.set_cache_dir(tmp_path)
    try:
        tj.config.set_tiered_compilation(False)
        tj.function(body)(x)  # compiles and stores
        tj.config.set_tiered_compilation(True)
        f = tj.function(body)
        np.testing.assert_allclose(f(x), np.tanh(x) * 3)
        compilation = f.get_concrete_function(x)._compilation
        assert compilation is not None and compilation.from_cache
    finally:
        tj.config.set_cache_dir(None)


# --- processes ----------------------------------------------------------------------------------
EXIT_SCRIPT = """
import numpy as np, tracejit as tj
@tj.function
def f(x, w):
    for _ in range({loops}):
        x = np.tanh(x @ w) + np.exp(-x) * 0.5
    return x
x = np.ones((8, 8), np.float32)
assert f(x, x).shape == (8, 8)
assert tj.config.tiered_compilation()
"""


@pytest.mark.parametrize("loops", [1, 6])
def test_a_process_exiting_right_after_a_first_call_exits_cleanly(loops):
    env = {**os.environ, "TRACEJIT_TIERED": "1"}
    env.pop("TRACEJIT_VERIFY_EACH", None)
    for delay in ("", "import time; time.sleep(0.05)"):
        done = subprocess.run(
            [sys.executable, "-c", EXIT_SCRIPT.format(loops=loops) + delay],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_compiles_synchronously_and_gets_right_answers():
    f = _fresh_twenty_ops()
    x = np.linspace(-2, 2, 16, dtype=np.float32)
    want = eager(f, x, x)
    f(x, x)  # interpreted; the compile is queued in this process
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:
        code = 1
        try:
            assert_matches(f(x, x), want, rtol=1e-5)
            g = tj.function(lambda a: a - 1)
            g(x)  # a new trace in the child: compiled before the call returns
            code = 0 if g.get_concrete_function(x)._compilation is not None else 2
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            assert os.waitstatus_to_exitcode(status) == 0
            break
        time.sleep(0.01)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung")
    assert_matches(f(x, x), want, rtol=1e-5)


def test_python_numbers_reach_the_compiled_fast_call_with_the_defaults():
    """`f(x, 1.5, 2.0)` as a user calls it (tiering on, default threads): interpreted first,
    then the background compile answers through the fast call, which checks the Python
    numbers (another value, or -0.0 for 0.0, is another trace)."""

    def scaled(x, alpha, beta):
        return alpha * x + beta

    f = tj.function(scaled)
    x = np.linspace(-1.0, 1.0, 16)
    assert_matches(f(x, 1.5, 2.0), eager(f, x, 1.5, 2.0))
    tj.config.wait_for_compiles()
    assert f.get_concrete_function(x, 1.5, 2.0).is_compiled
    for alpha, beta in ((1.5, 2.0), (1.5, 2.0), (0.0, 1.0), (-0.0, 1.0)):
        got, want = f(x, alpha, beta), eager(f, x, alpha, beta)
        assert_matches(got, want)
        assert (np.signbit(got) == np.signbit(want)).all()
    tj.config.wait_for_compiles()
    assert_matches(f(x, -0.0, 1.0), eager(f, x, -0.0, 1.0))  # the compiled trace
    assert f._last_fast_call is not None
