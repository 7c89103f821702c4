"""A GradientTape outside `tj.function`: it records calls of `tj.Function`s.

Each recorded call keeps its arguments and results. `gradient` walks the calls backwards;
for each call whose results received a cotangent it runs the Function's vector-Jacobian
product, itself a compiled `tj.Function` (`vjp_function`: the Function's Python code
traced under a tape, and the tape's gradient taken with the cotangents as
`output_gradients`), which returns cotangents for the call's float array arguments and for
the trainable Variables the call read. Plain NumPy code between the calls is not recorded
(it is not staged): a target that no recorded call produced is an error, not a None.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tracejit.frontend.structure import flatten, unflatten

_local = threading.local()
# How many eager tapes are open in any thread: `Function.__call__` checks this one int
# before it looks for a tape (a call outside any tape pays nothing else).
open_count = 0


def open_tapes() -> list[EagerRecord]:
    if not hasattr(_local, "tapes"):
        _local.tapes = []
    return _local.tapes


@dataclass
class Call:
    function: Any
    args: tuple
    kwargs: dict
    outputs: list[Any]


@dataclass
class EagerRecord:
    calls: list[Call] = field(default_factory=list)
    watched: dict[int, np.ndarray] = field(default_factory=dict)
    paused: bool = False

    def watch(self, array: np.ndarray) -> None:
        self.watched[id(array)] = array

    def clear(self) -> None:
        self.calls.clear()

    def gradient(self, target, sources, output_gradients, unconnected):
        targets = flatten(target)[0]
        given = [None] * len(targets) if output_gradients is None else flatten(output_gradients)[0]
        cotangents: dict[int, np.ndarray] = {}
        produced = {id(o) for call in self.calls for o in call.outputs}
        for t, seed in zip(targets, given, strict=True):
            if id(t) not in produced:
                raise ValueError(_not_recorded_message())
            g = np.ones_like(t) if seed is None else np.asarray(seed, np.asarray(t).dtype)
            _add(cotangents, t, np.broadcast_to(g, np.shape(t)))
        variable_grads: dict[int, np.ndarray] = {}
        for call in reversed(self.calls):
            seeds = [cotangents.get(id(o)) for o in call.outputs]
            if all(s is None for s in seeds):
                continue
            seeds = [np.zeros_like(o) if s is None else s for o, s in zip(call.outputs, seeds,
                                                                           strict=True)]
            arg_grads, var_grads = run_vjp(call, seeds)
            for leaf, grad in zip(flatten((call.args, call.kwargs))[0], arg_grads, strict=True):
                if grad is not None:
                    _add(cotangents, leaf, grad)
            for variable, grad in var_grads:
                _add(variable_grads, variable, grad)
        leaves, tree = flatten(sources)
        return unflatten(
            tree, [_result(leaf, cotangents, variable_grads, unconnected) for leaf in leaves]
        )


def _not_recorded_message() -> str:
    from tracejit.frontend import config

    message = (
        "tape.gradient target was not computed by a tj.function called while the tape "
        "recorded (outside tj.function a tape records tj.function calls, not NumPy code): "
        "compute the target inside a tj.function"
    )
    if config.functions_run_eagerly():
        message += (
            "; tj.config.run_functions_eagerly(True) runs tj.functions as plain NumPy, which "
            "no tape can record: gradients need the functions traced"
        )
    return message


def _add(store: dict[int, Any], key_object: Any, grad: np.ndarray) -> None:
    key = id(key_object)
    store[key] = grad if key not in store else store[key] + grad


def _result(leaf, cotangents, variable_grads, unconnected):
    from tracejit.frontend.variable import Variable

    grad = (variable_grads if isinstance(leaf, Variable) else cotangents).get(id(leaf))
    if grad is None and id(leaf) in cotangents:
        grad = cotangents[id(leaf)]
    if grad is None and unconnected == "zero":
        return np.zeros(np.shape(leaf), np.result_type(leaf.dtype, np.float32)
                        if not hasattr(leaf, "dtype") or leaf.dtype.kind != "f" else leaf.dtype)
    if grad is not None and np.ndim(grad) == 0:
        return np.asarray(grad)[()]
    return grad


# --- recording calls ---------------------------------------------------------------------
def record(function: Any, args: tuple, kwargs: dict) -> Any:
    """Call `function` and put the call on every open eager tape of this thread."""
    result = function._call(args, kwargs)
    tapes = [t for t in open_tapes() if not t.paused]
    if tapes:
        outputs = flatten(result)[0]
        for tape in tapes:
            tape.calls.append(Call(function, args, dict(kwargs), outputs))
    return result


def opened() -> None:
    global open_count
    open_count += 1


def closed() -> None:
    global open_count
    open_count -= 1


# --- the vector-Jacobian product of a Function --------------------------------------------
_vjps: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def run_vjp(call: Call, seeds: list[np.ndarray]) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Cotangents of the call's argument leaves (None for non-float ones) and of the
    trainable Variables it read."""
    vjp, read = vjp_function(call.function)
    arg_grads, var_grads = vjp(call.args, call.kwargs, seeds)
    return list(arg_grads), list(zip(read.get("variables", ()), var_grads, strict=True))


def vjp_function(function: Any):
    """A `tj.Function` computing the call's cotangents, and a dict that the trace fills
    with the Variables the function read (the order of the second result)."""
    if function in _vjps:
        return _vjps[function]
    from tracejit.frontend.autodiff.tape import GradientTape
    from tracejit.frontend.function import function as tj_function
    from tracejit.frontend.tensor import Tensor

    read: dict[str, Any] = {}

    def vjp(args, kwargs, seeds):
        leaves, tree = flatten((args, kwargs))
        with GradientTape(persistent=True) as tape:
            tape.watch([x for x in leaves if isinstance(x, Tensor)])
            args, kwargs = unflatten(tree, leaves)
            outputs = flatten(function(*args, **kwargs))[0]
        sources = [x if isinstance(x, Tensor) else None for x in leaves]
        wanted = [x for x in sources if x is not None]
        grads = iter(tape.gradient(outputs, wanted, output_gradients=seeds))
        arg_grads = [next(grads) if x is not None else None for x in sources]
        variables = list(tape.watched_variables())
        read["variables"] = variables
        var_grads = tape.gradient(outputs, variables, output_gradients=seeds,
                                  unconnected_gradients="zero")
        return arg_grads, var_grads

    pair = (tj_function(vjp), read)
    _vjps[function] = pair
    return pair


def jacobian(tape: Any, target: Any, sources: Any, unconnected: str) -> Any:
    """One gradient per element of `target`, with a one-hot `output_gradients` (np.stack
    and np.reshape stage ops on Tensors while tracing)."""
    persistent, tape._persistent = tape._persistent, True
    try:
        shape = tuple(np.shape(target))
        dtype = target.dtype
        rows = []
        for flat in range(int(np.prod(shape))):
            seed = np.zeros(shape, dtype)
            seed[np.unravel_index(flat, shape)] = 1
            rows.append(tape.gradient(target, sources, seed, unconnected))
    finally:
        tape._persistent = persistent
    leaves, tree = flatten(sources)
    columns: list[Any] = []
    for k, leaf in enumerate(leaves):
        parts = [flatten(row)[0][k] for row in rows]
        if any(p is None for p in parts):
            columns.append(None)
            continue
        stacked = np.stack(parts) if parts else np.zeros((0, *np.shape(leaf)), dtype)
        columns.append(np.reshape(stacked, shape + tuple(np.shape(leaf))))
    return unflatten(tree, columns)
