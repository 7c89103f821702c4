"""The errors of `tj.saved_model`."""

from __future__ import annotations


class SaveError(ValueError):
    """What `tj.saved_model.save` (or pickling a ConcreteFunction) cannot hold.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     tj.saved_model.save(object(), directory)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tracejit.frontend.export.saved_model.errors.SaveError: object object holds no tj.Function and
    no tj.Variable: nothing to save ...
    """


class LoadError(ValueError):
    """A saved directory (or pickled ConcreteFunction) that cannot be loaded: missing,
    truncated, corrupt, of a newer format, or with IR that fails verification.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     tj.saved_model.load(directory)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tracejit.frontend.export.saved_model.errors.LoadError: ... has no readable manifest.json
    (...): it is not a directory saved by tj.saved_model.save, or it is incomplete
    """
