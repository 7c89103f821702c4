"""`x[mask]` gathers the positions of the mask's true elements without a check per element
(`tj.gather ... in_bounds`): the mask's shape is checked against the dims it covers first, at
trace time or when the call starts, so every position lies inside them."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly

KEYS = {
    "whole": lambda x, m: x[m],
    "rows": lambda x, m: x[m[:, 0]],
    "after_an_int": lambda x, m: x[1, m[0]],
    "after_a_slice": lambda x, m: x[:, m[0]],
    "ellipsis": lambda x, m: x[..., m[0]],
    "zero_d": lambda x, m: x[m[0, 0]],
    "assigned_from": lambda x, m: np.where(x > 0, x, 0)[m] * 2.0,
}


# one trace per key serves every shape (dims unknown at trace time); the static shapes of
# the rest of the suite take the same path
SIGNATURE = (tj.TensorSpec([None, None], tj.float64), tj.TensorSpec([None, None], tj.bool_))
COMPILED = {name: tj.function(key, input_signature=SIGNATURE) for name, key in KEYS.items()}


@pytest.mark.parametrize("name", KEYS)
@settings(max_examples=12, deadline=None)
@given(rows=st.integers(2, 5), cols=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_masked_selections_match_numpy(name, rows, cols, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, cols))
    m = rng.random((rows, cols)) < 0.5
    function = KEYS[name]
    want = function(x, m)
    got = COMPILED[name](x, m)
    assert_same(got, want)
    assert_same(got, run_eagerly(tj.function(function), x, m))


def test_the_gather_of_a_mask_is_unchecked_and_the_gather_of_indices_is_checked():
    def select(x, m, i):
        return x[m], x[i]

    args = np.ones(5), np.ones(5, bool), np.ones(2, int)
    ir = tj.function(select).get_concrete_function(*args).ir(after="cse")
    # x[m] and x[i] gather along axis 0 (x[m]'s positions are a column of np.argwhere(m))
    gathers = [line for line in ir.splitlines() if "tj.gather" in line and "axis = 0" in line]
    assert len(gathers) == 2, gathers
    assert ["in_bounds" in line for line in gathers] == [True, False]


def test_masks_of_other_run_time_lengths_fail_before_any_read():
    f = tj.function(
        lambda x, m: x[m],
        input_signature=(tj.TensorSpec([None], tj.float64), tj.TensorSpec([None], tj.bool_)),
    )
    assert_same(f(np.arange(5.0), np.array([1, 0, 1, 1, 0], bool)), np.array([0.0, 2, 3]))
    with pytest.raises(tj.errors.InvalidArgumentError, match="dim 0 of input 0 is 5"):
        f(np.arange(5.0), np.ones(7, bool))
    g = tj.function(lambda x, y: x[x > 0][y[y > 0] > 1])
    assert_same(g(np.array([1.0, 2, -1]), np.array([3.0, 0.5, -2])), np.array([1.0]))
    with pytest.raises(ValueError, match="different masks have different lengths"):
        g(np.array([1.0, 2, 3]), np.array([3.0, 0.5, -2]))


def test_with_the_defaults_users_get_the_compiled_code_answers():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 5))
    m = x > 0.2
    function = KEYS["whole"]
    for got in answers_with_user_defaults(function, x, m):
        assert_same(got, function(x, m))
