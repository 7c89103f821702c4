"""`tj.Tensor`: the symbolic array a traced function sees in place of an ndarray.

A Tensor only carries an SSA value and its abstract value (shape, dtype). Python
operators and NumPy calls on it are staged, not executed: NumPy hands ufuncs to
`__array_ufunc__` and other functions to `__array_function__`, which look the call up
in the NumPy registry (`frontend/numpy_api/`). Using a Tensor where a concrete value is
needed (`bool(t)`, `np.asarray(t)`) raises an error that says what to do instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import DTypeLike
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from tracejit.frontend.staging import autograph_marks, runtime_sizes
from tracejit.frontend.staging.array_operators import ArrayOperators, power_shortcut
from tracejit.frontend.staging.hooks import Hooks
from tracejit.frontend.staging.source_location import at_user_line, library_call, py_function_hint
from tracejit.ir.dtypes import numpy_dtype, static_shape

if TYPE_CHECKING:
    from tracejit.frontend.staging.views import View


def dispatched(result: object) -> Tensor:
    """A NumPy call's result on Tensor operands, which is a Tensor: NumPy hands the call to
    `Tensor.__array_function__` / `__array_ufunc__`, which stage it. NumPy's stubs do not
    model that dispatch and say ndarray; this says Tensor once (a cast, no run-time check)."""
    return cast(Tensor, result)


def staged(function: Callable[..., object], *args: object, **kwargs: object) -> Tensor:
    """`function(*args, **kwargs)` of a NumPy function on a Tensor, as `dispatched` says; for
    calls whose other arguments (`order` strings and the like, passed through as given and
    checked by the implementation) NumPy's overloads would refuse."""
    return dispatched(function(*args, **kwargs))


def _dims_of(value: SSAValue, shape: tuple) -> tuple:
    if None not in shape:
        return shape
    from tracejit.frontend.staging.dims import UNKNOWN
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    if not is_tracing():
        return tuple(UNKNOWN if d is None else d for d in shape)
    known = current_trace().dims
    if value in known:
        return known[value]
    owner = value.owner
    from tracejit.ir.shape_ops import BroadcastInDimOp

    if isinstance(owner, BroadcastInDimOp) and owner.operand in known:
        # kept, so that an op on the broadcast (np.log of a keepdims sum) inherits them
        known[value] = _broadcast_result_dims(owner, known[owner.operand], shape)
        return known[value]
    for operand in getattr(owner, "operands", ()):
        same_shape = isinstance(operand.type, TensorType) and static_shape(operand.type) == shape
        if same_shape and operand in known:
            known[value] = _inherited(owner, known[operand])
            return known[value]
    return tuple(UNKNOWN if d is None else d for d in shape)


def _inherited(owner: object, dims: tuple) -> tuple:
    """An operand's dims for a result of the same static shape: all of them for an
    element-wise op; a run-time length (`dims.SliceLength`, whose size the kernel computes
    where it was made) only there, as an op like `tj.take_rows` or `tj.grow` keeps the
    type but not the size (its result's size is then only the kernel's to know)."""
    from tracejit.frontend.staging.dims import UNKNOWN, SliceLength
    from tracejit.ir.elementwise import OTHER_ELEMENTWISE_OPS
    from tracejit.ir.elementwise_base import ElementwiseBinaryOp, ElementwiseUnaryOp

    if isinstance(owner, (ElementwiseUnaryOp, ElementwiseBinaryOp, *OTHER_ELEMENTWISE_OPS)):
        return dims
    return tuple(UNKNOWN if isinstance(d, SliceLength) else d for d in dims)


def _broadcast_result_dims(op, operand_dims: tuple, shape: tuple) -> tuple:
    """A broadcast's result dims: an unknown result dim fed by an unknown operand dim
    has that dim's source (e.g. `keepdims=True` inserting 1s)."""
    from tracejit.frontend.staging.dims import UNKNOWN

    mapped = {d: i for i, d in enumerate(op.get_dims())}
    return tuple(
        size
        if size is not None
        else operand_dims[mapped[d]]
        if d in mapped and not isinstance(operand_dims[mapped[d]], int)
        else UNKNOWN
        for d, size in enumerate(shape)
    )


def record_dims(value: SSAValue, dims: tuple) -> None:
    """Say, for the trace, where the unknown dims of tensor `value` come from."""
    from tracejit.frontend.staging.tracing import current_trace, is_tracing

    if is_tracing():
        current_trace().dims[value] = tuple(dims)


def _tracing() -> bool:
    from tracejit.frontend.staging.tracing import is_tracing

    return is_tracing()


# Tensors are numbered as they are made: a staged loop tells the arrays made before it
# (whose writes it must carry) from its own by this number.
_SERIALS = itertools.count()


def next_serial() -> int:
    """A number larger than every tensor's made so far (a mark to compare with)."""
    return next(_SERIALS)


class NumpyLayer(Hooks):
    """NumPy's semantics on Tensors: dispatch of ufuncs and functions, indexing, writes,
    astype. They live a floor up (frontend/numpy_api/), which installs them when it is
    imported (frontend/staging/hooks.py)."""

    call_ufunc: Callable[[np.ufunc, str, tuple, dict], object]
    call_function: Callable[[Callable[..., object], tuple, dict], object]
    getitem: Callable[[Tensor, object], Tensor]
    setitem: Callable[[Tensor, object, object], None]
    augmented: Callable[[Tensor, np.ufunc, object, object], object]
    astype: Callable[[Tensor, DTypeLike], Tensor]


NUMPY = NumpyLayer()


class Tensor(ArrayOperators):
    """A symbolic NumPy array inside a traced function.

    While a `tj.function` traces, its array arguments are Tensors: they have a `shape`
    (`None` for a size known only at run time) and a `dtype`, but no values. NumPy functions,
    operators, indexing and the ndarray methods (`sum`, `reshape`, `astype`, ...: they do
    what NumPy's do) record operations instead of computing. Where Python needs a value
    (`bool(t)`, `float(t)`, `np.asarray(t)`), a Tensor raises a TypeError saying what to
    write instead; AutoGraph stages `if`/`while`/`for` on Tensors. Not created directly.

    Examples
    --------
    >>> @tj.function
    ... def f(x):
    ...     print(x)  # Python's print runs while tracing
    ...     return x.reshape(2, 2).sum(axis=0)
    >>> f(np.arange(4.0))
    <tj.Tensor shape=(4,) dtype=float64>
    array([2., 4.])
    """

    __slots__ = (
        "_value", "_shape", "dtype", "dims", "weak", "dim_of",
        "_view", "_version", "_serial", "_is_array", "_write_refused", "_order_from",
        "_viewed",
    )  # fmt: skip
    __array_priority__ = 1000  # NumPy defers `ndarray + Tensor` to Tensor.__radd__

    def __init__(self, value: SSAValue, dims: tuple | None = None, weak: bool = False):
        ttype = value.type
        assert isinstance(ttype, TensorType), ttype
        self._value = value
        self._shape: tuple[int | None, ...] = static_shape(ttype)
        self.dtype: np.dtype = numpy_dtype(ttype.get_element_type())
        # Where each dim's size comes from (frontend/staging/dims.py): ints when known at trace
        # time; for unknown dims, recorded per value in the trace or inherited from an
        # operand of the same shape.
        self.dims = dims if dims is not None else _dims_of(value, self._shape)
        if dims is not None and None in self._shape:
            record_dims(value, dims)
        # Weakly typed (NEP 50, JAX's weak types): the value stands for a Python int or float
        # (a loop variable initialised from a literal, and arithmetic on it with literals), so
        # promotion treats it as one: `weak + int32_tensor` is int32 (numpy_api/promotion.py).
        self.weak = weak
        # Mutation (frontend/staging/views.py): a view's link to its parent; a root's count of
        # writes; when it was made; whether a 0-d value is an array (not a NumPy scalar);
        # why a write to it is refused (a view NumPy would make that is not tracked).
        self._view: View | None = None
        self._version = 0
        self._serial = next(_SERIALS)
        self._is_array = False
        self._write_refused = ""
        self._viewed = False  # a view of it was made (an in-place reshape would change it)
        # The memory order NumPy would give this array, for reshapes that are views only of
        # a C-ordered array (views.py, `order_sources`): "C" when it is C-ordered whatever
        # the arguments' layouts, a tuple of tensors when it is C-ordered if they all are
        # (NumPy's element-wise results follow their operands' order), None if unknown.
        self._order_from: str | tuple[Tensor, ...] | None = None
        # (dim, tensor value, axis) when this is the run-time size `x.shape[axis]` given to
        # the user (frontend/staging/runtime_sizes.py): passed back as a size, it means that dim.
        self.dim_of: tuple[object, SSAValue, int] | None = None

    @property
    def value(self) -> SSAValue:
        """The SSA value the tensor holds now (a view is taken again after its base was
        written)."""
        if self._view is None:
            return self._value
        from tracejit.frontend.staging.views import sync

        return sync(self)

    # --- abstract value ------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def shape(self) -> tuple[int | None, ...]:
        """The shape: a dim unknown at trace time is a 0-d int64 tensor holding its size at
        run time (to tracejit's own code, which the type describes, it is None; see
        frontend/staging/runtime_sizes.py)."""
        if None in self._shape and runtime_sizes.read_by_user(1) and _tracing():
            return runtime_sizes.shape(self)
        return self._shape

    @shape.setter
    def shape(self, value: object) -> None:
        """NumPy's in-place reshape (`x.shape = n`): every name of the array sees the new
        shape. Refused where tracejit cannot follow it (views.reshape_in_place)."""
        from tracejit.frontend.staging.views import reshape_in_place

        reshape_in_place(self, value)

    @property
    def size(self) -> int | None:
        """The number of elements: a 0-d int64 tensor holding it at run time when a dim is
        unknown at trace time (None to tracejit's own code)."""
        if None in self._shape:
            user = runtime_sizes.read_by_user(1) and _tracing()
            return runtime_sizes.size(self) if user else None
        return math.prod(cast(tuple[int, ...], self._shape))  # no None: returned above

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError(at_user_line("len() of unsized object (a 0-d tensor)"))
        if self._shape[0] is None:
            raise TypeError(
                at_user_line(
                    "len() of a tensor whose first dim is known only at run time: Python's "
                    "len() must return a Python int; write x.shape[0] (a run-time int64 "
                    "tensor), or len(x) in a function AutoGraph converts (the default)"
                )
            )
        return self._shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        """The rows, as NumPy iterates (not `__getitem__` until IndexError: an index out of
        range raises nothing while tracing, see frontend/staging/non_strict.py)."""
        if not self.shape:
            raise TypeError(at_user_line("iteration over a 0-d array"))
        if self._shape[0] is None:
            raise TypeError(
                at_user_line(
                    "iterating a tensor whose first dim is known only at run time takes a "
                    "staged loop: AutoGraph (on by default) stages `for row in x`; or write "
                    "tj.while_loop over x.shape[0]"
                )
            )
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        if self.dim_of is not None:
            return f"<tj.Tensor run-time size of dim {self.dim_of[2]} dtype=int64>"
        dims = ", ".join("None" if d is None else str(d) for d in self.shape)
        return f"<tj.Tensor shape=({dims}{',' if len(self.shape) == 1 else ''}) dtype={self.dtype}>"

    # --- concrete-value misuse -----------------------------------------------------
    def __bool__(self) -> bool:
        raise TypeError(at_user_line(python_value_message("a Python bool")))

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        called = library_call()
        if called is not None:  # a library (SciPy, ...) asked for the values
            name, where = called
            raise TypeError(
                f"{name} is not supported by tracejit on traced arrays (it needs their "
                f"values, which exist only at run time); {py_function_hint(name)}"
                + (f" ({where})" if where else "")
            )
        raise TypeError(
            at_user_line(
                "a symbolic tj.Tensor cannot be converted to a NumPy array while tracing "
                "(its value is only known at run time); keep using NumPy functions on it, "
                "or wrap code that needs the values in tj.py_function"
            )
        )

    def __index__(self) -> int:
        raise TypeError(at_user_line(python_value_message("a Python int (an index or size)")))

    def __float__(self) -> float:
        raise TypeError(
            at_user_line(python_value_message("a Python float", "t.astype(np.float64)"))
        )

    def __int__(self) -> int:
        raise TypeError(at_user_line(python_value_message("a Python int", "t.astype(np.int64)")))

    def __complex__(self) -> complex:
        raise TypeError(at_user_line(python_value_message("a Python complex")))

    def __contains__(self, item: object) -> bool:
        raise TypeError(
            at_user_line(python_value_message("the result of `in`", "np.any(t == item)"))
        )

    def __setitem__(self, key: object, value: object) -> None:
        NUMPY.setitem(self, key, value)

    # In-place operators change an array (and the arrays it is a view of), as in NumPy;
    # on a 0-d scalar they rebind the name (frontend/staging/views.py).
    def _augmented(self, ufunc: np.ufunc, other: object, computed: object = None) -> object:
        return NUMPY.augmented(self, ufunc, other, computed)

    def __iadd__(self, other):
        return self._augmented(np.add, other)

    def __isub__(self, other):
        return self._augmented(np.subtract, other)

    def __imul__(self, other):
        return self._augmented(np.multiply, other)

    def __itruediv__(self, other):
        return self._augmented(np.true_divide, other)

    def __ifloordiv__(self, other):
        return self._augmented(np.floor_divide, other)

    def __imod__(self, other):
        return self._augmented(np.remainder, other)

    def __ipow__(self, other):
        shortcut = power_shortcut(self, other)  # NumPy's `x **= 0.5` is an in-place sqrt
        if shortcut is not None:
            return self._augmented(np.power, other, computed=shortcut)
        return self._augmented(np.power, other)

    def __imatmul__(self, other):
        return self._augmented(np.matmul, other)

    def __iand__(self, other):
        return self._augmented(np.bitwise_and, other)

    def __ior__(self, other):
        return self._augmented(np.bitwise_or, other)

    def __ixor__(self, other):
        return self._augmented(np.bitwise_xor, other)

    def __ilshift__(self, other):
        return self._augmented(np.left_shift, other)

    def __irshift__(self, other):
        return self._augmented(np.right_shift, other)

    def tolist(self) -> list:
        raise TypeError(
            at_user_line(
                "t.tolist() needs the array's values, which are only known at run time; keep "
                "it an array (index it, iterate over it, or return it)"
            )
        )

    def fill(self, value: object) -> None:
        """Set every element to `value`, in place."""
        self[...] = value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or not hasattr(np.ndarray, name):
            raise AttributeError(name)
        raise AttributeError(
            at_user_line(
                f"ndarray.{name} is not supported on a traced tj.Tensor; use the NumPy "
                f"function (np.{name}(t), where NumPy has one) or compute it another way"
            )
        )

    __hash__ = object.__hash__

    # --- NumPy protocols -----------------------------------------------------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any):
        return NUMPY.call_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(
        self, func: Callable[..., object], types: object, args: tuple, kwargs: dict
    ):
        return NUMPY.call_function(func, args, kwargs)

    # --- indexing and shape methods (frontend/numpy_api/indexing.py, shapes.py) ----
    # NumPy's stubs do not model __array_function__: np.f(tensor) returns a Tensor, and
    # `order` and friends are passed through as given (the ignores below say so).
    def __getitem__(self, key: object) -> Tensor:
        return NUMPY.getitem(self, key)

    @property
    def T(self) -> Tensor:
        return dispatched(np.transpose(self))

    def reshape(self, *shape: object, order: str = "C") -> Tensor:
        return staged(np.reshape, self, shape[0] if len(shape) == 1 else shape, order=order)

    def transpose(self, *axes: object) -> Tensor:
        single = len(axes) == 1 and (axes[0] is None or isinstance(axes[0], tuple | list))
        return staged(np.transpose, self, (axes[0] if single else axes) or None)

    def ravel(self, order: str = "C") -> Tensor:
        return staged(np.ravel, self, order=order)

    def flatten(self, order: str = "C") -> Tensor:
        """A copy, flat (NumPy's `flatten` never returns a view, unlike `ravel`)."""
        flat = staged(np.ravel, self, order=order)
        return Tensor(flat.value, flat.dims)

    def squeeze(self, axis: object = None) -> Tensor:
        return staged(np.squeeze, self, axis=axis)

    def swapaxes(self, axis1: object, axis2: object) -> Tensor:
        return staged(np.swapaxes, self, axis1, axis2)

    def take(self, indices: object, axis: object = None, out: object = None, mode: str = "raise"):
        return staged(np.take, self, indices, axis=axis, out=out, mode=mode)

    def repeat(self, repeats: object, axis: object = None) -> Tensor:
        return staged(np.repeat, self, repeats, axis=axis)

    # --- operators: ArrayOperators (array_operators.py); equality is staged too -------
    def __eq__(self, other):
        return np.equal(self, other)

    def __ne__(self, other):
        return np.not_equal(self, other)

    # --- ndarray methods -----------------------------------------------------------
    def astype(
        self,
        dtype: DTypeLike,
        order: str = "K",
        casting: str = "unsafe",
        subok: bool = True,
        copy: bool = True,
    ) -> Tensor:
        from tracejit.frontend.staging.views import updates_in_place

        result = NUMPY.astype(self, dtype)
        if not copy and result is self:
            return result
        if result is self or result._view is not None:  # NumPy copies
            result = Tensor(result.value, result.dims)
        result._is_array = updates_in_place(self)  # an array's astype is an array, 0-d too
        return result

    @property
    def real(self) -> Tensor:
        return np.real(self)

    @property
    def imag(self) -> Tensor:
        return np.imag(self)

    def conj(self) -> Tensor:
        if self.dtype.kind != "c":
            return self  # NumPy's method returns a real array itself (the ufunc copies)
        return dispatched(np.conjugate(self))

    conjugate = conj

    def clip(self, min=None, max=None, out=None, **kwargs):
        return np.clip(self, min, max, out, **kwargs)

    def round(self, decimals=0, out=None):
        return np.round(self, decimals, out)

    # Reductions take NumPy's positional order (`out` is rejected by the NumPy function).
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return np.sum(self, axis, dtype, out, keepdims=keepdims, **kwargs)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return np.prod(self, axis, dtype, out, keepdims=keepdims, **kwargs)

    def max(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.max(self, axis, out, keepdims=keepdims, **kwargs)

    def min(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.min(self, axis, out, keepdims=keepdims, **kwargs)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return np.mean(self, axis, dtype, out, keepdims=keepdims, **kwargs)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return np.var(self, axis, dtype, out, ddof=ddof, keepdims=keepdims, **kwargs)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return np.std(self, axis, dtype, out, ddof=ddof, keepdims=keepdims, **kwargs)

    def any(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.any(self, axis, out, keepdims=keepdims, **kwargs)

    def all(self, axis=None, out=None, keepdims=False, **kwargs):
        return np.all(self, axis, out, keepdims=keepdims, **kwargs)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        return np.argmax(self, axis, out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        return np.argmin(self, axis, out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        return np.cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        return np.cumprod(self, axis, dtype, out)

    def dot(self, other):
        return np.dot(self, other)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return np.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        return np.trace(self, offset, axis1, axis2, dtype, out)

    def nonzero(self) -> tuple[Tensor, ...]:
        """The indices of the non-zero elements, one index array per dim (`np.nonzero`)."""
        return cast(tuple[Tensor, ...], np.nonzero(self))  # dispatched: a Tensor per dim

    def copy(self, order: str = "C") -> Tensor:
        """A new array with the same values (not a view: writes to it stay in it); a NumPy
        scalar's copy is a NumPy scalar (`x[0, 0].copy()`: `y = s; y += 1` leaves s)."""
        from tracejit.frontend.staging.views import updates_in_place

        copy = Tensor(self.value, self.dims)
        copy._is_array = updates_in_place(self)  # a view's copy is an array, 0-d too
        copy._order_from = "C" if order == "C" else (self,) if order in ("K", "A") else None
        return copy

    def item(self, *index: object) -> Tensor:
        """The element at `index` (the only one if none) as a 0-d tensor."""
        if len(index) == 1 and isinstance(index[0], tuple):
            index = index[0]
        if len(index) > 1:
            return self[index]
        if index:
            return dispatched(np.ravel(self))[index[0]]
        if self.size != 1:
            raise ValueError(
                at_user_line(
                    f"t.item() of a tensor of shape {self.shape}: only one-element arrays "
                    "convert to a scalar (NumPy raises here too)"
                )
            )
        element = dispatched(np.reshape(self, ()))
        return Tensor(element.value, element.dims)  # a new scalar, not a view of self


def python_value_message(what: str, instead: str | None = None) -> str:
    """Why a tensor cannot become a Python value here, and what to write instead, depending
    on whether AutoGraph converted the user's code (`frontend/autograph/conversion.py`)."""
    from tracejit.frontend.staging.source_location import user_frame

    frame = user_frame()
    state = autograph_marks.conversion_state(frame.f_code) if frame is not None else "unconverted"
    problem = (
        f"a symbolic tj.Tensor cannot be used as {what} while tracing: its value is only known "
        "at run time."
    )
    fix = f" Write {instead} instead." if instead else ""
    if state == "converted":
        return (
            f"{problem} AutoGraph is on here, but it does not convert this use (a builtin or "
            "library function given a tensor, e.g. bool(t), sorted(t), a list index or a "
            f"size).{fix} Otherwise use NumPy on the tensor (np.where, np.maximum, np.any, "
            "tj.cond)"
        )
    if state == "no source":
        assert frame is not None  # conversion_state found the frame's code
        name = frame.f_code.co_name
        return (
            f"{problem} AutoGraph could not read the source of {name}() (a function typed at "
            "the prompt, in `python -c` or stdin, or a lambda sharing its line with another), "
            "so its `if`/`while`/`for` run as plain Python. Define it in a file, or write the "
            f"control flow with tj.cond / tj.while_loop / np.where.{fix}"
        )
    return (
        f"{problem}{fix} Use tj.cond / np.where, or enable AutoGraph (tj.function's "
        "autograph=True, the default) to stage `if`/`while` on tensors"
    )


_WEAK_KINDS = {"i": int, "u": int, "f": float, "c": complex}


def weak_type(x: object) -> type | None:
    """`int`, `float` or `complex` for a weakly typed value (NEP 50): a Python int, float or
    complex, or a weak tensor standing for one; None for anything else (bools and NumPy
    scalars are strong)."""
    if isinstance(x, Tensor):
        return _WEAK_KINDS.get(x.dtype.kind) if x.weak else None
    if isinstance(x, int | float | complex) and not isinstance(x, bool | np.generic):
        return int if isinstance(x, int) else float if isinstance(x, float) else complex
    return None
