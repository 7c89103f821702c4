"""Errors raised by compiled functions at run time (mirroring `tf.errors`)."""


class InvalidArgumentError(ValueError):
    """An input or a run-time value is invalid: wrong dtype or shape, a failed assertion.

    Raised by a compiled call (`tj.errors.InvalidArgumentError`, a ValueError) for an
    argument that does not match the trace, a failed `tj.debugging` assertion, an index out
    of bounds, or sizes known only at run time that do not meet.

    >>> @tj.function
    ... def checked_sqrt(x):
    ...     tj.debugging.assert_non_negative(x, message="sqrt of a negative")
    ...     return np.sqrt(x)
    >>> checked_sqrt(np.array([4.0, -1.0]))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tracejit.runtime.errors.InvalidArgumentError: sqrt of a negative: Condition x >= 0 did not
    hold element-wise ...
    """


class FailedPreconditionError(ValueError):
    """The function cannot run in its current state (e.g. a captured Variable is gone).

    `tj.errors.FailedPreconditionError`, a ValueError. A trace keeps only a weak reference
    to the Variables it uses: a Variable must outlive the functions that use it.

    >>> import gc
    >>> v = tj.Variable(1.0, name="v")
    >>> @tj.function
    ... def read():
    ...     return v.value()
    >>> concrete = read.get_concrete_function()
    >>> del v; _ = gc.collect()
    >>> concrete()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tracejit.runtime.errors.FailedPreconditionError: ConcreteFunction read() captured a
    tj.Variable that no longer exists ...
    """
