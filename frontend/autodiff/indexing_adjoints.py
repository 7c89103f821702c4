"""Adjoints of indexing and of the value-semantics updates (ir/indexing.py, ir/update.py).

* `tj.gather` (`np.take`, `x[idx]`): the cotangent is scattered back *adding* where an index
  repeats. tj has no scatter-add op, so a staged loop over the cotangent's elements adds
  them one at a time into the flattened operand (each step a one-element gather and
  scatter; bufferization keeps the accumulator in place).
* `tj.insert_slice` (`a[window] = v`): the destination's cotangent is `g` with the window
  zeroed; the source's is the window of `g`.
* `tj.scatter` (`a[idx] = v`, the last write wins): the destination's cotangent is `g` with
  the written positions zeroed; update k gets `g[idx[k]]` only if no later update writes
  the same position.
* `tj.sort` (`np.sort`, a permutation of its input): each element's cotangent is `g` where
  that element went, `g` taken at the inverse permutation (the argsort of the stable
  argsort the values follow; tied values get theirs in that order, as JAX's sort does).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from tracejit.frontend.autodiff.adjoints import (
    _operand,
    add,
    adjoint,
    where,
    window_start,
    zeros_like,
)
from tracejit.frontend.staging import primitives as P
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.ir.indexing import GatherOp
from tracejit.ir.sort import SortOp
from tracejit.ir.update import InsertSliceOp, ScatterOp


def _constant(value: np.ndarray) -> Tensor:
    return P.constant(value)


def _static_shape(x: Tensor, what: str) -> tuple[int, ...]:
    if None in x.shape:
        from tracejit.frontend.autodiff.backprop import NotDifferentiableError

        raise NotDifferentiableError(f"the gradient of {what} needs shapes known at trace time")
    return tuple(int(d) for d in x.shape if d is not None)  # no None: refused above


def scatter_add(size: int, positions: Tensor, values: Tensor) -> Tensor:
    """A 1-d array of `size` zeros plus `values[k]` at `positions[k]` for every k (repeats
    add up), by a staged loop over k."""
    from tracejit.frontend.staging.control_flow import while_loop

    count = int(positions.shape[0])  # type: ignore[arg-type]  # a static dim here
    total = P.broadcast_to(P.constant(np.zeros((), values.dtype)), (size,))
    if count == 0:
        return total
    message = "IndexError: gradient position out of range"

    def cond(k, acc):
        return P.compare("lt", k, P.constant(np.int64(count)))

    def body(k, acc):
        at = P.reshape(k, (1,))
        where_to = P.gather(positions, at, 0, message)
        updated = add(P.gather(acc, where_to, 0, message), P.gather(values, at, 0, message))
        return add(k, P.constant(np.int64(1))), P.scatter(acc, where_to, updated, message)

    _, total = while_loop(cond, body, (P.constant(np.int64(0)), total))
    return total


@adjoint(GatherOp)
def _gather(op, g):
    source, indices = _operand(op, 0), _operand(op, 1)
    shape = _static_shape(source, "x[index array]")
    size = int(np.prod(shape))
    flat_ids = _constant(np.arange(size, dtype=np.int64).reshape(shape))
    # the flat position each element of the result was read from (wrapped as the op wraps)
    positions = P.gather(flat_ids, indices, op.axis.value.data, op.message.data)
    if None in g.shape:  # a run-time count (x[mask]): compare every position with each
        return _dense_scatter_add(size, positions, g).reshape(shape), None
    count = int(np.prod(g.shape))
    flat = scatter_add(size, P.reshape(positions, (count,)), P.reshape(g, (count,)))
    return P.reshape(flat, source.dims), None


DENSE_LIMIT = 1 << 16  # elements of the source: the dense form costs count * size


def _dense_scatter_add(size: int, positions: Tensor, g: Tensor) -> Tensor:
    if size > DENSE_LIMIT:
        from tracejit.frontend.autodiff.backprop import NotDifferentiableError

        raise NotDifferentiableError(
            f"the gradient of x[mask] (or another gather of a run-time count) over {size} "
            f"elements is not supported (at most {DENSE_LIMIT}); gather with a static index "
            "array, or use np.where(mask, x, 0)"
        )
    hits = positions.ravel()[:, None] == np.arange(size)
    return np.sum(np.where(hits, g.ravel()[:, None], np.zeros((), g.dtype)), axis=0)


@adjoint(InsertSliceOp)
def _insert_slice(op, g):
    source = _operand(op, 0)
    start = window_start(op)
    step = list(op.step.get_values())
    window = SimpleNamespace(start=start, step=step)
    g_dest = P.insert_slice(g, zeros_like(source), window)
    g_source = P.strided_slice(g, start, step, list(source.dims), source.dims)
    return (g_source, g_dest, *([None] * len(op.starts)))


@adjoint(ScatterOp)
def _scatter(op, g):
    updates, dest, indices = _operand(op, 0), _operand(op, 1), _operand(op, 2)
    message = op.message.data
    g_dest = P.scatter(g, indices, zeros_like(updates), message)
    count = _static_shape(updates, "x[index array] = v")[0]
    # which update wins its position: scatter k into a -1 array, read back, compare with k
    order = _constant(np.arange(count, dtype=np.int64))
    size = _static_shape(dest, "x[index array] = v")[0]
    winners = P.scatter(_constant(np.full(size, -1, np.int64)), indices, order, message)
    won = P.compare("eq", P.gather(winners, indices, 0, message), order)
    g_updates = where(won, P.gather(g, indices, 0, message), zeros_like(updates))
    return g_updates, g_dest, None


@adjoint(SortOp)
def _sort(op, g):
    if op.kind.data != "values":  # positions: integers, which take no cotangent
        return (None,)
    axis = op.axis.value.data
    order = P.sort(_operand(op), axis, "indices")
    inverse = P.sort(order, axis, "indices")  # where each element of the input went
    # __array_function__: np.take_along_axis of Tensors is a Tensor (stubs say ndarray)
    return (dispatched(np.take_along_axis(g, inverse, axis)),)  # type: ignore[arg-type]
