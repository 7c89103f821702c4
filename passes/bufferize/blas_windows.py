"""Slices a BLAS call reads in place: `data[:, i:M]` as an operand of a product `use-blas`
marked is a window of `data`'s buffer, where a copy would cost a pass over the slice on
every call (PolyBench's covariance copied 60 MB in its 240 trips, and ran at 0.65x NumPy).

A 2-D slice [r0::s, c0:c0+n] (unit column step) of a row-major R x C buffer is the matrix
BLAS reads from element r0*C + c0 with leading dim s*C, the buffer itself passed:

    %w = tj.slice %data, start = [0, ?], step = [1, 1] starts(%i) sizes(%n)
           : tensor<260x240xf64> to tensor<260x?xf64>
    %y = tj.matmul %x, %w {blas = "gemv"} : (tensor<260xf64>, tensor<260x?xf64>) -> ...
  =>
    %missing = func.call @tracejit_lapack_dgemv(N, %n, 260, 1.0, %data, %i, 240, ...)

Our own kernel, behind the call's fallback branch (no BLAS in the process, or k = 0), is a
loop nest reading the window where it lies (`own_product`). The window's value holds
`data`'s buffer in `bufferizer.values`, so `data` is not overwritten in place while the
product may read it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects.builtin import DYNAMIC_INDEX, StringAttr, TensorType
from xdsl.ir import Operation, SSAValue

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import element_of
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.shape_ops import SliceOp, TransposeOp
from tracejit.passes.bufferize.blas import Operand, Window
from tracejit.passes.bufferize.builder import FunctionBufferizer, rank_of
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.build import add, mul, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop
from tracejit.passes.use_blas import BLAS_ATTR, is_window

# The calls that read an operand through an offset and a leading dim (`?syrk` reads its
# operand from its first element).
_WINDOWED_CALLS = (StringAttr("gemv"), StringAttr("gemm"))


def read_in_place_by_blas(op: SliceOp) -> bool:
    """Whether a slice needs no buffer of its own: a 2-D slice of a 2-D array, with unit
    column step and positive row step, read only as the matrix operand of unbatched
    products BLAS computes (`?gemv`, `?gemm`), directly or through a 2-D transpose only
    such products read (`w[:, :k].T @ y`: the window taken with BLAS's "T")."""
    if not isinstance(op.result.type, TensorType) or not is_window(op.result):
        return False
    users = [use.operation for use in op.result.uses]
    return bool(users) and all(
        _unbatched_blas_product(user) or _transposed_for_blas(user) for user in users
    )


def _transposed_for_blas(user: Operation) -> bool:
    if not isinstance(user, TransposeOp) or user.get_permutation() != (1, 0):
        return False
    readers = [use.operation for use in user.result.uses]
    return bool(readers) and all(_unbatched_blas_product(reader) for reader in readers)


def _unbatched_blas_product(user: Operation) -> bool:
    return (
        isinstance(user, MatmulOp)
        and user.attributes.get(BLAS_ATTR) in _WINDOWED_CALLS
        and rank_of(user.lhs) <= 2
        and rank_of(user.rhs) <= 2
    )


def window_of(bufferizer: FunctionBufferizer, operand: SSAValue) -> Window | None:
    """The window a product's operand is read through (or its transpose is), or None
    (its own buffer)."""
    op = operand.owner
    if isinstance(op, TransposeOp) and _transposed_for_blas(op):
        op = op.operand.owner
    if not isinstance(op, SliceOp) or not read_in_place_by_blas(op):
        return None
    b = bufferizer.builder
    source = bufferizer.values[op.operand]
    run_time_starts = iter(bufferizer.values[v] for v in op.starts)
    run_time_sizes = iter(bufferizer.values[v] for v in op.sizes)
    starts = [
        next(run_time_starts) if s == DYNAMIC_INDEX else index_constant(b, s)
        for s in op.get_start()
    ]
    dims = [
        next(run_time_sizes) if d == DYNAMIC_INDEX else index_constant(b, d)
        for d in op.result.type.get_shape()
    ]
    columns = bufferizer.dim(source, 1)
    row_step = index_constant(b, op.get_step()[0])
    return Window(
        add(b, mul(b, starts[0], columns), starts[1]),
        mul(b, row_step, columns),
        (dims[0], dims[1]),
        (starts[0], starts[1]),
        row_step,
    )


def own_product(
    bufferizer: FunctionBufferizer, op: MatmulOp, lhs: Operand, rhs: Operand, output: SSAValue
) -> None:
    """Our kernel for a product with a window operand, on the no-BLAS path: a loop nest
    reading every operand where it lies (no copy, so no allocation in a loop's body), each
    element a sum in k order. Only a process without BLAS runs it for long."""
    b = bufferizer.builder
    element = element_of(op.result)
    zero, one = index_constant(b, 0), index_constant(b, 1)
    rows = lhs.dim(bufferizer, -2) if lhs.rank == 2 else one
    columns = rhs.dim(bufferizer, -1) if rhs.rank == 2 else one
    depth = lhs.dim(bufferizer, -1)
    initial = scalar.constant(b, 0, element)

    def row(b: Builder, i: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        def column(b: Builder, j: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            def term(b: Builder, k: SSAValue, total: Sequence[SSAValue]) -> Sequence[SSAValue]:
                x = lhs.load(b, [i, k] if lhs.rank == 2 else [k])
                y = rhs.load(b, [k, j] if rhs.rank == 2 else [k])
                product = scalar.emit_scalar(b, ew.MulOp, [x, y], element)
                return [scalar.emit_combiner(b, "sum", total[0], product, element)]

            total = for_loop(b, zero, depth, one, [initial], term)[0]
            at = ([i] if lhs.rank == 2 else []) + ([j] if rhs.rank == 2 else [])
            store(b, total, output, at)
            return []

        for_loop(b, zero, columns, one, [], column)
        return []

    for_loop(b, zero, rows, one, [], row)
