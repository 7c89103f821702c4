"""np.einsum, np.outer and np.inner (issue 3, item 5) compiled equal eager NumPy."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj


def contractions(a, b, c, v, w):
    """a: (m, k), b: (k, n), c: (batch, m, k), v: (k,), w: (k,)."""
    return {
        "matmul": np.einsum("ij,jk->ik", a, b),
        "matmul_implicit": np.einsum("ij,jk", a, b),
        "transpose": np.einsum("ji", a),
        "transpose_explicit": np.einsum("ij->ji", a),
        "batched": np.einsum("bij,bjk->bik", c, np.broadcast_to(b, (c.shape[0], *b.shape))),
        "batched_shared_rhs": np.einsum("bij,jk->bki", c, b),
        "trace": np.einsum(
            "ii->", a[:, : a.shape[0]] if a.shape[1] >= a.shape[0] else a[: a.shape[1]]
        ),
        "diagonal": np.einsum("ii->i", np.outer(v, w)),
        "outer": np.einsum("i,j->ij", v, w),
        "sum_all": np.einsum("ij->", a),
        "sum_rows": np.einsum("ij->j", a),
        "elementwise": np.einsum("ij,ij->ij", a, a),
        "dot": np.einsum("i,i", v, w),
        "three_operands": np.einsum("ij,jk,k->i", a, b, np.ones(b.shape[1], a.dtype)),
        "ellipsis": np.einsum("...ij,...jk->...ik", c, b),
        "np_outer": np.outer(a, v),
        "np_inner": np.inner(a, c),
        "np_inner_1d": np.inner(v, w),
        "np_inner_scalar": np.inner(v, 3),
    }


@settings(max_examples=5, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.uint8]),
    m=st.integers(1, 4),
    k=st.integers(0, 4),
    n=st.integers(1, 3),
    batch=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_einsum_subscripts(check_against_eager, dtype, m, k, n, batch, seed):
    rng = np.random.default_rng(seed)
    shapes = [(m, k), (k, n), (batch, m, k), (k,), (k,)]
    args = [(rng.standard_normal(s) * 10).astype(dtype) for s in shapes]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    check_against_eager(tj.function(contractions), *args, rtol=tol, atol=tol)


def test_einsum_mixed_dtypes_bools_and_non_contiguous(check_against_eager):
    @tj.function
    def f(a, b, p, q):
        return {
            "promote": np.einsum("ij,jk->ik", a, b),
            "bool_matmul": np.einsum("ij,jk->ik", p, q),
            "bool_sum": np.einsum("ij->i", p),
            "dtype": np.einsum("ij->", a, dtype=np.float64),
            "broadcast_one": np.einsum("ij,ij->ij", a[:, :1], a),
        }

    a = np.arange(12, dtype=np.int32).reshape(4, 3)[::-1]
    b = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3).T
    p = np.array([[True, False, False], [False, False, False]])
    check_against_eager(f, a, b, p, p.T.copy())


def lu_without_pivoting(a):
    """np.outer of slices whose lengths change with the loop counter: the loop is staged."""
    a = a.copy()
    for k in range(a.shape[0] - 1):
        a[k + 1 :, k] /= a[k, k]
        a[k + 1 :, k + 1 :] -= np.outer(a[k + 1 :, k], a[k, k + 1 :])
    return a


@settings(max_examples=5, deadline=None)
@given(n=st.integers(10, 14), seed=st.integers(0, 2**16))
def test_np_outer_of_run_time_lengths_keeps_the_loop_a_loop(check_against_eager, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n)) + n * np.eye(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        check_against_eager(tj.function(lu_without_pivoting), a, rtol=1e-10, atol=1e-12)
    outer = tj.function(np.outer, input_signature=[tj.TensorSpec([None, None], np.int64),
                                                    tj.TensorSpec([None], np.int64)])  # fmt: skip
    for m, k in [(2, 3), (0, 4), (3, 0)]:
        x, y = rng.integers(-9, 9, (m, k)), rng.integers(-9, 9, k + 1)
        np.testing.assert_array_equal(outer(x, y), np.outer(x, y))


@pytest.mark.parametrize(
    ("subscripts", "match"),
    [("ij,jk->ik", "label 'j'"), ("ijk->", "subscripts 'ijk'"), ("ij->ik", "output")],
)
def test_einsum_bad_subscripts(subscripts, match):
    f = tj.function(lambda a, b: np.einsum(subscripts, a, *([b] if "," in subscripts else [])))
    with pytest.raises(ValueError, match=match):
        f(np.ones((2, 3)), np.ones((4, 2)))
