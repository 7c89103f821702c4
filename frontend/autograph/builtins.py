"""Python builtins and `math` functions on traced values, in converted code.

`float(t)`, `int(t)`, `round(t)`, `min(a, t)`, `max(a, t)`, `math.sqrt(t)`, ... cannot run
on a symbolic tensor, whose value is only known when the kernel runs. AutoGraph's call
conversion (`converted_call`) hands these calls here, as TensorFlow's AutoGraph does for
`len`, `range`, `float` and `int`; each one is staged as the NumPy computation that gives
the same value, and calls on Python values run the builtin itself.

Where the result can differ from Python's, the rule is NumPy's: a `math` function of a
tensor is its NumPy ufunc on float64 (NaN where Python raises "math domain error"), and
`int()` of NaN or infinity raises `tj.errors.InvalidArgumentError` when the kernel runs.
"""

from __future__ import annotations

import builtins
import math
import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.staging import primitives, runtime_sizes, views
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.tracing import is_tracing
from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import SUPPORTED_DTYPES


def _has_tensor(values: tuple) -> bool:
    return any(isinstance(v, Tensor) for v in values)


def _scalar(value: Tensor, what: str) -> Tensor:
    """The one element of `value` as a 0-d tensor (Python's conversions need one element)."""
    if value.size != 1:
        raise TypeError(
            at_user_line(
                f"{what} of a tensor of shape {value.shape}: only a tensor with one element "
                "converts to a Python scalar (NumPy raises here too); index or reduce it first"
            )
        )
    # __array_function__: np.reshape of a Tensor is a Tensor (NumPy's stubs say ndarray)
    return dispatched(np.reshape(value, ())) if value.ndim else value


def float_(value: Any = 0.0) -> Any:
    """`float(t)`: a 0-d float64 tensor."""
    if not isinstance(value, Tensor):
        return float(value)
    return _scalar(value, "float()").astype(np.float64)


def complex_(real: Any = 0, imag: Any = 0) -> Any:
    """`complex(x, y)`: a 0-d complex128 tensor (Python's complex is double precision)."""
    if not isinstance(real, Tensor) and not isinstance(imag, Tensor):
        return complex(real, imag)
    parts = [
        _scalar(v, "complex()").astype(np.complex128) if isinstance(v, Tensor) else complex(v)
        for v in (real, imag)
    ]
    return parts[0] + parts[1] * 1j


def int_(value: Any = 0, *base: Any) -> Any:
    """`int(t)`: a 0-d int64 tensor (uint64 stays uint64), truncated toward zero; NaN and
    values out of int64's range raise when the kernel runs."""
    if not isinstance(value, Tensor):
        return int(value, *base)
    value = _scalar(value, "int()")
    if value.dtype.kind in "biu":
        return value.astype(np.uint64 if value.dtype == np.uint64 else np.int64)
    in_range = (value >= -(2.0**63)) & (value < 2.0**63)  # False for NaN
    primitives.assert_true(
        in_range,
        at_user_line("InvalidArgumentError: int() of NaN, infinity or a value beyond int64"),
    )
    return value.astype(np.int64)


def round_(value: Any, ndigits: Any = None) -> Any:
    """`round(t)`: half to even like Python; an int64 tensor without `ndigits`."""
    if not isinstance(value, Tensor):
        return round(value) if ndigits is None else round(value, ndigits)
    if ndigits is not None:
        return np.round(value, ndigits)
    return int_(np.round(value))


def _extreme(name: str, pick_later: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    python = getattr(builtins, name)

    def extreme(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], Tensor):
            raise TypeError(
                at_user_line(
                    f"{name}() of a tensor would iterate over it in Python; use np.{name}(t) "
                    "(or np.nan" + name + " to skip NaNs)"
                )
            )
        if kwargs or len(args) < 2 or not _has_tensor(args):
            return python(*args, **kwargs)
        result = args[0]
        for candidate in args[1:]:  # Python keeps the earlier value unless a later one wins
            result = np.where(pick_later(candidate, result), candidate, result)
        return result

    extreme.__name__ = f"{name}_"
    return extreme


min_ = _extreme("min", lambda later, current: later < current)
max_ = _extreme("max", lambda later, current: later > current)


def _math(ufunc: Callable[..., Any], python: Callable[..., object]) -> Callable[..., object]:
    def staged(*args: Any) -> Any:
        if not _has_tensor(args):
            return python(*args)
        as_float = [a.astype(np.float64) if isinstance(a, Tensor) else float(a) for a in args]
        return ufunc(*as_float)

    staged.__name__ = f"math_{python.__name__}"
    return staged


_MATH_UFUNCS: dict[str, Callable[..., Any]] = {
    "sqrt": np.sqrt,
    "exp": np.exp,
    "expm1": np.expm1,
    "log1p": np.log1p,
    "log2": np.log2,
    "log10": np.log10,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "atan2": np.arctan2,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "fabs": np.fabs,
    "hypot": np.hypot,
    "pow": np.power,
    "copysign": np.copysign,
    "fmod": np.fmod,
    "degrees": np.degrees,
    "radians": np.radians,
    "erf": lambda x: primitives.unary(ew.ErfOp, x),  # NumPy has no erf ufunc
}


def math_log(value: Any, base: Any = None) -> Any:
    if not _has_tensor((value, base)):
        return math.log(value) if base is None else math.log(value, base)
    logarithm = np.log(value.astype(np.float64) if isinstance(value, Tensor) else float(value))
    if base is None:
        return logarithm
    return logarithm / np.log(base.astype(np.float64) if isinstance(base, Tensor) else base)


def _rounding(ufunc: np.ufunc, python: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """math.floor/ceil/trunc: an integer result, as Python gives."""

    def staged(value: object) -> object:
        if not isinstance(value, Tensor):
            return python(value)
        return int_(ufunc(value) if value.dtype.kind == "f" else value)

    staged.__name__ = f"math_{python.__name__}"
    return staged


def _predicate(ufunc: np.ufunc, python: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def staged(value: object) -> object:
        if not isinstance(value, Tensor):
            return python(value)
        return ufunc(_scalar(value, python.__name__))

    return staged


def _new_array(function: Callable[..., object], fill: Callable[..., object] | None = None):
    """`np.zeros(...)` and friends while tracing: a traced array (a constant to start with)
    rather than a NumPy one, so the function can write into it (`d[i] = t`, `d += t`)
    like any other array. `np.empty` gives zeros: its contents are unspecified anyway, and
    a constant must not bake in whatever memory held."""

    def staged(*args: object, **kwargs: object) -> object:
        sized = _with_runtime_sizes(function, args, kwargs)
        if sized is not None:
            return sized
        result = (fill or function)(*args, **kwargs)
        order = "C" if isinstance(result, np.ndarray) and result.flags.c_contiguous else None
        if isinstance(result, np.ndarray) and is_tracing() and result.dtype in SUPPORTED_DTYPES:
            if result.size:  # one value everywhere: a splat, without reading the array
                result = np.broadcast_to(result.reshape(-1)[:1].reshape(()), result.shape)
            result = primitives.constant(result)
        if isinstance(result, Tensor):
            result._is_array = True
            result._order_from = order  # np.zeros(..., order="F"): its reshapes are copies
        return result

    staged.__name__ = function.__name__
    return staged


def ndarray_(
    shape: Any, dtype: Any = float, buffer: Any = None, offset: int = 0, strides: Any = None,
    order: Any = None,
) -> Any:  # fmt: skip
    """`np.ndarray(shape, dtype)`, the constructor, as `np.empty(shape, dtype)`; on a
    `buffer` or with `strides`, NumPy's own view of that memory."""
    if buffer is not None or strides is not None:
        return np.ndarray(shape, dtype, buffer, offset, strides, order)
    return _EMPTY(shape, dtype, order=order or "C")


def _with_runtime_sizes(function: Callable[..., object], args: tuple, kwargs: dict) -> object:
    """`np.zeros(x.shape)` where `x` has dims known only at run time (whose sizes the user
    sees as run-time tensors, frontend/staging/runtime_sizes.py): the 0-d array NumPy makes for
    shape `()`, broadcast to those dims. None when the shape holds no run-time size."""
    if not is_tracing() or function in (np.zeros_like, np.ones_like, np.full_like):
        return None
    if function is np.empty_like:
        return None
    shape = args[0] if args else kwargs.get("shape")
    found = runtime_sizes.sizes_to_dims(shape)
    if found is None:
        return None
    dims, witnesses = found
    if any(isinstance(d, Tensor) for d in dims):
        raise TypeError(
            at_user_line(
                f"np.{function.__name__}: a size computed at run time (not x.shape[k] itself) "
                "is not supported as an array size"
            )
        )
    rest = {k: v for k, v in kwargs.items() if k != "shape"}
    scalar = (np.zeros if function is np.empty else function)((), *args[1:], **rest)
    result = primitives.broadcast_to(primitives.constant(scalar), dims, witnesses)
    result._is_array = True
    return result


def broadcast_to_(array: Any, shape: Any, subok: bool = False) -> Any:
    """`np.broadcast_to(v, x.shape)` of a value that is not a tensor (NumPy would not hand
    it to tracejit) and a shape naming run-time sizes (frontend/staging/runtime_sizes.py)."""
    sized = is_tracing() and runtime_sizes.sizes_to_dims(shape) is not None
    if sized and not isinstance(array, Tensor):
        array = primitives.constant(np.asarray(array))
    return np.broadcast_to(array, shape, subok=subok)


def arange_(*args: Any, **kwargs: Any) -> Any:
    """`np.arange` with a bound known only at run time (`np.arange(n)`, `np.arange(1, n + 1)`
    where `n = x.shape[k]` or `len(x)`, `np.arange(i, n, 2)`): integer bounds and a Python
    int step. A length equal to a dim of an input (`n`, `(n + 1) - 1`) is that dim, so the
    result broadcasts with that input; another length (`n - 1`) is a new run-time size.
    NumPy runs every other form (NumPy's arange does not dispatch to tracejit)."""
    bounds = _arange_bounds(args, kwargs)
    if not is_tracing() or not any(isinstance(b, Tensor) for b in bounds[:3]):
        return np.arange(*args, **kwargs)
    start, stop, step, dtype = bounds
    integer = all(isinstance(b, int | np.integer) or _integer_tensor(b) for b in (start, stop))
    if not integer or not isinstance(step, int | np.integer) or step == 0:
        raise NotImplementedError(
            at_user_line(
                "np.arange with a bound known only at run time takes integer bounds and a "
                "non-zero Python int step; write np.arange(n) * step + start for others"
            )
        )
    span = stop - start  # `(n + 1) - 1` is still n to offset_form
    # ceil(span / step), NumPy's length (clamped at 0 below)
    length = span if step == 1 else (span + (step - 1 if step > 0 else step + 1)) // step
    measured = runtime_sizes.dim_of(length)
    if measured is not None:
        dim, witnesses = measured[0], {0: measured[1:]}
    else:
        dim, witnesses = runtime_sizes.length_dim(dispatched(np.maximum(length, 0))), {}
    one = primitives.constant(np.asarray(1, np.int64))
    counted = dispatched(np.cumsum(primitives.broadcast_to(one, (dim,), witnesses))) - 1
    result = (counted * step + start).astype(np.dtype(dtype or np.int64))
    result._is_array = True
    return result


def _arange_bounds(args: tuple, kwargs: dict) -> tuple[Any, Any, Any, Any]:
    """(start, stop, step, dtype) as `np.arange(*args, **kwargs)` reads them."""
    names = ("start", "stop", "step", "dtype")
    given = dict(zip(names, args, strict=False)) | kwargs
    if len(args) == 1 or (len(args) == 0 and "stop" not in kwargs):  # np.arange(stop)
        given = {"start": 0, "stop": given.get("start")} | {
            k: v for k, v in kwargs.items() if k != "start"
        }
    step = given.get("step")
    return given.get("start", 0), given.get("stop"), 1 if step is None else step, given.get("dtype")


def _integer_tensor(value: Any) -> bool:
    return isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind in "iu"


def _run_time_sized(function: Callable[..., Any], build: Callable[..., Any]) -> Callable:
    """`function` (np.eye, np.tri, ...: NumPy's do not dispatch) built from `arange_` when a
    size is known only at run time (`np.eye(len(x))`); NumPy's own otherwise."""

    def staged(*args: Any, **kwargs: Any) -> Any:
        sizes = [*args[:2], kwargs.get("N"), kwargs.get("M"), kwargs.get("n"), kwargs.get("m")]
        if is_tracing() and any(isinstance(size, Tensor) for size in sizes):
            return build(*args, **kwargs)
        return function(*args, **kwargs)

    staged.__name__ = function.__name__
    return staged


def _offsets(N: Any, M: Any = None) -> Any:  # noqa: N803 - NumPy's names
    """`j - i` for every (i, j) of an N x M grid (M defaults to N)."""
    rows = arange_(N)[:, None]
    return arange_(N if M is None else M)[None, :] - rows


def _eye(N: Any, M: Any = None, k: int = 0, dtype: Any = float, **kwargs: Any) -> Any:  # noqa: N803
    _refuse_options("np.eye", kwargs)
    return (_offsets(N, M) == k).astype(dtype)


def _identity(n: Any, dtype: Any = None, **kwargs: Any) -> Any:
    _refuse_options("np.identity", kwargs)
    return _eye(n, dtype=float if dtype is None else dtype)


def _tri(N: Any, M: Any = None, k: int = 0, dtype: Any = float, **kwargs: Any) -> Any:  # noqa: N803
    _refuse_options("np.tri", kwargs)
    return (_offsets(N, M) <= k).astype(dtype)


def _triu_indices(n: Any, k: int = 0, m: Any = None) -> Any:
    return np.nonzero(_offsets(n, m) >= k)  # NumPy's: nonzero(~tri(n, m, k - 1))


def _tril_indices(n: Any, k: int = 0, m: Any = None) -> Any:
    return np.nonzero(_offsets(n, m) <= k)


def _refuse_options(name: str, kwargs: dict) -> None:
    if kwargs:
        raise NotImplementedError(
            at_user_line(f"{name} of a run-time size with {sorted(kwargs)} is not supported")
        )


def len_(value: Any) -> Any:
    """`len(t)`: a run-time int64 tensor when the first dim of `t` is known only at run
    time (Python's `len` must return an int, so only converted code can give one)."""
    if isinstance(value, Tensor) and value.ndim and value._shape[0] is None:
        return runtime_sizes.dim_size(value, 0)
    return len(value)


_EMPTY = _new_array(np.empty, np.zeros)

OVERRIDES: dict[object, Callable[..., object]] = {
    len: len_,
    np.broadcast_to: broadcast_to_,
    np.arange: arange_,
    np.eye: _run_time_sized(np.eye, _eye),
    np.identity: _run_time_sized(np.identity, _identity),
    np.tri: _run_time_sized(np.tri, _tri),
    np.triu_indices: _run_time_sized(np.triu_indices, _triu_indices),
    np.tril_indices: _run_time_sized(np.tril_indices, _tril_indices),
    np.zeros: _new_array(np.zeros),
    np.ones: _new_array(np.ones),
    np.full: _new_array(np.full),
    np.empty: _EMPTY,
    np.ndarray: ndarray_,
    np.zeros_like: _new_array(np.zeros_like),
    np.ones_like: _new_array(np.ones_like),
    np.full_like: _new_array(np.full_like),
    np.empty_like: _new_array(np.empty_like, np.zeros_like),
    float: float_,
    int: int_,
    complex: complex_,
    round: round_,
    min: min_,
    max: max_,
    math.log: math_log,
    math.floor: _rounding(np.floor, math.floor),
    math.ceil: _rounding(np.ceil, math.ceil),
    math.trunc: _rounding(np.trunc, math.trunc),
    math.isnan: _predicate(np.isnan, math.isnan),
    math.isinf: _predicate(np.isinf, math.isinf),
    math.isfinite: _predicate(np.isfinite, math.isfinite),
    **{getattr(math, n): _math(ufunc, getattr(math, n)) for n, ufunc in _MATH_UFUNCS.items()},
}


def contains(container: Any, item: Any) -> Any:
    """`item in container`: for a tensor container, NumPy's `(container == item).any()`."""
    if isinstance(container, Tensor):
        return np.any(np.equal(container, item))
    return item in container


def getitem(target: Any, key: object) -> Any:
    """`target[key]` in converted code. A NumPy array indexed with a traced value
    (`table[i]`, `C[x % 2]`) becomes a constant of the trace first: NumPy's own indexing
    would try to convert the index to an array. Its traced copy refuses writes (a write
    through `row = table[i]` changes the NumPy array in NumPy, which a copy would not)."""
    traced = isinstance(target, np.ndarray) and _has_tensor(tuple(_leaves(key)))
    if traced and is_tracing() and target.dtype in SUPPORTED_DTYPES:
        constant = primitives.constant(target)
        constant._is_array = True
        target = views.refuse_writes(constant, _WRITE_TO_A_CONSTANT)
    return target[key]


_WRITE_TO_A_CONSTANT = (
    "a write through an item or view of a NumPy array indexed with a traced value: NumPy "
    "would change that array (made outside the traced code, or a constant of the trace); "
    "tracejit reads a traced copy of it. Copy it into a traced array first "
    "(`t = np.array(table)` inside the function) and write that"
)


def setitem(value: object, target: Any, key: object) -> None:
    """`target[key] = value` (arguments in Python's evaluation order) where `target` is not
    a plain local name (`self.W[0] = v`, a global's item): a NumPy array there is never
    promoted (its other holders would not see the write)."""
    _store(value, target, key, promote=False)


def setitem_local(value: object, target: Any, key: object) -> Any:
    """`E[k] = v` for a local name `E`, as `E = ag__.setitem_local(v, E, k)`
    (item_assignment.py): returns what `E` holds afterwards: `target`, or the traced array a
    NumPy array `E` alone refers to became when a traced value (or index) was written."""
    return _store(value, target, key, promote=True)


def _store(value: object, target: Any, key: object, promote: bool) -> Any:
    if isinstance(target, Tensor):
        target[key] = value  # Tensor.__setitem__ says what to write instead
        return target
    if isinstance(target, np.ndarray) and _has_tensor((value, *_leaves(key))):
        if promote and _promotable(target):
            promoted = traced_copy(target)
            promoted[key] = value
            return promoted
        raise TypeError(
            at_user_line(
                "storing a traced value into a NumPy array is not supported here: this array "
                "is a constant of the trace that something else also refers to (it was made "
                "outside the function, or another name or a view of it exists), so a traced "
                "copy would not be seen there. Make a traced array to write into, e.g. "
                "`d = np.zeros(shape)` inside the function (or np.stack([...]))"
            )
        )
    target[key] = value
    return target


def augassign_local(target: Any, value: object, in_place: str) -> Any:
    """`E op= v` for a local name `E`, as `E = ag__.augassign_local(E, v, "iadd")`
    (item_assignment.py; Python's order: `E`, then `v`): a NumPy array only `E` refers to,
    updated with a traced value, becomes a traced array first (NumPy would write it in place,
    which a constant of the trace cannot be); anything else is Python's `E op= v`."""
    return _augmented(target, value, in_place)


def augassign_item_local(target: Any, key: object, value: Callable[[], object], op: str) -> Any:
    """`E[k] op= v` for a local name `E`, as `E = ag__.augassign_item_local(E, k, lambda: v,
    "iadd")` (Python's order: `E`, `k`, the item, then `v`): Python's `t = E[k]; t op= v;
    E[k] = t`, after making a NumPy array only `E` refers to a traced array when `v` is
    traced (NumPy would write the item in place, which a constant of the trace cannot be)."""
    return _augmented_item(target, key, value, op)


def _augmented_item(target: Any, key: object, value: Callable[[], object], op: str) -> Any:
    # called at the depth _store is, so that _promotable's reference count holds; asked
    # before the item is taken (a NumPy view of the array refers to it too)
    numpy = isinstance(target, np.ndarray)
    promotable = numpy and _promotable(target)
    if numpy and _has_tensor(_leaves(key)):  # a traced index: the item is a traced one
        target = _promoted(target, promotable)
    item = target[key]
    operand = value()
    if isinstance(target, np.ndarray) and isinstance(operand, Tensor):
        target = _promoted(target, promotable)
        item = target[key]
    target[key] = getattr(operator, op)(item, operand)
    return target


def _promoted(array: np.ndarray, promotable: bool) -> Tensor:
    if not promotable:
        raise TypeError(at_user_line(_UPDATE_OF_A_SHARED_CONSTANT))
    return traced_copy(array)


def traced_copy(array: np.ndarray) -> Tensor:
    """The traced array a promotable NumPy array becomes (an array even when 0-d)."""
    promoted = primitives.constant(array)
    promoted._is_array = True
    # np.zeros(..., order="F") is Fortran-ordered, and so NumPy's reshapes of it copies
    promoted._order_from = "C" if array.flags.c_contiguous else None
    return promoted


def _augmented(target: Any, value: object, in_place: str) -> Any:
    # called at the depth _store is, so that _promotable's reference count holds
    if isinstance(target, np.ndarray) and isinstance(value, Tensor):
        promotable = _promotable(target)  # first: an argument list being built holds `target`
        target = _promoted(target, promotable)
    return getattr(operator, in_place)(target, value)


_UPDATE_OF_A_SHARED_CONSTANT = (
    "updating a NumPy array in place with a traced value (`a += v`) is not supported here: "
    "the array is a constant of the trace that something else also refers to (it was made "
    "outside the function, or another name or a view of it exists), so a traced copy would "
    "not be seen there. Write `a = a + v` for a new array, or make the array a traced one "
    "before the other names take it (e.g. `a = np.zeros(shape)` inside the function)"
)


def _promotable(array: np.ndarray) -> bool:
    """Whether a NumPy array written with a traced value can become a traced array: a
    supported dtype, its own data (not a view), and no reference to it but the one local
    name being assigned (another name, a view, a container or a global holding it would
    keep seeing the NumPy array: that would be a silent wrong answer)."""
    if not is_tracing() or array.dtype not in SUPPORTED_DTYPES:
        return False
    return sys.getrefcount(array) <= _SOLE_REFERENCE and _bases_unshared(array)


def _bases_unshared(array: np.ndarray) -> bool:
    """Whether the arrays `array` views (`np.arange(6.0).reshape(2, 3)` views the arange) are
    held by nothing else: no other view or name sees their memory."""
    base = array.base
    while base is not None:
        if not isinstance(base, np.ndarray) or sys.getrefcount(base) > _SOLE_BASE_REFERENCE:
            return False
        base = base.base
    return True


def _sole_reference_count() -> int:
    """`sys.getrefcount` of an array in `_promotable` when only the assigned local name holds
    it, measured through the same call (`E = setitem(v, E, k)` in a function)."""
    seen: list[int] = []

    def probe(array: np.ndarray) -> bool:
        seen.append(sys.getrefcount(array))
        return False

    def measure(probe_call: Callable[[np.ndarray], bool]) -> None:
        local = np.zeros(1)
        local = _called(probe_call, local)  # noqa: F841  (the shape of the generated code)

    measure(probe)
    return seen[0]


def _called(promotable: Callable[[np.ndarray], bool], target: np.ndarray) -> np.ndarray:
    return _stored(promotable, target)  # as setitem_local calls _store(..., target, ...)


def _stored(promotable: Callable[[np.ndarray], bool], target: np.ndarray) -> np.ndarray:
    promotable(target)  # as _store calls _promotable(target)
    return target


def _sole_base_reference_count() -> int:
    """`sys.getrefcount` of a base in `_bases_unshared` held only by the view being walked."""
    view = np.zeros(2).reshape(1, 2)
    base = view.base
    count = sys.getrefcount(base)
    while base is not None:  # the same statements as _bases_unshared
        count = sys.getrefcount(base)
        base = base.base
    return count


_SOLE_REFERENCE = _sole_reference_count()
_SOLE_BASE_REFERENCE = _sole_base_reference_count()


def _leaves(key: object) -> tuple:
    """A key's items, a list's or inner tuple's flattened too (`perm[[i, p]]`, a pivot)."""
    items = key if isinstance(key, tuple) else (key,)
    return tuple(
        leaf
        for item in items
        for leaf in (_leaves(tuple(item)) if isinstance(item, list | tuple) else (item,))
    )
