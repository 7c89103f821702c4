"""dedupe-loop-nests: a repeated loop nest is compiled once and called where it was, and every
program computes what it computed before.

Programs written with a Python loop over layers, divisors or time steps unroll while tracing;
each runs compiled (and the nests must really have been shared) and eagerly, and the answers
are compared over hypothesis-drawn sizes, dtypes and values, with the edge cases: empty
arrays, negative integers with `//` and `%`, NaN and Inf, non-contiguous inputs. A bounds
check failing inside a shared nest must stop its caller at once, from either call site.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.parser import Parser

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly
from tracejit.codegen import compile_module
from tracejit.compiler import driver
from tracejit.ir import runtime_contract
from tracejit.ir.dialect import make_context
from tracejit.runtime import runtime_errors


def layer_norms(x, gammas, betas):
    for gamma, beta in zip(gammas, betas, strict=True):
        mu = np.mean(x, axis=1, keepdims=True)
        sd = np.sqrt(np.mean((x - mu) ** 2, axis=1, keepdims=True) + 1e-5)
        x = x + np.tanh((x - mu) / sd * gamma + beta)
    return x


def floor_steps(x, divisors):
    for d in divisors:  # the sort keeps each step's nests apart (fused, they would be one)
        x = np.sort(x // d + x % d - d)
    return x


def scaled_sorts(x, scales):
    for k in scales:  # a Python float per step: a constant of the trace, other in each nest
        x = np.sort(np.tanh(x * k) + k)
    return x


def nests_shared(function, *args) -> int:
    """How many calls of shared nests the compiled module of `function(*args)` makes."""
    module = str(function.get_concrete_function(*args).ir(after="dedupe-loop-nests"))
    return module.count("{tj.outlined}")


def compiled_and_eager(python_function, *args, rtol=1e-9):
    function = tj.function(python_function)
    compiled = function(*args)
    assert_same(compiled, run_eagerly(function, *args), rtol=rtol, atol=1e-12)
    return function, compiled


@settings(max_examples=6, deadline=None)
@given(
    layers=st.integers(2, 3),
    batch=st.integers(1, 9),
    width=st.integers(1, 70),
    dtype=st.sampled_from([np.float32, np.float64]),
    strided=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_unrolled_layers_match_eager(layers, batch, width, dtype, strided, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, 2 * width)).astype(dtype)
    x = x[:, ::2] if strided else x[:, :width]  # a view with a stride, or a contiguous one
    gammas = [(1 + 0.1 * rng.standard_normal(width)).astype(dtype) for _ in range(layers)]
    betas = [(0.1 * rng.standard_normal(width)).astype(dtype) for _ in range(layers)]
    rtol = 1e-4 if dtype == np.float32 else 1e-9
    compiled_and_eager(layer_norms, x, gammas, betas, rtol=rtol)


def test_a_deep_stack_shares_its_nests():
    """The first layers differ (fusion recomputes the residual sum from the layers before,
    up to its limit); from then on every layer is the same nests on other buffers."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((8, 64))
    gammas = [1 + 0.1 * rng.standard_normal(64) for _ in range(12)]
    betas = [0.1 * rng.standard_normal(64) for _ in range(12)]
    function, _ = compiled_and_eager(layer_norms, x, gammas, betas)
    assert nests_shared(function, x, gammas, betas) >= 8


def test_empty_layers_match_eager():
    x = np.zeros((0, 40))
    gammas, betas = [np.ones(40)] * 3, [np.zeros(40)] * 3
    compiled_and_eager(layer_norms, x, gammas, betas)


def test_nan_and_inf_flow_through_shared_nests():
    x = np.tile(np.array([1.0, np.nan, np.inf, -np.inf, 0.5, -2.0, 3.0, 4.0]), (8, 4))
    gammas, betas = [np.full(32, 0.5)] * 3, [np.linspace(-1, 1, 32)] * 3
    gammas, betas = gammas * 4, betas * 4  # 12 layers: the later ones share their nests
    with np.errstate(invalid="ignore"):
        function, _ = compiled_and_eager(layer_norms, x, gammas, betas)
    assert nests_shared(function, x, gammas, betas) >= 8


@settings(max_examples=8, deadline=None)
@given(
    size=st.integers(0, 300),
    dtype=st.sampled_from([np.int8, np.int32, np.int64]),
    seed=st.integers(0, 2**32 - 1),
)
def test_negative_integer_floor_division_and_modulo_match_eager(size, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, size).astype(dtype)
    divisors = [np.where(d == 0, 3, d).astype(dtype) for d in rng.integers(-9, 9, (4, size))]
    with np.errstate(over="ignore"):
        function, _ = compiled_and_eager(floor_steps, x, divisors)
    if size >= 64:  # smaller nests are too little work to pay for a call
        assert nests_shared(function, x, divisors) >= 4


def test_shared_nests_answer_with_user_defaults():
    """Tiered execution and threads on: big layers fork from the one shared function."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((512, 1024))
    gammas = [1 + 0.1 * rng.standard_normal(1024) for _ in range(3)]
    betas = [0.1 * rng.standard_normal(1024) for _ in range(3)]
    want = run_eagerly(tj.function(layer_norms), x, gammas, betas)
    for answer in answers_with_user_defaults(layer_norms, x, gammas, betas):
        assert_same(answer, want, rtol=1e-9, atol=1e-12)


@settings(max_examples=8, deadline=None)
@given(
    scales=st.lists(
        st.one_of(st.sampled_from([0.0, -0.0, np.inf, -np.inf, np.nan]),
                  st.floats(-4, 4, allow_nan=False)),
        min_size=2, max_size=5),
    size=st.integers(0, 200),
)
def test_steps_differing_in_a_float_constant_match_eager(scales, size):
    """Shared nests take a step's float constant as an argument: each call must pass its
    own, down to the sign of a zero (`+ -0.0` and `+ 0.0` differ on -0.0)."""
    x = np.linspace(-1.0, 1.0, size)
    x[::3] = -0.0
    with np.errstate(invalid="ignore"):
        function, compiled = compiled_and_eager(scaled_sorts, x, scales)
    want = run_eagerly(function, x, scales)
    numbers = ~np.isnan(want)  # a NaN's sign bit is the hardware's, NumPy's too
    np.testing.assert_array_equal(np.signbit(compiled[numbers]), np.signbit(want[numbers]))


def test_a_float_constant_per_step_is_passed_to_one_shared_nest():
    x = np.linspace(-1.0, 1.0, 300)
    scales = [1.5, 0.25, 2.0, -2.5]
    function, _ = compiled_and_eager(scaled_sorts, x, scales)
    module = str(function.get_concrete_function(x, scales).ir(after="dedupe-loop-nests"))
    calls = [line for line in module.splitlines() if "{tj.outlined}" in line]
    for name in {line.split("@")[1].split("(")[0] for line in calls}:
        assert sum(f"@{name}(" in line for line in calls) >= 2  # every kind shared
    assert len(calls) >= 3 * len(scales)


TWICE = """
func.func @twice(%a: memref<4xf64>, %b: memref<4xf64>, %n: index, %flag: memref<f64>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<4xf64>
    %w = arith.mulf %v, %two : f64
    memref.store %w, %a[%i] : memref<4xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %b[%i] : memref<4xf64>
    %w = arith.mulf %v, %two : f64
    memref.store %w, %b[%i] : memref<4xf64>
  }
  %done = arith.constant 1.0 : f64
  memref.store %done, %flag[] : memref<f64>
  %ok = arith.constant 0 : i32
  func.return %ok : i32
}
"""


@pytest.mark.parametrize("bounds_checked", [True, False])
def test_a_failed_bounds_check_in_a_shared_nest_stops_the_caller(bounds_checked):
    module = Parser(make_context(), TWICE).parse_module()
    lowered = driver.lower(module, "dedupe-loop-nests,scf-to-cf").module
    assert str(lowered).count("{tj.outlined}") == 2
    twice = compile_module(lowered, check_bounds=bounds_checked).kernel("twice")
    a, b, flag = np.arange(4.0), np.arange(4.0), np.zeros(())
    assert twice(a, b, 3, flag) == 0
    np.testing.assert_array_equal(a, [0, 2, 4, 3])
    np.testing.assert_array_equal(b, [0, 2, 4, 3])
    assert flag == 1
    if not bounds_checked:
        return
    flag[...] = 0
    status = twice(a, b, 5, flag)  # a[4] is out of range, in the first call already
    assert status != 0 and flag == 0  # returned at once: the store after the calls never ran
    messages = [m.data for m in lowered.attributes[runtime_contract.MESSAGES_ATTR]]
    with pytest.raises(IndexError, match="out-of-bounds access by memref.load"):
        runtime_errors.raise_for_status(status, messages)
