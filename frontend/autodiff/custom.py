"""`tj.custom_gradient` (TensorFlow's API): a function that supplies its own gradient.

    @tj.custom_gradient
    def log1pexp(x):
        e = np.exp(x)
        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return np.log(1 + e), grad

While tracing, each result of the function passes through an identity (`tj.reshape` to
its own shape) that marks the boundary. The reverse sweep (backprop.py) never enters the
function's own ops: at the boundary it calls `grad` with the results' cotangents (once,
for all results) and gives what it returns to the function's tensor arguments. That is
also how a `tj.py_function`, which has no gradient of its own, gets one: wrap the call in
a custom_gradient function, or pass `grad=` to `tj.py_function`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import SSAValue

from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import current_trace, emit, is_tracing
from tracejit.ir.shape_ops import ReshapeOp
from tracejit.runtime.structure import flatten, unflatten

MARK = "tj.custom_gradient"  # the boundary op's attribute


@dataclass
class CustomGradient:
    """One call of a custom_gradient function: its tensor inputs, its boundary values (one
    per tensor result) and the user's gradient function."""

    inputs: list[SSAValue]
    boundaries: list[SSAValue]
    grad_fn: Callable[..., object]
    done: bool = False


def boundaries() -> dict[SSAValue, CustomGradient]:
    """The boundary values of the trace being built (kept on its TraceContext)."""
    context = current_trace()
    found = getattr(context, "custom_gradients", None)
    if found is None:
        found = {}
        context.custom_gradients = found  # type: ignore[attr-defined]  # a thread-local attribute
    return found


def custom_gradient(f: Callable[..., tuple[object, Callable[..., object]]]) -> Callable[..., Any]:
    """Give a function its own gradient (mirrors `tf.custom_gradient`).

    `f(*args)` returns `(result, grad_fn)`; `grad_fn(*upstreams)`, given the gradient of
    each tensor result, returns the gradient of each tensor argument (a single value when
    there is one). A tape differentiating through the decorated function calls `grad_fn`
    instead of differentiating `f`'s own operations: for numerically stable or clipped
    gradients, or to give a `tj.py_function` one. It takes effect in traced code (inside a
    `tj.function`, and the gradients computed from it); run eagerly, it is `f`'s result.

    Parameters
    ----------
    f : callable
        `f(*args, **kwargs) -> (result, grad_fn)`, NumPy code traced like the function
        calling it; so is `grad_fn`.

    Returns
    -------
    callable
        The function, returning `result` only.

    Examples
    --------
    >>> @tj.custom_gradient
    ... def clip_gradient(x):
    ...     def grad(upstream):
    ...         return np.clip(upstream, -1.0, 1.0)
    ...     return x, grad
    >>> def loss(x):
    ...     return np.sum(clip_gradient(x) * 5.0)
    >>> tj.grad(loss)(np.array([1.0, 2.0]))  # 5.0 without the clip
    array([1., 1.])
    """

    @functools.wraps(f)
    def wrapper(*args: object, **kwargs: object) -> Any:
        result, grad_fn = f(*args, **kwargs)
        if not is_tracing():
            return result  # eagerly (run_functions_eagerly): nothing records it
        inputs = [leaf.value for leaf in flatten((args, kwargs))[0] if isinstance(leaf, Tensor)]
        leaves, tree = flatten(result)
        call = CustomGradient(inputs, [], grad_fn)
        marked: list[object] = []
        for leaf in leaves:
            if isinstance(leaf, Tensor):
                boundary = ReshapeOp(leaf.value, primitives.result_type(leaf))
                boundary.attributes[MARK] = UnitAttr()
                leaf = Tensor(emit(boundary).result, leaf.dims)
                call.boundaries.append(leaf.value)
                boundaries()[leaf.value] = call
            marked.append(leaf)
        return unflatten(tree, marked)

    return wrapper


def apply(call: CustomGradient, cotangents: dict[SSAValue, Tensor]) -> list[Tensor | None]:
    """The user's gradients of `call`'s inputs, from its results' cotangents."""
    from tracejit.frontend.autodiff.adjoints import zeros_like

    upstream = [cotangents[v] if v in cotangents else zeros_like(Tensor(v))
                for v in call.boundaries]
    grads = call.grad_fn(*upstream)
    grads = list(grads) if isinstance(grads, list | tuple) else [grads]
    if len(grads) != len(call.inputs):
        raise ValueError(
            f"a custom_gradient function's grad returned {len(grads)} gradients for "
            f"{len(call.inputs)} tensor arguments"
        )
    return [None if g is None else _as_tensor(g, Tensor(x)) for g, x in zip(grads, call.inputs,
                                                                              strict=True)]


def _as_tensor(grad: object, like: Tensor) -> Tensor:
    import numpy as np

    if not isinstance(grad, Tensor):
        grad = primitives.constant(np.asarray(grad, like.dtype))
    grad = primitives.cast(grad, like.dtype)
    if grad.dims != like.dims:
        grad = primitives.broadcast_to(grad, like.dims)
    return grad
