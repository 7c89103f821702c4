"""Warnings about what a trace does once that the user may expect on every call.

They are issued at the user's line (not at tracejit's), once per user function, like
TensorFlow's retracing warning.
"""

from __future__ import annotations

import warnings

import numpy as np

from tracejit.frontend.staging.source_location import user_location


class FrozenRandomWarning(UserWarning):
    """NumPy's random generator ran at trace time: every call returns the same numbers.

    Warned once per function. Draw the numbers outside and pass them in, or call the
    generator through `tj.py_function`.

    >>> import warnings
    >>> @tj.function
    ... def noisy(x):
    ...     return x + np.random.normal()
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     first, second = noisy(np.float64(0.0)), noisy(np.float64(0.0))
    >>> caught[0].category.__name__, first == second
    ('FrozenRandomWarning', np.True_)
    """


_warned: set[object] = set()  # the once_keys already warned about


def warn_at_user_line(message: str, category: type[Warning], once_key: object = None) -> None:
    """`warnings.warn` pointing at the user's line; at most once per `once_key` when given."""
    location = user_location()
    if once_key is not None:
        if once_key in _warned:
            return
        _warned.add(once_key)
    if location is None:
        warnings.warn(message, category, stacklevel=2)
        return
    warnings.warn_explicit(message, category, location.filename, location.line)


def is_numpy_random(function: object) -> bool:
    """A function of `np.random` or a method of its generators (`rng.normal`, `np.random.rand`)."""
    owner = getattr(function, "__self__", None)
    if isinstance(owner, np.random.RandomState | np.random.Generator):
        return True
    return str(getattr(function, "__module__", "")).startswith("numpy.random")


def warn_frozen_random(function: object, user_code: object) -> None:
    name = getattr(function, "__qualname__", getattr(function, "__name__", "random"))
    warn_at_user_line(
        f"np.random ({name}) runs once, while tracing: its numbers are baked into the "
        "compiled function, so every call returns the same ones (tf.function behaves the "
        "same way). Pass the random numbers in as an argument instead, e.g. "
        "f(x, rng.random(shape))",
        FrozenRandomWarning,
        once_key=(user_code, "random"),
    )
