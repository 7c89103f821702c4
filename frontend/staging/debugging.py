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


# The docstring of each assert_* (`public` is its name in tj.debugging; an example call that
# passes and one that fails).
_DOC = """Check that `{condition}` holds for every element, like `tf.debugging.{public}`.

    Inside a compiled function the check runs on every call, in program order with the
    other effects; eagerly (and on values known at trace time) it checks at once.

    Parameters
    ----------
    {arguments} : array_like (tensors in a traced function)
        The values checked{broadcast}.
    message : str, optional
        Put in front of the error message.
    summarize, name
        Accepted for TensorFlow compatibility; ignored.

    Raises
    ------
    tj.errors.InvalidArgumentError
        The condition does not hold for some element.

    Examples
    --------
    >>> tj.debugging.{public}({passing})
    >>> tj.debugging.{public}({failing})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tracejit.runtime.errors.InvalidArgumentError: Condition {condition} did not hold element-wise...
    """


def _assertion(condition: str, test: Callable[..., Any], public: str, examples: tuple[str, str]):
    def check(
        *args: object,
        message: str | None = None,
        summarize: object = None,
        name: object = None,
    ):
        _check(np.all(test(*args)), condition, message)

    check.__name__ = f"assert_{condition}"
    binary = "y" in condition
    check.__doc__ = _DOC.format(
        condition=condition,
        public=public,
        arguments="x, y" if binary else "x",
        broadcast=" (broadcast together)" if binary else "",
        passing=examples[0],
        failing=examples[1],
    )
    return check


assert_equal = _assertion(
    "x == y", np.equal, "assert_equal", ("np.array([1, 2]), 2 * np.array([0.5, 1])", "1, [1, 2]")
)
assert_less = _assertion(
    "x < y", np.less, "assert_less", ("np.array([1, 2]), np.array([2, 3])", "[1, 2], 2")
)
assert_greater = _assertion(
    "x > y", np.greater, "assert_greater", ("np.array([2, 3]), 1", "[2, 3], [1, 3]")
)
assert_less_equal = _assertion(
    "x <= y", np.less_equal, "assert_less_equal", ("[1, 2], [1, 2]", "[1, 3], 2")
)
assert_greater_equal = _assertion(
    "x >= y", np.greater_equal, "assert_greater_equal", ("[1, 2], [1, 2]", "[1, 2], 2")
)
assert_non_negative = _assertion(
    "x >= 0",
    lambda x: np.greater_equal(x, 0),
    "assert_non_negative",
    ("np.array([0.0, 1.5])", "np.array([0.0, -1.5])"),
)
assert_positive = _assertion(
    "x > 0",
    lambda x: np.greater(x, 0),
    "assert_positive",
    ("np.array([0.5, 1.5])", "np.array([0.0, 1.5])"),
)


def assert_all_finite(x: Any, message: str | None = None, name: object = None) -> Any:
    """Check that `x` has no NaN or Inf; returns `x` (like tf.debugging.check_numerics).

    Inside a compiled function the check runs on every call; eagerly, at once.

    Parameters
    ----------
    x : array_like (a tensor in a traced function)
        The values checked.
    message : str, optional
        Put in front of the error message.
    name
        Accepted for TensorFlow compatibility; ignored.

    Returns
    -------
    `x` itself.

    Raises
    ------
    tj.errors.InvalidArgumentError
        Some element is NaN or infinite.

    Examples
    --------
    >>> @tj.function
    ... def safe_log(x):
    ...     return tj.debugging.assert_all_finite(np.log(x), message="log")
    >>> safe_log(np.array([1.0, np.e]))
    array([0., 1.])
    >>> safe_log(np.array([1.0, 0.0]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tracejit.runtime.errors.InvalidArgumentError: log: Condition isfinite(x) did not hold
    element-wise...
    """
    _check(np.all(np.isfinite(x)), "isfinite(x)", message)
    return x
