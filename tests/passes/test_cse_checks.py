"""cse merges repeated indexing (passes/cse.py): `x[m]` on two lines is one gather, the
results stay NumPy's, and an out-of-range index names the line NumPy fails at."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly


def masked_twice(x, y, m):
    total = x[m] * 2.0
    total = total + x[m] * y[m]
    return total, x[m].sum()


def masked_once(x, y, m):
    picked = x[m]
    total = picked * 2.0
    total = total + picked * y[m]
    return total, picked.sum()


SIGNATURE = (
    tj.TensorSpec([None], tj.float64),
    tj.TensorSpec([None], tj.float64),
    tj.TensorSpec([None], tj.bool_),
)
MASKED_TWICE = tj.function(masked_twice, input_signature=SIGNATURE)


def _gathers(function) -> int:
    concrete = tj.function(function, input_signature=SIGNATURE).get_concrete_function()
    return concrete.ir(after="cse").count("tj.gather")


def test_repeated_masked_indexing_is_gathered_once():
    assert _gathers(masked_twice) == _gathers(masked_once)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 40), seed=st.integers(0, 2**16))
def test_repeated_masked_indexing_matches_numpy(n, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    m = rng.random(n) < 0.5
    got = MASKED_TWICE(x, y, m)
    assert_same(got, run_eagerly(tj.function(masked_twice), x, y, m))
    assert_same(got, masked_twice(x, y, m))


def index_twice(x, i):
    first = x[i]
    second = x[i] + 1.0
    return first + second


def test_an_index_out_of_range_names_the_first_line_that_reads_it():
    line = inspect.getsourcelines(index_twice)[1] + 1
    x = np.arange(4.0)
    assert index_twice(x, np.int64(-4)) == 1.0
    assert tj.function(index_twice)(x, np.int64(-4)) == 1.0
    with pytest.raises(IndexError, match=rf"test_cse_checks.py:{line}\b"):
        tj.function(index_twice)(x, np.int64(4))
    with pytest.raises(IndexError):
        run_eagerly(tj.function(index_twice), x, np.int64(4))


def index_in_a_branch(x, i, flag):
    if flag > 0:  # noqa: SIM108  (an if statement: AutoGraph stages it as a tj.if)
        y = x[i]
    else:
        y = x[0]
    return y + x[i]


def test_an_index_read_in_a_branch_does_not_stand_for_the_one_after_it():
    after = inspect.getsourcelines(index_in_a_branch)[1] + 5
    x = np.arange(4.0)
    compiled = tj.function(index_in_a_branch)
    assert compiled(x, np.int64(2), np.int64(0)) == index_in_a_branch(x, 2, 0)
    assert compiled(x, np.int64(-1), np.int64(1)) == index_in_a_branch(x, -1, 1)
    with pytest.raises(IndexError, match=rf"test_cse_checks.py:{after}\b"):
        compiled(x, np.int64(9), np.int64(0))
    with pytest.raises(IndexError, match=rf"test_cse_checks.py:{after - 3}\b"):
        compiled(x, np.int64(9), np.int64(1))


def test_with_the_defaults_users_get_the_compiled_code_answers():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    m = x > 0
    for got in answers_with_user_defaults(masked_twice, x, y, m):
        assert_same(got, masked_twice(x, y, m))


def test_the_checked_ops_are_named_as_the_dialect_names_them():
    from tracejit.ir.indexing import GatherOp
    from tracejit.ir.scatter_combine import ScatterCombineOp
    from tracejit.ir.update import ScatterOp, ToIndexOp
    from tracejit.passes.cse import CHECKED_OPS

    assert {op.name for op in (GatherOp, ToIndexOp, ScatterOp, ScatterCombineOp)} == CHECKED_OPS
