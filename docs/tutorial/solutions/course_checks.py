"""The course's checks: compare what the *machine code* computes with NumPy.

Tiered execution (`tj.config.set_tiered_compilation`, on by default) answers the first call
of a new static-shape trace with the graph interpreter, which evaluates each `tj` op with
the very NumPy code a check compares against, and compiles in the background. A check that
calls once and compares would compare NumPy with NumPy: a wrong rewrite in the compiler
would pass on call 1 and fail on call 2. `run_compiled` turns tiering off for its call (the
call then compiles before it returns) and asserts that the trace's machine code is there;
`check_compiled` compares that result with the function run eagerly, in NumPy.

The solutions import it (`from course_checks import ...`: this directory is on `sys.path`
when a solution runs as `python docs/tutorial/solutions/NN_*.py`); chapter 01 shows it.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

import tracejit as tj


@contextlib.contextmanager
def tiering_off() -> Iterator[None]:
    """Every first call compiles before it returns, while this is active."""
    previous = tj.config.tiered_compilation()
    tj.config.set_tiered_compilation(False)
    try:
        yield
    finally:
        tj.config.set_tiered_compilation(previous)


def run_compiled(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call `function` (a tj.Function or ConcreteFunction) so that its machine code answers."""
    with tiering_off():
        result = function(*args, **kwargs)
    concrete = function
    if not isinstance(function, tj.ConcreteFunction):
        concrete = function.get_concrete_function(*args, **kwargs)
    assert concrete.is_compiled, "no machine code answered (is eager mode on?)"
    return result


def run_eagerly(function: Any, *args: Any, **kwargs: Any) -> Any:
    """`function` run as plain Python and NumPy (NumPy's warnings silenced): the reference."""
    previous = tj.config.functions_run_eagerly()
    tj.config.run_functions_eagerly(True)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return function(*args, **kwargs)
    finally:
        tj.config.run_functions_eagerly(previous)


def check_compiled(
    function: Any, *args: Any, expected: Any = None, rtol: float = 0.0, atol: float = 0.0
) -> Any:
    """The machine code's result for `args`, after asserting it equals `expected` (by
    default the function run eagerly): same structure, dtypes and shapes, NaN where NumPy
    has NaN, and values equal (the sign of zero too) unless `rtol`/`atol` allow more."""
    got = run_compiled(function, *args)
    want = run_eagerly(function, *args) if expected is None else expected
    assert_same(got, want, rtol, atol)
    return got


def assert_same(got: Any, want: Any, rtol: float = 0.0, atol: float = 0.0) -> None:
    if isinstance(want, list | tuple):
        assert type(got) is type(want) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            assert_same(g, w, rtol, atol)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want)
    if want.dtype.kind == "c":  # the real and the imaginary parts, each as a float
        assert_same(got.real, want.real, rtol, atol)
        assert_same(got.imag, want.imag, rtol, atol)
        return
    if want.dtype.kind != "f":
        assert np.array_equal(got, want), (got, want)
        return
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), (got, want)
    if rtol == atol == 0:
        same = (got == want) & (np.signbit(got) == np.signbit(want))
        assert same[~nan].all(), (got, want)
        return
    np.testing.assert_allclose(got[~nan], want[~nan], rtol=rtol, atol=atol)
