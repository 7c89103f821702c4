"""Arrays built from traced values: `np.array`, `np.asarray`, `np.asanyarray`, `np.copy`,
and (nested) lists and tuples mixing tensors and numbers wherever an array is expected.

    np.array([t0, 1.0, t1])        # 0-d tensors and numbers -> a 1-D tensor
    np.asarray([[t, t], [1, 2]])   # rows of equal shapes -> a 2-D tensor
    np.add((1, 2), t), t + [1, 2]  # a sequence operand is `np.asarray` of it

The dtype is the one NumPy's `np.array` discovers, which differs from a ufunc's: every
element is strong, a Python int counts as int64 (uint64 beyond int64's range), a float as
float64, a bool as bool, and the elements' dtypes are promoted. So
`np.array([float32_tensor, 1.0])` is float64, as `np.array([np.float32(1), 1.0])` is. With
`dtype=`, tensors are cast to it unsafely (like arrays), numbers are converted as NumPy
converts them in a list (`300` into int8 raises OverflowError).

`np.array` and `np.asarray` are not NumPy-dispatched functions: NumPy calls
`Tensor.__array__`, which must fail. AutoGraph's call conversion (on by default) hands
calls of them in converted code to `OVERRIDES` here (which autograph/operators.py adds to
its `BUILTIN_OVERRIDES`), which stage calls that involve tensors and leave every other
call to NumPy. With `autograph=False`, `np.array(tensor)` fails with the tensor's
"cannot be converted to a NumPy array" error: use `np.copy(t)` or `np.stack([...])`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

from tracejit.frontend.numpy_api.registry import _read_variables, implements, unsupported
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import is_tracing
from tracejit.ir.dtypes import SUPPORTED_DTYPES


def contains_tensor(x: object) -> bool:
    if isinstance(x, Tensor):
        return True
    return isinstance(x, list | tuple) and any(contains_tensor(e) for e in x)


def array_dtype(x: object) -> np.dtype:
    """The dtype `np.array(x)` gives `x`: a tensor's own, a constant part's as NumPy
    discovers it, promoted over every element."""
    if isinstance(x, Tensor | np.ndarray):
        return x.dtype
    if isinstance(x, list | tuple) and contains_tensor(x):
        if not x:
            return np.dtype(np.float64)
        return np.result_type(*(array_dtype(e) for e in x))
    try:
        return np.array(x).dtype
    except (TypeError, ValueError, OverflowError) as error:
        raise type(error)(at_user_line(f"np.array: {error}")) from None


def array_of(x: object, dtype: DTypeLike | None = None) -> Tensor:
    """`np.array(x, dtype)` as a tensor, for a tensor or a nested list/tuple of tensors,
    arrays and numbers (see the module docstring)."""
    dtype = array_dtype(x) if dtype is None else np.dtype(dtype)
    if dtype not in SUPPORTED_DTYPES:
        raise TypeError(
            at_user_line(f"np.array: an array of dtype {dtype} mixing traced values is not "
                         "supported by tracejit")
        )  # fmt: skip
    return _build(x, dtype, ())


def asarray(x: object) -> Tensor:
    """`np.asarray(x)` as a tensor: a tensor as it is, a nested list holding tensors as
    `array_of` builds it, anything else a constant (a Python number strong, as NumPy
    converts it)."""
    if isinstance(x, Tensor):
        return x
    if contains_tensor(x):
        return array_of(x)
    return primitives.constant(np.asarray(x))


def _build(x: object, dtype: np.dtype, outer: tuple[int, ...]) -> Tensor:
    """`x` as a tensor of `dtype`; `outer` holds the lengths of the enclosing lists."""
    if isinstance(x, Tensor):
        return primitives.cast(x, dtype)
    if not (isinstance(x, list | tuple) and contains_tensor(x)):
        try:  # as NumPy converts an element of a list (so 300 into int8 raises)
            return primitives.constant(np.array([x], dtype=dtype)[0])
        except (TypeError, ValueError, OverflowError) as error:
            raise type(error)(at_user_line(str(error))) from None
    parts = [_build(e, dtype, (*outer, len(x))) for e in x]
    if len({p.shape for p in parts}) != 1:
        raise ValueError(
            at_user_line(
                "setting an array element with a sequence. The requested array has an "
                f"inhomogeneous shape after {len(outer) + 1} dimensions. The detected shape "
                f"was {(*outer, len(x))} + inhomogeneous part."
            )
        )
    from tracejit.frontend.numpy_api.shapes import stack

    return stack(parts)


def _with_ndmin(x: Tensor, ndmin: int) -> Tensor:
    if x.ndim >= ndmin:
        return x
    return primitives.reshape(x, (1,) * (ndmin - x.ndim) + tuple(x.dims))


def _no_copy_possible(x: object, dtype: DTypeLike | None) -> bool:
    """NumPy 2's `copy=False` refuses what needs a copy: a list, or a change of dtype."""
    return not isinstance(x, Tensor) or (dtype is not None and np.dtype(dtype) != x.dtype)


def _check_like(fn: Callable, like: object) -> None:
    if like is not None:
        raise unsupported(fn, "(..., like=...)")


def _check_device(fn: Callable, device: object) -> None:
    if device not in (None, "cpu"):
        raise unsupported(fn, f"(..., device={device!r})")


def staged_array(
    object: object,
    dtype: DTypeLike | None = None,
    *,
    copy: object = True,
    order: object = "K",
    subok: bool = False,
    ndmin: int = 0,
    ndmax: int = 0,
    like: object = None,
) -> Tensor:
    """`np.array` of values involving tensors (a new array: arrays are values in a trace,
    so `order` and `subok` change nothing)."""
    _check_like(np.array, like)
    if ndmax:
        raise unsupported(np.array, "(..., ndmax=...)")
    if copy is False and _no_copy_possible(object, dtype):
        raise ValueError(at_user_line("Unable to avoid copy while creating an array as requested."))
    result = _with_ndmin(array_of(object, dtype), ndmin)
    if result is object:
        return _new_array(result) if copy is not False or _is_scalar(result) else result
    return _marked_array(result)


def staged_asarray(
    a: object,
    dtype: DTypeLike | None = None,
    order: object = None,
    *,
    device: object = None,
    copy: object = None,
    like: object = None,
) -> Tensor:
    """`np.asarray` / `np.asanyarray` of values involving tensors."""
    _check_like(np.asarray, like)
    _check_device(np.asarray, device)
    if copy is False and _no_copy_possible(a, dtype):
        raise ValueError(at_user_line("Unable to avoid copy while creating an array as requested."))
    result = array_of(a, dtype)
    if result is a:  # a NumPy scalar (0-d) becomes a new 0-d array, as in NumPy
        return _new_array(result) if _is_scalar(result) else result
    return _marked_array(result)


@implements(np.copy)
def copy(a: object, order: object = "K", subok: bool = False) -> Tensor:
    """`np.copy(t)`: the same values (arrays are values in a trace)."""
    result = array_of(a)
    return _new_array(result) if result is a else _marked_array(result)


def _new_array(x: Tensor) -> Tensor:
    """Another array object holding `x`'s values: a copy is never the array it copies
    (`np.asarray(t)` is `t` itself, as in NumPy)."""
    return _marked_array(Tensor(x.value, x.dims))


def _marked_array(x: Tensor) -> Tensor:
    """`x` (made by this call) as an array: 0-d too, it is written in place (`a[...] = v`,
    `a += v`), not a NumPy scalar."""
    x._is_array = True
    return x


def _is_scalar(x: Tensor) -> bool:
    """A 0-d value NumPy holds as a scalar (a reduction's result, ...), not an array."""
    from tracejit.frontend.staging.views import updates_in_place

    return x.ndim == 0 and not updates_in_place(x)


def _dispatching(numpy_fn: Callable, staged: Callable, first: str) -> Callable[..., object]:
    """`numpy_fn` itself, unless called while tracing on values involving tensors (or
    tj.Variables, which are read)."""

    def call(*args: object, **kwargs: object) -> Any:
        if is_tracing():
            args = _read_variables(args)
            kwargs = {k: _read_variables(v) for k, v in kwargs.items()}
            value = args[0] if args else kwargs.get(first)
            if contains_tensor(value):
                return staged(*args, **kwargs)
        return numpy_fn(*args, **kwargs)

    return call


def staged_ascontiguousarray(
    a: object, dtype: DTypeLike | None = None, *, like: object = None
) -> Tensor:
    """`np.ascontiguousarray`: `a` itself when it is a C-contiguous array, else a copy (at
    least 1-d: a 0-d array becomes a 1-element view of it). An array made in the function
    is C-contiguous; a view or an argument is a view of it or a copy as its layout says
    (frontend/staging/views.py, `reshaped`)."""
    from tracejit.frontend.staging import views

    result = staged_asarray(a, dtype, like=like)
    if result.ndim == 0:
        return views.reshaped(result, primitives.reshape(result, [1]))
    if result is not a:
        return result
    return views.reshaped(result, Tensor(result.value, result.dims), c_order_only=True)


def staged_asfortranarray(
    a: object, dtype: DTypeLike | None = None, *, like: object = None
) -> Tensor:
    """`np.asfortranarray`: `a` itself when it is Fortran-contiguous (an array with at most
    one dim other than 1: a 0-d one becomes a 1-element view), else a Fortran-ordered copy.
    The copy is staged as its memory is: the C-ordered transpose of `a`, viewed transposed,
    so that reshapes of it are the copies (or refusals) NumPy's layout gives. An argument
    or a view of several dims may already be Fortran-ordered (a transpose), which tracejit
    cannot tell at trace time: its result is a copy that refuses writes, and a read of it
    after a write into `a` (NumPy's answer would depend on the layout)."""
    from tracejit.frontend.staging import views

    result = staged_asarray(a, dtype, like=like)
    if result.ndim == 0:
        return views.reshaped(result, primitives.reshape(result, [1]))
    if sum(d != 1 for d in result.dims) <= 1:
        return result
    reverse = list(range(result.ndim - 1, -1, -1))
    memory = _new_array(primitives.transpose(result, reverse))
    fortran = views.permuted(memory, primitives.transpose(memory, reverse), reverse)
    if result is not a or views.is_c_ordered(result):
        return fortran
    return views.separate_copy(result, fortran)


# NumPy's constructors -> what calls of them do in code AutoGraph converted.
OVERRIDES: dict[object, Callable[..., object]] = {
    np.array: _dispatching(np.array, staged_array, "object"),
    np.asarray: _dispatching(np.asarray, staged_asarray, "a"),
    np.asanyarray: _dispatching(np.asanyarray, staged_asarray, "a"),
    np.ascontiguousarray: _dispatching(np.ascontiguousarray, staged_ascontiguousarray, "a"),
    np.asfortranarray: _dispatching(np.asfortranarray, staged_asfortranarray, "a"),
}

