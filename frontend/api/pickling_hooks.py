"""How Functions and ConcreteFunctions pickle, installed by frontend/export/ (a floor up)
when it is imported, so that the API never imports its serialisation
(frontend/staging/hooks.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tracejit.frontend.staging.hooks import Hooks


class PicklingHooks(Hooks):
    reduce_function: Callable[[object], tuple]  # a Function, by reference (export/pickling.py)
    reduce_bound_function: Callable[[object, object], tuple]  # a method: (function, instance)
    token_of: Callable[[Any], Any]  # Dask's name for a Function
    reduce_concrete: Callable[[Any], tuple]  # a ConcreteFunction, by value (saved_model/)


PICKLING = PicklingHooks()
