"""Solutions to the exercises of chapter 11 (reverse-mode differentiation).

Run from the repository root: .venv/bin/python docs/tutorial/solutions/11_reverse_mode.py
"""

from __future__ import annotations

import contextlib
import runpy
import warnings

import numpy as np
from course_checks import check_compiled, run_compiled

import tracejit as tj
from tracejit.frontend.autodiff.adjoints import ADJOINTS
from tracejit.frontend.staging.tensor import Tensor
from tracejit.ir.elementwise_binary import CopysignOp


# --- Exercise 1: the adjoint of tj.copysign -------------------------------------------------
# copysign(x, y) is |x| with y's sign bit: d/dx is +1 where x's and y's sign bits agree and
# -1 where they differ (copysign(1, x) * copysign(1, y), which reads the sign bit of -0.0
# and of a NaN as np.signbit does); y only chooses a sign, a piecewise constant: no
# gradient flows to it (None, as for tj.sign). The rule stages NumPy calls on Tensors.
def copysign_adjoint(op, g):
    x, y = Tensor(op.operands[0]), Tensor(op.operands[1])
    one = np.ones_like(g)
    return g * (np.copysign(one, x) * np.copysign(one, y)), None


@contextlib.contextmanager
def copysign_adjoint_registered():
    """tracejit declares copysign not differentiable (adjoints.py: NON_DIFFERENTIABLE);
    while this is active the rule above is its adjoint."""
    previous = ADJOINTS.get(CopysignOp)
    ADJOINTS[CopysignOp] = copysign_adjoint
    try:
        yield
    finally:
        if previous is None:
            del ADJOINTS[CopysignOp]
        else:
            ADJOINTS[CopysignOp] = previous


def copysign_loss(x, y):
    return np.sum(np.copysign(x, y) * 3.0)


def copysign_grad_reference(x, y):
    """NumPy's d copysign_loss / dx and / dy, element by element."""
    flip = np.signbit(x) != np.signbit(y)
    return np.where(flip, -3.0, 3.0).astype(x.dtype), np.zeros_like(y)


# --- Exercise 2: through a staged loop ------------------------------------------------------
power = runpy.run_path("docs/tutorial/examples/autodiff.py")["power"]
power_grad = tj.grad(power)  # d/dx of sum(x ** n), n a run-time int: n * x ** (n - 1)


# --- Exercise 3: a custom gradient that fixes an unstable one ----------------------------
def softplus_naive(x):
    return np.log1p(np.exp(x))  # exp(x) overflows for x > 88.7 (float32): inf, grad NaN


@tj.custom_gradient
def softplus(x):
    e = np.exp(-np.abs(x))  # in [0, 1]: never overflows
    value = np.maximum(x, 0) + np.log1p(e)  # log(1 + exp(x)), for x > 0 as x + log(1 + e)

    def grad(upstream):
        # The logistic function, 1 / (1 + exp(-x)), from the same e: 1 / (1 + e) for x >= 0
        # and e / (1 + e) for x < 0, so that nothing overflows (exp(-x) would for x < -88.7
        # in float32) and nothing cancels: not tf.custom_gradient's documented example,
        # 1 - 1 / (1 + exp(x)), which gives 4.5419e-05 instead of 4.5398e-05 at x = -10 and
        # exactly 0 below x = -17, where the logistic is still 4e-8.
        return upstream * np.where(x >= 0, 1 / (1 + e), e / (1 + e))

    return value, grad


def softplus_total(x):
    return np.sum(softplus(x))


def logistic_reference(x: np.ndarray) -> np.ndarray:
    """The derivative of softplus, in float64 (no overflow for any float16/32 input)."""
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def check() -> None:
    # 1: the rule, compiled, against NumPy's formula: signed zeros, NaN and inf included
    x = np.array([1.0, -2.0, -0.0, 0.0, np.nan, np.inf, -np.inf, 5e-324])
    y = np.array([-1.0, -1.0, 1.0, -0.0, 1.0, -np.nan, 0.0, -3.0])
    with copysign_adjoint_registered():
        gradient = tj.grad(copysign_loss, argnums=(0, 1))
        for dtype in (np.float32, np.float64):
            a, b = x.astype(dtype), y.astype(dtype)
            check_compiled(gradient, a, b, expected=copysign_grad_reference(a, b))
        traced = str(gradient.get_concrete_function(x, y).graph)
        assert traced.count("tj.copysign") == 3, traced  # the forward one and the rule's two
    try:  # without the rule tracejit refuses, naming the op
        tj.grad(copysign_loss)(x, y)
    except TypeError as error:
        assert "no gradient is defined for tj.copysign" in str(error), error
    else:
        raise AssertionError("copysign was differentiated without a rule")

    # 2: one trace for every n, the loops staged forwards and backwards
    x = np.array([2.0, -1.5, 0.5, -0.0, 3.0])
    for n in range(6):
        want = n * x ** (n - 1) if n else np.zeros_like(x)
        check_compiled(power_grad, x, np.int64(n), expected=want, rtol=1e-15)
    assert power_grad.experimental_get_tracing_count() == 1
    traced = str(power_grad.get_concrete_function(x, np.int64(3)).graph)
    assert traced.count("tj.while") == 3, traced  # the value's loop, its replay, the sweep

    # 3: the naive gradient is NaN where exp overflows; the custom one is the logistic
    x = np.array([-1000, -100, -20, -10, -0.0, 0, 10, 20, 100, 1000, np.inf, -np.inf], np.float32)
    naive = run_compiled(tj.grad(lambda x: np.sum(softplus_naive(x))), x)
    assert np.isnan(naive[x > 89]).all(), naive
    fixed = tj.grad(softplus_total)
    for dtype, rtol in ((np.float16, 4e-3), (np.float32, 1e-6), (np.float64, 1e-14)):
        values = x.astype(dtype)
        check_compiled(fixed, values, expected=logistic_reference(values), rtol=rtol)
        with warnings.catch_warnings(), np.errstate(over="ignore"):
            warnings.simplefilter("ignore")
            want = np.logaddexp(0, values)  # NumPy's own stable softplus
        check_compiled(tj.function(softplus_total), values, expected=np.sum(want), rtol=rtol)
    print("ok")


check()
