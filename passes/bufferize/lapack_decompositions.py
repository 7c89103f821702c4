"""Buffer form of the decompositions of `tj.linalg` (used by `bufferize` through
lapack.py): "eigh"/"eigvalsh" (?syevd, ?heevd), "svd"/"svd_complete"/"svdvals" (?gesdd),
"qr"/"qr_complete"/"qr_r" (?geqrf + ?orgqr, ?ungqr) and "lstsq" (?gelsd).

As for "solve", each matrix of the stack is copied into a column-major scratch buffer, the
routine is called on it, and its results are copied out. The routines need workspace:
before the batch loop, one workspace query per routine (`lwork = -1`: the routine writes
the optimal sizes into the first element of its work arrays and returns) sizes the work
buffers, which are then allocated once for the whole stack. For "eigh" of a `[..., n, n]`
stack of f64:

    %info = func.call @tracejit_lapack_dsyevd("V", "L", n, af, lda, w, work1, -1, iwork1, -1)
    work = alloc(max(fptosi(work1[0]), 1)) ; iwork = alloc(max(iwork1[0], 1))
    for each batch position p:
      af[j * n + i] = a[p, i, j]
      %info = func.call @tracejit_lapack_dsyevd("V", "L", n, af, lda, w, work, lwork, iwork,
                                                liwork)
      ok[] = ok[] and %info == 0                 info > 0: did not converge
      values[p, i] = w[i] ; vectors[p, i, j] = af[j * n + i]

?gesdd "A" leaves u and vt alone for an empty matrix: they start as the identity, which is
NumPy's answer. ?orgqr of the complete QR builds Q in an m x max(m, n) buffer whose
first n columns held the reflectors. ?gelsd's b is max(m, n) rows, zeros below b's, so
x (its first n rows) is 0 when m == 0 as NumPy's; the rows from n to m hold the residuals
when m > n (their squared norm per column is the `residuals` result, 0 otherwise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ComplexType,
    IndexType,
    IntegerAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue

from tracejit.ir.dtypes import component_type
from tracejit.ir.lapack_contract import routine_name
from tracejit.ir.linalg import LinalgOp
from tracejit.passes.bufferize.builder import FunctionBufferizer
from tracejit.passes.bufferize.lapack_calls import (
    Stack,
    and_ok,
    as_i32,
    at_least_one,
    call,
    character,
    column_major,
    copy_in,
    copy_out,
)
from tracejit.passes.support import complex_semantics as cx
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.build import add, load, min_unsigned, mul, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop, loop_nest

Lowering = Callable[[FunctionBufferizer, LinalgOp, Stack], None]


# --- shared pieces -----------------------------------------------------------------------
def _i32_constant(b: Builder, value: int) -> SSAValue:
    return b.insert(arith.ConstantOp(IntegerAttr(value, i32))).result


def _output(bufferizer: FunctionBufferizer, result: SSAValue, dims: Sequence[SSAValue]) -> SSAValue:
    """The buffer of `result`, whose dims (every one, as index values) are `dims`."""
    shape = result.type.get_shape()  # type: ignore[attr-defined]  # a TensorType
    sizes = [d for d, size in zip(dims, shape, strict=True) if size == DYNAMIC_INDEX]
    buffer = bufferizer.destination(result, sizes)
    bufferizer.values[result] = buffer
    return buffer


def _queried_size(b: Builder, slot: SSAValue) -> SSAValue:
    """The size a workspace query wrote into `slot[0]` (a float, complex or i32 array), as
    an index of at least 1."""
    value = load(b, slot, [index_constant(b, 0)])
    element = value.type
    if isinstance(element, ComplexType):
        value = cx.split(b, value)[0]
    if value.type != i32:
        value = b.insert(arith.FPToSIOp(value, i64)).result
    size = b.insert(arith.IndexCastOp(value, IndexType())).result
    return at_least_one(b, size)


def _copy_vector(b: Builder, source: SSAValue, length: SSAValue, target, batch) -> None:
    """target[*batch, i] = source[i] for i < length."""
    loop_nest(b, [length], lambda b, i: store(b, load(b, source, i), target, [*batch, *i]))


def _fill(b: Builder, buffer: SSAValue, count: SSAValue, value: float) -> None:
    """buffer[i] = value for i < count."""
    constant = scalar.constant(b, value, buffer.type.get_element_type())  # type: ignore[attr-defined]  # a memref
    loop_nest(b, [count], lambda b, i: store(b, constant, buffer, i))


def _identity(b: Builder, buffer: SSAValue, n: SSAValue) -> None:
    """buffer holds the n x n identity, column-major."""
    element = buffer.type.get_element_type()  # type: ignore[attr-defined]  # a memref
    one, zero = scalar.constant(b, 1, element), scalar.constant(b, 0, element)

    def body(b: Builder, ij: list[SSAValue]) -> None:
        i, j = ij
        diagonal = b.insert(arith.CmpiOp(i, j, "eq")).result
        store(b, scalar.emit_select(b, diagonal, one, zero), buffer, [column_major(b, i, j, n)])

    loop_nest(b, [n, n], body)


class _Work:
    """Work arrays sized by a query: `slot(element)` gives a one-element buffer to pass in
    the query, `sized()` the buffers of the sizes the query wrote, allocated once."""

    def __init__(self, s: Stack):
        self.s = s
        self.slots: list[SSAValue] = []

    def slot(self, element: Attribute) -> SSAValue:
        slot = self.s.buffer(element, index_constant(self.s.bufferizer.builder, 1))
        self.slots.append(slot)
        return slot

    def sizes(self) -> list[SSAValue]:
        """The size each query wrote into its slot (at least 1), in order."""
        return [_queried_size(self.s.bufferizer.builder, slot) for slot in self.slots]

    def sized(self) -> list[tuple[SSAValue, SSAValue]]:
        """(buffer, its size as an i32) per slot, in order."""
        b = self.s.bufferizer.builder
        found = []
        for slot, size in zip(self.slots, self.sizes(), strict=True):
            element = slot.type.get_element_type()  # type: ignore[attr-defined]  # a memref
            found.append((self.s.buffer(element, size), as_i32(b, size)))
        return found


# --- eigh, eigvalsh -----------------------------------------------------------------------
def _lower_eigh(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?syevd / ?heevd("V" or "N", "L") per matrix (module docstring)."""
    b = bufferizer.builder
    vectors = op.kind.data == "eigh"
    real = component_type(s.element)
    values_out = _output(bufferizer, op.outputs[0], [*s.batch, s.n])
    vectors_out = _output(bufferizer, op.outputs[1], [*s.batch, s.n, s.n]) if vectors else None
    ok = s.ok_flag(op.outputs[-1])
    af, w = s.buffer(s.element, mul(b, s.n, s.n)), s.buffer(real, s.n)
    routine = routine_name(s.letter, "syevd")
    hermitian = isinstance(s.element, ComplexType)
    head = [character(b, "V" if vectors else "N"), character(b, "L"), s.n32, af, s.lead32, w]
    work = _Work(s)
    slots = [work.slot(s.element), *([work.slot(real)] if hermitian else []), work.slot(i32)]
    query = _i32_constant(b, -1)
    call(b, bufferizer.module, routine, [*head, *_interleave(slots, query)])
    arrays = [x for pair in work.sized() for x in pair]

    def one_matrix(b: Builder, batch: list[SSAValue]) -> None:
        copy_in(b, s.a, batch, s.n, s.n, af)
        and_ok(b, ok, call(b, bufferizer.module, routine, [*head, *arrays]))
        _copy_vector(b, w, s.n, values_out, batch)
        if vectors_out is not None:
            copy_out(b, af, batch, s.n, s.n, vectors_out)

    loop_nest(b, s.batch, one_matrix)


def _interleave(buffers: Sequence[SSAValue], size: SSAValue) -> list[SSAValue]:
    """buffer, size, buffer, size, ...: work arrays followed by their lengths."""
    return [x for buffer in buffers for x in (buffer, size)]


# --- svd ----------------------------------------------------------------------------------
def _lower_svd(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?gesdd per matrix: jobz "S" (svd), "A" (svd_complete) or "N" (svdvals)."""
    b = bufferizer.builder
    kind = op.kind.data
    real = component_type(s.element)
    k = min_unsigned(b, s.m, s.n)
    one = index_constant(b, 1)
    u_columns, vt_rows = {"svd": (k, k), "svd_complete": (s.m, s.n), "svdvals": (one, one)}[kind]
    u_rows = one if kind == "svdvals" else s.m
    values_at = 0 if kind == "svdvals" else 1
    values_out = _output(bufferizer, op.outputs[values_at], [*s.batch, k])
    ok = s.ok_flag(op.outputs[-1])
    af, sv = s.buffer(s.element, mul(b, s.m, s.n)), s.buffer(real, k)
    u = s.buffer(s.element, mul(b, u_rows, u_columns))
    vt = s.buffer(s.element, mul(b, vt_rows, s.n))
    lda, ldu, ldvt = (as_i32(b, at_least_one(b, d)) for d in (s.m, u_rows, vt_rows))
    jobz = {"svd": "S", "svd_complete": "A", "svdvals": "N"}[kind]
    head = [character(b, jobz), as_i32(b, s.m), s.n32, af, lda, sv, u, ldu, vt, ldvt]
    iwork = s.buffer(i32, mul(b, k, index_constant(b, 8)))
    rwork = [s.buffer(real, _gesdd_rwork(b, kind, s.m, s.n, k))]
    if not isinstance(s.element, ComplexType):
        rwork = []
    work = _Work(s)
    slot = work.slot(s.element)
    routine = routine_name(s.letter, "gesdd")
    call(b, bufferizer.module, routine, [*head, slot, _i32_constant(b, -1), *rwork, iwork])
    ((work_buffer, lwork),) = work.sized()

    def one_matrix(b: Builder, batch: list[SSAValue]) -> None:
        copy_in(b, s.a, batch, s.m, s.n, af)
        if kind == "svd_complete":  # what an empty matrix gets (?gesdd returns at once)
            _identity(b, u, s.m)
            _identity(b, vt, s.n)
        info = call(b, bufferizer.module, routine, [*head, work_buffer, lwork, *rwork, iwork])
        and_ok(b, ok, info)
        _copy_vector(b, sv, k, values_out, batch)
        if kind != "svdvals":
            copy_out(b, u, batch, s.m, u_columns, bufferizer.values[op.outputs[0]])
            copy_out(b, vt, batch, vt_rows, s.n, bufferizer.values[op.outputs[2]])

    if kind != "svdvals":
        _output(bufferizer, op.outputs[0], [*s.batch, s.m, u_columns])
        _output(bufferizer, op.outputs[2], [*s.batch, vt_rows, s.n])
    loop_nest(b, s.batch, one_matrix)


def _gesdd_rwork(b: Builder, kind: str, m: SSAValue, n: SSAValue, k: SSAValue) -> SSAValue:
    """?gesdd's real workspace (complex only): 7k for "N" (LAPACK before 3.7 needed that);
    else max(5k^2 + 5k, 2 max(m, n) k + 2k^2 + k), from its documentation."""
    if kind == "svdvals":
        return mul(b, k, index_constant(b, 7))
    five = index_constant(b, 5)
    two = index_constant(b, 2)
    kk = mul(b, k, k)
    first = mul(b, five, add(b, kk, k))
    largest = b.insert(arith.MaxUIOp(m, n)).result
    second = add(b, mul(b, two, add(b, mul(b, largest, k), kk)), k)
    return b.insert(arith.MaxUIOp(first, second)).result


# --- qr -----------------------------------------------------------------------------------
def _lower_qr(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?geqrf per matrix, r from its upper triangle, then q by ?orgqr / ?ungqr."""
    b = bufferizer.builder
    kind = op.kind.data
    k = min_unsigned(b, s.m, s.n)
    q_columns = s.m if kind == "qr_complete" else k
    r_rows = s.m if kind == "qr_complete" else k
    r_out = _output(bufferizer, op.outputs[-1], [*s.batch, r_rows, s.n])
    q_out = None
    if kind != "qr_r":
        q_out = _output(bufferizer, op.outputs[0], [*s.batch, s.m, q_columns])
    columns = b.insert(arith.MaxUIOp(s.n, q_columns)).result
    af, tau = s.buffer(s.element, mul(b, s.m, columns)), s.buffer(s.element, k)
    lda, m32, k32, q32 = (as_i32(b, d) for d in (at_least_one(b, s.m), s.m, k, q_columns))
    factor = routine_name(s.letter, "geqrf")
    build_q = routine_name(s.letter, "orgqr")
    work = _Work(s)
    query = _i32_constant(b, -1)
    call(b, bufferizer.module, factor, [m32, s.n32, af, lda, tau, work.slot(s.element), query])
    if q_out is not None:
        q_slot = work.slot(s.element)
        call(b, bufferizer.module, build_q, [m32, q32, k32, af, lda, tau, q_slot, query])
    sizes = work.sizes()
    size = sizes[0] if q_out is None else b.insert(arith.MaxUIOp(sizes[0], sizes[1])).result
    work_buffer, lwork = s.buffer(s.element, size), as_i32(b, size)

    def one_matrix(b: Builder, batch: list[SSAValue]) -> None:
        copy_in(b, s.a, batch, s.m, s.n, af)
        call(b, bufferizer.module, factor, [m32, s.n32, af, lda, tau, work_buffer, lwork])
        copy_out(b, af, batch, r_rows, s.n, r_out, upper_only=True, lead=at_least_one(b, s.m))
        if q_out is not None:  # info < 0 only (a bad argument): never
            call(b, bufferizer.module, build_q, [m32, q32, k32, af, lda, tau, work_buffer, lwork])
            copy_out(b, af, batch, s.m, q_columns, q_out)

    loop_nest(b, s.batch, one_matrix)


# --- lstsq --------------------------------------------------------------------------------
def _lower_lstsq(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?gelsd of one matrix a [m, n] and right-hand sides b [m, k] (module docstring)."""
    b = bufferizer.builder
    real = component_type(s.element)
    rhs = bufferizer.values[op.inputs[1]]
    nrhs = bufferizer.dim(rhs, 1)
    rcond = load(b, bufferizer.values[op.inputs[2]], [])
    x_out = _output(bufferizer, op.outputs[0], [s.n, nrhs])
    residuals = _output(bufferizer, op.outputs[1], [nrhs])
    rank = _output(bufferizer, op.outputs[2], [])
    k = min_unsigned(b, s.m, s.n)
    values_out = _output(bufferizer, op.outputs[3], [k])
    ok = s.ok_flag(op.outputs[4])
    rows = at_least_one(b, b.insert(arith.MaxUIOp(s.m, s.n)).result)  # ldb
    af, sv = s.buffer(s.element, mul(b, s.m, s.n)), s.buffer(real, k)
    bf = s.buffer(s.element, mul(b, rows, nrhs))
    lda, ldb = as_i32(b, at_least_one(b, s.m)), as_i32(b, rows)
    head = [as_i32(b, s.m), s.n32, as_i32(b, nrhs), af, lda, bf, ldb, sv, rcond, rank]
    hermitian = isinstance(s.element, ComplexType)
    work = _Work(s)
    slots = [work.slot(s.element), *([work.slot(real)] if hermitian else []), work.slot(i32)]
    query = _i32_constant(b, -1)
    routine = routine_name(s.letter, "gelsd")
    call(b, bufferizer.module, routine, [*head, slots[0], query, *slots[1:]])
    sized = work.sized()
    arrays = [sized[0][0], sized[0][1], *(buffer for buffer, _ in sized[1:])]
    copy_in(b, s.a, [], s.m, s.n, af)
    _fill(b, bf, mul(b, rows, nrhs), 0.0)
    copy_in(b, rhs, [], s.m, nrhs, bf, lead=rows)
    and_ok(b, ok, call(b, bufferizer.module, routine, [*head, *arrays]))
    copy_out(b, bf, [], s.n, nrhs, x_out, lead=rows)
    _copy_vector(b, sv, k, values_out, [])
    _residuals(b, bf, rows, s.m, s.n, nrhs, residuals)


def _residuals(b, bf, rows, m, n, nrhs, target) -> None:
    """target[j] = sum of |bf[j * rows + i]|^2 over n <= i < m (0 when m <= n)."""
    real = target.type.get_element_type()
    one = index_constant(b, 1)

    def column(b: Builder, j: list[SSAValue]) -> None:
        def step(b: Builder, i: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
            value = load(b, bf, [column_major(b, i, j[0], rows)])
            parts = cx.split(b, value) if isinstance(value.type, ComplexType) else (value,)
            total = carried[0]
            for part in parts:
                square = b.insert(arith.MulfOp(part, part)).result
                total = b.insert(arith.AddfOp(total, square)).result
            return [total]

        zero = scalar.constant(b, 0.0, real)
        (total,) = for_loop(b, n, m, one, [zero], step)
        store(b, total, target, j)

    loop_nest(b, [nrhs], column)


DECOMPOSITIONS: dict[str, Lowering] = {
    "eigh": _lower_eigh, "eigvalsh": _lower_eigh,
    "svd": _lower_svd, "svd_complete": _lower_svd, "svdvals": _lower_svd,
    "qr": _lower_qr, "qr_complete": _lower_qr, "qr_r": _lower_qr,
    "lstsq": _lower_lstsq,
}  # fmt: skip
