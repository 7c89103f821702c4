"""cf-level xDSL module (func, cf, arith, complex, math, memref) -> `llvmlite.ir.Module`.

Translation is table-driven: `EMITTERS` maps an op class to a small emitter function (see
`emit_arith`, `emit_complex`, `emit_math`, `emit_memref`, `emit_control`); ops xDSL does not
define are looked up by name in `NAMED_EMITTERS`. Functions follow the calling convention in
`abi.py`.
Blocks are emitted in reverse post-order (definitions before uses); unreachable blocks are
dropped; phi nodes are filled at the end, so the source block order does not matter.
"""

from __future__ import annotations

from collections.abc import Iterator

from llvmlite import ir
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp, StringAttr, UnregisteredOp
from xdsl.ir import Block, Operation

from tracejit.codegen.abi import KernelSignature, MemRefArg, kernel_signature
from tracejit.codegen.context import Emitter, FunctionEmitter, MemRef, ModuleState
from tracejit.codegen.emit_arith import ARITH_EMITTERS, ARITH_NAMED_EMITTERS
from tracejit.codegen.emit_complex import COMPLEX_EMITTERS
from tracejit.codegen.emit_control import CONTROL_EMITTERS
from tracejit.codegen.emit_lapack import is_lapack_call
from tracejit.codegen.emit_math import MATH_EMITTERS
from tracejit.codegen.emit_memref import (
    MEMREF_EMITTERS,
    declare_global,
    memref_with_dims,
)
from tracejit.codegen.emit_ownership import OWNERSHIP_EMITTERS
from tracejit.codegen.emit_vector import VECTOR_EMITTERS, fences_at_return
from tracejit.codegen.errors import CodegenError
from tracejit.codegen.interrupts import INTERRUPT_CALLS
from tracejit.codegen.llvm_types import I64, PTR, VOID, checked_memref, scalar_type
from tracejit.codegen.pyobject_entry import emit_entry
from tracejit.ir.runtime_contract import MESSAGES_ATTR

EMITTERS: dict[type[Operation], Emitter] = {
    **ARITH_EMITTERS,
    **COMPLEX_EMITTERS,
    **MATH_EMITTERS,
    **MEMREF_EMITTERS,
    **CONTROL_EMITTERS,
    **OWNERSHIP_EMITTERS,
    **VECTOR_EMITTERS,
}
NAMED_EMITTERS: dict[str, Emitter] = {**ARITH_NAMED_EMITTERS}


def translate_module(
    module: ModuleOp, *, noalias_args: bool = False, check_bounds: bool | None = None
) -> str:
    """The unoptimised LLVM IR text of `module`."""
    return str(build_llvm_module(module, noalias_args=noalias_args, check_bounds=check_bounds))


def build_llvm_module(
    module: ModuleOp, *, noalias_args: bool = False, check_bounds: bool | None = None
) -> ir.Module:
    """Translate `module`; `noalias_args` marks every memref pointer parameter `noalias`
    (only correct when the caller guarantees no two memref arguments overlap);
    `check_bounds` range-checks every memory access (None: off; the driver passes the
    process's option, compiler/options.py):
    each check's message is appended to the module's check messages (MESSAGES_ATTR), which
    a failed check's status indexes like any other."""
    check_bounds = bool(check_bounds)
    messages = module.attributes.get(MESSAGES_ATTR)
    state = ModuleState(
        ir.Module(name="tracejit"),
        noalias_args=noalias_args,
        check_bounds=check_bounds,
        messages=[m.data for m in messages] if isinstance(messages, ArrayAttr) else [],
    )
    funcs: list[func.FuncOp] = []
    for op in module.ops:
        if isinstance(op, memref.GlobalOp):
            declare_global(state, op)
        elif isinstance(op, func.FuncOp):
            _declare_function(state, op)
            funcs.append(op)
        else:
            raise CodegenError(f"unsupported top-level op '{op_name(op)}'")
    for op in funcs:
        if op.body.blocks:
            _FunctionTranslator(state, op).run()
            if op.sym_visibility is None or op.sym_visibility.data != "private":
                emit_entry(state.module, state.functions[op.sym_name.data], kernel_signature(op))
    if check_bounds:
        module.attributes[MESSAGES_ATTR] = ArrayAttr([StringAttr(m) for m in state.messages])
    return state.module


def op_name(op: Operation) -> str:
    """The op's name, also for ops parsed as unregistered (`"arith.remf"(...)`)."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _param_types(op: func.FuncOp, signature: KernelSignature) -> list[ir.Type]:
    inputs = op.function_type.inputs.data
    leading = [PTR if isinstance(t, MemRefType) else scalar_type(t) for t in inputs]
    return leading + [I64] * len(signature.dynamic_dims)


def _declare_function(state: ModuleState, op: func.FuncOp) -> None:
    if op.sym_name.data in INTERRUPT_CALLS and not op.body.blocks:
        return  # emitted inline where called (codegen/interrupts.py)
    if is_lapack_call(op.sym_name.data) and not op.body.blocks:
        return  # called through the loader-filled table (codegen/emit_lapack.py)
    signature = kernel_signature(op)  # rejects unsupported argument and result types
    outputs = op.function_type.outputs.data
    ret = scalar_type(outputs[0]) if outputs else VOID
    fn = ir.Function(state.module, ir.FunctionType(ret, _param_types(op, signature)),
                     signature.name)
    _name_params(fn, signature)
    if op.body.blocks:
        fn.attributes.add("nounwind")
        if op.sym_visibility is not None and op.sym_visibility.data == "private":
            fn.linkage = "internal"
    if state.noalias_args:
        for param, arg in zip(fn.args, signature.args, strict=False):
            if isinstance(arg, MemRefArg):
                param.add_attribute("noalias")
    state.functions[signature.name] = fn


def _name_params(fn: ir.Function, signature: KernelSignature) -> None:
    names = [f"arg{i}" for i in range(len(signature.args))]
    names += [f"arg{i}_dim{d}" for i, d in signature.dynamic_dims]
    for param, name in zip(fn.args, names, strict=True):
        param.name = name


def _reverse_post_order(entry: Block) -> list[Block]:
    order: list[Block] = []
    seen = {entry}
    stack: list[tuple[Block, Iterator[Block]]] = [(entry, iter(_successors(entry)))]
    while stack:
        block, successors = stack[-1]
        nxt = next((s for s in successors if s not in seen), None)
        if nxt is None:
            order.append(block)
            stack.pop()
            continue
        seen.add(nxt)
        stack.append((nxt, iter(_successors(nxt))))
    return order[::-1]


def _successors(block: Block) -> list[Block]:
    last = block.last_op
    return list(last.successors) if last is not None else []


class _FunctionTranslator:
    def __init__(self, state: ModuleState, op: func.FuncOp) -> None:
        self.op = op
        self.fx = FunctionEmitter(state, state.functions[op.sym_name.data])
        self.fx.fences_at_return = fences_at_return(op)

    def run(self) -> None:
        fx = self.fx
        entry = self.op.body.blocks.first
        assert entry is not None
        order = _reverse_post_order(entry)
        reachable = set(order)
        # A separate first block holds the static allocas and jumps to the source entry.
        fx.entry = fx.fn.append_basic_block("entry")
        for position, block in enumerate(self.op.body.blocks):
            if block in reachable:
                fx.blocks[block] = fx.fn.append_basic_block(f"bb{position}")
        self._bind_arguments(entry)
        for block in order[1:]:
            self._make_phis(block)
        for block in order:
            fx.b.position_at_end(fx.blocks[block])
            for op in block.ops:
                self._emit(op)
        fx.fill_phis()
        ir.IRBuilder(fx.entry).branch(fx.blocks[entry])

    def _bind_arguments(self, entry: Block) -> None:
        fx = self.fx
        params = iter(fx.fn.args[len(entry.args):])
        for arg, param in zip(entry.args, fx.fn.args, strict=False):
            if isinstance(arg.type, MemRefType):
                mtype = checked_memref(arg.type)
                count = sum(d < 0 for d in mtype.get_shape())
                fx.bind(arg, memref_with_dims(param, mtype, [next(params) for _ in range(count)]))
            else:
                fx.bind(arg, param)

    def _make_phis(self, block: Block) -> None:
        fx = self.fx
        fx.b.position_at_end(fx.blocks[block])
        per_arg: list[list[ir.PhiInstr]] = []
        for arg in block.args:
            if isinstance(arg.type, MemRefType):
                mtype = checked_memref(arg.type)
                count = sum(d < 0 for d in mtype.get_shape())
                phis = [fx.b.phi(PTR)] + [fx.b.phi(I64) for _ in range(count)]
                fx.bind(arg, memref_with_dims(phis[0], mtype, phis[1:]))
            else:
                phis = [fx.b.phi(scalar_type(arg.type))]
                fx.bind(arg, phis[0])
            per_arg.append(phis)
        fx.phis[block] = per_arg

    def _emit(self, op: Operation) -> None:
        name = op_name(op)
        emitter = EMITTERS.get(type(op)) or NAMED_EMITTERS.get(name)
        if emitter is None:
            raise CodegenError(f"unsupported op '{name}' in func.func @{self.op.sym_name.data}")
        try:
            result = emitter(self.fx, op)
        except CodegenError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as error:
            raise CodegenError(f"cannot translate '{name}': {error}") from error
        if result is None:
            return
        if len(op.results) != 1:
            raise CodegenError(f"'{name}': expected exactly one result")
        assert isinstance(result, ir.Value | MemRef)
        self.fx.bind(op.results[0], result)
