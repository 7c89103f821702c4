"""Buffer form of `tj.linalg` (used by `bufferize`): per matrix of the stack, a column-major
copy, one LAPACK call, and a copy back.

LAPACK reads and writes matrices column-major and in place, so each matrix is copied into
a scratch buffer in Fortran order first, as NumPy's own linalg does (one copy per matrix; the
O(n^2) copies are small beside the O(n^3) factorizations). For "solve" of a `[..., n, n]`
stack `a` and `[..., n, k]` stack `b`:

    ok[] = true
    for each batch position p:                     (no loop for a single matrix)
      af[j * n + i] = a[p, i, j]                   i < n, j < n
      bf[j * n + i] = b[p, i, j]                   i < n, j < k
      %info = func.call @tracejit_lapack_dgesv(n, k, af, max(n, 1), ipiv, bf, max(n, 1))
      ok[] = ok[] and %info == 0                   info > 0: a singular matrix
      if %info != 0: bf[...] = NaN                 NumPy's x where its error is ignored
      x[p, i, j] = bf[j * n + i]

as NumPy's solve. ?gesv returns at once when k == 0, without factoring, where NumPy still
reports a singular `a`: a `b` of no columns, or of a number of columns unknown until run
time (an `scf.if` on k > 0), is factored by ?getrf instead. Not ?getrf + ?getrs: OpenBLAS
runs ?getrs on its threads whatever the size, and with the cores busy a 30x30 solve took
20-27 ms instead of 13 us (?gesv decides by the size, as its other routines). "inv" solves
against the identity (bf starts as I, as NumPy's inv). "cholesky"
factors af with ?potrf("L") and copies back its lower triangle, zeros above it (info > 0:
not positive definite). "slogdet" factors af with ?getrf and reads the determinant from
the diagonal of U and the row swaps (ipiv[i] != i + 1), as NumPy's umath_linalg does:

    sign = (-1)^swaps * prod(u_ii / |u_ii|),  logabsdet = sum(log |u_ii|)   (in order)
    and (0, -inf) when getrf reports a zero pivot (info > 0).

The scratch buffers (1-D, at least one element: LAPACK's leading dims are at least 1) are
allocated once for the whole stack. The calls follow ir/lapack_contract.py; the batch loop
is never run in parallel (parallelize leaves loops with calls alone).
"""

from __future__ import annotations

import math as math_module
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import ComplexType, IntegerAttr, ModuleOp, i32
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tracejit.ir import elementwise as ew
from tracejit.ir.dtypes import component_type
from tracejit.ir.linalg import LinalgOp
from tracejit.passes.bufferize.builder import FunctionBufferizer, Handler
from tracejit.passes.bufferize.cumulative import line_dims
from tracejit.passes.bufferize.lapack_calls import (
    Stack,
    and_ok,
    as_i32,
    batch_sizes,
    call,
    character,
    column_major,
    copy_in,
    copy_out,
)
from tracejit.passes.bufferize.lapack_decompositions import DECOMPOSITIONS
from tracejit.passes.support import complex_semantics as cx
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.build import add, load, mul, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import for_loop, loop_nest


def lower_linalg(bufferizer: FunctionBufferizer, op: LinalgOp) -> None:
    _LOWERINGS[op.kind.data](bufferizer, op, Stack(bufferizer, op))


def _lower_solve(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?gesv per matrix: "solve" against b, "inv" against the identity."""
    inverse = op.kind.data == "inv"
    b_source = None if inverse else bufferizer.values[op.inputs[1]]
    rhs = s.a if inverse else b_source
    assert rhs is not None
    rhs_dims, rhs_sizes = line_dims(bufferizer, rhs)
    k = rhs_dims[-1]
    x = bufferizer.destination(op.outputs[0], rhs_sizes)
    bufferizer.values[op.outputs[0]] = x
    ok = s.ok_flag(op.outputs[1])
    af, bf = s.scratch(s.element, s.n), s.scratch(s.element, k)
    ipiv = s.scratch(i32, index_constant(bufferizer.builder, 1))
    k32 = as_i32(bufferizer.builder, k)

    def one_matrix(b: Builder, batch: list[SSAValue]) -> None:
        copy_in(b, s.a, batch, s.n, s.n, af)
        if inverse:
            _identity(b, bf, s.n, s.element)
        else:
            copy_in(b, b_source, batch, s.n, k, bf)
        factor = [s.n32, s.n32, af, s.lead32, ipiv]
        solve = [s.n32, k32, af, s.lead32, ipiv, bf, s.lead32]
        if inverse or _static(k, lambda columns: columns > 0):
            info = call(b, bufferizer.module, s.letter + "gesv", solve)
        else:
            info = _gesv_or_getrf(b, bufferizer.module, s.letter, k, solve, factor)
        and_ok(b, ok, info)
        _nan_unless_solved(b, info, bf, s.n, k, s.element)
        copy_out(b, bf, batch, s.n, k, x)

    loop_nest(bufferizer.builder, s.batch, one_matrix)


def _static(value: SSAValue, holds: Callable[[int], bool]) -> bool:
    """Whether `value` is an index constant for which `holds` is true."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        return False
    return holds(owner.value.value.data)


def _gesv_or_getrf(
    b: Builder, module: ModuleOp, letter: str, k: SSAValue,
    solve: list[SSAValue], factor: list[SSAValue],
) -> SSAValue:  # fmt: skip
    """?gesv's info, or ?getrf's when b has no columns: ?gesv then returns without factoring
    a, whose singularity NumPy still reports."""
    has_columns = b.insert(arith.CmpiOp(k, index_constant(b, 0), "ugt")).result
    solved, factored = (
        _yielding_call(module, letter + routine, args)
        for routine, args in (("gesv", solve), ("getrf", factor))
    )
    return b.insert(scf.IfOp(has_columns, [i32], solved, factored)).results[0]


def _yielding_call(module: ModuleOp, routine: str, args: list[SSAValue]) -> Region:
    """A region calling `routine` and yielding its info."""
    block = Block()
    inner = Builder(InsertPoint.at_end(block))
    inner.insert(scf.YieldOp(call(inner, module, routine, args)))
    return Region(block)


def _nan_unless_solved(
    b: Builder, info: SSAValue, bf: SSAValue, n: SSAValue, k: SSAValue, element: Attribute
) -> None:
    """x = NaN for a singular matrix (info != 0), as NumPy's solve and inv leave it where
    the error is ignored (np.linalg.cond's inverse): ?gesv then leaves b unsolved."""
    failed = b.insert(arith.CmpiOp(info, scalar.constant(b, 0, i32), "ne")).result
    block = Block()
    inner = Builder(InsertPoint.at_end(block))
    value: float | complex = math_module.nan
    if isinstance(element, ComplexType):  # NaN in both parts, as NumPy's
        value = complex(value, value)
    nan = scalar.constant(inner, value, element)

    def body(b: Builder, ij: list[SSAValue]) -> None:
        store(b, nan, bf, [column_major(b, ij[0], ij[1], n)])

    loop_nest(inner, [n, k], body)
    inner.insert(scf.YieldOp())
    b.insert(scf.IfOp(failed, [], Region(block), Region(Block([scf.YieldOp()]))))


def _identity(b: Builder, scratch: SSAValue, n: SSAValue, element: Attribute) -> None:
    one, zero = scalar.constant(b, 1, element), scalar.constant(b, 0, element)

    def body(b: Builder, ij: list[SSAValue]) -> None:
        i, j = ij
        diagonal = b.insert(arith.CmpiOp(i, j, "eq")).result
        store(b, scalar.emit_select(b, diagonal, one, zero), scratch, [column_major(b, i, j, n)])

    loop_nest(b, [n, n], body)


def _lower_cholesky(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?potrf("L") per matrix; the lower triangle back, zeros above."""
    result = bufferizer.destination(op.outputs[0], s.a_sizes)
    bufferizer.values[op.outputs[0]] = result
    ok = s.ok_flag(op.outputs[1])
    af = s.scratch(s.element, s.n)
    lower = character(bufferizer.builder, "L")

    def one_matrix(b: Builder, batch: list[SSAValue]) -> None:
        copy_in(b, s.a, batch, s.n, s.n, af)
        info = call(b, bufferizer.module, s.letter + "potrf", [lower, s.n32, af, s.lead32])
        and_ok(b, ok, info)
        copy_out(b, af, batch, s.n, s.n, result, lower_only=True)

    loop_nest(bufferizer.builder, s.batch, one_matrix)


def _lower_slogdet(bufferizer: FunctionBufferizer, op: LinalgOp, s: Stack) -> None:
    """?getrf per matrix; sign and log|det| from U's diagonal and the row swaps."""
    sizes = batch_sizes(s)
    sign_out = bufferizer.destination(op.outputs[0], sizes)
    log_out = bufferizer.destination(op.outputs[1], sizes)
    bufferizer.values[op.outputs[0]], bufferizer.values[op.outputs[1]] = sign_out, log_out
    af = s.scratch(s.element, s.n)
    ipiv = s.scratch(i32, index_constant(bufferizer.builder, 1))

    def one_matrix(b: Builder, batch: list[SSAValue]) -> None:
        copy_in(b, s.a, batch, s.n, s.n, af)
        args = [s.n32, s.n32, af, s.lead32, ipiv]
        info = call(b, bufferizer.module, s.letter + "getrf", args)
        sign, log = _determinant(b, af, ipiv, s.n, s.element)
        zero = b.insert(arith.ConstantOp(IntegerAttr(0, i32))).result
        regular = b.insert(arith.CmpiOp(info, zero, "eq")).result
        part = component_type(s.element)
        sign = scalar.emit_select(b, regular, sign, scalar.constant(b, 0, s.element))
        log = scalar.emit_select(b, regular, log, scalar.constant(b, float("-inf"), part))
        store(b, sign, sign_out, batch)
        store(b, log, log_out, batch)

    loop_nest(bufferizer.builder, s.batch, one_matrix)


def _determinant(
    b: Builder, lu: SSAValue, ipiv: SSAValue, n: SSAValue, element: Attribute
) -> tuple[SSAValue, SSAValue]:
    """(sign, log|det|) of getrf's factors, in NumPy's order (module docstring)."""
    part = component_type(element)
    zero, one = index_constant(b, 0), index_constant(b, 1)
    stride = add(b, n, one)

    def step(b: Builder, i: SSAValue, carried: Sequence[SSAValue]) -> Sequence[SSAValue]:
        sign, log = carried
        pivot = load(b, ipiv, [i])
        i_plus_one = as_i32(b, add(b, i, one))
        swapped = b.insert(arith.CmpiOp(pivot, i_plus_one, "ne")).result
        flipped = scalar.emit_select(b, swapped, _negate(b, sign, element), sign)
        u = load(b, lu, [mul(b, i, stride)])
        magnitude, direction = _polar(b, u, element)
        sign = _times(b, flipped, direction, element)
        log = b.insert(arith.AddfOp(log, b.insert(math.LogOp(magnitude)).result)).result
        return [sign, log]

    initial = [scalar.constant(b, 1, element), scalar.constant(b, 0.0, part)]
    sign, log = for_loop(b, zero, n, one, initial, step)
    return sign, log


def _negate(b: Builder, x: SSAValue, element: Attribute) -> SSAValue:
    return scalar.emit_scalar(b, ew.NegOp, [x], element)


def _polar(b: Builder, u: SSAValue, element: Attribute) -> tuple[SSAValue, SSAValue]:
    """(|u|, u / |u|): for a real u, -u and -1 when u < 0 (NumPy's test), else u and 1."""
    if isinstance(element, ComplexType):
        re, im = cx.split(b, u)
        part = element.element_type
        magnitude = scalar.emit_scalar(b, ew.HypotOp, [re, im], part)
        unit = (
            b.insert(arith.DivfOp(re, magnitude)).result,
            b.insert(arith.DivfOp(im, magnitude)).result,
        )
        return magnitude, cx.pack(b, unit, element)
    negative = b.insert(arith.CmpfOp(u, scalar.constant(b, 0.0, element), "olt")).result
    magnitude = scalar.emit_select(b, negative, b.insert(arith.NegfOp(u)).result, u)
    direction = scalar.emit_select(
        b, negative, scalar.constant(b, -1.0, element), scalar.constant(b, 1.0, element)
    )
    return magnitude, direction


def _times(b: Builder, x: SSAValue, y: SSAValue, element: Attribute) -> SSAValue:
    """x * y; complex as (ac - bd, ad + bc), NumPy's `mult`."""
    if not isinstance(element, ComplexType):
        return b.insert(arith.MulfOp(x, y)).result
    (xr, xi), (yr, yi) = cx.split(b, x), cx.split(b, y)

    def f(op: type[Operation], *args: SSAValue) -> SSAValue:
        return b.insert(op(*args)).results[0]

    re = f(arith.SubfOp, f(arith.MulfOp, xr, yr), f(arith.MulfOp, xi, yi))
    im = f(arith.AddfOp, f(arith.MulfOp, xr, yi), f(arith.MulfOp, xi, yr))
    return cx.pack(b, (re, im), element)


_LOWERINGS = {
    **DECOMPOSITIONS,
    "solve": _lower_solve,
    "inv": _lower_solve,
    "cholesky": _lower_cholesky,
    "slogdet": _lower_slogdet,
}

LAPACK_HANDLERS: dict[type[Operation], Handler] = {LinalgOp: lower_linalg}
