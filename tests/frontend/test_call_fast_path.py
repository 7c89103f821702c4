"""The per-call fast path (runtime/fast_path.py) through the METH_FASTCALL entry point
(codegen/pyobject_entry.py): same results as eager, reference counts right, and every
unusual call still takes the slow path and its clear errors."""

import sys
from types import BuiltinFunctionType

import numpy as np
import pytest

import tracejit as tj
from tracejit.codegen.pyobject_entry import fastcall_supported

pytestmark = pytest.mark.skipif(not fastcall_supported(), reason="needs CPython with a GIL")


def axpy1(x, y):
    return x * y + 1


def entry_of(function, *args):
    concrete = function.get_concrete_function(*args)
    concrete(*args)  # compiles
    call = concrete.fast_call
    while True:  # through the wrappers (fast_path.with_numpy_scalars, ...)
        cells = dict(zip(call.__code__.co_freevars, call.__closure__, strict=True))
        if "entry" in cells:
            return cells["entry"].cell_contents
        call = cells["kernel_call"].cell_contents


def test_small_calls_go_through_the_builtin_and_match_eager(check_against_eager):
    f = tj.function(axpy1)
    x, y = np.arange(4.0), np.linspace(-1.0, 1.0, 4)
    assert isinstance(entry_of(f, x, y), BuiltinFunctionType)
    for _ in range(3):  # the first call compiles, the later ones take the fast path
        check_against_eager(f, x, y)
    concrete = f.get_concrete_function(x, y)
    np.testing.assert_array_equal(concrete(x, y), x * y + 1)


def test_outputs_have_exactly_one_reference_and_inputs_keep_theirs():
    f = tj.function(axpy1)
    x, y = np.arange(4.0), np.ones(4)
    f(x, y)
    before = sys.getrefcount(x), sys.getrefcount(y)
    for _ in range(1000):
        out = f(x, y)
    assert sys.getrefcount(out) == 2  # `out` and getrefcount's argument
    assert (sys.getrefcount(x), sys.getrefcount(y)) == before


def test_scalar_and_structured_outputs(check_against_eager):
    total = tj.function(lambda x: np.sum(x * 2.0))
    pair = tj.function(lambda x: {"a": x + 1.0, "b": (np.max(x), x * x)})
    x = np.linspace(0.0, 3.0, 7)
    for _ in range(2):
        assert isinstance(check_against_eager(total, x), np.float64)
        check_against_eager(pair, x)


def test_unusual_calls_take_the_slow_path():
    f = tj.function(axpy1)
    x, y = np.arange(4.0), np.ones(4)
    f(x, y)
    concrete = f.get_concrete_function(x, y)
    with pytest.raises(TypeError):
        f(x, y, x)
    with pytest.raises(TypeError):
        concrete(x, y, x)
    with pytest.raises(TypeError):
        concrete(x)
    strided = np.arange(8.0)[::2]
    np.testing.assert_array_equal(f(strided, y), strided * y + 1)  # copied on the slow path
    np.testing.assert_array_equal(concrete(strided, y), strided * y + 1)
    np.testing.assert_array_equal(f(x.astype(np.float32), y), x * y + 1)  # a new trace
    assert f.experimental_get_tracing_count() == 2


def test_failed_checks_raise_through_the_fast_path():
    @tj.function
    def power(k, n):
        return k**n

    k = np.arange(1, 5, dtype=np.int32)
    two, minus_one = np.array(2, np.int32), np.array(-1, np.int32)  # arrays: the fast path
    np.testing.assert_array_equal(power(k, two), k**2)
    assert power._last_fast_call is not None
    with pytest.raises(ValueError, match="negative integer powers"):
        power(k, minus_one)


def test_only_large_kernels_release_the_gil():
    small, large = np.ones(16, np.float32), np.ones(1 << 17, np.float32)
    f = tj.function(axpy1)
    assert "PyEval_SaveThread" not in f.get_concrete_function(small, small).llvm_ir
    assert "PyEval_SaveThread" in f.get_concrete_function(large, large).llvm_ir
    np.testing.assert_array_equal(f(large, large), np.full(1 << 17, 2.0, np.float32))


def scaled(x, alpha, beta):
    return alpha * x + beta


@pytest.mark.filterwarnings("ignore::tracejit.RetracingWarning")
def test_python_numbers_take_the_fast_path_and_are_checked():
    """`f(x, 1.5, 2)` (PolyBench's alpha and beta): the numbers are values of the trace,
    which the fast call checks by type and value (and by key for zeros and NaN: 0.0 and
    -0.0 are equal in Python, and `x / s` tells them apart)."""
    f = tj.function(scaled)
    x = np.arange(4.0)
    f(x, 1.5, 2)
    assert f._last_fast_call is not None
    calls = [(1.5, 2), (1.5, 2.0), (1.5, True), (2.5, 2), (0.0, 1), (-0.0, 1), (0.0, 1),
             (float("nan"), 1), (float("nan"), 1), (-0.0, -0.0), (0.0, 0.0), (1j, 2)]  # fmt: skip
    for alpha, beta in calls:
        got, want = f(x, alpha, beta), scaled(x, alpha, beta)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert (np.signbit(got.real) == np.signbit(want.real)).all()
    assert f.experimental_get_tracing_count() == 10  # one per distinct key, none twice
    np.testing.assert_array_equal(f(x, 1.5, 2), 1.5 * x + 2)  # the fast path again


def test_python_numbers_keep_the_slow_path_errors():
    f = tj.function(scaled)
    x = np.arange(4.0)
    f(x, 1.5, 2)
    concrete = f.get_concrete_function(x, 1.5, 2)
    with pytest.raises(TypeError, match="was constructed with float value 1.5"):
        concrete(x, 2.5, 2)
    with pytest.raises(TypeError):
        f(x, 1.5, 2, 3)
    np.testing.assert_array_equal(f(x[::2], 1.5, 2), 1.5 * x[::2] + 2)  # copied on the slow path


def matvec_into(a, y, x):
    x += a @ y


def doubled_total(a, x):
    x *= 2
    return np.sum(x), a[0]


def _no_slow_path(monkeypatch):
    from tracejit.frontend.api.concrete_function import ConcreteFunction

    def refuse(self, leaves):
        raise AssertionError("the call took the slow path")

    monkeypatch.setattr(ConcreteFunction, "call_leaves", refuse)


def test_functions_writing_their_arguments_take_the_fast_path(monkeypatch):
    rng = np.random.default_rng(0)
    a, y, x = rng.random((6, 6)), rng.random(6), rng.random(6)
    into, total = tj.function(matvec_into), tj.function(doubled_total)
    ints = np.arange(6, dtype=np.int64)
    into(a, y, x.copy()), total(a, ints.copy())  # compiled (the suite turns tiering off)
    _no_slow_path(monkeypatch)
    for _ in range(2):
        got, expected = x.copy(), x.copy()
        assert into(a, y, got) is None
        matvec_into(a, y, expected)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        got_ints, expected_ints = ints.copy(), ints.copy()
        result = total(a, got_ints)
        np.testing.assert_array_equal(got_ints, expected_ints * 2)
        assert result[0] == 30 and type(result[0]) is np.int64
        np.testing.assert_array_equal(result[1], a[0])


def test_written_arguments_the_fast_path_cannot_take_still_raise_or_copy():
    rng = np.random.default_rng(1)
    a, y = rng.random((6, 6)), rng.random(6)
    into = tj.function(matvec_into)
    into(a, y, np.zeros(6))
    read_only = np.zeros(6)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        into(a, y, read_only)
    with pytest.raises(ValueError, match="shares memory with argument 1"):
        into(a, y, a[2])  # a row of `a`: NumPy would see the write through `a`
    with pytest.raises(ValueError, match="shares memory with argument 2"):
        into(a, y, y)  # one array passed twice, each owning its memory
    whole, expected_whole = np.ones(12), np.ones(12)
    into(a, whole[:6], whole[6:])  # two views of one array that do not overlap: as NumPy
    matvec_into(a, expected_whole[:6], expected_whole[6:])
    np.testing.assert_allclose(whole, expected_whole, rtol=1e-12)
    strided, expected = np.zeros(12), np.zeros(12)
    into(a, y, strided[::2])  # not contiguous: the slow path copies it in and back
    matvec_into(a, y, expected[::2])
    np.testing.assert_allclose(strided, expected, rtol=1e-12)


def selections(x):
    m = x > 0.5
    return x[m], np.nonzero(m), {"count": np.count_nonzero(m), "rows": np.flatnonzero(m) * 2}


def test_outputs_the_kernel_allocates_take_the_fast_path(monkeypatch, check_against_eager):
    """`x[mask]`, `np.nonzero`: the kernel allocates the result and returns a descriptor,
    which the fast path adopts as the slow path does (29 us -> 7 us for 2,000 elements)."""
    f = tj.function(selections)
    x = np.random.default_rng(1).random(40)
    f(x)  # compiled
    _no_slow_path(monkeypatch)
    for values in (x, x * 0.1, 1 - x):  # sizes from 0 to all
        check_against_eager(f, values)
    for _ in range(1000):
        out = f(x)[0]
    assert sys.getrefcount(out) == 2 and out.base is not None  # over the kernel's buffer


def pairwise_distances(points):
    return np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))


def scaled_rows(a, v, w):
    return {"rows": a * v, "total": np.sum(v * w), "kept": a[a > 0.5]}


def test_traces_with_unknown_dims_take_the_fast_path(monkeypatch, check_against_eager):
    """A trace for dims unknown at trace time (an input signature with None,
    `reduce_retracing`) computes its output shapes from the arguments' on the fast path too
    (a 100-element `np.sin(x) * y + 1`: 29 us on the slow path, 3 us, NumPy 2.2 us)."""
    spec = tj.TensorSpec([None, None], np.float64)
    distances = tj.function(pairwise_distances, input_signature=[spec])
    rows = tj.function(scaled_rows, reduce_retracing=True)
    rng = np.random.default_rng(2)
    distances(rng.random((3, 2)))
    rows(rng.random((2, 2)), rng.random(2), rng.random(2))
    rows(rng.random((3, 3)), rng.random(3), rng.random(3))  # the trace of unknown dims
    vector, zero_d = tj.TensorSpec([None], np.float64), tj.TensorSpec([], np.float64)
    scaled = tj.function(lambda x, s: (x * s, s + 1), input_signature=[vector, zero_d])
    scaled(np.ones(2), np.array(2.0))
    _no_slow_path(monkeypatch)
    for n, d in ((5, 3), (1, 4), (0, 2), (7, 1)):
        check_against_eager(distances, rng.random((n, d)), rtol=1e-12)
        check_against_eager(scaled, rng.random(n), np.array(-1.5))
        check_against_eager(rows, rng.random((n, d)), rng.random(d), rng.random(d), rtol=1e-12)


def test_unknown_dims_that_do_not_meet_still_raise(check_against_eager):
    """The dims the trace required equal are checked before the kernel runs: the slow path
    raises its error, and nothing is read out of bounds."""
    matrix, vector = tj.TensorSpec([None, None], np.float64), tj.TensorSpec([None], np.float64)
    rows = tj.function(scaled_rows, input_signature=[matrix, vector, vector])
    rng = np.random.default_rng(3)
    for n in (2, 3, 4):
        rows(rng.random((n, n)), rng.random(n), rng.random(n))
    with pytest.raises(tj.errors.InvalidArgumentError, match="Incompatible shapes"):
        rows(rng.random((4, 4)), rng.random(4), rng.random(5))
    with pytest.raises(tj.errors.InvalidArgumentError, match="Incompatible shapes"):
        rows(rng.random((4, 3)), rng.random(4), rng.random(4))
    relaxed = tj.function(scaled_rows, reduce_retracing=True)  # traces such a call exactly:
    for n in (2, 3, 4):  # NumPy's own error
        relaxed(rng.random((n, n)), rng.random(n), rng.random(n))
    with pytest.raises(ValueError, match="could not be broadcast"):
        relaxed(rng.random((4, 4)), rng.random(4), rng.random(5))
    check_against_eager(relaxed, rng.random(4), rng.random(4), rng.random(4))  # another rank
    strided = rng.random((4, 8))[:, ::2]  # not contiguous: the slow path copies it
    check_against_eager(rows, strided, rng.random(4), rng.random(4), rtol=1e-12)


def test_numpy_scalar_arguments_take_the_fast_path(monkeypatch, check_against_eager):
    """A NumPy scalar argument (a tensor input, as the guide recommends) took the slow path
    on every call (24 us for `a * c` on 100 elements, NumPy 0.5 us): a probe's finding."""
    f, f32 = tj.function(axpy1), tj.function(axpy1)
    x = np.arange(4.0)
    f(x, np.float64(0.5))
    f32(np.float32(1.5), np.float32(2.0))  # both 0-d: a NumPy scalar result
    _no_slow_path(monkeypatch)
    for scalar in (np.float64(2.0), np.float64(-0.0), np.float64(np.nan)):
        check_against_eager(f, x, scalar)
    assert type(f32(np.float32(3.0), np.float32(2.0))) is np.float32


def reshaped_view(x):
    r = x.reshape(-1)
    r[0] = 5.0  # through a view of the argument, as NumPy's reshape of a C-ordered array
    return r * 2


def test_strided_arguments_take_the_fast_path_as_copies(monkeypatch, check_against_eager):
    """A transpose, a strided slice or a Fortran-ordered argument took the slow path on
    every call to be copied (35 us for `x * y + 1` on 100 elements, NumPy 2.5 us): the fast
    call now copies it to C order itself. A trace writing its arguments still copies them
    back on the slow path, and one relying on an argument's reshape being a view still
    refuses a strided one."""
    f = tj.function(axpy1)
    rng = np.random.default_rng(2)
    a, y = rng.random(8), rng.random(4)
    f(a[:4].copy(), y)
    square = tj.function(axpy1)
    m = rng.random((5, 5))
    square(m, m)
    _no_slow_path(monkeypatch)
    for x in (a[::2], a[:4], a[1::2][::-1]):
        check_against_eager(f, x, y)
    check_against_eager(square, m.T, m)
    check_against_eager(square, np.asfortranarray(m), m[::-1])
    monkeypatch.undo()
    into, expected = tj.function(matvec_into), np.zeros(12)
    rows, vector, strided = rng.random((6, 6)), rng.random(6), np.zeros(12)
    into(rows, vector, np.zeros(6))
    into(rows, vector, strided[::2])  # written: copied in and back on the slow path
    matvec_into(rows, vector, expected[::2])
    np.testing.assert_allclose(strided, expected, rtol=1e-12)
    viewing = tj.function(reshaped_view)
    viewing(np.ones((2, 3)))
    with pytest.raises(tj.errors.InvalidArgumentError, match="not C-contiguous"):
        viewing(np.ones((3, 2)).T)
