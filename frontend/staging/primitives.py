"""Staging primitives: each emits one `tj` op and wraps its result in a Tensor.

NumPy functions (`frontend/numpy_api/`) are built by composing these; nothing else
creates `tj` ops during tracing. Result types are computed here, so the ops' verifiers
double-check the frontend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import SSAValue

from tracejit.frontend.staging import array_subclasses
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor
from tracejit.frontend.staging.tracing import emit
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dtypes import tensor_type
from tracejit.ir.elementwise import CastOp, ElementwiseBinaryOp, ElementwiseUnaryOp
from tracejit.ir.matmul import MatmulOp, matmul_shape
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import BroadcastInDimOp


def constant(value: object, dtype: np.dtype | None = None) -> Tensor:
    """A `tj.constant` holding `np.asarray(value, dtype)`."""
    if type(value) is not np.ndarray:
        array_subclasses.check_constant(value)
    array = np.asarray(value, dtype=dtype)
    return Tensor(emit(ConstantOp.from_array(array)).result)


def cast(x: Tensor, dtype: np.dtype) -> Tensor:
    """`x.astype(dtype)`; no op when the dtype already matches."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    return Tensor(emit(CastOp(x.value, tensor_type(x.shape, dtype))).result, dims=x.dims)


def broadcast_to(x: Tensor, shape: Sequence, witnesses: dict | None = None) -> Tensor:
    """Broadcast `x` to `shape` with NumPy's rules (trailing dims aligned); `shape` may
    hold dims unknown at trace time (`DimSource`s, see frontend/staging/dims.py, or dims whose
    size `witnesses` maps to a (tensor value, axis) that has it at run time)."""
    target = tuple(shape)
    if tuple(x.dims) == target:
        return x
    offset = len(target) - x.ndim
    static = [d if isinstance(d, int) else None for d in target]
    target_type = tensor_type(static, x.dtype)
    op_dims = list(range(offset, len(target)))
    sized = BroadcastInDimOp.sized_dims(
        result_type(x).get_shape(), op_dims, target_type.get_shape()
    )
    sizes = [dim_size(target[d], (witnesses or {}).get(d)) for d in sized]
    op = BroadcastInDimOp(x.value, op_dims, target_type, sizes)
    return Tensor(emit(op).result, dims=target)



def full_like(value: object, like: Tensor, dtype: np.dtype | None = None) -> Tensor:
    """A tensor of `like`'s shape filled with `value` (a broadcast 0-d constant), of `like`'s
    dtype unless `dtype` is given."""
    scalar = constant(value, dtype or like.dtype)
    witnesses = {axis: (like.value, axis) for axis in range(like.ndim)}  # run-time sizes
    return broadcast_to(scalar, like.dims, witnesses)

def dim_size(dim, witness: tuple | None = None) -> SSAValue:
    """The run-time size of a dim unknown at trace time, as an `index` value: read from
    `witness` (a tensor value and its axis of that size) when given, else computed from
    the inputs' sizes (a slice's, product's or sum's of them too)."""
    from tracejit.frontend.staging.dims import DimSource, Product, Sliced, SliceLength, Sum
    from tracejit.frontend.staging.tracing import current_trace
    from tracejit.ir.shape_ops import DimOp

    if isinstance(dim, SliceLength):
        return dim.count  # computed where the length was made
    if not isinstance(dim, DimSource) and witness is not None:
        return emit(DimOp(*witness)).result
    if isinstance(dim, Sliced | Product | Sum):
        return _derived_size(dim)
    if not isinstance(dim, DimSource):
        raise NotImplementedError(
            at_user_line("a tensor of a size only the kernel knows is broadcast here")
        )
    source = current_trace().inputs[dim.input]
    return emit(DimOp(source, dim.axis)).result


def _derived_size(dim) -> SSAValue:
    """The size of a `Sliced`, `Product` or `Sum` dim, from the sizes it is made of."""
    from xdsl.dialects import arith

    from tracejit.frontend.staging.dims import Product, Sliced
    from tracejit.frontend.staging.slice_bounds import index_constant, slice_window

    def size(d) -> SSAValue:
        return index_constant(d) if isinstance(d, int) else dim_size(d)

    if isinstance(dim, Sliced):
        return slice_window(size(dim.base), dim.start, dim.stop, dim.step)[1]
    if isinstance(dim, Product):
        total = index_constant(dim.times)
        for factor in dim.factors:
            total = emit(arith.MuliOp(total, size(factor))).result
        return total
    total = index_constant(0)
    for term in dim.terms:
        total = emit(arith.AddiOp(total, size(term))).result
    return total


def unary(op_type: type[ElementwiseUnaryOp], x: Tensor) -> Tensor:
    return Tensor(emit(op_type(x.value)).result)


def binary(op_type: type[ElementwiseBinaryOp], x: Tensor, y: Tensor) -> Tensor:
    return Tensor(emit(op_type(x.value, y.value)).result)


def real(z: Tensor) -> Tensor:
    """The real parts of a complex tensor (its parts' float dtype)."""
    from tracejit.ir.complex_parts import RealOp

    return Tensor(emit(RealOp(z.value)).result, dims=z.dims)


def imag(z: Tensor) -> Tensor:
    """The imaginary parts of a complex tensor (its parts' float dtype)."""
    from tracejit.ir.complex_parts import ImagOp

    return Tensor(emit(ImagOp(z.value)).result, dims=z.dims)


def reduce(kind: str, x: Tensor, axes: Sequence[int]) -> Tensor:
    """Reduce `x` over the (normalised, non-negative) `axes`, dropping them; argmax and
    argmin give int64 indices into the reduced axes flattened in row-major order."""
    axes = sorted(set(axes))
    shape = [s for i, s in enumerate(x.shape) if i not in axes]
    dims = tuple(d for i, d in enumerate(x.dims) if i not in axes)
    dtype = np.dtype(np.int64) if kind in ReduceOp.INDEX_KINDS else x.dtype
    op = ReduceOp(kind, x.value, axes, tensor_type(shape, dtype))
    return Tensor(emit(op).result, dims=dims)


def matmul(x: Tensor, y: Tensor) -> Tensor:
    """`np.matmul(x, y)` of one dtype (1-D, 2-D or batched; shapes checked by the caller)."""
    shape = matmul_shape(result_type(x).get_shape(), result_type(y).get_shape())
    assert shape is not None, (x.shape, y.shape)
    static = [None if d == DYNAMIC_INDEX else d for d in shape]
    op = MatmulOp(x.value, y.value, tensor_type(static, x.dtype))
    return Tensor(emit(op).result, dims=_matmul_dims(x.dims, y.dims))


def _matmul_dims(a: tuple, b: tuple) -> tuple:
    """Result dims of `a @ b`: broadcast batch dims, then a's rows and b's columns; the
    contracted dims must be equal at run time."""
    from tracejit.frontend.staging.dims import broadcast_dims
    from tracejit.frontend.staging.tracing import current_trace

    constraints = current_trace().dim_constraints
    k_a, k_b = a[-1], (b[-2] if len(b) >= 2 else b[-1])
    broadcast_dims([(k_a,), (k_b,)], constraints)  # records k_a == k_b if unknown
    batch = broadcast_dims([a[:-2], b[:-2]], constraints)
    rows = (a[-2],) if len(a) >= 2 else ()
    cols = (b[-1],) if len(b) >= 2 else ()
    return batch + rows + cols


def result_type(x: Tensor) -> TensorType:
    assert isinstance(x.value.type, TensorType)
    return x.value.type


def poison(error: Exception, dims: Sequence, dtype: np.dtype) -> Tensor:
    """The result (of `dims` and `dtype`) of an op that fails with `error`, an error NumPy
    raises from the data (an index out of range, ...): a `tj.poison` whose error is raised
    when the trace ends if the result is used, and dropped with it if not (non-strict
    execution, frontend/staging/non_strict.py). Raises `error` now when not tracing, or
    when a `try` being traced handles it (so its handler runs, as NumPy's error would);
    refuses it in a staged branch or loop body inside such a try."""
    from tracejit.frontend.staging.non_strict import traceback_here
    from tracejit.frontend.staging.tracing import current_trace, is_tracing
    from tracejit.ir.poison import PoisonOp

    handling = current_trace().handling(error) if is_tracing() else "here"
    if handling == "here":
        raise error
    if handling == "staged":
        raise current_trace().refuse(
            NotImplementedError(
                at_user_line(
                    f"{type(error).__name__} ({error}) in a staged if or loop inside a `try` "
                    "that handles it: NumPy raises it, and runs the handler, only when that "
                    "code runs, which tracejit cannot stage; check the index first, or put "
                    "the try inside the if or loop"
                )
            )
        ) from error
    error.__traceback__ = traceback_here()  # where it would have been raised
    dims = tuple(dims)
    message = f"{type(error).__name__}: {error}"
    value = emit(PoisonOp(message, tensor_type(_static(dims), dtype))).result
    current_trace().defer_error(value, error)
    return Tensor(value, dims=dims)


def assert_true(condition: Tensor, message: str) -> None:
    """Stage a run-time check: the call raises per `message` ("ErrorType: text") unless
    the 0-d bool `condition` is true when the kernel runs."""
    from tracejit.ir.effects import AssertOp

    emit(AssertOp(condition.value, message))


# --- shape and indexing ops (see ir/shape_ops.py, ir/indexing.py) -------------------------
# `dims` below are frontend/staging/dims.py's: ints, or dims unknown at trace time.
def _static(dims: Sequence) -> list[int | None]:
    return [d if isinstance(d, int) else None for d in dims]


def reshape(x: Tensor, dims: Sequence) -> Tensor:
    """Row-major reshape to a shape of the same size; no op when the shape matches. A dim
    unknown at trace time is one of `x`'s or a `Product` of them (frontend/staging/dims.py)."""
    from tracejit.ir.shape_ops import ReshapeOp

    if tuple(x.dims) == tuple(dims):
        return x
    sizes = [_size_from(x, d) for d in dims if not isinstance(d, int)]
    op = ReshapeOp(x.value, tensor_type(_static(dims), x.dtype), sizes)
    return Tensor(emit(op).result, dims=tuple(dims))


def _size_from(x: Tensor, dim) -> SSAValue:
    """The run-time size of `dim`, a dim of `x` or a product of them, as an `index`."""
    from xdsl.dialects import arith

    from tracejit.frontend.staging.dims import Product
    from tracejit.frontend.staging.slice_bounds import index_constant

    if isinstance(dim, Product):
        total = index_constant(dim.times)
        for factor in dim.factors:
            total = emit(arith.MuliOp(total, _size_from(x, factor))).result
        return total
    return dim_size(dim, (x.value, list(x.dims).index(dim)) if dim in x.dims else None)


def transpose(x: Tensor, permutation: Sequence[int]) -> Tensor:
    """Result dim j is `x`'s dim `permutation[j]`; no op for the identity."""
    from tracejit.ir.shape_ops import TransposeOp

    if tuple(permutation) == tuple(range(x.ndim)):
        return x
    dims = tuple(x.dims[p] for p in permutation)
    op = TransposeOp(x.value, permutation, tensor_type(_static(dims), x.dtype))
    return Tensor(emit(op).result, dims=dims)


def strided_slice(
    x: Tensor,
    start: Sequence[int | SSAValue],
    step: Sequence[int],
    counts: Sequence[int | SSAValue],
    dims: Sequence | None = None,
) -> Tensor:
    """`counts[i]` elements of dim i from `start[i]` by `step[i]` (which may be negative).
    On dims unknown at trace time a start or a count may be a run-time `index` value;
    `dims` then gives the result's dims."""
    from tracejit.frontend.staging.dims import Unknown
    from tracejit.ir.shape_ops import SliceOp

    dims = tuple(counts) if dims is None else tuple(dims)
    whole = all(isinstance(a, int) and a == 0 and s == 1 for a, s in zip(start, step, strict=True))
    # Two unknown dims compare equal whatever their sizes: only known dims prove a whole slice.
    if whole and dims == tuple(x.dims) and not any(isinstance(d, Unknown) for d in dims):
        return x
    op = SliceOp(
        x.value,
        [a if isinstance(a, int) else DYNAMIC_INDEX for a in start],
        step,
        tensor_type(_static(counts), x.dtype),
        starts=[a for a in start if not isinstance(a, int)],
        sizes=[c for c in counts if not isinstance(c, int)],
    )
    return Tensor(emit(op).result, dims=dims)


def concat(xs: Sequence[Tensor], axis: int) -> Tensor:
    """Tensors of one dtype and rank joined along `axis`; off the axis, dims unknown at
    trace time must agree (checked by the caller)."""
    from tracejit.ir.shape_ops import ConcatOp

    if len(xs) == 1:
        return xs[0]
    from tracejit.frontend.staging.dims import summed

    dims = list(xs[0].dims)
    for x in xs[1:]:  # a mismatch compiles into out-of-bounds copies (verify is off)
        off_axis = [(a, b) for d, (a, b) in enumerate(zip(dims, x.dims, strict=True)) if d != axis]
        if any(isinstance(a, int) and isinstance(b, int) and a != b for a, b in off_axis):
            raise AssertionError(f"concat of shapes {xs[0].shape} and {x.shape} on axis {axis}")
    dims[axis] = summed([x.dims[axis] for x in xs])
    op = ConcatOp([x.value for x in xs], axis, tensor_type(_static(dims), xs[0].dtype))
    return Tensor(emit(op).result, dims=tuple(dims))


def pad(x: Tensor, value: Tensor, low: Sequence[int], high: Sequence[int]) -> Tensor:
    """`x` surrounded by copies of the 0-d `value` (same dtype)."""
    from tracejit.ir.shape_ops import PadOp

    shape = [lo + n + hi for lo, n, hi in zip(low, x.shape, high, strict=True)]  # type: ignore[operator]  # a static shape here
    return Tensor(emit(PadOp(x.value, value.value, low, high, tensor_type(shape, x.dtype))).result)


def gather(
    x: Tensor, indices: Tensor, axis: int, message: str, in_bounds: bool = False
) -> Tensor:
    """`np.take(x, indices, axis)`; a run-time index out of range fails with `message`,
    unless the caller knows every index lies in `[0, size)` (`in_bounds`: not checked)."""
    from tracejit.ir.indexing import GatherOp, gather_shape

    dims = gather_shape(x.dims, indices.dims, axis)
    result_type = tensor_type(_static(dims), x.dtype)
    op = GatherOp(x.value, indices.value, axis, message, result_type, in_bounds)
    return Tensor(emit(op).result, dims=tuple(dims))


def nonzero(x: Tensor, of: Tensor | None = None) -> Tensor:
    """`np.argwhere(x)`: the int64 coordinates of `x`'s non-zero elements, one row each.
    The row count is a `Counted` dim of `of` (default `x`): a tensor with the same number
    of non-zero elements, whose selections the result's rows then match."""
    from tracejit.frontend.staging.dims import Counted
    from tracejit.ir.nonzero import NonzeroOp

    counted = Counted((x if of is None else of).value)
    return Tensor(emit(NonzeroOp(x.value)).result, dims=(counted, x.ndim))


def assert_same_counts(values: Sequence[SSAValue]) -> None:
    """Stage a check that the tensors `values` have equal numbers of non-zero elements:
    selections counted from them meet element-wise (`x[x > 0] + y[y > 0]`), and tracejit
    does not broadcast a count of 1 as NumPy would."""
    counts = []
    for value in values:
        x = Tensor(value)
        truth = cast(cast(x, np.dtype(np.bool_)), np.dtype(np.intp))
        counts.append(reduce("sum", truth, range(x.ndim)))
    ok = compare("eq", counts[0], counts[1])
    for count in counts[2:]:
        ok = select(ok, compare("eq", counts[0], count), ok)
    assert_true(
        ok,
        at_user_line(
            "ValueError: operands could not be broadcast together: arrays selected by "
            "different masks have different lengths (tracejit does not broadcast a length "
            "that depends on the data, even 1)"
        ),
    )


# --- comparisons and select (ir/compare.py, ir/select.py) --------------------------------
def compare(predicate: str, x: Tensor, y: Tensor) -> Tensor:
    """`x <predicate> y` (eq, ne, lt, le, gt, ge) of one dtype and shape, as a bool tensor."""
    from tracejit.ir.compare import CompareOp

    return Tensor(emit(CompareOp(predicate, x.value, y.value)).result)


def select(condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """`np.where(condition, x, y)` on a bool condition and x, y of one dtype, one shape."""
    from tracejit.ir.select import SelectOp

    return Tensor(emit(SelectOp(condition.value, x.value, y.value)).result)


# --- updates (ir/update.py, frontend/staging/views.py) ----------------------------------------
def to_index(index: Tensor, size: int | SSAValue, message: str) -> SSAValue:
    """The 0-d integer tensor `index` as an `index` into a dim of `size` elements, wrapped
    and checked by the kernel (`message` when outside `[-size, size)`)."""
    from tracejit.ir.update import ToIndexOp

    return emit(ToIndexOp(index.value, size, message)).result


def insert_slice(dest: Tensor, source: Tensor, window: Any) -> Tensor:
    """`dest` with `window` (indexing.Window: start, step, count per dim) replaced by
    `source`, whose shape is the window's."""
    from tracejit.ir.update import InsertSliceOp

    op = InsertSliceOp(
        cast(source, dest.dtype).value,
        dest.value,
        [a if isinstance(a, int) else DYNAMIC_INDEX for a in window.start],
        window.step,
        [a for a in window.start if not isinstance(a, int)],
    )
    return Tensor(emit(op).result, dims=dest.dims)


def scatter(dest: Tensor, indices: Tensor, updates: Tensor, message: str) -> Tensor:
    """The 1-d `dest` with `dest[indices[k]] = updates[k]` in order (last write wins)."""
    from tracejit.ir.update import ScatterOp

    op = ScatterOp(cast(updates, dest.dtype).value, dest.value, indices.value, message)
    return Tensor(emit(op).result, dims=dest.dims)


def scatter_combine(
    combiner: type[ElementwiseBinaryOp] | str,
    dest: Tensor,
    indices: Tensor,
    updates: Tensor,
    message: str,
) -> Tensor:
    """The 1-d `dest` with `dest[indices[k]] = combiner(dest[indices[k]], updates[k])` for
    each k in order (NumPy's `ufunc.at`: repeated indices combine every update), computed
    in `updates`' dtype and cast back to `dest`'s. `combiner` is an op or its name; a unary
    one (ir/scatter_combine.py) takes a 0-d `updates` that only gives the dtype."""
    from tracejit.ir.scatter_combine import ScatterCombineOp

    name = combiner if isinstance(combiner, str) else combiner.name
    op = ScatterCombineOp(name, updates.value, dest.value, indices.value, message)
    return Tensor(emit(op).result, dims=dest.dims)


# --- scans and sorts (ir/cumulative.py, ir/sort.py) ----------------------------------------
def cumulative(kind: str, x: Tensor, axis: int) -> Tensor:
    """Running `kind` (sum, prod) of `x` along the non-negative `axis`, in `x`'s dtype."""
    from tracejit.ir.cumulative import CumulativeOp

    return Tensor(emit(CumulativeOp(kind, x.value, axis)).result, dims=x.dims)


def fft(x: Tensor, axis: int, inverse: bool, norm: str, scale_type: str | None = None) -> Tensor:
    """The Fourier transform of complex `x` along the non-negative `axis`, whose length is
    static (`np.fft.fft`, or `np.fft.ifft` when `inverse`, with NumPy's `norm`, its scale
    computed in `scale_type` if given: see ir/fft.py)."""
    from tracejit.ir.fft import FftOp

    direction = "inverse" if inverse else "forward"
    op = FftOp(direction, x.value, axis, norm, scale_type=scale_type)
    return Tensor(emit(op).result, dims=x.dims)


def real_fft(
    x: Tensor, axis: int, n: int, inverse: bool, norm: str, scale_type: str | None = None
) -> Tensor:
    """`np.fft.rfft` of float `x` (the n // 2 + 1 terms of a length-`n` line, which `x`
    has) or, when `inverse`, `np.fft.irfft` of complex `x` (n // 2 + 1 terms in, `n`
    floats out) along the non-negative `axis`."""
    from tracejit.ir.fft import FftOp

    dims = list(x.dims)
    dims[axis] = n if inverse else n // 2 + 1
    dtype = np.empty(0, x.dtype).real.dtype if inverse else np.result_type(x.dtype, 1j)
    result = tensor_type(_static(dims), dtype)
    direction = "real_inverse" if inverse else "real_forward"
    op = FftOp(direction, x.value, axis, norm, result, scale_type)
    return Tensor(emit(op).result, dims=tuple(dims))


def sort(x: Tensor, axis: int, kind: str) -> Tensor:
    """`x` sorted along the non-negative `axis`: the values, or (kind "indices") their
    int64 positions in stable order."""
    from tracejit.ir.sort import SortOp

    return Tensor(emit(SortOp(kind, x.value, axis)).result, dims=x.dims)
