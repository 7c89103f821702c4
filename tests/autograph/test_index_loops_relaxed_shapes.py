"""Index loops whose variables change shape (frontend/autograph/operators.py,
`_staged_with_relaxed_shapes`): a `for i in range(n)` of more trips than the unroll limit
whose body makes a variable shorter or longer (`z = z[keep]`, a concatenation) is staged
once, with that variable's changed dims unknown at trace time -- the shape invariant
`set_loop_options` would give it -- instead of being unrolled into a copy of the body per
trip. Compiled vs eager NumPy; the loop must be one `tj.while` and warn nothing. A change of
dtype or rank, or a `tj.range` loop (TensorFlow's contract), is not relaxed.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import run_eagerly


def escape_counts(c0):
    """Mandelbrot's escape loop on the points still inside: shorter every trip."""
    z = np.zeros_like(c0)
    c = c0
    total = 0
    for i in range(20):
        z = z * z + c
        keep = np.abs(z) < 2
        total += np.count_nonzero(~keep) * (i + 1)
        z = z[keep]
        c = c[keep]
    return total, z.size, c


def growing(x):
    """Longer every trip: a running cumulative tail appended."""
    for _ in range(12):
        x = np.concatenate([x, x[-1:] * 2 + 1])
    return x


def halving_rows(a):
    """A 2-D variable whose first dim shrinks (the rank and the second dim stay)."""
    total = np.zeros(a.shape[1])
    for _ in range(10):
        total = total + a.sum(axis=0)
        a = a[::2]
    return total, a


def _staged_once(function, *args):
    """Compiled result, after checking the trace holds one loop and warned nothing."""
    compiled = tj.function(function)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a LoopUnrolledWarning would fail the test
        graph = str(compiled.get_concrete_function(*args).graph)
    assert graph.count("tj.while") == 1, graph.count("tj.while")
    return compiled


@settings(max_examples=10, deadline=None)
@given(size=st.integers(0, 40), seed=st.integers(0, 2**16))
def test_a_shrinking_loop_is_staged_once_and_matches_numpy(size, seed):
    rng = np.random.default_rng(seed)
    c0 = rng.uniform(-2, 1, size) + 1j * rng.uniform(-1.2, 1.2, size)
    compiled = _staged_once(escape_counts, c0)
    got, want = compiled(c0), escape_counts(c0)
    assert got[0] == want[0] and got[1] == want[1]
    np.testing.assert_array_equal(got[2], want[2])


@pytest.mark.parametrize("size", [0, 1, 5])
def test_a_growing_loop_is_staged_once_and_matches_numpy(size):
    x = np.arange(size, dtype=np.float64) + 1
    if size == 0:  # x[-1:] of an empty array is empty: the loop keeps it empty
        np.testing.assert_array_equal(tj.function(growing)(x), growing(x))
        return
    compiled = _staged_once(growing, x)
    np.testing.assert_array_equal(compiled(x), growing(x))


@pytest.mark.parametrize("rows", [0, 1, 7, 1000])
def test_a_first_dim_that_halves_is_staged_once(rows):
    a = np.random.default_rng(rows).standard_normal((rows, 3))
    compiled = _staged_once(halving_rows, a)
    got, want = compiled(a), run_eagerly(compiled, a)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_a_rank_change_is_still_unrolled_with_a_warning():
    def stacked(x):
        for _ in range(10):
            x = x[None]
        return x

    with pytest.warns(tj.LoopUnrolledWarning, match="changes from dtype"):
        got = tj.function(stacked)(np.ones(2))
    assert got.shape == stacked(np.ones(2)).shape


def test_a_tj_range_loop_still_refuses_a_shape_change_as_tensorflow_does():
    def shrinking(x):
        for _ in tj.range(10):
            x = x[x > 0]
        return x

    with pytest.raises(ValueError, match="must keep its dtype and shape"):
        tj.function(shrinking)(np.ones(4))


def test_with_the_defaults_users_get():
    """Tiered compilation on (the suite turns it off): the staged loop answers while it
    compiles (interpreted, with its run-time lengths) and once compiled, and agrees."""
    c0 = np.linspace(-2, 0.5, 300) + 0.3j
    want = escape_counts(c0)
    tj.config.set_tiered_compilation(True)
    try:
        compiled = tj.function(escape_counts)
        answers = [compiled(c0)]  # interpreted while it compiles
        tj.config.wait_for_compiles()
        concrete = compiled.get_concrete_function(c0)
        assert concrete.is_compiled and concrete.fast_call is not None
        answers.append(compiled(c0))
        for got in answers:
            assert got[0] == want[0] and got[1] == want[1]
            np.testing.assert_array_equal(got[2], want[2])
    finally:
        tj.config.set_tiered_compilation(False)
