"""The registry mapping NumPy ufuncs and functions to their staged implementations.

`Tensor.__array_ufunc__` / `__array_function__` land here. A NumPy function with no
entry raises `TypeError` naming it and the user's file:line, so unsupported code fails
loudly at trace time instead of silently computing something else.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tracejit.frontend.staging import array_subclasses
from tracejit.frontend.staging.source_location import at_user_line, py_function_hint
from tracejit.ir.dtypes import UnsupportedDtypeError

UFUNCS: dict[np.ufunc, Callable[..., Any]] = {}
# SciPy's ufuncs by name (`scipy.special.erf`): looked up on a traced call only, so that
# tracejit never imports SciPy itself
SCIPY_SPECIAL_UFUNCS: dict[str, Callable[..., Any]] = {}
FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {}


def implements(*numpy_functions: Callable[..., object]):
    """Register the decorated function as the staged form of `numpy_functions`."""

    def register(impl: Callable[..., object]) -> Callable[..., Any]:
        for fn in numpy_functions:
            table = UFUNCS if isinstance(fn, np.ufunc) else FUNCTIONS
            table[fn] = impl  # type: ignore[index]  # one of the two tables
        return impl

    return register


def numpy_name(fn: Any) -> str:
    """`np.linalg.svd`-style name of a NumPy callable (`scipy.special.erf` for a SciPy
    ufunc, which NumPy hands to `__array_ufunc__` too)."""
    if isinstance(fn, np.ufunc) and getattr(np, fn.__name__, None) is not fn:
        return _foreign_ufunc_name(fn)
    module = getattr(fn, "__module__", None) or "numpy"
    if not module.startswith("numpy"):
        public = ".".join(p for p in module.split(".") if not p.startswith("_"))
        return f"{public}.{fn.__name__}"
    module = "np" + module.removeprefix("numpy").replace("._core", "").replace(".core", "")
    if module.startswith("np.") and module.split(".")[1].startswith("_"):
        module = "np"
    return f"{module}.{fn.__name__}"


def _foreign_ufunc_name(fn: np.ufunc) -> str:
    """The public name of a ufunc NumPy does not define (SciPy's special functions)."""
    import sys

    special = sys.modules.get("scipy.special")
    if special is not None and getattr(special, fn.__name__, None) is fn:
        return f"scipy.special.{fn.__name__}"
    return f"the ufunc {fn.__name__}"


def unsupported(fn: object, detail: str = "") -> TypeError:
    """The refusal of a NumPy (or SciPy) call tracejit does not compile: it names the
    function and the user's line, and says what to write instead."""
    name = numpy_name(fn)
    method = detail.split("(")[0] if detail.startswith(".") else ""  # np.fmax.accumulate
    message = f"{name}{detail} is not supported by tracejit; {py_function_hint(name + method)}"
    return TypeError(at_user_line(message))


def _read_variables(values: Any) -> Any:
    """Replace tj.Variables (also in lists/tuples) by their current values: NumPy hands
    `np.matmul(tensor, variable)` to the Tensor, whose implementations expect tensors.
    Refuse array subclasses whose meaning tracejit would drop
    (frontend/staging/array_subclasses.py)."""
    from tracejit.frontend.staging.variable import Variable

    if isinstance(values, Variable):
        return values.value()
    if isinstance(values, np.ndarray) and type(values) is not np.ndarray:
        array_subclasses.check_constant(values)  # a masked array's mask would be dropped
    if isinstance(values, list | tuple):
        return type(values)(_read_variables(v) for v in values)
    return values


def _scipy_special(ufunc: np.ufunc) -> Callable[..., Any] | None:
    special = sys.modules.get("scipy.special")
    name = getattr(ufunc, "__name__", "")
    if special is None or getattr(special, name, None) is not ufunc:
        return None
    return SCIPY_SPECIAL_UFUNCS.get(name)


def call_ufunc(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    inputs = _read_variables(inputs)
    if method in ("outer", "reduce", "accumulate", "at", "reduceat"):
        return _call_method(ufunc, method, inputs, kwargs)
    if method != "__call__":
        raise unsupported(ufunc, f".{method}")
    impl = UFUNCS.get(ufunc) or _scipy_special(ufunc)
    if impl is None:
        raise unsupported(ufunc)
    out = kwargs.get("out")
    own = {k: v for k, v in kwargs.items() if k in UFUNC_KEYWORDS.get(ufunc, ())}
    for key in kwargs:
        if key in own:
            continue
        if key not in ("dtype", "out") or (key == "dtype" and kwargs[key] is not None):
            raise unsupported(ufunc, f"(..., {key}=...)")
    try:
        result = impl(*inputs, **own)
    except UnsupportedDtypeError as error:
        raise naming_unsupported_dtype(error, numpy_name(ufunc), inputs) from None
    if out is None:
        return new_array(result, inputs)
    from tracejit.frontend.numpy_api.mutation import write_out

    return write_out(out, result, ufunc)


# The keywords of a ufunc its implementation takes itself (a gufunc's core axis).
UFUNC_KEYWORDS: dict[np.ufunc, tuple[str, ...]] = {np.vecdot: ("axis",)}


def _call_method(ufunc: np.ufunc, method: str, inputs: tuple, kwargs: dict) -> Any:
    """`ufunc.outer`, `.reduce`, `.accumulate`, `.at` (numpy_api/ufunc_methods.py)."""
    from tracejit.frontend.numpy_api import ufunc_methods

    if kwargs.get("out") is not None or (method == "outer" and ufunc not in UFUNCS):
        raise unsupported(ufunc, f".{method}" + ("(..., out=...)" if "out" in kwargs else ""))
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    try:
        result = getattr(ufunc_methods, method)(ufunc, *inputs, **rest)
    except TypeError as error:  # an argument NumPy takes and tracejit does not
        raise unsupported(ufunc, f".{method}(..., {error})") from None
    if method == "at":  # an update in place: None, as NumPy
        return None
    if result is None:
        raise unsupported(ufunc, f".{method}")
    return new_array(result, inputs)


def call_function(fn: Callable[..., object], args: tuple, kwargs: dict) -> Any:
    impl = FUNCTIONS.get(fn)
    if impl is None:
        raise unsupported(fn)
    try:
        result = impl(*_read_variables(args), **{k: _read_variables(v) for k, v in kwargs.items()})
    except UnsupportedDtypeError as error:
        raise naming_unsupported_dtype(error, numpy_name(fn), args) from None
    if fn in MAY_ALIAS or (fn is np.astype and kwargs.get("copy") is False):
        return result
    if isinstance(result, tuple | list):
        items = [new_array(r, args) for r in result]
        # a namedtuple (np.linalg.slogdet's SlogdetResult) takes its items one by one
        return type(result)(*items) if hasattr(result, "_fields") else type(result)(items)
    result = new_array(result, args)
    if fn in ARRAY_RESULTS or (fn is np.astype and _is_array(args[0])):
        result._is_array = True  # 0-d too: an array, not a NumPy scalar (x[...] = v works)
    return result


# The NumPy functions whose result may be an argument or a view of one (NumPy's views; a
# real array's real part is the array). Every other function and ufunc returns new arrays,
# which a write must not reach the argument through.
MAY_ALIAS = {
    np.atleast_1d, np.atleast_2d, np.broadcast_to, np.diff, np.einsum, np.expand_dims,
    np.flip, np.fliplr, np.flipud, np.moveaxis, np.ravel, np.real, np.reshape, np.squeeze,
    np.swapaxes, np.transpose, np.shape, np.ndim, np.size,
    # views as NumPy's (their implementations return new arrays where NumPy copies)
    np.rot90, np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit, np.meshgrid,
    np.nan_to_num, np.trim_zeros,
}  # fmt: skip


# The functions whose 0-d results NumPy gives as 0-d arrays (not scalars, as ufuncs and
# reductions do); `np.astype` too, of an array (a NumPy scalar's astype is a scalar).
ARRAY_RESULTS = {np.where, np.roll, np.cross, np.isin, np.block}


def _is_array(x: object) -> bool:
    from tracejit.frontend.staging.tensor import Tensor
    from tracejit.frontend.staging.views import updates_in_place

    return isinstance(x, np.ndarray) or (isinstance(x, Tensor) and updates_in_place(x))


def new_array(result: object, arguments: object) -> Any:
    """`result` as a new array: when an implementation hands back an argument or a view
    (`np.floor` of integers, `np.concatenate([t])`, `np.roll(t, 0)`, ...), another Tensor
    holding the same value (values are immutable in the trace: no copy is staged)."""
    from tracejit.frontend.staging.tensor import Tensor

    if not isinstance(result, Tensor):
        return result
    if result._view is None and not any(result is a for a in _tensors_in(arguments)):
        return result
    return Tensor(result.value, result.dims, weak=result.weak)


def _tensors_in(values: object) -> list[object]:
    if isinstance(values, list | tuple):
        return [t for v in values for t in _tensors_in(v)]
    return [values]


def naming_unsupported_dtype(error: UnsupportedDtypeError, what: str, values: Any) -> Exception:
    """`error` again, saying which of `values` (the arguments of `what`) has the dtype."""
    if error.named:
        return error
    culprits = [
        f"argument {i + 1} ({_describe(v)})"
        for i, v in enumerate(values)
        if getattr(v, "dtype", None) == error.dtype
        or (isinstance(v, complex) and error.dtype.kind == "c")
    ]
    which = " and ".join(culprits) or "a value it makes"
    return UnsupportedDtypeError(error.dtype, at_user_line(f"{what}: {which}: {error}"))


def _describe(value: object) -> str:
    from tracejit.frontend.staging.tensor import Tensor

    if isinstance(value, Tensor):
        return f"a traced array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, np.ndarray):
        return (
            f"a NumPy array of shape {value.shape} and dtype {value.dtype}, made inside the "
            "function or captured from outside it"
        )
    return f"the Python value {value!r}"


@implements(np.shape)
def _shape(a: object) -> tuple:
    from tracejit.frontend.staging import runtime_sizes

    return runtime_sizes.shape(a)  # run-time int64 tensors for dims unknown at trace time


@implements(np.ndim)
def _ndim(a: Any) -> int:
    return a.ndim


@implements(np.size)
def _size(a: Any, axis: int | None = None) -> Any:
    from tracejit.frontend.staging import runtime_sizes

    if axis is None:
        return runtime_sizes.size(a)
    from numpy.lib.array_utils import normalize_axis_index

    return runtime_sizes.dim_size(a, normalize_axis_index(axis, a.ndim))
