"""What the buffer forms of `tj.linalg` share (passes/bufferize/lapack.py and
lapack_decompositions.py): LAPACK calls through bodiless functions (ir/lapack_contract.py),
i32 and character arguments, column-major copies of matrices in and out of scratch
buffers, and the `ok` flag the calls' `info` is and-ed into.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ComplexType,
    Float32Type,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    i1,
    i8,
    i32,
)
from xdsl.ir import Attribute, SSAValue

from tracejit.ir.dtypes import component_type, element_of
from tracejit.ir.lapack_contract import LAPACK_PREFIX, SIGNATURE, TYPE_LETTERS, routine_of
from tracejit.ir.linalg import LinalgOp
from tracejit.passes.bufferize.builder import FunctionBufferizer
from tracejit.passes.bufferize.cumulative import line_dims
from tracejit.passes.support import scalar_semantics as scalar
from tracejit.passes.support.build import add, load, mul, store
from tracejit.passes.support.indices import index_constant
from tracejit.passes.support.loops import loop_nest


def letter_of(element: Attribute) -> str:
    """s, d, c or z: LAPACK's name for the element type."""
    single = isinstance(component_type(element), Float32Type)
    complex_ = isinstance(element, ComplexType)
    return TYPE_LETTERS[2 * complex_ + (not single)]


def scratch_type(element: Attribute) -> MemRefType:
    return MemRefType(element, [DYNAMIC_INDEX])


def call(b: Builder, module: ModuleOp, routine: str, args: Sequence[SSAValue]) -> SSAValue:
    """`%info = func.call @tracejit_lapack_<routine>(args)`, declared once per signature in
    `module` (BLAS calls take matrices of any shape: `@tracejit_lapack_sgemm_1`, ...)."""
    name = declare(module, routine, [a.type for a in args])
    return b.insert(func.CallOp(name, list(args), [i32])).res[0]


def declare(module: ModuleOp, routine: str, types: list[Attribute]) -> str:
    """The name of the declaration of `routine` with argument `types`, added if missing."""
    declared = {
        op.sym_name.data: op.function_type.inputs.data
        for op in module.ops
        if isinstance(op, func.FuncOp)
        and op.sym_name.data.startswith(LAPACK_PREFIX)
        and routine_of(op.sym_name.data) == routine
    }
    for existing, inputs in declared.items():
        if list(inputs) == types:
            return existing
    name = LAPACK_PREFIX + routine
    unique = name if not declared else f"{name}{SIGNATURE}{len(declared)}"
    declaration = func.FuncOp.external(unique, types, [i32])
    first = module.body.block.first_op
    assert first is not None
    module.body.block.insert_op_before(declaration, first)
    return unique


def as_i32(b: Builder, index: SSAValue) -> SSAValue:
    return b.insert(arith.IndexCastOp(index, i32)).result


def character(b: Builder, letter: str) -> SSAValue:
    """A LAPACK character argument (`trans`, `uplo`) as an i8."""
    return b.insert(arith.ConstantOp(IntegerAttr(ord(letter), i8))).result


def at_least_one(b: Builder, index: SSAValue) -> SSAValue:
    return b.insert(arith.MaxUIOp(index, index_constant(b, 1))).result


def column_major(b: Builder, i: SSAValue, j: SSAValue, rows: SSAValue) -> SSAValue:
    return add(b, mul(b, j, rows), i)


def copy_in(b, source, batch, rows, columns, scratch, lead: SSAValue | None = None) -> None:
    """scratch[j * lead + i] = source[*batch, i, j]: one matrix in Fortran order, `lead`
    (its leading dim) `rows` unless given."""
    lead = rows if lead is None else lead

    def body(b: Builder, ij: list[SSAValue]) -> None:
        i, j = ij
        store(b, load(b, source, [*batch, i, j]), scratch, [column_major(b, i, j, lead)])

    loop_nest(b, [columns, rows], lambda b, ji: body(b, ji[::-1]))


def copy_out(
    b, scratch, batch, rows, columns, target, lower_only: bool = False, upper_only: bool = False,
    lead: SSAValue | None = None,
) -> None:  # fmt: skip
    """target[*batch, i, j] = scratch[j * lead + i] (`lead` is `rows` unless given; 0 above
    the diagonal if `lower_only`, below it if `upper_only`)."""
    element = shaped_element(target)
    lead = rows if lead is None else lead

    def body(b: Builder, ij: list[SSAValue]) -> None:
        i, j = ij
        value = load(b, scratch, [column_major(b, i, j, lead)])
        if lower_only or upper_only:
            outside = b.insert(arith.CmpiOp(j, i, "ugt" if lower_only else "ult")).result
            value = scalar.emit_select(b, outside, scalar.constant(b, 0, element), value)
        store(b, value, target, [*batch, i, j])

    loop_nest(b, [rows, columns], body)


def shaped_element(buffer: SSAValue) -> Attribute:
    assert isinstance(buffer.type, MemRefType)
    return buffer.type.get_element_type()


class Stack:
    """What the lowering of one `tj.linalg` shares: the batch dims, m and n (the last two
    dims of its first operand, the same for a square one), its LAPACK letter and the i32
    constants of the calls."""

    def __init__(self, bufferizer: FunctionBufferizer, op: LinalgOp):
        self.bufferizer = bufferizer
        b = bufferizer.builder
        self.a = bufferizer.values[op.inputs[0]]
        dims, self.a_sizes = line_dims(bufferizer, self.a)
        self.batch, self.m, self.n = dims[:-2], dims[-2], dims[-1]
        self.element = element_of(op.inputs[0])
        self.letter = letter_of(self.element)
        self.n32 = as_i32(b, self.n)
        self.lead32 = as_i32(b, at_least_one(b, self.n))  # lda, ldb: at least 1

    def scratch(self, element: Attribute, columns: SSAValue) -> SSAValue:
        """A 1-D buffer for an n x `columns` matrix (at least one element)."""
        b = self.bufferizer.builder
        size = at_least_one(b, mul(b, self.n, columns))
        return self.bufferizer.temporary(scratch_type(element), [size])

    def buffer(self, element: Attribute, size: SSAValue) -> SSAValue:
        """A 1-D scratch buffer of `size` elements (at least one)."""
        b = self.bufferizer.builder
        return self.bufferizer.temporary(scratch_type(element), [at_least_one(b, size)])

    def ok_flag(self, result: SSAValue) -> SSAValue:
        """The `ok` result's buffer, set to true."""
        b = self.bufferizer.builder
        flag = self.bufferizer.destination(result)
        store(b, b.insert(arith.ConstantOp(IntegerAttr(-1, i1))).result, flag, [])
        self.bufferizer.values[result] = flag
        return flag


def and_ok(b: Builder, flag: SSAValue, info: SSAValue) -> None:
    zero = b.insert(arith.ConstantOp(IntegerAttr(0, i32))).result
    good = b.insert(arith.CmpiOp(info, zero, "eq")).result
    both = b.insert(arith.AndIOp(load(b, flag, []), good)).result
    store(b, both, flag, [])


def batch_sizes(s: Stack) -> list[SSAValue]:
    """The dynamic batch dims of `s`'s operand (a_sizes lists the dynamic dims of all)."""
    shape = shaped_shape(s.a)[:-2]
    return [d for d, size in zip(s.batch, shape, strict=True) if size == DYNAMIC_INDEX]


def shaped_shape(buffer: SSAValue) -> tuple[int, ...]:
    assert isinstance(buffer.type, MemRefType)
    return buffer.type.get_shape()
