"""export-linalg: the tensor-level `tj` module as upstream MLIR dialects only.

Input: a module after the tensor-level passes (`tracejit-opt --emit linalg` runs them
through `fuse-elementwise` first). Output: `func`, `linalg` on tensors (`linalg.generic`,
`linalg.fill`), `tensor` (`empty`, `extract_slice`, `insert_slice`, `collapse_shape`,
`expand_shape`, `extract`), `arith`, `math` and `scf` (for `tj.if` / `tj.while`), which
upstream tools (`mlir-opt`, `iree-compile`) take from there.

Every element-wise op becomes a `linalg.generic` whose body is the op's scalar form from
`passes/support/scalar_semantics.py`, the very code `bufferize` puts in tracejit's own
loops: NumPy's semantics (floor division, the sign of a remainder, NaN in max/min,
shifts past the width) travel with it. A `tj.fused` kernel is exported op by op (upstream
linalg fusion can fuse them again). Unsigned integers become signless `iN` (the scalar
forms pick the unsigned arith ops), bool is `i1`.

What has no upstream form here is refused with an `ExportError` naming the op and its
source line: dims unknown at trace time, complex numbers, `tj.print` / `tj.assert` /
Variables / TensorArrays / callbacks (side effects or runtime state), sort, nonzero.
Indices (`tj.to_index`, `tj.gather`, `tj.scatter`) are clamped into their dim where
tracejit would fail the call: an export cannot raise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, math, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    ComplexType,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f16,
    f32,
    i1,
    i8,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tracejit.ir import control_flow as cf_ops
from tracejit.ir import elementwise as ew
from tracejit.ir import shape_ops, update
from tracejit.ir.constant import ConstantOp
from tracejit.ir.cumulative import CumulativeOp
from tracejit.ir.dense import array_from_dense, dense_from_array
from tracejit.ir.dtypes import element_of, is_bool, is_float, is_unsigned
from tracejit.ir.fused import FusedOp
from tracejit.ir.indexing import GatherOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shaped import shaped_type
from tracejit.passes.support import scalar_semantics as scalar

PARALLEL = IteratorTypeAttr.parallel()
REDUCTION = IteratorTypeAttr.reduction()


class ExportError(ValueError):
    """A tj op (or type) with no upstream form; the message names it and its source line."""


def _where(op: Operation) -> str:
    from xdsl.dialects.builtin import FileLineColLoc

    loc = op.location
    if isinstance(loc, FileLineColLoc):
        return f" at {loc.filename.data}:{loc.line.data}"
    return ""


def refuse(op: Operation, why: str) -> ExportError:
    name = f"'{op.name}' @{op.sym_name.data}" if isinstance(op, func.FuncOp) else f"'{op.name}'"
    return ExportError(f"{name}{_where(op)} has no upstream MLIR form in export-linalg: {why}")


def upstream_type(t: Attribute, op: Operation) -> Attribute:
    """The upstream type of a tj value type: static shape, signless integers."""
    if not isinstance(t, TensorType):
        return t
    element = t.get_element_type()
    if isinstance(element, ComplexType):
        raise refuse(op, f"complex tensors ({t}) are not exported")
    if DYNAMIC_INDEX in t.get_shape():
        raise refuse(op, f"dims unknown at trace time ({t}); trace with concrete shapes")
    return TensorType(scalar.signless(element), t.get_shape())


def shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def identity(rank: int) -> AffineMapAttr:
    return AffineMapAttr(AffineMap.identity(rank))


def affine(rank: int, results: Sequence[AffineExpr]) -> AffineMapAttr:
    return AffineMapAttr(AffineMap(rank, 0, tuple(results)))


@dataclass
class Exporter:
    """Builds the upstream form of one function's ops; `values` maps tj values to theirs."""

    builder: Builder
    values: dict[SSAValue, SSAValue]

    def get(self, value: SSAValue) -> SSAValue:
        return self.values[value]

    def insert(self, op: Operation) -> Operation:
        return self.builder.insert(op)

    # --- building blocks --------------------------------------------------------------
    def empty(self, ttype: Attribute) -> SSAValue:
        return self.insert(tensor.EmptyOp([], ttype)).results[0]

    def filled(self, ttype: TensorType, value: float | int, tj_element: Attribute) -> SSAValue:
        """A tensor of `ttype` holding `value` everywhere (`linalg.fill`)."""
        scalar_value = scalar.constant(self.builder, value, tj_element)
        init = self.empty(ttype)
        return self.insert(FillOp([scalar_value], [init], [ttype])).results[0]

    def generic(
        self,
        inputs: Sequence[SSAValue],
        init: SSAValue,
        maps: Sequence[AffineMapAttr],
        iterators: Sequence[Attribute],
        body: Callable[[Builder, Sequence[SSAValue], SSAValue], SSAValue],
    ) -> SSAValue:
        """A `linalg.generic` with one result; `body(builder, input scalars, accumulator)`."""
        elements = [shaped_type(v).get_element_type() for v in (*inputs, init)]
        block = Block(arg_types=elements)
        inner = Builder(InsertPoint.at_end(block))
        yielded = body(inner, block.args[: len(inputs)], block.args[-1])
        inner.insert(YieldOp(yielded))
        op = GenericOp(inputs, [init], Region(block), maps, iterators, [init.type])
        return self.insert(op).results[0]

    def parallel(self, op: Operation, inputs: Sequence[SSAValue], body) -> SSAValue:
        """An element-wise generic computing `op`'s result from same-shaped `inputs`."""
        result_type = upstream_type(op.results[0].type, op)
        rank = len(shape(op.results[0]))
        maps = [identity(rank)] * (len(inputs) + 1)
        init = self.empty(result_type)
        return self.generic(inputs, init, maps, [PARALLEL] * rank, body)

    def index(self, value: int) -> SSAValue:
        return self.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).results[0]


# --- the op forms --------------------------------------------------------------------------
Form = Callable[[Exporter, Operation], Sequence[SSAValue]]


def _elementwise(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    if any(isinstance(element_of(v), ComplexType) for v in (*op.operands, *op.results)):
        raise refuse(op, "complex numbers are not exported")
    inputs = [ex.get(v) for v in op.operands]
    return [ex.parallel(op, inputs, lambda b, args, _acc: scalar.emit_op(b, op, args))]


def _constant(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, ConstantOp)
    array = array_from_dense(op.value)
    ttype = upstream_type(op.result.type, op)
    assert isinstance(ttype, TensorType)
    if array.dtype.kind == "u":  # signless storage of the same bits
        array = array.view(array.dtype.str.replace("u", "i"))
    if is_bool(element_of(op.result)):
        return [_bool_constant(ex, array, ttype)]
    return [ex.insert(arith.ConstantOp(dense_from_array(array))).results[0]]


def _bool_constant(ex: Exporter, array: np.ndarray, ttype: TensorType) -> SSAValue:
    """A bool constant as `i8` data compared with 0: how upstream stores `i1` elements in
    hex form is not how xDSL prints them, and a comparison is unambiguous."""
    if array.size and (array == array.flat[0]).all():
        splat = ex.insert(arith.ConstantOp(IntegerAttr(int(array.flat[0]), i1))).results[0]
        init = ex.empty(ttype)
        return ex.insert(FillOp([splat], [init], [ttype])).results[0]
    data = ex.insert(arith.ConstantOp(dense_from_array(array.astype(np.int8)))).results[0]
    rank = array.ndim

    def body(b: Builder, args: Sequence[SSAValue], _acc: SSAValue) -> SSAValue:
        zero = b.insert(arith.ConstantOp(IntegerAttr(0, i8))).results[0]
        return b.insert(arith.CmpiOp(args[0], zero, "ne")).results[0]

    init = ex.empty(ttype)
    return ex.generic([data], init, [identity(rank)] * 2, [PARALLEL] * rank, body)


def _copy(b: Builder, args: Sequence[SSAValue], _acc: SSAValue) -> SSAValue:
    return args[0]


def _broadcast(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, shape_ops.BroadcastInDimOp)
    source, target = shape(op.operand), shape(op.result)
    dims = list(op.dims.get_values())
    reads: list[AffineExpr] = []
    for i, d in enumerate(dims):
        repeated = source[i] == 1 and target[d] != 1
        reads.append(AffineConstantExpr(0) if repeated else AffineDimExpr(d))
    rank = len(target)
    init = ex.empty(upstream_type(op.result.type, op))
    maps = [affine(rank, reads), identity(rank)]
    return [ex.generic([ex.get(op.operand)], init, maps, [PARALLEL] * rank, _copy)]


def _transpose(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, shape_ops.TransposeOp)
    permutation = list(op.permutation.get_values())  # result dim j is operand dim perm[j]
    rank = len(permutation)
    reads = [AffineDimExpr(permutation.index(i)) for i in range(rank)]
    init = ex.empty(upstream_type(op.result.type, op))
    maps = [affine(rank, reads), identity(rank)]
    return [ex.generic([ex.get(op.operand)], init, maps, [PARALLEL] * rank, _copy)]


def _reshape(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    """Collapse to 1-d, then expand: any reshape of a row-major array (a 0-d side is
    one collapse or one expand with no dim groups)."""
    assert isinstance(op, shape_ops.ReshapeOp)
    source, target = shape(op.operand), shape(op.result)
    value = ex.get(op.operand)
    if source == target:
        return [value]
    element = shaped_type(value).get_element_type()
    if not target:
        return [_collapse(ex, value, TensorType(element, []), [])]
    if not source:
        return [_expand(ex, value, TensorType(element, target), [])]
    flat = TensorType(element, [int(np.prod(source))])
    if len(source) > 1:
        value = _collapse(ex, value, flat, [list(range(len(source)))])
    if len(target) > 1:
        value = _expand(ex, value, TensorType(element, target), [list(range(len(target)))])
    return [value]


def _groups(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])


def _collapse(ex: Exporter, value: SSAValue, ttype: TensorType, groups) -> SSAValue:
    op = tensor.CollapseShapeOp(
        operands=[value], result_types=[ttype], properties={"reassociation": _groups(groups)}
    )
    return ex.insert(op).results[0]


def _expand(ex: Exporter, value: SSAValue, ttype: TensorType, groups) -> SSAValue:
    target = list(ttype.get_shape())
    expand = tensor.ExpandShapeOp(value, [], _groups(groups), target, ttype)  # type: ignore[arg-type]  # the upstream op's stub
    return ex.insert(expand).results[0]


def _offsets(ex: Exporter, op: Operation, start: Sequence[int], dynamic: Sequence[SSAValue]):
    """Static starts as ints, `?` starts as the exported index values, in order."""
    pending = iter(dynamic)
    return [ex.get(next(pending)) if s == DYNAMIC_INDEX else s for s in start]


def _slice(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, shape_ops.SliceOp)
    start, step = list(op.start.get_values()), list(op.step.get_values())
    if op.sizes:
        raise refuse(op, "a window of a size unknown at trace time")
    result_type = upstream_type(op.result.type, op)
    if 0 in shape(op.result):  # an empty window: its start may be the dim's end
        return [ex.empty(result_type)]
    if any(s < 0 for s in step):
        return [_reversed_slice(ex, op, start, step, result_type)]
    offsets = _offsets(ex, op, start, op.starts)
    sizes = list(shape(op.result))
    extract = tensor.ExtractSliceOp(ex.get(op.operand), offsets, sizes, step, result_type)
    return [ex.insert(extract).results[0]]


def _reversed_slice(ex, op, start, step, result_type) -> SSAValue:
    """A window with a negative step: a generic reading `start + i * step`."""
    if DYNAMIC_INDEX in start:
        raise refuse(op, "a negative step from a start unknown at trace time")
    rank = len(start)
    reads = [AffineDimExpr(i) * step[i] + start[i] for i in range(rank)]
    init = ex.empty(result_type)
    maps = [affine(rank, reads), identity(rank)]
    return ex.generic([ex.get(op.operand)], init, maps, [PARALLEL] * rank, _copy)


def _insert_slice(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, update.InsertSliceOp)
    step = list(op.step.get_values())
    dest = ex.get(op.dest)
    sizes = list(shape(op.source))
    if 0 in sizes:  # an empty window changes nothing
        return [dest]
    start = list(op.start.get_values())
    source = ex.get(op.source)
    if any(s < 0 for s in step):
        if DYNAMIC_INDEX in start:
            raise refuse(op, "a write through a negative step from a start unknown at trace time")
        # positions start, start - k, ...: the same as the reversed source written upward
        source = _reversed(ex, source, [s < 0 for s in step])
        start = [
            b + (n - 1) * s if s < 0 else b for b, n, s in zip(start, sizes, step, strict=True)
        ]
        step = [abs(s) for s in step]
    offsets = _offsets(ex, op, start, op.starts)
    return [_insert(ex, source, dest, offsets, sizes, step)]


def _reversed(ex: Exporter, value: SSAValue, flip: Sequence[bool]) -> SSAValue:
    """`value` read backwards along the dims where `flip` is true."""
    sizes = shape(value)
    rank = len(sizes)
    reads = [
        AffineDimExpr(d) * -1 + (sizes[d] - 1) if flip[d] else AffineDimExpr(d) for d in range(rank)
    ]
    maps = [affine(rank, reads), identity(rank)]
    return ex.generic([value], ex.empty(value.type), maps, [PARALLEL] * rank, _copy)


def _insert(ex, source, dest, offsets, sizes, strides) -> SSAValue:
    def parts(values):
        static = [DYNAMIC_INDEX if isinstance(v, SSAValue) else v for v in values]
        return [v for v in values if isinstance(v, SSAValue)], static

    dyn_offsets, static_offsets = parts(offsets)
    insert = tensor.InsertSliceOp.build(
        operands=[source, dest, dyn_offsets, [], []],
        result_types=[dest.type],
        properties={
            "static_offsets": _i64_array(static_offsets),
            "static_sizes": _i64_array(sizes),
            "static_strides": _i64_array(strides),
        },
    )
    return ex.insert(insert).results[0]


def _i64_array(values: Sequence[int]):
    from xdsl.dialects.builtin import DenseArrayBase

    return DenseArrayBase.from_list(i64, [int(v) for v in values])


def _concat(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, shape_ops.ConcatOp)
    axis = op.axis.value.data
    result = ex.empty(upstream_type(op.result.type, op))
    offset = 0
    for part in op.inputs:
        sizes = list(shape(part))
        if 0 not in sizes:
            offsets = [offset if i == axis else 0 for i in range(len(sizes))]
            result = _insert(ex, ex.get(part), result, offsets, sizes, [1] * len(sizes))
        offset += sizes[axis]
    return [result]


def _pad(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, shape_ops.PadOp)
    low = list(op.low.get_values())
    if any(v < 0 for v in (*low, *op.high.get_values())):
        raise refuse(op, "a negative pad width")
    target = shape(op.result)
    rank = len(target)
    init = ex.empty(upstream_type(op.result.type, op))
    maps = [affine(rank, []), identity(rank)]  # the 0-d pad value, everywhere
    filled = ex.generic([ex.get(op.value)], init, maps, [PARALLEL] * rank, _copy)
    sizes = list(shape(op.operand))
    if 0 in sizes:
        return [filled]
    return [_insert(ex, ex.get(op.operand), filled, low, sizes, [1] * rank)]


def _reduce(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, ReduceOp)
    kind = op.kind.data
    if kind in ReduceOp.INDEX_KINDS:
        return [_arg_reduce(ex, op, kind)]
    if kind not in scalar.REDUCTION_COMBINERS:
        raise refuse(op, f"the '{kind}' reduction")
    element = element_of(op.input)
    if isinstance(element, ComplexType):
        raise refuse(op, "complex numbers are not exported")
    axes = set(op.axes.get_values())
    rank = len(shape(op.input))
    kept = [AffineDimExpr(d) for d in range(rank) if d not in axes]
    result_type = upstream_type(op.result.type, op)
    assert isinstance(result_type, TensorType)
    init = ex.filled(result_type, scalar.reduction_identity(kind, element), element)
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(rank)]

    def body(b: Builder, args: Sequence[SSAValue], acc: SSAValue) -> SSAValue:
        return scalar.emit_combiner(b, kind, acc, args[0], element)

    maps = [identity(rank), affine(rank, kept)]
    return [ex.generic([ex.get(op.input)], init, maps, iterators, body)]


def _arg_reduce(ex: Exporter, op: ReduceOp, kind: str) -> SSAValue:
    """argmax/argmin over `axes` (flattened in order): one generic carrying the best
    value and its index. NumPy's rules: the first of equal values wins (a strict
    comparison, the loops run in order), and a NaN beats everything (the first NaN)."""
    element = element_of(op.input)
    if isinstance(element, ComplexType):
        raise refuse(op, "complex numbers are not exported")
    source = shape(op.input)
    axes = list(op.axes.get_values())
    rank = len(source)
    kept = [AffineDimExpr(d) for d in range(rank) if d not in axes]
    index_type = upstream_type(op.result.type, op)
    assert isinstance(index_type, TensorType)
    value_type = TensorType(scalar.signless(element), index_type.get_shape())
    extreme = "max" if kind == "argmax" else "min"
    start = scalar.reduction_identity(extreme, element)
    if is_bool(element):  # False is below and True above every bool
        start = 0 if kind == "argmax" else 1
    best = ex.filled(value_type, start, element)
    where = ex.filled(index_type, 0, i64)
    strides = [int(np.prod([source[a] for a in axes[k + 1 :]])) for k in range(len(axes))]

    block = Block(arg_types=[value_type.get_element_type(), value_type.get_element_type(), i64])
    b = Builder(InsertPoint.at_end(block))
    x, acc, acc_index = block.args
    flat = scalar.constant(b, 0, i64)
    for axis, stride in zip(axes, strides, strict=True):
        position = b.insert(IndexOp(axis)).results[0]
        position = b.insert(arith.IndexCastOp(position, i64)).results[0]
        scaled = b.insert(arith.MuliOp(position, scalar.constant(b, stride, i64))).results[0]
        flat = b.insert(arith.AddiOp(flat, scaled)).results[0]
    predicate = "gt" if kind == "argmax" else "lt"
    better = scalar.emit_compare(b, predicate, x, acc, element)
    if is_float(element):  # a NaN beats a number; the first NaN stays
        x_nan = b.insert(arith.CmpfOp(x, x, "uno")).results[0]
        acc_number = b.insert(arith.CmpfOp(acc, acc, "ord")).results[0]
        nan_wins = b.insert(arith.AndIOp(x_nan, acc_number)).results[0]
        better = b.insert(arith.OrIOp(better, nan_wins)).results[0]
    new_best = b.insert(arith.SelectOp(better, x, acc)).results[0]
    new_index = b.insert(arith.SelectOp(better, flat, acc_index)).results[0]
    b.insert(YieldOp(new_best, new_index))
    maps = [identity(rank), affine(rank, kept), affine(rank, kept)]
    iterators = [REDUCTION if d in axes else PARALLEL for d in range(rank)]
    generic = GenericOp(
        [ex.get(op.input)], [best, where], Region(block), maps, iterators, [value_type, index_type]
    )
    return ex.insert(generic).results[1]


def _cumulative(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    """A running sum or product as an `scf.for` along the axis carrying the last slice:
    each element combined in NumPy's order (a scan must not be reassociated)."""
    assert isinstance(op, CumulativeOp)
    element = element_of(op.input)
    if isinstance(element, ComplexType):
        raise refuse(op, "complex numbers are not exported")
    sizes = shape(op.input)
    axis = op.axis.value.data
    result_type = upstream_type(op.result.type, op)
    if 0 in sizes:
        return [ex.empty(result_type)]
    source = ex.get(op.input)
    step_sizes = [1 if d == axis else n for d, n in enumerate(sizes)]
    slice_type = TensorType(scalar.signless(element), step_sizes)
    ones = [1] * len(sizes)

    def at(k: SSAValue | int) -> list:
        return [k if d == axis else 0 for d in range(len(sizes))]

    first = ex.insert(tensor.ExtractSliceOp(source, at(0), step_sizes, ones, slice_type))
    result = _insert(ex, first.results[0], ex.empty(result_type), at(0), step_sizes, ones)
    body = Block(arg_types=[IndexType(), result_type, slice_type])
    inner = Exporter(Builder(InsertPoint.at_end(body)), ex.values)
    k, partial, running = body.args
    piece = inner.insert(tensor.ExtractSliceOp(source, at(k), step_sizes, ones, slice_type))
    combine = op.combiner()
    rank = len(sizes)

    def step(b: Builder, args: Sequence[SSAValue], _acc: SSAValue) -> SSAValue:
        return scalar.emit_scalar(b, combine, args, element)

    maps = [identity(rank)] * 3
    combined = inner.generic(
        [running, piece.results[0]], inner.empty(slice_type), maps, [PARALLEL] * rank, step
    )
    updated = _insert(inner, combined, partial, at(k), step_sizes, ones)
    inner.insert(scf.YieldOp(updated, combined))
    loop = scf.ForOp(
        ex.index(1), ex.index(sizes[axis]), ex.index(1), [result, first.results[0]], body
    )
    return [ex.insert(loop).results[0]]


def _matmul(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    """`lhs @ rhs` with NumPy's shapes: loops (batch..., m?, n?, k), k the reduction."""
    assert isinstance(op, MatmulOp)
    element = element_of(op.result)
    if isinstance(element, ComplexType) or is_bool(element):
        raise refuse(op, f"a matmul of {element} elements")
    lhs, rhs, out = shape(op.lhs), shape(op.rhs), shape(op.result)
    has_m, has_n = len(lhs) > 1, len(rhs) > 1
    batch = len(out) - has_m - has_n
    rank = len(out) + 1
    k = AffineDimExpr(rank - 1)
    m = [AffineDimExpr(batch)] if has_m else []
    n = [AffineDimExpr(batch + has_m)] if has_n else []
    lhs_reads = _batch_reads(lhs[:-2], out[:batch]) + m + [k]
    rhs_reads = _batch_reads(rhs[:-2], out[:batch]) + [k] + n
    result_type = upstream_type(op.result.type, op)
    assert isinstance(result_type, TensorType)
    maps = [
        affine(rank, lhs_reads),
        affine(rank, rhs_reads),
        affine(rank, list(map(AffineDimExpr, range(len(out))))),
    ]
    iterators = [PARALLEL] * len(out) + [REDUCTION]
    operands = [ex.get(op.lhs), ex.get(op.rhs)]
    if element == f16:
        return [_half_matmul(ex, operands, result_type, maps, iterators)]
    init = ex.filled(result_type, 0, element)

    def body(b: Builder, args: Sequence[SSAValue], acc: SSAValue) -> SSAValue:
        product = scalar.emit_scalar(b, ew.MulOp, args, element)
        return scalar.emit_combiner(b, "sum", acc, product, element)

    return [ex.generic(operands, init, maps, iterators, body)]


def _half_matmul(
    ex: Exporter,
    operands: Sequence[SSAValue],
    result_type: TensorType,
    maps: Sequence[AffineMapAttr],
    iterators: Sequence[Attribute],
) -> SSAValue:
    """A float16 matmul as NumPy (and bufferize) computes it: the products widened to
    float32 and summed in k order (no `reassoc`) from 0 in a float32 tensor, which is then
    rounded to float16 once."""
    shape = result_type.get_shape()
    wide = ex.filled(TensorType(f32, shape), 0, f32)

    def body(b: Builder, args: Sequence[SSAValue], acc: SSAValue) -> SSAValue:
        x, y = (b.insert(arith.ExtFOp(v, f32)).result for v in args)
        return b.insert(arith.AddfOp(acc, b.insert(arith.MulfOp(x, y)).result)).result

    total = ex.generic(operands, wide, maps, iterators, body)
    rank = len(shape)
    return ex.generic(
        [total],
        ex.empty(result_type),
        [identity(rank)] * 2,
        [PARALLEL] * rank,
        lambda b, args, _: b.insert(arith.TruncFOp(args[0], f16)).result,
    )


def _batch_reads(operand_batch: Sequence[int], out_batch: Sequence[int]) -> list[AffineExpr]:
    """An operand's batch dims, aligned right with the result's; size 1 is broadcast."""
    skip = len(out_batch) - len(operand_batch)
    return [
        AffineConstantExpr(0) if size == 1 and out_batch[skip + i] != 1 else AffineDimExpr(skip + i)
        for i, size in enumerate(operand_batch)
    ]


def _normalized_index(b: Builder, value: SSAValue, tj_element: Attribute, size: int) -> SSAValue:
    """A NumPy index (negatives count from the end) as an `index` in `[0, size)`.

    tracejit checks the range at run time and fails the call; the export cannot fail a
    call, so an index out of range is clamped into the dim (it never reads outside)."""
    signless_type = value.type
    width = signless_type.width.data  # type: ignore[attr-defined]  # an integer type
    wide = value
    if width < 64:
        cast = arith.ExtUIOp if is_unsigned(tj_element) else arith.ExtSIOp
        wide = b.insert(cast(value, i64)).results[0]
    n = b.insert(arith.ConstantOp(IntegerAttr(size, i64))).results[0]
    zero = b.insert(arith.ConstantOp(IntegerAttr(0, i64))).results[0]
    last = b.insert(arith.ConstantOp(IntegerAttr(max(size - 1, 0), i64))).results[0]
    if not is_unsigned(tj_element):
        negative = b.insert(arith.CmpiOp(wide, zero, "slt")).results[0]
        shifted = b.insert(arith.AddiOp(wide, n)).results[0]
        wide = b.insert(arith.SelectOp(negative, shifted, wide)).results[0]
        wide = b.insert(arith.MaxSIOp(wide, zero)).results[0]
    wide = b.insert(arith.MinUIOp(wide, last)).results[0]
    return b.insert(arith.IndexCastOp(wide, IndexType())).results[0]


def _to_index(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, update.ToIndexOp)
    size = op.get_size()
    if size < 0:
        raise refuse(op, "an index into a dim unknown at trace time")
    source = ex.get(op.input)
    element = shaped_type(source).get_element_type()
    value = ex.insert(tensor.ExtractOp(source, [], element)).results[0]
    return [_normalized_index(ex.builder, value, element_of(op.input), size)]


def _gather(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    """`np.take(x, idx, axis)`: a generic over the result reading the index, then the
    element with `tensor.extract` (the source is read from above the body)."""
    assert isinstance(op, GatherOp)
    axis = op.axis.value.data
    source_shape, index_shape = shape(op.input), shape(op.indices)
    result_type = upstream_type(op.result.type, op)
    rank = len(shape(op.result))
    index_rank = len(index_shape)
    index_reads = [AffineDimExpr(axis + i) for i in range(index_rank)]
    source = ex.get(op.input)
    element = result_type.get_element_type()  # type: ignore[attr-defined]  # a shaped type

    def body(b: Builder, args: Sequence[SSAValue], _acc: SSAValue) -> SSAValue:
        picked = _normalized_index(b, args[0], element_of(op.indices), source_shape[axis])
        loops = [b.insert(IndexOp(d)).results[0] for d in range(rank)]
        at = [*loops[:axis], picked, *loops[axis + index_rank :]]
        return b.insert(tensor.ExtractOp(source, at, element)).results[0]

    init = ex.empty(result_type)
    maps = [affine(rank, index_reads), identity(rank)]
    return [ex.generic([ex.get(op.indices)], init, maps, [PARALLEL] * rank, body)]


def _scatter(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    """`dest[indices[k]] = updates[k]` in order (the last of repeated indices wins): an
    `scf.for` over k inserting one element at a time."""
    assert isinstance(op, update.ScatterOp)
    count, size = shape(op.updates)[0], shape(op.dest)[0]
    dest = ex.get(op.dest)
    if count == 0 or size == 0:
        return [dest]
    element = shaped_type(dest).get_element_type()
    index_element = shaped_type(ex.get(op.indices)).get_element_type()
    body = Block(arg_types=[IndexType(), dest.type])
    inner = Exporter(Builder(InsertPoint.at_end(body)), ex.values)
    k, partial = body.args
    raw = inner.insert(tensor.ExtractOp(ex.get(op.indices), [k], index_element)).results[0]
    at = _normalized_index(inner.builder, raw, element_of(op.indices), size)
    value = inner.insert(tensor.ExtractOp(ex.get(op.updates), [k], element)).results[0]
    written = inner.insert(tensor.InsertOp(value, partial, [at])).results[0]
    inner.insert(scf.YieldOp(written))
    loop = scf.ForOp(ex.index(0), ex.index(count), ex.index(1), [dest], body)
    return [ex.insert(loop).results[0]]


def _dim(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, shape_ops.DimOp)
    return [ex.index(shape(op.source)[op.index.value.data])]


def _if(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, cf_ops.IfOp)
    predicate = ex.insert(tensor.ExtractOp(ex.get(op.pred), [], i1)).results[0]
    result_types = [upstream_type(r.type, op) for r in op.res]
    regions = [_region(ex, r, scf.YieldOp) for r in (op.then_region, op.else_region)]
    then_region, else_region = regions
    return list(ex.insert(scf.IfOp(predicate, result_types, then_region, else_region)).results)


def _while(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    assert isinstance(op, cf_ops.WhileOp)
    types = [upstream_type(r.type, op) for r in op.res]
    before = _region(ex, op.before_region, None)
    after = _region(ex, op.after_region, scf.YieldOp)
    inits = [ex.get(v) for v in op.inits]
    return list(ex.insert(scf.WhileOp(inits, types, before, after)).results)


def _region(ex: Exporter, region: Region, terminator) -> Region:
    """A tj region exported into a new one; its tj.yield becomes `terminator`, a
    tj.condition becomes `scf.condition` passing the block's arguments on."""
    block = region.block
    owner = region.parent_op()
    assert owner is not None
    new = Block(arg_types=[upstream_type(a.type, owner) for a in block.args])
    inner = Exporter(Builder(InsertPoint.at_end(new)), dict(ex.values))
    inner.values.update(zip(block.args, new.args, strict=True))
    export_ops(inner, list(block.ops)[:-1])
    last = block.last_op
    if isinstance(last, cf_ops.ConditionOp):
        flag = inner.insert(tensor.ExtractOp(inner.get(last.predicate), [], i1)).results[0]
        inner.insert(scf.ConditionOp(flag, *new.args))
    else:
        assert isinstance(last, cf_ops.YieldOp) and terminator is not None
        inner.insert(terminator(*[inner.get(v) for v in last.values]))
    return Region(new)


def _fused(ex: Exporter, op: Operation) -> Sequence[SSAValue]:
    """A fused kernel, op by op (its body is ordinary tj ops on tensors)."""
    assert isinstance(op, FusedOp)
    ex.values.update(zip(op.block.args, [ex.get(v) for v in op.inputs], strict=True))
    export_ops(ex, op.body_ops())
    return [ex.get(v) for v in op.terminator.values]


FORMS: dict[type[Operation], Form] = {
    **{t: _elementwise for t in scalar.OP_FORMS if t is not ConstantOp},
    ConstantOp: _constant,
    shape_ops.BroadcastInDimOp: _broadcast,
    shape_ops.TransposeOp: _transpose,
    shape_ops.ReshapeOp: _reshape,
    shape_ops.SliceOp: _slice,
    shape_ops.ConcatOp: _concat,
    shape_ops.PadOp: _pad,
    shape_ops.DimOp: _dim,
    update.ToIndexOp: _to_index,
    update.ScatterOp: _scatter,
    GatherOp: _gather,
    update.InsertSliceOp: _insert_slice,
    ReduceOp: _reduce,
    CumulativeOp: _cumulative,
    MatmulOp: _matmul,
    cf_ops.IfOp: _if,
    cf_ops.WhileOp: _while,
    FusedOp: _fused,
}


def export_ops(ex: Exporter, ops: Sequence[Operation]) -> None:
    for op in ops:
        form = FORMS.get(type(op))
        if form is None:
            if op.dialect_name() in ("arith", "math"):  # index arithmetic: already upstream
                clone = op.clone()
                for i, operand in enumerate(op.operands):
                    clone.operands[i] = ex.get(operand)
                ex.insert(clone)
                ex.values.update(zip(op.results, clone.results, strict=True))
                continue
            raise refuse(op, "no export form (side effects, runtime state or unsupported)")
        results = form(ex, op)
        ex.values.update(zip(op.results, results, strict=True))


def export_function(function: func.FuncOp) -> func.FuncOp:
    inputs = [upstream_type(t, function) for t in function.function_type.inputs]
    outputs = [upstream_type(t, function) for t in function.function_type.outputs]
    exported = func.FuncOp(function.sym_name.data, (inputs, outputs))
    block = function.body.block
    new_block = exported.body.block
    ex = Exporter(Builder(InsertPoint.at_end(new_block)), {})
    ex.values.update(zip(block.args, new_block.args, strict=True))
    export_ops(ex, list(block.ops)[:-1])
    terminator = block.last_op
    if not isinstance(terminator, func.ReturnOp):
        raise refuse(function, "a function body that does not end in func.return")
    ex.insert(func.ReturnOp(*[ex.get(v) for v in terminator.arguments]))
    return exported


def _expand_ipowi(module: ModuleOp) -> None:
    """`math.ipowi` as branch-free square-and-multiply: upstream's CPU pipelines (IREE's
    among them) have no lowering for it on vectors. Same meaning as tracejit's own helper
    (codegen/emit_math.py): a negative exponent gives 1 for base 1, +-1 for base -1, else 0."""
    for op in list(module.walk()):
        if not isinstance(op, math.IPowIOp):
            continue
        b = Builder(InsertPoint.before(op))
        base, exponent = op.operands
        int_type = base.type
        assert isinstance(int_type, IntegerType)
        width = int_type.width.data
        if width < 2:
            raise refuse(op, "math.ipowi on i1")
        one, zero, minus_one = (
            b.insert(arith.ConstantOp(IntegerAttr(v, int_type))).results[0] for v in (1, 0, -1)
        )
        result, power, rest = one, base, exponent
        for _ in range(width):
            bit = b.insert(arith.TruncIOp(rest, i1)).results[0]
            product = b.insert(arith.MuliOp(result, power)).results[0]
            result = b.insert(arith.SelectOp(bit, product, result)).results[0]
            power = b.insert(arith.MuliOp(power, power)).results[0]
            rest = b.insert(arith.ShRUIOp(rest, one)).results[0]
        odd = b.insert(arith.TruncIOp(exponent, i1)).results[0]
        signed_one = b.insert(arith.SelectOp(odd, minus_one, one)).results[0]
        is_minus_one = b.insert(arith.CmpiOp(base, minus_one, "eq")).results[0]
        unit = b.insert(arith.SelectOp(is_minus_one, signed_one, zero)).results[0]
        is_one = b.insert(arith.CmpiOp(base, one, "eq")).results[0]
        unit = b.insert(arith.SelectOp(is_one, one, unit)).results[0]
        negative = b.insert(arith.CmpiOp(exponent, zero, "slt")).results[0]
        value = b.insert(arith.SelectOp(negative, unit, result)).results[0]
        op.results[0].replace_all_uses_with(value)
        op.detach()
        op.erase()


def export_module(module: ModuleOp) -> None:
    """Replace every `func.func` of `module` (in place) by its upstream form."""
    for op in list(module.ops):
        if isinstance(op, func.FuncOp):
            if op.body.blocks and len(op.body.blocks) == 1:
                exported = export_function(op)
                module.body.block.insert_op_before(exported, op)
                module.body.block.erase_op(op)
            continue
        raise refuse(op, "only func.func at module level is exported")
    module.attributes.clear()
    _expand_ipowi(module)


@dataclass(frozen=True)
class ExportLinalgPass(ModulePass):
    """Export the tensor-level tj module as upstream linalg/tensor/arith/math/scf/func."""

    name = "export-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        export_module(op)
