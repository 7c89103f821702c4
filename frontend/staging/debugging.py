"""`tj.debugging.assert_*`: run-time checks staged as `tj.assert` (like tf.debugging).

Inside a compiled function the check runs on every call, in program order with the
other effects; a failure raises `tj.errors.InvalidArgumentError` with the message.
Eagerly (and on concrete values) it checks immediately.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import is_tracing
from tracejit.runtime.errors import InvalidArgumentError


def _check(holds: object, condition: str, message: str | None) -> None:
    text = f"{message + ': ' if message else ''}Condition {condition} did not hold element-wise"
    if is_tracing() and isinstance(holds, Tensor):
        primitives.assert_true(holds, "InvalidArgumentError: " + at_user_line(text))
    elif not bool(holds):
        raise InvalidArgumentError(at_user_line(text))


def _assertion(condition: str, test: Callable[..., Any]):
    def check(
        *args: object, message: str | None = None, summarize: object = None, name: object = None,
    ):
        _check(np.all(test(*args)), condition, message)

    check.__name__ = f"assert_{condition}"
    return check


assert_equal = _assertion("x == y", np.equal)
assert_less = _assertion("x < y", np.less)
assert_greater = _assertion("x > y", np.greater)
assert_less_equal = _assertion("x <= y", np.less_equal)
assert_greater_equal = _assertion("x >= y", np.greater_equal)
assert_non_negative = _assertion("x >= 0", lambda x: np.greater_equal(x, 0))
assert_positive = _assertion("x > 0", lambda x: np.greater(x, 0))


def assert_all_finite(x: Any, message: str | None = None, name: object = None) -> Any:
    """Check that `x` has no NaN or Inf; returns `x` (like tf.debugging.check_numerics)."""
    _check(np.all(np.isfinite(x)), "isfinite(x)", message)
    return x
