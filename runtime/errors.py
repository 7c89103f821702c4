"""Errors raised by compiled functions at run time (mirroring `tf.errors`)."""


class InvalidArgumentError(ValueError):
    """An input or a run-time value is invalid: wrong dtype or shape, a failed assertion."""


class FailedPreconditionError(ValueError):
    """The function cannot run in its current state (e.g. a captured Variable is gone)."""
