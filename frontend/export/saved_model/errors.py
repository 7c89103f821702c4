"""The errors of `tj.saved_model`."""

from __future__ import annotations


class SaveError(ValueError):
    """What `tj.saved_model.save` (or pickling a ConcreteFunction) cannot hold."""


class LoadError(ValueError):
    """A saved directory (or pickled ConcreteFunction) that cannot be loaded: missing,
    truncated, corrupt, of a newer format, or with IR that fails verification."""
