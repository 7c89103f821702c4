"""Buffer form of a `tj.matmul` that `use-blas` marked: `?gemm` / `?gemv` calls on the
operands' buffers, in place, and our own kernel when they cannot run.

BLAS is column-major and our buffers row-major, but a row-major R x C matrix is the
column-major C x R matrix of its transpose, leading dim C. So C = A @ B is computed as
C^T = B^T A^T, the operands swapped and none copied (`lda` etc. at least 1, as BLAS wants):

    gemm("N", "N", n, m, k, 1, B, n, A, k, 0, C, n)            C[m, n] = A[m, k] @ B[k, n]

A 2-D transpose operand is its operand's buffer, read in place (`read_in_place_by_matmul`):
the stored R x C matrix is then taken with `trans` "T" instead of "N", leading dim its own
C. A matrix @ vector product is a `?gemv` on the matrix's buffer: "T" when the product
sums along the stored rows (A @ x), "N" when down the stored columns (x @ A, A.T @ x).

A 2-D slice operand with unit column step (`data[:, i:M]`) is a window of its array's
buffer, read in place too: the call starts at the slice's first element, with the array's
row pitch as leading dim (blas_windows.py); so is the transpose of such a slice
(`w[:, :k].T`), taken with "T".

A matrix times its own transpose (`A @ A.T`, `A.T @ A`) is one `?syrk` on the lhs's
buffer, which writes one triangle; a loop nest copies it into the other.

A stack of matrices times one matrix or vector (`A[r, q, :] @ C4` for all r, q) is one
product of a taller matrix: its rows are contiguous. A product whose B operand is a stack
too is a loop of calls over the result's batch dims, each at its matrices' first elements
(a broadcast batch dim stays at 0); so is a stack of real matrices of fewer than
TALL_MIN_ROWS rows each times one matrix (`_per_matrix`), as NumPy calls it.

The calls return BLAS_MISSING without a BLAS in the process (ir/lapack_contract.py), and
a product with k = 0 must be zeros, which `?gemv` does not write; either way our own
kernel runs, behind an `scf.if`:

    %missing = func.call @tracejit_lapack_sgemm(...) : (...) -> i32
    %own = arith.ori (%missing != 0), (%k == 0)
    scf.if %own { <the zero fill and the matmul generic of structured.lower_matmul> }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ComplexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    i32,
)
from xdsl.ir import Attribute, SSAValue

from tracejit.ir.dtypes import element_of
from tracejit.ir.matmul import MatmulOp
from tracejit.passes.bufferize.builder import FunctionBufferizer
from tracejit.passes.bufferize.lapack_calls import (
    as_i32,
    at_least_one,
    call,
    character,
    letter_of,
    shaped_shape,
)
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.build import add, load, mul, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop
from tracejit.passes.use_blas import BLAS_ATTR


@dataclass(frozen=True)
class Window:
    """A 2-D slice of a row-major buffer as BLAS reads it (blas_windows.py): its first
    element `offset`, its rows `lead` elements apart; `dims` its rows and columns,
    `starts` its first row and column in the buffer, `row_step` its rows' step there."""

    offset: SSAValue
    lead: SSAValue
    dims: tuple[SSAValue, SSAValue]
    starts: tuple[SSAValue, SSAValue]
    row_step: SSAValue


@dataclass(frozen=True)
class Operand:
    """A matmul operand's buffer; `transposed`: a 2-D transpose's operand, read in place;
    `window`: a 2-D slice of `buffer` read in place (blas_windows.py)."""

    buffer: SSAValue
    transposed: bool = False
    window: Window | None = None

    def dim(self, bufferizer: FunctionBufferizer, logical: int) -> SSAValue:
        """Dim `logical` of the operand as the matmul sees it (negative: from the end)."""
        rank = self.rank
        position = logical % rank
        if self.transposed:
            position = 1 - position
        if self.window is not None:
            return self.window.dims[position]
        return bufferizer.dim(self.buffer, position)

    @property
    def rank(self) -> int:
        if self.window is not None:
            return 2
        assert isinstance(self.buffer.type, MemRefType)
        return len(self.buffer.type.get_shape())

    def start(self, b: Builder, starts: Sequence[SSAValue], position: int) -> SSAValue:
        """The element a call reads first (`starts`: per batch position, else none)."""
        return self.window.offset if self.window is not None else _start(starts, position, b)

    def lead(self, b: Builder, dense: SSAValue) -> SSAValue:
        """The leading dim BLAS takes: `dense`, the stored columns of its own buffer, or
        the window's row pitch."""
        return _lead(b, dense if self.window is None else self.window.lead)

    def load(self, b: Builder, at: Sequence[SSAValue]) -> SSAValue:
        """The element at logical position `at` (as the matmul sees the operand)."""
        if self.transposed:
            at = list(reversed(at))
        if self.window is not None:
            (row, column), (first_row, first_column) = at, self.window.starts
            row = add(b, first_row, mul(b, row, self.window.row_step))
            at = [row, add(b, first_column, column)]
        return load(b, self.buffer, at)


def blas_applies(lhs: Operand, rhs: Operand, output: SSAValue) -> bool:
    """Every buffer must be dense row-major: BLAS takes one leading dim per matrix."""
    buffers = (lhs.buffer, rhs.buffer, output)
    return all(
        isinstance(b.type, MemRefType) and isinstance(b.type.layout, NoneAttr) for b in buffers
    )


def call_blas(
    bufferizer: FunctionBufferizer, op: MatmulOp, lhs: Operand, rhs: Operand, output: SSAValue
) -> SSAValue:
    """Emit the BLAS calls computing `op` into `output`; an i1: whether our kernel must run
    instead (module docstring)."""
    b = bufferizer.builder
    element = element_of(op.result)
    per_matrix = _per_matrix(lhs, rhs, element)
    sizes = _Sizes.of(bufferizer, lhs, rhs, per_matrix)
    batch = _batch_dims(bufferizer, op, lhs, rhs, output, per_matrix)
    letter = letter_of(element)
    constants = (scalar.constant(b, 1, element), scalar.constant(b, 0, element))

    if op.attributes[BLAS_ATTR] == StringAttr("syrk"):
        missing = _syrk(b, bufferizer, letter, constants, sizes, lhs, output)
        _mirror_lower_triangle(b, output, sizes.m)
        return _own_needed(b, missing, sizes)

    def one_product(b: Builder, starts: Sequence[SSAValue]) -> SSAValue:
        if lhs.rank == 1 or rhs.rank == 1:
            return _gemv(b, bufferizer, letter, constants, sizes, lhs, rhs, output, starts)
        return _gemm(b, bufferizer, letter, constants, sizes, lhs, rhs, output, starts)

    return _own_needed(b, _over_batches(b, batch, one_product), sizes)


# Rows per matrix from which a stack of real matrices times one matrix is one tall `?gemm`
# rather than a call per matrix. Measured (OpenBLAS 0.3.31, one thread, Zen 4; time of the
# tall call over the calls per matrix): 64 x 64x64 @ 64x64 1.19 (float32), 1.26
# (float64); 400 x 20x128 1.09, 1.28; 150 x 140x160 0.97, 1.05; 20 x 500x300 0.99, 1.02;
# 10 x 1000x64 0.98, 0.92. OpenBLAS packs a tall matrix for its big kernel, which pays off
# only for matrices of many rows; calls per matrix of few rows take its small-matrix path.
# For complex128 the tall call was as fast or faster at every shape (0.86-1.00).
TALL_MIN_ROWS = 256


def _per_matrix(lhs: Operand, rhs: Operand, element: Attribute) -> bool:
    """Whether a stack of A times one matrix B is a call per matrix (module docstring)."""
    if lhs.rank < 3 or rhs.rank != 2 or lhs.transposed or isinstance(element, ComplexType):
        return False
    assert isinstance(lhs.buffer.type, MemRefType)
    rows = lhs.buffer.type.get_shape()[-2]
    return 0 <= rows < TALL_MIN_ROWS  # a dim known only at run time (-1): one tall call


def _own_needed(b: Builder, missing: SSAValue, sizes: _Sizes) -> SSAValue:
    """Whether our kernel must run: BLAS is missing, or k = 0 (the product is zeros)."""
    zero = b.insert(arith.ConstantOp(IntegerAttr(0, i32))).result
    failed = b.insert(arith.CmpiOp(missing, zero, "ne")).result
    empty = b.insert(arith.CmpiOp(sizes.k, index_constant(b, 0), "eq")).result
    return b.insert(arith.OrIOp(failed, empty)).result


@dataclass(frozen=True)
class _Sizes:
    """m, n, k of one call (m: all the rows of a stack of A times one B)."""

    m: SSAValue
    n: SSAValue
    k: SSAValue

    @staticmethod
    def of(
        bufferizer: FunctionBufferizer, lhs: Operand, rhs: Operand, per_matrix: bool
    ) -> _Sizes:
        b = bufferizer.builder
        one = index_constant(b, 1)
        k = lhs.dim(bufferizer, -1)
        n = rhs.dim(bufferizer, -1) if rhs.rank > 1 else one
        tall = rhs.rank <= 2 and not per_matrix
        rows = range(lhs.rank - 1) if tall else range(lhs.rank - 2, lhs.rank - 1)
        m = one
        for d in rows:
            m = mul(b, m, lhs.dim(bufferizer, d))
        return _Sizes(m, n, k)


@dataclass(frozen=True)
class _Batch:
    """The loops over the result's batch dims and the steps of A, B and C's buffers:
    `steps[p][d]` elements per step of batch loop d (0: not read along it)."""

    uppers: list[SSAValue]
    steps: list[list[SSAValue]]


def _batch_dims(
    bufferizer: FunctionBufferizer,
    op: MatmulOp,
    lhs: Operand,
    rhs: Operand,
    output: SSAValue,
    per_matrix: bool,
) -> _Batch:
    """No loop when B is one matrix or vector (the stack of A is one tall matrix), unless
    `per_matrix`."""
    if rhs.rank <= 2 and not per_matrix:
        return _Batch([], [])
    out_shape = op.result.type.get_shape()
    loops = len(out_shape) - (lhs.rank > 1) - 1
    uppers = [bufferizer.dim(output, d) for d in range(loops)]
    matrices = ((lhs.buffer, min(lhs.rank, 2)), (rhs.buffer, 2), (output, len(out_shape) - loops))
    steps = [_steps(bufferizer, buffer, dims, out_shape[:loops]) for buffer, dims in matrices]
    return _Batch(uppers, steps)


def _steps(
    bufferizer: FunctionBufferizer, buffer: SSAValue, matrix: int, out_batch: Sequence[int]
) -> list[SSAValue]:
    """Row-major strides of `buffer`'s batch dims (all but its last `matrix`), aligned
    right against the result's; 0 for a dim it lacks or broadcasts (as _batch_reads)."""
    b = bufferizer.builder
    shape = shaped_shape(buffer)
    zero = index_constant(b, 0)
    stride = index_constant(b, 1)
    for d in range(len(shape) - matrix, len(shape)):
        stride = mul(b, stride, bufferizer.dim(buffer, d))
    steps = [zero] * len(out_batch)
    for d in reversed(range(len(shape) - matrix)):
        position = len(out_batch) - (len(shape) - matrix) + d
        broadcast = shape[d] != out_batch[position]  # as structured._batch_reads
        steps[position] = zero if broadcast else stride
        stride = mul(b, stride, bufferizer.dim(buffer, d))
    return steps


def _over_batches(
    b: Builder, batch: _Batch, one: Callable[[Builder, Sequence[SSAValue]], SSAValue]
) -> SSAValue:
    """`one(b, starts)` per batch position, starts = each buffer's first element there (in
    `batch.steps` order); the last call's status (every call returns the same)."""
    if not batch.uppers:
        return one(b, [])
    zero, step = index_constant(b, 0), index_constant(b, 1)
    missing = b.insert(arith.ConstantOp(IntegerAttr(0, i32))).result

    def nest(b: Builder, depth: int, starts: list[SSAValue], status: SSAValue) -> SSAValue:
        if depth == len(batch.uppers):
            return one(b, starts)

        def body(b: Builder, i: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            moved = [
                add(b, s, mul(b, i, steps[depth]))
                for s, steps in zip(starts, batch.steps, strict=True)
            ]
            return [nest(b, depth + 1, moved, carried[0])]

        return for_loop(b, zero, batch.uppers[depth], step, [status], body)[0]

    return nest(b, 0, [zero] * len(batch.steps), missing)


def _start(starts: Sequence[SSAValue], position: int, b: Builder) -> SSAValue:
    return starts[position] if starts else index_constant(b, 0)


def _gemm(b, bufferizer, letter, constants, sizes, lhs, rhs, output, starts) -> SSAValue:
    """C^T = op(B) op(A): B first (module docstring)."""
    one, zero = constants
    m, n, k = sizes.m, sizes.n, sizes.k
    trans_b, ld_b = ("T", k) if rhs.transposed else ("N", n)
    trans_a, ld_a = ("T", m) if lhs.transposed else ("N", k)
    args = [
        character(b, trans_b), character(b, trans_a),
        as_i32(b, n), as_i32(b, m), as_i32(b, k), one,
        rhs.buffer, rhs.start(b, starts, 1), rhs.lead(b, ld_b),
        lhs.buffer, lhs.start(b, starts, 0), lhs.lead(b, ld_a), zero,
        output, _start(starts, 2, b), _lead(b, n),
    ]  # fmt: skip
    return call(b, bufferizer.module, letter + "gemm", args)


def _gemv(b, bufferizer, letter, constants, sizes, lhs, rhs, output, starts) -> SSAValue:
    """y = A x or x A: the matrix's stored rows R and columns C are BLAS's N and M."""
    one, zero = constants
    matrix, vector, position = (lhs, rhs, 0) if rhs.rank == 1 else (rhs, lhs, 1)
    if matrix is lhs:  # sums along A's rows: k is the stored columns unless transposed
        rows, columns = (sizes.k, sizes.m) if lhs.transposed else (sizes.m, sizes.k)
        along_rows = not lhs.transposed
    else:  # x @ B sums down B's columns
        rows, columns = (sizes.n, sizes.k) if rhs.transposed else (sizes.k, sizes.n)
        along_rows = rhs.transposed
    unit = b.insert(arith.ConstantOp(IntegerAttr(1, i32))).result
    args = [
        character(b, "T" if along_rows else "N"), as_i32(b, columns), as_i32(b, rows), one,
        matrix.buffer, matrix.start(b, starts, position), matrix.lead(b, columns),
        vector.buffer, vector.start(b, starts, 1 - position), unit, zero,
        output, _start(starts, 2, b), unit,
    ]  # fmt: skip
    return call(b, bufferizer.module, letter + "gemv", args)


def _syrk(b, bufferizer, letter, constants, sizes, lhs, output) -> SSAValue:
    """C = L L^T, L the lhs (`L @ L.T`), or C = A^T A, the lhs A's transpose read in place
    (`A.T @ A`): the lhs's buffer is all `?syrk` reads. Stored row-major, L is BLAS's k x m
    column-major L^T ("T": C = op(X)^T op(X)), A is BLAS's m x k A^T ("N"); BLAS's upper
    triangle of C, column-major, is the lower one of ours."""
    one, zero = constants
    m, k = sizes.m, sizes.k
    trans, lead = ("N", m) if lhs.transposed else ("T", k)
    start = index_constant(b, 0)
    args = [
        character(b, "U"), character(b, trans), as_i32(b, m), as_i32(b, k), one,
        lhs.buffer, start, _lead(b, lead), zero, output, start, _lead(b, m),
    ]  # fmt: skip
    return call(b, bufferizer.module, letter + "syrk", args)


def _mirror_lower_triangle(b: Builder, output: SSAValue, size: SSAValue) -> None:
    """C[r, c] = C[c, r] above the diagonal: the half `?syrk` left unwritten."""
    one = index_constant(b, 1)

    def row(b: Builder, r: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        def column(b: Builder, c: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            store(b, load(b, output, [c, r]), output, [r, c])
            return []

        for_loop(b, add(b, r, one), size, one, [], column)
        return []

    for_loop(b, index_constant(b, 0), size, one, [], row)


def _lead(b: Builder, size: SSAValue) -> SSAValue:
    return as_i32(b, at_least_one(b, size))
