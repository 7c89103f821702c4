"""The methods of NumPy's ufuncs on tensors: `np.add.outer`, `np.add.reduce`,
`np.maximum.accumulate`, ... (`ufunc.__call__` is elementwise.py's).

- `outer(a, b)`: the ufunc of `a` with every element of `b`, shape `a.shape + b.shape` (as
  broadcasting `a[..., None, ...]` against `b`), for every binary ufunc tracejit compiles.
- `reduce(x, axis=0, keepdims=False, initial=, where=)`: the reductions NumPy's functions
  are (`np.sum` is `np.add.reduce` with axis=None): add, multiply, maximum, minimum,
  logical_and, logical_or, fmax and fmin (`np.nanmax`, `np.nanmin`); `where` fills the
  masked-out elements with `initial` (or the identity) first, `initial` is combined with
  the result.
- `reduceat(x, indices, axis=0)`: one reduction per segment, indices known at trace time.
- `accumulate(x, axis=0)`: running add, multiply (`np.cumsum`, `np.cumprod`), maximum,
  minimum, fmax, fmin, hypot and the bitwise and/or/xor (`tj.cumulative`, combined in
  NumPy's order).
- `at(a, indices, b)`: NumPy's unbuffered in-place `a[indices] = ufunc(a[indices], b)`,
  where a repeated index combines every one of its updates (`tj.scatter_combine`), for the
  binary ufuncs whose loop is one element-wise op: add, subtract, multiply, divide,
  floor_divide, remainder, fmod, power, maximum, minimum, fmax, fmin, arctan2, hypot,
  copysign, bitwise and/or/xor, shifts, logical and/or/xor.
- `at(a, indices)` of a unary ufunc: `a[indices] = ufunc(a[indices])`, applied again for
  each repetition of an index (`np.negative.at(a, [0, 0])` leaves a[0] as it was), in the
  ufunc's loop dtype and cast back to `a`'s, as NumPy: negative, positive, absolute (not
  of complex: its loop returns reals), fabs, sign, conjugate, square, reciprocal (floats
  and complex), invert, the exponentials, logarithms, roots, trigonometric and hyperbolic
  functions, floor, ceil, trunc and rint (`tj.scatter_combine` with a unary combiner).

Other ufuncs' methods are refused by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.construction import array_of
from tracejit.frontend.numpy_api.promotion import as_tensor, loop_dtypes
from tracejit.frontend.numpy_api.shapes import normalize_axis
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.ir import elementwise as ew

# ufunc -> the NumPy function its `reduce` is
_REDUCTIONS: dict[np.ufunc, Any] = {
    np.add: np.sum,
    np.multiply: np.prod,
    np.maximum: np.max,
    np.minimum: np.min,
    np.logical_and: np.all,
    np.logical_or: np.any,
    np.fmax: np.nanmax,  # NaN-ignoring; all NaN gives NaN
    np.fmin: np.nanmin,
}
# ufunc -> tj.cumulative's kind for its `accumulate`
_SCANS: dict[np.ufunc, str] = {
    np.add: "sum",
    np.multiply: "prod",
    np.maximum: "max",
    np.minimum: "min",
    np.fmax: "fmax",
    np.fmin: "fmin",
    np.hypot: "hypot",
    np.bitwise_and: "and",
    np.bitwise_or: "or",
    np.bitwise_xor: "xor",
}


def outer(ufunc: np.ufunc, a: object, b: object, **kwargs: Any) -> Any:
    if ufunc.nin != 2:
        raise ValueError(f"outer product only supported for binary functions, not {ufunc}")
    a, b = _tensor(a), _tensor(b)
    widened = a[(Ellipsis,) + (None,) * b.ndim]  # unit dims: also for dims unknown now
    return dispatched(ufunc(widened, b, **kwargs))


def reduce(
    ufunc: np.ufunc, x: object, axis: Any = 0, dtype: Any = None, keepdims: bool = False,
    initial: Any = np._NoValue, where: Any = True,
) -> Any | None:  # fmt: skip
    """None when tracejit has no reduction for `ufunc` (refused by the caller). `where`
    fills the masked-out elements with `initial` (or the ufunc's identity) before reducing;
    `initial` is then combined with the result, as the first element NumPy starts from."""
    function = _REDUCTIONS.get(ufunc)
    if function is None:
        return None
    if where is not True:
        x = _masked(ufunc, _tensor(x), where, initial)
    tensor = _tensor(x)
    if initial is not np._NoValue and _reduces_nothing(tensor, axis):
        return _initial_only(ufunc, tensor, axis, dtype, keepdims, initial)
    if initial is not np._NoValue and function in (np.max, np.min) and dtype is None:
        maybe_empty = _extremum_from_initial(ufunc, tensor, axis, keepdims, initial)
        if maybe_empty is not None:
            return maybe_empty
    if function in (np.sum, np.prod):
        result = dispatched(function(x, axis=axis, dtype=dtype, keepdims=keepdims))
    else:
        if dtype is not None:  # np.max and the logical ones take no dtype: cast first
            x = dispatched(_tensor(x).astype(dtype))
        result = dispatched(function(x, axis=axis, keepdims=keepdims))
    if initial is np._NoValue:
        return result
    return primitives.cast(_tensor(ufunc(result, initial)), result.dtype)


def _masked(ufunc: np.ufunc, x: Tensor, where: Any, initial: Any) -> Tensor:
    # the identity leaves the result alone; without one (maximum) `initial` does, as it is
    # combined with the result anyway
    fill = initial if ufunc.identity is None else ufunc.identity
    if fill is np._NoValue:
        raise ValueError(
            at_user_line(
                f"reduction operation '{ufunc.__name__}' does not have an identity, so to use "
                "a where mask one has to specify 'initial'"
            )
        )
    mask = primitives.broadcast_to(primitives.cast(_tensor(where), np.dtype(np.bool_)), x.dims)
    return dispatched(np.where(mask, x, primitives.cast(_tensor(fill), x.dtype)))


def _extremum_from_initial(
    ufunc: np.ufunc, x: Tensor, axis: Any, keepdims: bool, initial: Any
) -> Tensor | None:
    """max/min with `initial` over axes whose size only the kernel knows: an empty one is
    no error (NumPy's answer is `initial`), so the reduction is staged without np.max's
    run-time check -- tj.reduce of nothing is its identity (-inf, the integer minimum),
    which `initial` then replaces. None where np.max's own staging applies."""
    every = range(x.ndim) if axis is None else np.atleast_1d(axis).tolist()
    axes = tuple(sorted({normalize_axis(a, x.ndim) for a in every}))
    if x.dtype.kind not in "iuf" or all(x.shape[a] is not None for a in axes):
        return None
    kind = "max" if ufunc is np.maximum else "min"
    result = primitives.reduce(kind, x, list(axes))
    if keepdims:
        result = primitives.reshape(result, [1 if i in axes else d for i, d in enumerate(x.dims)])
    return primitives.cast(_tensor(ufunc(result, initial)), result.dtype)


def _reduces_nothing(x: Tensor, axis: Any) -> bool:
    axes = range(x.ndim) if axis is None else np.atleast_1d(axis)
    return any(x.shape[int(a)] == 0 for a in axes)


def _initial_only(
    ufunc: np.ufunc, x: Tensor, axis: Any, dtype: Any, keepdims: bool, initial: Any
) -> Tensor:
    """A reduction over no elements: `initial`, in the result's shape and dtype."""
    shape_of = np.zeros([0 if d is None else d for d in x.shape], x.dtype)
    like = ufunc.reduce(shape_of, axis=axis, dtype=dtype, keepdims=keepdims, initial=initial)
    if None in x.shape:
        raise NotImplementedError(
            at_user_line("an empty reduction with dims unknown at trace time")
        )
    return primitives.constant(np.asarray(like))


# The most segments reduceat stages (each is its own reduction in the traced program).
REDUCEAT_LIMIT = 256


def reduceat(
    ufunc: np.ufunc, x: object, indices: object, axis: int = 0, dtype: Any = None
) -> Any | None:
    """`ufunc.reduceat(x, indices, axis)`: for each i, the reduction of
    `x[indices[i]:indices[i + 1]]` along `axis` (the last runs to the end), or
    `x[indices[i]]` itself where the next index is not larger. The indices must be known
    at trace time (each segment is staged as its own reduction)."""
    if ufunc not in _REDUCTIONS:
        return None
    if isinstance(indices, Tensor):
        raise NotImplementedError(
            at_user_line(
                f"np.{ufunc.__name__}.reduceat with traced indices is not supported: pass them "
                "as a list or a NumPy array, or wrap the call in tj.py_function"
            )
        )
    tensor = _tensor(x)
    axis = normalize_axis(axis, tensor.ndim)
    size = tensor.shape[axis]
    starts = [int(i) for i in np.asarray(indices).reshape(-1)]
    if size is None or len(starts) > REDUCEAT_LIMIT:
        raise NotImplementedError(
            at_user_line(
                f"np.{ufunc.__name__}.reduceat needs a static axis and at most "
                f"{REDUCEAT_LIMIT} indices; wrap the call in tj.py_function"
            )
        )
    parts: list[Any] = []
    for k, start in enumerate(starts):
        if not 0 <= start < size:
            raise IndexError(
                at_user_line(
                    f"index {start} out-of-bounds in {ufunc.__name__}.reduceat [0, {size})"
                )
            )
        end = starts[k + 1] if k + 1 < len(starts) else size
        window = [slice(None)] * tensor.ndim
        window[axis] = slice(start, end if end > start else start + 1)
        segment = dispatched(tensor[tuple(window)])
        parts.append(reduce(ufunc, segment, axis=axis, dtype=dtype, keepdims=True))
    return dispatched(np.concatenate(parts, axis=axis))


def accumulate(ufunc: np.ufunc, x: object, axis: int = 0, dtype: Any = None) -> Any | None:
    """None when tracejit has no scan for `ufunc` (refused by the caller). The result has
    the dtype NumPy's loop gives (`np.hypot.accumulate` of int8 is float16), or NumPy's
    TypeError (`np.bitwise_or.accumulate` of floats)."""
    kind = _SCANS.get(ufunc)
    if kind is None:
        return None
    if kind in ("sum", "prod"):
        scan = np.cumsum if kind == "sum" else np.cumprod
        return dispatched(scan(_tensor(x), axis=axis, dtype=dtype))
    tensor = array_of(x)
    if tensor.ndim == 0:
        raise ValueError("cannot accumulate on a scalar")  # NumPy's error
    result_dtype = ufunc.accumulate(np.zeros(1, tensor.dtype), dtype=dtype).dtype
    tensor = primitives.cast(tensor, result_dtype)
    axis = normalize_axis(axis, tensor.ndim)
    if kind in ("fmax", "fmin") and result_dtype.kind != "f":
        kind = kind[1:]  # no NaN to ignore: max, min
    if result_dtype == np.bool_:  # max/min/and/or/xor of 0s and 1s, as bools
        scanned = primitives.cumulative(kind, primitives.cast(tensor, np.dtype(np.uint8)), axis)
        return primitives.cast(scanned, np.dtype(np.bool_))
    return primitives.cumulative(kind, tensor, axis)


def _tensor(value: object) -> Tensor:
    return value if isinstance(value, Tensor) else array_of(value)


# ufunc -> the element-wise op `ufunc.at` combines with, by the kind of its loop's dtype
# ("int" stands for signed and unsigned; bool `+` is `|`, bool `*` is `&`, as NumPy's loops)
_AT_COMBINERS: dict[np.ufunc, dict[str, type[ew.ElementwiseBinaryOp]]] = {
    np.add: {"f": ew.AddOp, "c": ew.AddOp, "int": ew.AddOp, "b": ew.BitwiseOrOp},
    np.subtract: {"f": ew.SubOp, "c": ew.SubOp, "int": ew.SubOp},
    np.multiply: {"f": ew.MulOp, "c": ew.MulOp, "int": ew.MulOp, "b": ew.BitwiseAndOp},
    np.true_divide: {"f": ew.DivOp, "c": ew.DivOp},
    np.floor_divide: {"f": ew.FloorDivideOp, "int": ew.FloorDivideOp},
    np.remainder: {"f": ew.RemainderOp, "int": ew.RemainderOp},
    np.fmod: {"f": ew.FmodOp, "int": ew.FmodOp},
    np.power: {"f": ew.PowOp, "c": ew.PowOp},
    np.maximum: {"f": ew.MaximumOp, "int": ew.MaximumOp, "b": ew.BitwiseOrOp},
    np.minimum: {"f": ew.MinimumOp, "int": ew.MinimumOp, "b": ew.BitwiseAndOp},
    np.fmax: {"f": ew.FmaxOp, "int": ew.MaximumOp, "b": ew.BitwiseOrOp},
    np.fmin: {"f": ew.FminOp, "int": ew.MinimumOp, "b": ew.BitwiseAndOp},
    np.arctan2: {"f": ew.Arctan2Op},
    np.hypot: {"f": ew.HypotOp},
    np.copysign: {"f": ew.CopysignOp},
    np.bitwise_and: {"int": ew.BitwiseAndOp, "b": ew.BitwiseAndOp},
    np.bitwise_or: {"int": ew.BitwiseOrOp, "b": ew.BitwiseOrOp},
    np.bitwise_xor: {"int": ew.BitwiseXorOp, "b": ew.BitwiseXorOp},
    np.left_shift: {"int": ew.LeftShiftOp},
    np.right_shift: {"int": ew.RightShiftOp},
    np.logical_and: {"b": ew.BitwiseAndOp},
    np.logical_or: {"b": ew.BitwiseOrOp},
    np.logical_xor: {"b": ew.BitwiseXorOp},
}


# unary ufunc -> the combiner (ir/scatter_combine.py) `ufunc.at` applies, by the kind of
# its loop's dtype, where NumPy's function is one op (or a PSEUDO_UNARY one) on that kind
_UNARY_FLOAT_OPS = {
    np.exp: ew.ExpOp, np.expm1: ew.Expm1Op, np.exp2: ew.Exp2Op, np.log: ew.LogOp,
    np.log1p: ew.Log1pOp, np.log2: ew.Log2Op, np.log10: ew.Log10Op, np.sqrt: ew.SqrtOp,
    np.cbrt: ew.CbrtOp, np.sin: ew.SinOp, np.cos: ew.CosOp, np.tan: ew.TanOp,
    np.arcsin: ew.ArcsinOp, np.arccos: ew.ArccosOp, np.arctan: ew.ArctanOp,
    np.sinh: ew.SinhOp, np.cosh: ew.CoshOp, np.tanh: ew.TanhOp, np.arcsinh: ew.ArcsinhOp,
    np.arccosh: ew.ArccoshOp, np.arctanh: ew.ArctanhOp, np.floor: ew.FloorOp,
    np.ceil: ew.CeilOp, np.trunc: ew.TruncOp, np.rint: ew.RintOp,
}  # fmt: skip
_COMPLEX_TOO = {np.exp, np.log, np.sqrt}  # the ones tracejit stages on complex loops
_INTEGRAL_IDENTITY = {np.floor, np.ceil, np.trunc}  # integers are already integral
_AT_UNARY: dict[np.ufunc, dict[str, str]] = {
    np.negative: {"f": ew.NegOp.name, "c": ew.NegOp.name, "int": ew.NegOp.name},
    np.positive: {"f": "identity", "c": "identity", "int": "identity"},
    np.absolute: {"f": ew.AbsOp.name, "int": ew.AbsOp.name, "b": "identity"},
    np.fabs: {"f": ew.AbsOp.name},
    np.sign: {"f": ew.SignOp.name, "int": ew.SignOp.name},
    np.conjugate: {"c": ew.ConjOp.name, "f": "identity", "int": "identity", "b": "identity"},
    np.square: {"f": "square", "c": "square", "int": "square", "b": "identity"},
    np.reciprocal: {"f": "reciprocal", "c": ew.ReciprocalOp.name},
    np.invert: {"int": ew.BitwiseNotOp.name, "b": ew.BitwiseNotOp.name},
    **{
        ufunc: {
            "f": op.name,
            **({"c": op.name} if ufunc in _COMPLEX_TOO else {}),
            **({"int": "identity", "b": "identity"} if ufunc in _INTEGRAL_IDENTITY else {}),
        }
        for ufunc, op in _UNARY_FLOAT_OPS.items()
    },
}


def at(ufunc: np.ufunc, a: object, indices: object, b: object = None) -> None:
    """`ufunc.at(a, indices, b)`: `a` updated in place (module docstring); None, as NumPy."""
    if not isinstance(a, Tensor):
        raise TypeError("a traced array as the first argument")
    if ufunc.nin == 1 and b is not None:
        raise ValueError(at_user_line("second operand provided when ufunc is unary"))
    if ufunc.nin == 2 and b is None:
        raise ValueError(at_user_line("second operand needed for ufunc"))
    if ufunc.nin != 1 and ufunc.nin != 2:
        raise TypeError("a unary or binary ufunc")
    if ufunc.nin == 1:
        compute, name = _unary_at_loop(ufunc, a)
        updates = primitives.constant(np.zeros((), compute))  # its dtype only: not read
        return _scatter_into(ufunc, a, indices, name, updates)

    compute, combiner = _at_loop(ufunc, a, b)
    return _scatter_into(ufunc, a, indices, combiner.name, as_tensor(b, compute))


def _scatter_into(
    ufunc: np.ufunc, a: Tensor, indices: object, combiner: str, updates: Tensor
) -> None:
    """`a` combined in place with `updates` at `indices` (one tj.scatter_combine)."""
    from tracejit.frontend.staging.views import assign

    positions = _at_positions(a, indices)
    count = [positions.dims[0]] if positions.ndim == 1 else [_static_size(positions)]
    if updates.ndim:  # one value per selected element (a 0-d one the op takes as it is)
        updates = primitives.reshape(_broadcast_updates(ufunc, updates, positions), count)
    message = at_user_line(f"IndexError: index out of bounds in np.{ufunc.__name__}.at")
    flat = primitives.reshape(a, [_static_size(a)]) if a.ndim != 1 else a
    flat_positions = primitives.reshape(positions, count)
    combined = primitives.scatter_combine(combiner, flat, flat_positions, updates, message)
    assign(a, primitives.reshape(combined, a.dims))
    return None


def _unary_at_loop(ufunc: np.ufunc, a: Tensor) -> tuple[np.dtype, str]:
    """The dtype NumPy's loop of a unary ufunc computes in, and the combiner applying it."""
    given, out = loop_dtypes(ufunc, [a])
    kind = "int" if out.kind in "iu" else out.kind
    combiner = _AT_UNARY.get(ufunc, {}).get(kind)
    if combiner is None or given != out:
        raise NotImplementedError(
            at_user_line(
                f"np.{ufunc.__name__}.at on {a.dtype} is not supported by tracejit; wrap the "
                "call in tj.py_function, or write a[indices] = np."
                f"{ufunc.__name__}(a[indices]) if no index repeats"
            )
        )
    return out, combiner


def _broadcast_updates(ufunc: np.ufunc, updates: Tensor, positions: Tensor) -> Tensor:
    try:
        return primitives.broadcast_to(updates, positions.dims)
    except ValueError:
        raise ValueError(
            at_user_line(
                f"array is not broadcastable to correct shape: {updates.shape} into "
                f"{positions.shape} (np.{ufunc.__name__}.at)"
            )
        ) from None


def _at_loop(
    ufunc: np.ufunc, a: Tensor, b: object
) -> tuple[np.dtype, type[ew.ElementwiseBinaryOp]]:
    """The dtype NumPy's loop computes in, and the op combining in it."""
    first, second, out = loop_dtypes(ufunc, [a, b])
    kinds = _AT_COMBINERS.get(ufunc, {})
    kind = "int" if out.kind in "iu" else out.kind
    combiner = kinds.get(kind)
    if combiner is None or not first == second == out:
        raise NotImplementedError(
            at_user_line(
                f"np.{ufunc.__name__}.at on {a.dtype} is not supported by tracejit; wrap the "
                "call in tj.py_function, or write a loop over the indices"
            )
        )
    return out, combiner


def _at_positions(a: Tensor, indices: object) -> Tensor:
    """The flat positions in `a` that `a[indices]` selects, in NumPy's order (for a 1-d
    `a` and an integer index array, the indices themselves: the op wraps and checks them)."""
    from tracejit.frontend.numpy_api.indexing import getitem

    if a.ndim == 1 and not isinstance(indices, tuple | slice) and indices is not Ellipsis:
        index = indices if isinstance(indices, Tensor) else array_of(indices)
        if index.dtype.kind in "iu":
            return index if index.ndim else primitives.reshape(index, [1])
    if None in a.shape:
        raise NotImplementedError(
            at_user_line(
                "ufunc.at with these indices into an array with dims unknown at trace time is "
                "not supported; index a 1-d array with an integer array"
            )
        )
    size = _static_size(a)
    shape = [int(d) for d in a.shape if d is not None]  # all of them (checked above)
    every = primitives.constant(np.arange(size, dtype=np.intp).reshape(shape))
    picked = getitem(every, indices)
    if None in picked.shape and picked.ndim != 1:
        raise NotImplementedError(
            at_user_line("ufunc.at with index arrays of sizes known only at run time")
        )
    return picked


def _static_size(x: Tensor) -> int:
    if None in x.shape:
        raise NotImplementedError(
            at_user_line("ufunc.at on arrays with dims unknown at trace time (except 1-d)")
        )
    return int(np.prod([d for d in x.shape if d is not None], dtype=np.int64))
