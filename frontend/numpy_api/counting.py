"""Counting into bins: `np.bincount`, `np.histogram`, `np.histogram2d`.

Every count is one `tj.scatter_combine "tj.add"` (ir/scatter_combine.py): a single
compiled loop adding one (or the element's weight) into its bin, never a sort.

    bincount(x)       n = max(max(x) + 1, minlength) zeros (a size the kernel computes),
                      then counts[x[k]] += 1; a negative x fails the call (ValueError)
    histogram(a, 10)  NumPy's uniform-bin rule: i = int((a - lo) / (hi - lo) * bins), moved
                      by one where that disagrees with the edges NumPy returns; values outside
                      [lo, hi] (and NaN) go to an extra bin that is dropped
    histogram(a, e)   explicit edges: i = searchsorted(e, a, "right") - 1 (tj.search_sorted),
                      the last edge closing the last bin, as NumPy's
    histogram2d       NumPy's histogramdd: a searchsorted per axis, one flat bin number

Counts are int64 (float64 for histogram2d, as NumPy); with weights they are added in
float64 and cast to the weights' dtype. NumPy adds weighted counts in another order
(blocks of 65,536 values; cumulative sums for explicit edges), so float weights agree to
rounding, not bit for bit.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from tracejit.frontend.numpy_api.registry import implements
from tracejit.frontend.numpy_api.searching import search
from tracejit.frontend.numpy_api.shapes import tensor_of
from tracejit.frontend.staging import primitives
from tracejit.frontend.staging.dims import Unknown
from tracejit.frontend.staging.source_location import at_user_line
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.ir import elementwise as ew

# NumPy's stubs do not model __array_function__: np.<f> of Tensors below is a Tensor.
F64, INTP = np.dtype(np.float64), np.dtype(np.intp)


def _count_into(size: Any, bins: Tensor, weights: Tensor | None) -> Tensor:
    """`size` zeros plus one (or weights[k]) at bins[k] for each k: int64 counts, float64
    sums of weights. The bins must lie in [0, size) (the kernel checks: IndexError)."""
    dtype = INTP if weights is None else F64
    zeros = _zeros(size, dtype)
    if weights is None:
        updates = primitives.constant(np.ones((), INTP))  # one 1 for every index
    else:
        updates = primitives.cast(weights, F64)
    message = at_user_line("IndexError: bin number out of range")
    return primitives.scatter_combine(ew.AddOp, zeros, bins, updates, message)


def _zeros(size: Any, dtype: np.dtype) -> Tensor:
    """`np.zeros(size, dtype)` for a size known at trace time or a 0-d int tensor."""
    from tracejit.frontend.staging import runtime_sizes

    zero = primitives.constant(np.zeros((), dtype))
    if not isinstance(size, Tensor):
        return primitives.broadcast_to(zero, (int(size),))
    found = runtime_sizes.sizes_to_dims((size,))
    assert found is not None  # a 0-d int tensor is a run-time size
    dims, witnesses = found
    return primitives.broadcast_to(zero, dims, witnesses)


def _flat(x: Tensor) -> Tensor:
    return x if x.ndim == 1 else dispatched(np.ravel(x))


# --- bincount ------------------------------------------------------------------------------
@implements(np.bincount)
def bincount(x: object, weights: object = None, minlength: object = 0) -> Tensor:
    values = tensor_of(x)
    if values.ndim != 1:
        raise ValueError(at_user_line("object too deep for desired array (x must be 1-d)"))
    if values.dtype.kind not in "iub":  # uint64 too: NumPy casts it (>= 2**63 is negative)
        raise TypeError(
            at_user_line(
                f"Cannot cast array data from {values.dtype!r} to dtype('int64') according "
                "to the rule 'safe'"
            )
        )
    if isinstance(minlength, int) and minlength < 0:
        raise ValueError(at_user_line("'minlength' must not be negative"))
    values = primitives.cast(values, INTP)
    w = None if weights is None else _same_length(tensor_of(weights), values)
    if values.shape[0] == 0:  # int64 zeros, weights or not (NumPy's rule)
        return _count_into(minlength, values, None)
    # tj.reduce of no elements is its identity (INT64_MIN for max, INT64_MAX for min), so a
    # run-time empty x gives minlength zeros, as NumPy
    highest = primitives.reduce("max", values, [0])
    lowest = primitives.reduce("min", values, [0])
    negative = "ValueError: 'list' argument must have no negative elements"
    primitives.assert_true(dispatched(lowest >= 0), at_user_line(negative))
    size = dispatched(np.maximum(highest + 1, minlength))  # type: ignore[call-overload]
    return _count_into(size, values, w)


def _same_length(weights: Tensor, values: Tensor) -> Tensor:
    if weights.dtype.kind == "c":
        raise NotImplementedError(at_user_line("complex weights are not supported"))
    if weights.shape != values.shape:
        raise ValueError(at_user_line("The weights and list don't have the same length."))
    return weights


# --- histogram -----------------------------------------------------------------------------
@implements(np.histogram)
def histogram(
    a: object, bins: object = 10, range: object = None, density: object = None,
    weights: object = None,
) -> tuple[Tensor, Any]:  # fmt: skip
    x = _flat(tensor_of(a))
    w = None if weights is None else _weights_like(weights, tensor_of(a))
    if x.dtype.kind == "c":
        raise NotImplementedError(at_user_line("np.histogram of complex values is not supported"))
    if isinstance(bins, str):
        raise NotImplementedError(
            at_user_line(
                f"np.histogram(bins={bins!r}) is not supported by tracejit: pass a number of "
                "bins or the edges, or wrap the call in tj.py_function"
            )
        )
    if not isinstance(bins, Tensor) and np.ndim(bins) == 0:  # type: ignore[arg-type]
        counts, edges = _uniform(x, _bin_count(bins), range, w)
    else:
        counts, edges = _by_edges(x, tensor_of(bins), w)
    if density:
        widths = dispatched(np.diff(edges).astype(F64))
        return dispatched(counts / widths / np.sum(counts)), edges
    return counts, edges


def _bin_count(bins: object) -> int:
    try:
        n = operator.index(bins)  # type: ignore[arg-type]  # NumPy's check
    except TypeError:
        raise TypeError(at_user_line("`bins` must be an integer, a string, or an array")) from None
    if n < 1:
        raise ValueError(at_user_line("`bins` must be positive, when an integer"))
    return n


def _weights_like(weights: object, a: Tensor) -> Tensor:
    w = tensor_of(weights)
    if w.shape != a.shape:
        raise ValueError(at_user_line("weights should have the same shape as a."))
    if w.dtype.kind == "c":
        raise NotImplementedError(at_user_line("complex weights are not supported"))
    return _flat(w)


def _weighted(counts: Tensor, w: Tensor | None) -> Tensor:
    """Float64 sums back in the weights' dtype (NumPy's `ntype`)."""
    return counts if w is None else primitives.cast(counts, w.dtype)


def _outer_edges(x: Tensor, range: object) -> tuple[Any, Any]:
    """NumPy's `_get_outer_edges`: Python or NumPy scalars when known at trace time, else
    0-d tensors (min and max of `x`, checked finite by the kernel)."""
    first: Any
    last: Any
    if range is not None:
        first, last = range  # type: ignore[misc]  # NumPy unpacks it too
        if isinstance(first, Tensor) or isinstance(last, Tensor):
            raise NotImplementedError(at_user_line("a traced histogram range is not supported"))
        if first > last:
            raise ValueError(at_user_line("max must be larger than min in range parameter."))
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(at_user_line(f"supplied range of [{first}, {last}] is not finite"))
    elif x.shape[0] == 0:
        first, last = 0, 1
    else:
        first, last = dispatched(np.min(x)), dispatched(np.max(x))
        finite = dispatched(np.isfinite(first) & np.isfinite(last))
        message = "ValueError: autodetected range of [min, max] is not finite"
        primitives.assert_true(finite, at_user_line(message))
        same = dispatched(first == last)
        return (
            dispatched(np.where(same, first - 0.5, first)),
            dispatched(np.where(same, last + 0.5, last)),
        )
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


def _unsigned_subtract(a: Any, b: Any) -> Any:
    """NumPy's `_unsigned_subtract`: a - b, in the unsigned type for integers."""
    dtype = _scalar_type(a, b)
    if dtype.kind not in "iu":
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            return np.subtract(a, b, dtype=dtype)
        return dispatched(np.subtract(_as(a, dtype), _as(b, dtype)))
    # the operands in their signed type first (NumPy: a negative Python int stays valid)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    a, b = _as(_as(a, dtype), unsigned), _as(_as(b, dtype), unsigned)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        return np.subtract(a, b, dtype=unsigned)
    return dispatched(np.subtract(a, b))


def _as(x: Any, dtype: np.dtype) -> Any:
    if isinstance(x, Tensor):
        return primitives.cast(x, dtype)
    return np.asarray(x).astype(dtype, casting="unsafe")[()]


def _scalar_type(*values: Any) -> np.dtype:
    from tracejit.frontend.numpy_api.promotion import weak_result_type

    return weak_result_type(*values)


def _uniform(x: Tensor, n: int, range: object, w: Tensor | None) -> tuple[Tensor, Any]:
    """NumPy's equal-width bins (`_histogram_impl`'s fast path), in one pass."""
    first, last = _outer_edges(x, range)
    bin_type = _scalar_type(first, last, x)
    if bin_type.kind in "iub":
        bin_type = np.result_type(bin_type, float)
    edges = _linspace(first, last, n + 1, bin_type)
    _check_finite_bins(edges, n)
    if x.shape[0] == 0:
        zero = primitives.constant(np.zeros(n, INTP if w is None else w.dtype))
        return zero, edges
    keep = dispatched((x >= first) & (x <= last))
    values = dispatched(np.where(keep, x, first).astype(bin_type))
    scaled = dispatched(_unsigned_subtract(values, first) / _unsigned_subtract(last, first) * n)
    index = dispatched(np.minimum(scaled.astype(INTP), n - 1))
    # NumPy moves the bin by one where the value lies outside the edges it returns
    below = _linspace_at(first, last, n + 1, bin_type, index)
    index = dispatched(np.where(values < below, index - 1, index))
    above = _linspace_at(first, last, n + 1, bin_type, dispatched(index + 1))
    index = dispatched(np.where((values >= above) & (index != n - 1), index + 1, index))
    index = dispatched(np.where(keep, index, n))  # the dropped values' bin
    counts = _count_into(n + 1, index, w)
    return _weighted(dispatched(counts[:n]), w), edges


def _check_finite_bins(edges: Any, n: int) -> None:
    """NumPy's check that rounding left every bin a positive width."""
    message = f"Too many bins for data range. Cannot create {n} finite-sized bins."
    if not isinstance(edges, Tensor):
        if np.any(edges[:-1] >= edges[1:]):
            raise ValueError(at_user_line(message))
        return
    widths = dispatched(np.all(edges[:-1] < edges[1:]))
    primitives.assert_true(widths, f"ValueError: {at_user_line(message)}")


def _linspace(first: Any, last: Any, num: int, dtype: np.dtype) -> Any:
    """`np.linspace(first, last, num, dtype=dtype)`: computed by NumPy when both ends are
    known, else NumPy's steps on the 0-d tensors."""
    if not isinstance(first, Tensor) and not isinstance(last, Tensor):
        return np.linspace(first, last, num, dtype=dtype)
    return _linspace_at(first, last, num, dtype, np.arange(num))


def _linspace_at(first: Any, last: Any, num: int, dtype: np.dtype, i: Any) -> Any:
    """Element `i` of `np.linspace(first, last, num, dtype=dtype)`, by NumPy's arithmetic
    (`i * step + first` in the inexact type, or `i / div * delta` when the step rounds to 0;
    the last one is `last`): an element-wise expression, so the uniform histogram reads
    the edges it compares with without a gather."""
    inexact = _scalar_type(first, last, 1.0)
    start, stop = _as(first, inexact), _as(last, inexact)
    delta = _difference(stop, start)
    div = num - 1
    step = delta / div
    ramp = i.astype(inexact) if isinstance(i, np.ndarray) else primitives.cast(i, inexact)
    scaled = ramp * step
    if isinstance(step, Tensor):
        scaled = np.where(step == 0, ramp / div * delta, scaled)
    elif step == 0:
        scaled = ramp / div * delta
    y = dispatched(np.where(i == div, stop, scaled + start))
    return y.astype(dtype) if isinstance(y, np.ndarray) else primitives.cast(y, dtype)


def _difference(a: Any, b: Any) -> Any:
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return dispatched(np.subtract(a, b))
    return np.subtract(a, b)


def _check_edges_rank(edges: Tensor) -> None:
    if edges.ndim == 0 and edges.dtype.kind in "iu":  # a bin count traced as a tensor
        raise NotImplementedError(
            at_user_line(
                "a number of bins known only at run time (a NumPy integer or an array "
                "argument, traced as a tensor) is not supported: it sets the length of the "
                "result. Pass it as a Python int (`int(nbins)` outside the function, or a "
                "static argument), or pass the bin edges"
            )
        )
    if edges.ndim != 1:
        raise ValueError(at_user_line("`bins` must be 1d, when an array"))


def _by_edges(x: Tensor, edges: Tensor, w: Tensor | None) -> tuple[Tensor, Tensor]:
    """Explicit (non-uniform) edges: a binary search per value."""
    _check_edges_rank(edges)
    _check_increasing(edges, "`bins` must increase monotonically, when an array")
    counts = _count_by_closed_search(x, edges, w)
    if counts is None:
        counts = _count_by_search([x], [edges], w)
    return _weighted(counts, w), edges


def _count_by_closed_search(x: Tensor, edges: Tensor, w: Tensor | None) -> Tensor | None:
    """Edges known at trace time, the last one finite: search a table whose last edge is
    moved up by one ulp (so a value equal to it lands in the last bin, NumPy's closed
    bin) and count the positions straight away, slot i + 1 being bin i (slot 0 and slot
    len(edges) hold the values below and above the edges, NaN included). None otherwise."""
    from tracejit.ir.folding import constant_value

    known = constant_value(edges.value)
    dtype = _scalar_type(x, edges)
    if known is None or dtype.kind not in "fiu" or known.size < 2:
        return None
    table = known.astype(dtype)
    last = table[-1]
    if dtype.kind == "f" and np.isfinite(last):
        table[-1] = np.nextafter(last, np.inf)
    elif dtype.kind in "iu" and last < np.iinfo(dtype).max:
        table[-1] = last + 1
    else:
        return None
    n = int(table.size)
    position = search(primitives.constant(table), primitives.cast(x, dtype), "right")
    return dispatched(_count_into(n + 1, position, w)[1:n])


def _check_increasing(edges: Tensor, message: str) -> None:
    from tracejit.ir.folding import constant_value

    known = constant_value(edges.value)
    if known is not None:
        if np.any(known[:-1] > known[1:]):
            raise ValueError(at_user_line(message))
        return
    rising = dispatched(np.all(edges[:-1] <= edges[1:]))
    primitives.assert_true(rising, f"ValueError: {at_user_line(message)}")


def _bin_of(x: Tensor, edges: Tensor) -> tuple[Tensor, Tensor]:
    """Each value's bin along one axis (searchsorted "right" - 1, the last edge closing the
    last bin) and whether it lies in [edges[0], edges[-1]]."""
    dtype = _scalar_type(x, edges)
    values, table = primitives.cast(x, dtype), primitives.cast(edges, dtype)
    n = edges.shape[0]
    if n is None:
        raise NotImplementedError(at_user_line("bin edges of a run-time count are not supported"))
    position = search(table, values, "right")
    on_last = dispatched(values == table[-1])
    position = dispatched(np.where(on_last, position - 1, position))
    inside = dispatched((position >= 1) & (position <= n - 1))
    return dispatched(position - 1), inside


def _count_by_search(xs: list[Tensor], edges: list[Tensor], w: Tensor | None) -> Tensor:
    """Counts over the bins of every axis (row-major flat bin numbers), values outside any
    axis's edges dropped (counted in one extra bin)."""
    sizes = [int(e.shape[0]) - 1 for e in edges]  # type: ignore[arg-type]  # static (checked)
    total = int(np.prod(sizes, dtype=np.int64))
    flat: Any = 0
    keep: Any = True
    for x, e, size in zip(xs, edges, sizes, strict=True):
        index, inside = _bin_of(x, e)
        flat = dispatched(flat * size + index)
        keep = dispatched(keep & inside)
    flat = dispatched(np.where(keep, flat, total))
    counts = _count_into(total + 1, flat, w)
    return dispatched(counts[:total].reshape(sizes))


# --- histogram2d ---------------------------------------------------------------------------
@implements(np.histogram2d)
def histogram2d(
    x: object, y: object, bins: object = 10, range: object = None, density: object = None,
    weights: object = None,
) -> tuple[Tensor, Any, Any]:  # fmt: skip
    xs, ys = tensor_of(x), tensor_of(y)
    if xs.ndim != 1 or ys.ndim != 1:
        raise ValueError(at_user_line("x and y must be 1-d arrays"))
    if None not in (xs.shape[0], ys.shape[0]) and xs.shape != ys.shape:
        raise ValueError(at_user_line("x and y must have the same length."))
    if xs.dims != ys.dims and isinstance(xs.dims[0], Unknown) | isinstance(ys.dims[0], Unknown):
        raise NotImplementedError(
            at_user_line(
                "np.histogram2d of x and y whose lengths tracejit cannot match before the "
                "call (a size that depends on the data, or one known only at run time, "
                "against another): make both the same selection, or pad to a known length"
            )
        )
    dtype = _scalar_type(xs, ys)  # NumPy stacks them into one sample array
    if dtype.kind == "c":
        raise NotImplementedError(at_user_line("np.histogram2d of complex values"))
    xs, ys = primitives.cast(xs, dtype), primitives.cast(ys, dtype)
    w = None if weights is None else _weights_like(weights, xs)
    per_axis = _pair(bins)
    ranges = range if range is not None else (None, None)
    if len(ranges) != 2:  # type: ignore[arg-type]
        raise ValueError(at_user_line("range argument must have one entry per dimension"))
    axes = zip((xs, ys), per_axis, ranges, strict=True)  # type: ignore[call-overload]
    edges = [_axis_edges(v, b, r, i) for i, (v, b, r) in enumerate(axes)]
    tables = [e if isinstance(e, Tensor) else primitives.constant(e) for e in edges]
    counts = primitives.cast(_count_by_search([xs, ys], tables, w), F64)
    if density:
        total = dispatched(np.sum(counts))
        counts = dispatched(counts / np.diff(tables[0])[:, None] / np.diff(tables[1])[None, :])
        counts = dispatched(counts / total)
    return counts, edges[0], edges[1]


def _pair(bins: Any) -> tuple[Any, Any]:
    """NumPy's reading of histogram2d's `bins`: a number for both axes, two things (one
    per axis), or else one edge array for both."""
    if isinstance(bins, Tensor):
        if bins.ndim == 0:
            _check_edges_rank(bins)
        return (bins[0], bins[1]) if bins.shape[0] == 2 else (bins, bins)
    if not isinstance(bins, list | tuple) and np.ndim(bins) == 0:
        return bins, bins
    if len(bins) == 2:
        return bins[0], bins[1]
    return bins, bins


def _axis_edges(x: Tensor, bins: Any, range: Any, axis: int) -> Any:
    if np.ndim(bins) == 0 and not isinstance(bins, Tensor):
        n = _bin_count(bins)
        first, last = _outer_edges(x, range)
        return _linspace(first, last, n + 1, _scalar_type(first, last, 1.0))
    edges = tensor_of(bins)
    _check_edges_rank(edges)
    _check_increasing(edges, f"`bins[{axis}]` must be monotonically increasing, when an array")
    return edges
