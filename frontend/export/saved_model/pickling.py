"""Pickling a `tj.ConcreteFunction` by value, through the same record as `save`.

The pickle holds the traced IR text, the record of its signature (`concrete_record.py`),
the values of the Variables it captures, and -- when the function was already compiled --
its object code with its key (`object_code.py`). Unpickling rebuilds the ConcreteFunction
without the Python source: in a worker of `multiprocessing`, `concurrent.futures` or Dask.
The object code is used there only if the key matches that process's CPU and compiler;
otherwise the function compiles from its IR on first use.

The unpickled function owns copies of the captured Variables: assignments in the worker
do not reach the sender's Variables (as with any pickled value). Like every pickle, and like
a saved directory, the payload runs as machine code where it is loaded: unpickle only data
you trust.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.export.saved_model import concrete_record, object_code

PICKLE_VERSION = 1


def reduce_concrete(concrete: Any, bound: bool = False) -> tuple:
    """`ConcreteFunction.__reduce__`: (rebuild, (payload,)); `bound`: a method's trace,
    pickled without its instance (unpickled, it is called without `self`)."""
    variables: list[Any] = []
    index: dict[int, int] = {}

    def number(variable: object) -> int:
        if id(variable) not in index:
            index[id(variable)] = len(variables)
            variables.append(variable)
        return index[id(variable)]

    record, text = concrete_record.to_record(concrete, number, bound)
    code = None
    if concrete.is_compiled:  # compiled already: ship the machine code too
        saved = object_code.export(concrete)
        code = None if saved is None else (saved.key, saved.data)
    payload = {
        "version": PICKLE_VERSION,
        "record": record,
        "ir": text,
        "variables": [
            (v.name, bool(v.trainable), np.asarray(v.numpy())) for v in variables
        ],
        "object_code": code,
    }
    return rebuild_concrete, (payload,)


def reduce_bound_concrete(bound: Any) -> tuple:
    """A method's ConcreteFunction (`BoundConcreteFunction`) pickles as its trace without
    the instance, as `save` saves it."""
    from tracejit.frontend.api.concrete_function import ConcreteFunction
    from tracejit.frontend.export.saved_model.errors import SaveError

    if not isinstance(bound.unbound, ConcreteFunction):
        raise SaveError("a method's ConcreteFunction of unknown rank cannot be pickled")
    return reduce_concrete(bound.unbound, bound=True)


def register() -> None:
    """Teach pickle (and cloudpickle, which reads the same table) to reduce a method's
    ConcreteFunction; ConcreteFunction itself has `__reduce__`."""
    import copyreg

    from tracejit.frontend.api.function import BoundConcreteFunction

    copyreg.pickle(BoundConcreteFunction, reduce_bound_concrete)


def rebuild_concrete(payload: dict) -> Any:
    """The ConcreteFunction of a `reduce_concrete` payload (LoadError if it is malformed)."""
    from tracejit.frontend.export.saved_model.errors import LoadError
    from tracejit.frontend.staging.variable import Variable

    if not isinstance(payload, dict) or payload.get("version") != PICKLE_VERSION:
        raise LoadError(
            "this pickled tj.ConcreteFunction was made by another tracejit version: "
            "pickle it again with this one"
        )
    variables = [
        Variable(value, name=name, trainable=trainable)
        for name, trainable, value in payload["variables"]
    ]
    concrete = concrete_record.from_record(payload["record"], payload["ir"], variables)
    code = payload.get("object_code")
    if code is not None:
        object_code.install(concrete, object_code.ObjectCode(code[0], code[1]))
    return concrete
