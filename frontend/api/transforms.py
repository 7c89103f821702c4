"""`tj.grad` and `tj.value_and_grad`: a function's gradient as another `tj.Function`.

`tj.value_and_grad(f)(x, y)` traces `f` under a GradientTape watching the arguments named
by `argnums` and returns `(value, gradient)`; the gradient's ops are staged after the
forward ones, so one kernel computes both. The result is a `tj.Function` (it traces,
caches and compiles like any other) and composes with itself: `tj.grad(tj.grad(f))` is a
second derivative, since the inner gradient's ops are recorded by the outer tape.
Arguments differentiated must be float arrays; a Python float there is turned into a
float64 0-d array first (JAX's `grad(f)(3.0)`), since tj.function would otherwise fold it
into the trace as a constant.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tracejit.frontend.autodiff.tape import GradientTape
from tracejit.runtime.structure import flatten


def _argnums(argnums: int | Sequence[int]) -> tuple[tuple[int, ...], bool]:
    if isinstance(argnums, int):
        return (argnums,), True
    return tuple(argnums), False


def value_and_grad(
    f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Any:
    """A `tj.Function` returning `(f(*args), d f / d args[argnums])` (as `jax.value_and_grad`).

    One kernel computes the value and the gradient. A Python float given for a
    differentiated argument is made a float64 0-d array (else it would be a constant of the
    trace).

    Parameters
    ----------
    f : callable
        A function (or `tj.Function`) of arrays returning a scalar (a 0-d value).
    argnums : int or sequence of int, default 0
        The positional arguments to differentiate; a sequence gives a tuple of gradients.
    has_aux : bool, default False
        `f` returns `(value, aux)`: only `value` is differentiated, and the result is
        `((value, aux), gradient)`.

    Returns
    -------
    Function
        `(value, gradient)`, or `((value, aux), gradient)` with `has_aux`.

    Raises
    ------
    TypeError
        (when called) a differentiated argument is not a float array, an `argnums` is out
        of range, or `f`'s value is not a scalar.

    Examples
    --------
    >>> def dot(x, y):
    ...     return np.sum(x * y)
    >>> tj.value_and_grad(dot)(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    (np.float64(11.0), array([3., 4.]))
    """
    from tracejit.frontend.api.function import Function
    from tracejit.frontend.api.function import function as tj_function

    positions, single = _argnums(argnums)
    inner = f if isinstance(f, Function) else tj_function(f)

    def value_and_gradient(*args: Any, **kwargs: object) -> Any:
        for i in positions:
            if i >= len(args):
                raise TypeError(f"argnums {i} is out of range for {len(args)} positional arguments")
        for i in positions:
            dtype = np.asarray(args[i]).dtype if not hasattr(args[i], "dtype") else args[i].dtype
            if np.dtype(dtype).kind != "f":
                raise TypeError(
                    f"grad differentiates float arguments only; argument {i} is {dtype} "
                    "(cast it with .astype(np.float64), or leave it out of argnums)"
                )
        with GradientTape() as tape:
            tape.watch([args[i] for i in positions])
            out = inner(*args, **kwargs)
        value, aux = out if has_aux else (out, None)
        if np.ndim(value) != 0 and len(flatten(value)[0]) == 1:
            raise TypeError(
                f"grad requires a scalar output (got shape {np.shape(value)}); reduce it "
                "first (e.g. np.sum), or use tj.GradientTape with output_gradients"
            )
        grads = tape.gradient(value, [args[i] for i in positions], unconnected_gradients="zero")
        gradient = grads[0] if single else tuple(grads)
        return ((value, aux) if has_aux else value), gradient

    name = getattr(f, "__name__", "f")
    value_and_gradient.__name__ = f"value_and_grad_{name}"
    return _gradient_function(value_and_gradient, positions)


def grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Any:
    """A `tj.Function` returning d f / d args[argnums] (as `jax.grad`).

    Parameters and errors are those of `tj.value_and_grad`; the result is the gradient only
    (with `has_aux`: `(gradient, aux)`). Gradients compose: `tj.grad(tj.grad(f))` is the
    second derivative.

    Examples
    --------
    >>> def cube(x):
    ...     return x ** 3
    >>> tj.grad(cube)(3.0)  # 3 x**2
    np.float64(27.0)
    >>> tj.grad(tj.grad(cube))(3.0)  # 6 x
    np.float64(18.0)
    >>> def dot(x, y):
    ...     return np.sum(x * y)
    >>> tj.grad(dot, argnums=(0, 1))(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
    (array([3., 4.]), array([1., 2.]))
    """
    both = value_and_grad(f, argnums, has_aux)

    def gradient(*args: object, **kwargs: object) -> Any:
        value, g = both.python_function(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    gradient.__name__ = f"grad_{getattr(f, '__name__', 'f')}"
    return _gradient_function(gradient, both.positions)


def _gradient_function(python_function: Callable[..., Any], positions: tuple[int, ...]) -> object:
    from tracejit.frontend.api.function import Function

    class GradientFunction(Function):
        """A tj.Function whose differentiated arguments may be Python numbers (and NumPy's
        float64 scalars, a float subclass): 0-d float64 arrays, in calls and in
        `get_concrete_function` alike, so that both find the same trace."""

        def __call__(self, *args: object, **kwargs: object) -> Any:
            return super().__call__(*_numbers_as_arrays(args), **kwargs)

        def get_concrete_function(self, *args: object, **kwargs: object) -> Any:
            return super().get_concrete_function(*_numbers_as_arrays(args), **kwargs)

    def _numbers_as_arrays(args: tuple) -> tuple:
        return tuple(
            np.asarray(a, np.float64)
            if i in positions and isinstance(a, int | float) and not isinstance(a, bool)
            else a
            for i, a in enumerate(args)
        )

    made = GradientFunction(python_function)
    made.positions = positions  # type: ignore[attr-defined]  # a function attribute
    return made
