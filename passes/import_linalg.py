"""import-linalg: upstream `linalg`-on-tensors / `tensor` / `arith` / `math` / `func` input
as a `tj` module, which tracejit's own pipeline then compiles (`tracejit-opt in.mlir --run`).

The other direction of `export-linalg`, for what it and hand-written upstream code use:

* `linalg.generic` (element-wise, broadcasting and reducing): every input becomes a tensor
  over the loop domain (`tj.reshape` drops dims read at 0, `tj.transpose` orders the rest,
  `tj.broadcast_in_dim` adds the missing ones); every body op becomes the `tj` op of the
  same meaning on those tensors; a body `yield combine(acc, x)` on reduction loops becomes
  `tj.reduce` of `x`, then combined with the init. `linalg.fill`, `linalg.matmul`.
* `tensor.empty` (an init never read), `extract_slice` / `insert_slice` (static, positive
  strides), `collapse_shape` / `expand_shape`; `arith.constant` tensors and scalars.

Integer types are read as signed (upstream integers are signless; tj's `iN` are NumPy's
signed ints), `i1` as bool. An op, or a body op, with no `tj` meaning here (C-style
`arith.divsi`/`remsi`, unsigned comparisons, `linalg.index`, dynamic shapes) raises an
`ImportError_` naming it and its line. A function that already holds `tj` ops is left as it
is, so the pass may run on what `tracejit-opt` read (it imports upstream input as it reads it).
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
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.dialects.linalg.ops import FillOp, GenericOp, MatmulOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tracejit.ir import control_flow as cf_ops
from tracejit.ir import elementwise as ew
from tracejit.ir import shape_ops, update
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dense import dense_from_array
from tracejit.ir.dtypes import numpy_dtype
from tracejit.ir.invariants import terminator
from tracejit.ir.matmul import MatmulOp as TjMatmulOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shaped import shaped_type


class ImportError_(ValueError):  # noqa: N801  (not Python's ImportError)
    """An upstream op with no tj meaning here; the message names it and its line."""


def refuse(op: Operation, why: str) -> ImportError_:
    from xdsl.dialects.builtin import FileLineColLoc

    loc = op.location
    where = f" at line {loc.line.data}" if isinstance(loc, FileLineColLoc) else ""
    return ImportError_(f"'{op.name}'{where} cannot be imported into tj: {why}")


def static_shape(value: SSAValue, op: Operation) -> tuple[int, ...]:
    if not isinstance(value.type, TensorType):
        raise refuse(op, f"expected a tensor, got {value.type}")
    shape = tuple(value.type.get_shape())
    if DYNAMIC_INDEX in shape:
        raise refuse(op, f"dynamic shapes ({value.type}) are not imported")
    return shape


# Body ops with a tj op of the same meaning, element for element (NumPy's).
UNARY: dict[type[Operation], Callable[..., Operation]] = {
    arith.NegfOp: ew.NegOp,
    math.AbsFOp: ew.AbsOp,
    math.AbsIOp: ew.AbsOp,
    math.ExpOp: ew.ExpOp,
    math.ExpM1Op: ew.Expm1Op,
    math.Exp2Op: ew.Exp2Op,
    math.LogOp: ew.LogOp,
    math.Log1pOp: ew.Log1pOp,
    math.Log2Op: ew.Log2Op,
    math.Log10Op: ew.Log10Op,
    math.SqrtOp: ew.SqrtOp,
    math.CbrtOp: ew.CbrtOp,
    math.ErfOp: ew.ErfOp,
    math.SinOp: ew.SinOp,
    math.CosOp: ew.CosOp,
    math.TanOp: ew.TanOp,
    math.AsinOp: ew.ArcsinOp,
    math.AcosOp: ew.ArccosOp,
    math.AtanOp: ew.ArctanOp,
    math.SinhOp: ew.SinhOp,
    math.CoshOp: ew.CoshOp,
    math.TanhOp: ew.TanhOp,
    math.AsinhOp: ew.ArcsinhOp,
    math.AcoshOp: ew.ArccoshOp,
    math.AtanhOp: ew.ArctanhOp,
    math.FloorOp: ew.FloorOp,
    math.CeilOp: ew.CeilOp,
    math.TruncOp: ew.TruncOp,
    math.RoundEvenOp: ew.RintOp,
}
BINARY: dict[type[Operation], Callable[..., Operation]] = {
    arith.AddfOp: ew.AddOp,
    arith.AddiOp: ew.AddOp,
    arith.SubfOp: ew.SubOp,
    arith.SubiOp: ew.SubOp,
    arith.MulfOp: ew.MulOp,
    arith.MuliOp: ew.MulOp,
    arith.DivfOp: ew.DivOp,
    arith.FloorDivSIOp: ew.FloorDivideOp,
    arith.RemSIOp: ew.FmodOp,  # C's remainder, the sign of the dividend: np.fmod
    arith.MaximumfOp: ew.MaximumOp,
    arith.MaxSIOp: ew.MaximumOp,
    arith.MinimumfOp: ew.MinimumOp,
    arith.MinSIOp: ew.MinimumOp,
    arith.MaxnumfOp: ew.FmaxOp,
    arith.MinnumfOp: ew.FminOp,
    arith.AndIOp: ew.BitwiseAndOp,
    arith.OrIOp: ew.BitwiseOrOp,
    arith.XOrIOp: ew.BitwiseXorOp,
    math.PowFOp: ew.PowOp,
    math.Atan2Op: ew.Arctan2Op,
    math.CopySignOp: ew.CopysignOp,
}
CASTS = (
    arith.SIToFPOp,
    arith.FPToSIOp,
    arith.ExtFOp,
    arith.TruncFOp,
    arith.ExtSIOp,
    arith.TruncIOp,
)
# arith predicates with NumPy's meaning (float `une` is `!=`: NaN != x is true).
PREDICATES = {
    "oeq": "eq", "une": "ne", "olt": "lt", "ole": "le", "ogt": "gt", "oge": "ge",
    "eq": "eq", "ne": "ne", "slt": "lt", "sle": "le", "sgt": "gt", "sge": "ge",
}  # fmt: skip
# Reduction combiners: the tj.reduce kind, and the op combining it with the init.
COMBINERS: dict[type[Operation], tuple[str, Callable[..., Operation]]] = {
    arith.AddfOp: ("sum", ew.AddOp),
    arith.AddiOp: ("sum", ew.AddOp),
    arith.MulfOp: ("prod", ew.MulOp),
    arith.MuliOp: ("prod", ew.MulOp),
    arith.MaximumfOp: ("max", ew.MaximumOp),
    arith.MaxSIOp: ("max", ew.MaximumOp),
    arith.MinimumfOp: ("min", ew.MinimumOp),
    arith.MinSIOp: ("min", ew.MinimumOp),
}


@dataclass
class Importer:
    builder: Builder
    values: dict[SSAValue, SSAValue]

    def get(self, value: SSAValue, op: Operation) -> SSAValue:
        if value not in self.values:
            raise refuse(op, f"an operand ({value.type}) that is not a tensor imported so far")
        return self.values[value]

    def insert(self, op: Operation) -> SSAValue:
        return self.builder.insert(op).results[0]

    def splat(self, value: float | int | bool, element: Attribute, shape: Sequence[int]):
        array = np.full(tuple(shape), value, dtype=numpy_dtype(element))
        return self.insert(ConstantOp(dense_from_array(array)))

    def broadcast(self, value: SSAValue, dims: Sequence[int], shape: Sequence[int]) -> SSAValue:
        element = shaped_type(value).get_element_type()
        if tuple(shaped_type(value).get_shape()) == tuple(shape):
            return value
        return self.insert(
            shape_ops.BroadcastInDimOp(value, list(dims), TensorType(element, list(shape)))
        )


# --- function-level ops ------------------------------------------------------------------
def _constant(im: Importer, op: Operation) -> SSAValue:
    assert isinstance(op, arith.ConstantOp)
    value = op.value
    if isinstance(value, DenseIntOrFPElementsAttr):
        return im.insert(ConstantOp(value))
    if isinstance(value, IntegerAttr) and isinstance(value.type, IndexType):
        raise refuse(op, "index values (loops and element positions) are not imported")
    if isinstance(value, FloatAttr | IntegerAttr):  # a scalar: a 0-d tensor here
        return im.splat(value.value.data, value.type, [])
    raise refuse(op, f"a constant {value}")


def _fill(im: Importer, op: Operation) -> SSAValue:
    assert isinstance(op, FillOp)
    shape = static_shape(op.outputs[0], op)
    return im.broadcast(im.get(op.inputs[0], op), [], shape)


def _empty(im: Importer, op: Operation) -> SSAValue:
    """An uninitialised tensor: zeros (an init a generic overwrites everywhere)."""
    ttype = op.results[0].type
    assert isinstance(ttype, TensorType)
    return im.splat(0, ttype.get_element_type(), static_shape(op.results[0], op))


def _matmul(im: Importer, op: Operation) -> SSAValue:
    assert isinstance(op, MatmulOp)
    lhs, rhs = (im.get(v, op) for v in op.inputs)
    init = im.get(op.outputs[0], op)
    product = im.insert(TjMatmulOp(lhs, rhs, init.type))  # type: ignore[arg-type]  # a tensor type
    return im.insert(ew.AddOp(init, product))


def _extract_slice(im: Importer, op: Operation) -> SSAValue:
    assert isinstance(op, tensor.ExtractSliceOp)
    if op.offsets or op.sizes or op.strides:
        raise refuse(op, "offsets, sizes or strides known only at run time")
    strides = list(op.static_strides.get_values())
    result_type = op.result.type
    assert isinstance(result_type, TensorType)
    if len(result_type.get_shape()) != len(strides):
        raise refuse(op, "a rank-reducing slice")
    source = im.get(op.source, op)
    start = list(op.static_offsets.get_values())
    return im.insert(shape_ops.SliceOp(source, start, strides, result_type))


def _insert_slice(im: Importer, op: Operation) -> SSAValue:
    assert isinstance(op, tensor.InsertSliceOp)
    if op.offsets or op.sizes or op.strides:
        raise refuse(op, "offsets, sizes or strides known only at run time")
    start = list(op.static_offsets.get_values())
    step = list(op.static_strides.get_values())
    source, dest = im.get(op.source, op), im.get(op.dest, op)
    return im.insert(update.InsertSliceOp(source, dest, start, step))


def _reshape(im: Importer, op: Operation) -> SSAValue:
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    static_shape(op.results[0], op)
    return im.insert(shape_ops.ReshapeOp(im.get(op.operands[0], op), result_type))


# --- linalg.generic ----------------------------------------------------------------------
def _generic(im: Importer, op: Operation) -> SSAValue:
    assert isinstance(op, GenericOp)
    if len(op.outputs) != 1:
        raise refuse(op, "a generic with several results")
    maps = [m.data for m in op.indexing_maps]
    domain = _domain(op, maps)
    block = op.body.block
    scalars: dict[SSAValue, SSAValue] = {}
    for arg, value, amap in zip(block.args, op.inputs, maps, strict=False):
        scalars[arg] = _over_domain(im, im.get(value, op), amap, domain, op)
    acc = block.args[len(op.inputs)]
    reduced = [d for d, it in enumerate(op.iterator_types) if it.data.value == "reduction"]
    yielded = terminator(block).operands[0]
    combine = None
    if reduced:
        combine, yielded = _reduction(yielded, acc, op)
    for body_op in list(block.ops)[:-1]:
        if combine is not None and yielded is not None and body_op is combine:
            continue
        scalars.update(zip(body_op.results, _body_op(im, body_op, scalars, domain), strict=True))
    init = im.get(op.outputs[0], op)
    out_shape = static_shape(op.outputs[0], op)
    if combine is None:  # a body reading its init is refused by _body_op
        return _to_output(im, scalars[yielded], maps[-1], domain, out_shape, op)
    kind, combiner = COMBINERS[type(combine)]
    kept_shape = [n for d, n in enumerate(domain) if d not in reduced]
    element = shaped_type(init).get_element_type()
    total = im.insert(ReduceOp(kind, scalars[yielded], reduced, TensorType(element, kept_shape)))
    kept_map = [d for d in range(len(domain)) if d not in reduced]
    total = _to_output(im, total, maps[-1], domain, out_shape, op, kept_map)
    return im.insert(combiner(init, total))


def _domain(op: GenericOp, maps) -> list[int]:
    """The loop sizes, read off the operands' shapes through their maps."""
    sizes: list[int | None] = [None] * maps[0].num_dims
    for value, amap in zip((*op.inputs, *op.outputs), maps, strict=True):
        for n, expr in zip(static_shape(value, op), amap.results, strict=True):
            if isinstance(expr, AffineDimExpr):
                sizes[expr.position] = n
            elif not (isinstance(expr, AffineConstantExpr) and expr.value == 0 and n == 1):
                raise refuse(op, f"an indexing map {amap} (only dims, or 0 on a size-1 dim)")
    if None in sizes:
        raise refuse(op, "a loop no operand's shape gives")
    return [int(n) for n in sizes]  # type: ignore[arg-type]  # no None: refused above


def _over_domain(im: Importer, value: SSAValue, amap, domain, op) -> SSAValue:
    """`value`, read through `amap`, as a tensor of the whole loop domain."""
    shape = list(shaped_type(value).get_shape())
    element = shaped_type(value).get_element_type()
    dims = [e.position for e in amap.results if isinstance(e, AffineDimExpr)]
    if len(dims) != len(shape):  # drop the dims read at 0 (size 1)
        kept = [n for n, e in zip(shape, amap.results, strict=True) if isinstance(e, AffineDimExpr)]
        value = im.insert(shape_ops.ReshapeOp(value, TensorType(element, kept)))
        shape = kept
    if dims != sorted(dims):
        order = sorted(range(len(dims)), key=lambda k: dims[k])
        shape = [shape[k] for k in order]
        value = im.insert(shape_ops.TransposeOp(value, order, TensorType(element, shape)))
        dims = sorted(dims)
    return im.broadcast(value, dims, domain)


def _to_output(im, value, out_map, domain, out_shape, op, kept=None) -> SSAValue:
    """A tensor over the domain (or over its `kept` dims) written through the output map."""
    dims = [e.position for e in out_map.results if isinstance(e, AffineDimExpr)]
    if len(dims) != len(out_map.results):
        raise refuse(op, "an output map with constants")
    kept = kept if kept is not None else list(range(len(domain)))
    if dims == kept:
        return value
    if sorted(dims) != kept:
        raise refuse(op, f"an output map {out_map} that is not a permutation of its loops")
    order = [kept.index(d) for d in dims]
    element = value.type.get_element_type()
    return im.insert(shape_ops.TransposeOp(value, order, TensorType(element, list(out_shape))))


def _reduction(yielded: SSAValue, acc: SSAValue, op: Operation):
    """(the combining op, the value it folds in) of a body yielding `combine(acc, x)`."""
    combine = yielded.owner
    if type(combine) not in COMBINERS or acc not in combine.operands:  # type: ignore[union-attr]  # an op result
        raise refuse(op, "a reduction whose body is not `yield combine(acc, x)`")
    a, b = combine.operands  # type: ignore[union-attr]  # an op result
    other = b if a is acc else a
    if other is acc or any(use.operation is not combine for use in acc.uses):
        raise refuse(op, "a reduction reading its accumulator elsewhere")
    return combine, other


def _body_op(im: Importer, op: Operation, scalars, domain) -> list[SSAValue]:
    def arg(v: SSAValue) -> SSAValue:
        if v in scalars:
            return scalars[v]
        if v in im.values:  # a scalar from above the generic: a 0-d tensor, broadcast
            return im.broadcast(im.values[v], [], domain)
        raise refuse(op, "an operand defined neither in the body nor above it")

    def typed(element: Attribute) -> TensorType:
        return TensorType(element, list(domain))

    kind = type(op)
    if kind in UNARY:
        return [im.insert(UNARY[kind](arg(op.operands[0])))]
    if kind in BINARY:
        return [im.insert(BINARY[kind](arg(op.operands[0]), arg(op.operands[1])))]
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, FloatAttr | IntegerAttr):
        if isinstance(op.value.type, IndexType):
            raise refuse(op, "index values (element positions) are not imported")
        return [im.splat(op.value.value.data, op.value.type, domain)]
    if isinstance(op, CASTS):
        return [im.insert(ew.CastOp(arg(op.operands[0]), typed(op.results[0].type)))]
    if isinstance(op, arith.SelectOp):
        return [im.insert(ew.SelectOp(*(arg(v) for v in op.operands)))]
    if isinstance(op, arith.CmpfOp | arith.CmpiOp):
        name = _predicate_name(op)
        if name not in PREDICATES:
            raise refuse(op, f"the predicate '{name}' (NumPy has no such comparison)")
        return [im.insert(ew.CompareOp(PREDICATES[name], arg(op.lhs), arg(op.rhs)))]
    raise refuse(op, "no tj op has its meaning (import handles NumPy-style element-wise ops)")


def _predicate_name(op: arith.CmpfOp | arith.CmpiOp) -> str:
    names = (
        arith.CMPF_COMPARISON_OPERATIONS
        if isinstance(op, arith.CmpfOp)
        else (arith.CMPI_COMPARISON_OPERATIONS)
    )
    return names[op.predicate.value.data]


def _extract(im: Importer, op: Operation) -> SSAValue:
    """A 0-d tensor's element: scalars are 0-d tensors here, so the tensor itself."""
    assert isinstance(op, tensor.ExtractOp)
    if op.indices:
        raise refuse(op, "an element read at an index (only 0-d tensors are read)")
    return im.get(op.tensor, op)


FORMS: dict[type[Operation], Callable[[Importer, Operation], SSAValue]] = {
    arith.ConstantOp: _constant,
    FillOp: _fill,
    tensor.EmptyOp: _empty,
    MatmulOp: _matmul,
    GenericOp: _generic,
    tensor.ExtractSliceOp: _extract_slice,
    tensor.InsertSliceOp: _insert_slice,
    tensor.CollapseShapeOp: _reshape,
    tensor.ExpandShapeOp: _reshape,
    tensor.ExtractOp: _extract,
}


def import_ops(im: Importer, ops: Sequence[Operation]) -> None:
    for op in ops:
        if isinstance(op, scf.IfOp):
            im.values.update(zip(op.results, _if(im, op), strict=True))
            continue
        if isinstance(op, scf.WhileOp):
            im.values.update(zip(op.results, _while(im, op), strict=True))
            continue
        form = FORMS.get(type(op))
        if form is None:
            raise refuse(op, "not an op import-linalg knows")
        value = form(im, op)
        value.name_hint = op.results[0].name_hint
        im.values[op.results[0]] = value


def _region(im: Importer, region: Region, arg_values: Sequence[SSAValue] | None = None):
    """(a new block, the importer filling it) for `region`'s block; its arguments are new
    block arguments of the same types (tj regions take tensors as upstream's do)."""
    block = region.block
    new = Block(arg_types=[a.type for a in block.args])
    inner = Importer(Builder(InsertPoint.at_end(new)), dict(im.values))
    inner.values.update(zip(block.args, new.args, strict=True))
    import_ops(inner, list(block.ops)[:-1])
    return new, inner


def _if(im: Importer, op: scf.IfOp) -> Sequence[SSAValue]:
    regions = []
    for region in (op.true_region, op.false_region):
        if not region.blocks:
            raise refuse(op, "an scf.if without an else region")
        new, inner = _region(im, region)
        last = region.block.last_op
        assert isinstance(last, scf.YieldOp)
        inner.builder.insert(cf_ops.YieldOp(*[inner.get(v, last) for v in last.arguments]))
        regions.append(Region(new))
    result_types = [r.type for r in op.results]
    new_if = cf_ops.IfOp(im.get(op.cond, op), result_types, regions[0], regions[1])
    return list(im.builder.insert(new_if).results)


def _while(im: Importer, op: scf.WhileOp) -> Sequence[SSAValue]:
    """The form export-linalg writes: the condition passes its block's arguments on."""
    before, inner = _region(im, op.before_region)
    condition = op.before_region.block.last_op
    assert isinstance(condition, scf.ConditionOp)
    if list(condition.args) != list(op.before_region.block.args):
        raise refuse(op, "an scf.while whose condition does not pass its arguments on")
    inner.builder.insert(cf_ops.ConditionOp(inner.get(condition.condition, condition)))
    after, body = _region(im, op.after_region)
    last = op.after_region.block.last_op
    assert isinstance(last, scf.YieldOp)
    body.builder.insert(cf_ops.YieldOp(*[body.get(v, last) for v in last.arguments]))
    inits = [im.get(v, op) for v in op.arguments]
    new_while = cf_ops.WhileOp(inits, Region(before), Region(after))
    return list(im.builder.insert(new_while).results)


def import_function(function: func.FuncOp) -> func.FuncOp:
    inputs, outputs = function.function_type.inputs, function.function_type.outputs
    imported = func.FuncOp(function.sym_name.data, (list(inputs), list(outputs)))
    block, new_block = function.body.block, imported.body.block
    im = Importer(Builder(InsertPoint.at_end(new_block)), {})
    for old, new in zip(block.args, new_block.args, strict=True):
        if isinstance(old.type, TensorType):
            static_shape(old, function)
        im.values[old] = new
    import_ops(im, list(block.ops)[:-1])
    terminator = block.last_op
    assert isinstance(terminator, func.ReturnOp)
    im.builder.insert(func.ReturnOp(*[im.get(v, terminator) for v in terminator.arguments]))
    return imported


def is_imported(function: func.FuncOp) -> bool:
    """Already tj: `tracejit-opt` imports an upstream file as it reads it, so an explicit
    `-p import-linalg` on that file finds tj ops, and leaves such a function as it is."""
    return any(op.dialect_name() == "tj" for op in function.walk())


def import_module(module: ModuleOp) -> None:
    """Replace every `func.func` of `module` (in place) by its tj form (a function with tj
    ops in it is already imported: left alone)."""
    for op in list(module.ops):
        if not isinstance(op, func.FuncOp):
            raise refuse(op, "only func.func at module level is imported")
        if is_imported(op):
            continue
        imported = import_function(op)
        module.body.block.insert_op_before(imported, op)
        module.body.block.erase_op(op)


@dataclass(frozen=True)
class ImportLinalgPass(ModulePass):
    """Import upstream linalg-on-tensors/tensor/arith/math/func as tj."""

    name = "import-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        import_module(op)
