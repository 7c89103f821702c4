"""Translation state shared by the op emitters.

`ModuleState` owns the `llvmlite.ir.Module` and caches declarations (intrinsics, libm, helper
functions, globals). `FunctionEmitter` translates one `func.func`: it maps xDSL SSA values to
LLVM values (`MemRef` for memrefs), owns the IR builder, and records CFG edges so phi nodes
can be filled after all blocks are emitted (block order does not matter).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from llvmlite import ir
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, SSAValue

from tracejit.codegen.errors import CodegenError
from tracejit.codegen.llvm_types import I64, PTR, opaque

# An emitter translates one op; a returned value is bound to the op's single result. Its
# second parameter is the op class it is registered under (emit_load takes a LoadOp), which
# a Callable type cannot tie to the table's key, hence `...`.
Emitter = Callable[..., "ir.Value | MemRef | None"]


@dataclass
class MemRef:
    """A memref SSA value: data pointer plus one i64 per dim (constants for static dims)."""

    ptr: ir.Value
    dims: list[ir.Value]
    type: MemRefType


@dataclass
class ModuleState:
    """The LLVM module under construction and its cached declarations."""

    module: ir.Module
    noalias_args: bool = False
    check_bounds: bool = False  # range-check every load, store and copy (emit_memref.py)
    messages: list[str] = field(default_factory=list)  # the module's check messages
    functions: dict[str, ir.Function] = field(default_factory=dict)
    globals: dict[str, tuple[ir.GlobalVariable, MemRefType]] = field(default_factory=dict)

    def declare(self, name: str, ret: ir.Type, args: Sequence[ir.Type],
                attrs: Sequence[str] = ()) -> ir.Function:
        """An external function (intrinsic or C library), declared once."""
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        fn = ir.Function(self.module, ir.FunctionType(ret, list(args)), name)
        for attr in attrs:
            fn.attributes.add(attr)
        return fn

    def loader_filled(self, name: str) -> ir.GlobalVariable:
        """`ptr @name`, null until the loader fills it in (jit._bind_runtime): the address
        of something of the process's, such as the thread count or the thread pool."""
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        variable = ir.GlobalVariable(self.module, PTR, name)
        variable.initializer = ir.Constant(PTR, None)
        return variable

    def intrinsic(self, base: str, ret: ir.Type, args: Sequence[ir.Type],
                  overloads: Sequence[ir.Type]) -> ir.Function:
        """`llvm.<base>.<suffixes>`, e.g. intrinsic("exp", f32, [f32], [f32]) -> llvm.exp.f32."""
        suffix = "".join("." + t.intrinsic_name for t in overloads)
        return self.declare(f"llvm.{base}{suffix}", ret, args)

    def helper(self, name: str, build: Callable[[ir.Function], None], ret: ir.Type,
               args: Sequence[ir.Type]) -> ir.Function:
        """An internal helper function, built by `build` the first time it is requested."""
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        fn = ir.Function(self.module, ir.FunctionType(ret, list(args)), name)
        fn.linkage = "internal"
        fn.attributes.add("nounwind")
        build(fn)
        return fn


@dataclass
class _Edge:
    target: Block
    args: Sequence[SSAValue]
    source: ir.Block


class FunctionEmitter:
    """Per-function translation state; emitters use `b`, `get`, `memref` and `branch_edge`."""

    def __init__(self, state: ModuleState, fn: ir.Function) -> None:
        self.state = state
        self.fn = fn
        self.b = ir.IRBuilder()
        self.values: dict[SSAValue, ir.Value | MemRef] = {}
        self.blocks: dict[Block, ir.Block] = {}
        self.phis: dict[Block, list[list[ir.PhiInstr]]] = {}
        self._edges: list[_Edge] = []
        self.entry: ir.Block | None = None
        self.fences_at_return = False
        """Whether a return must first fence the function's non-temporal stores."""

    def get(self, value: SSAValue) -> ir.Value:
        found = self._lookup(value)
        if isinstance(found, MemRef):
            raise CodegenError(f"expected a scalar, got memref value of type {value.type}")
        return found

    def memref(self, value: SSAValue) -> MemRef:
        found = self._lookup(value)
        if not isinstance(found, MemRef):
            raise CodegenError(f"expected a memref, got value of type {value.type}")
        return found

    def _lookup(self, value: SSAValue) -> ir.Value | MemRef:
        try:
            return self.values[value]
        except KeyError:
            raise CodegenError(f"value {value.name_hint or value} of type {value.type} is "
                               "used before it is defined (or in an unreachable block)") from None

    def bind(self, value: SSAValue, lowered: ir.Value | MemRef) -> None:
        self.values[value] = lowered

    def flatten(self, value: SSAValue) -> list[ir.Value]:
        """The LLVM values carrying `value` across an edge: memref -> ptr + dynamic dims."""
        found = self._lookup(value)
        if not isinstance(found, MemRef):
            return [found]
        dynamic = [d for d, static in zip(found.dims, found.type.get_shape(), strict=True)
                   if static < 0]
        return [found.ptr, *dynamic]

    def branch_edge(self, target: Block, args: Sequence[SSAValue]) -> ir.Block:
        """Record the edge current-block -> target for phi filling; returns the LLVM block."""
        self._edges.append(_Edge(target, args, self.b.block))
        return self.blocks[target]

    def fill_phis(self) -> None:
        for edge in self._edges:
            phis = self.phis.get(edge.target, [])
            for arg_phis, arg in zip(phis, edge.args, strict=True):
                for phi, incoming in zip(arg_phis, self.flatten(arg), strict=True):
                    phi.add_incoming(incoming, edge.source)

    def entry_alloca(self, typ: ir.Type, align: int) -> ir.Value:
        """A fixed-size stack slot in the dedicated entry block (so LLVM can promote it)."""
        assert self.entry is not None
        slot = ir.IRBuilder(self.entry).alloca(typ)
        slot.align = align
        return opaque(slot)


class count_loop:  # noqa: N801  (used as a `with` statement, like IRBuilder.if_then)
    """`for (t = start; t < stop; ++t)`: the with-block emits the body at `b`."""

    def __init__(self, b: ir.IRBuilder, fn: ir.Function, start: ir.Value, stop: ir.Value,
                 name: str) -> None:  # fmt: skip
        self.b, self.fn, self.start, self.stop, self.name = b, fn, start, stop, name

    def __enter__(self) -> ir.Value:
        b = self.b
        self.before = b.block
        self.head = self.fn.append_basic_block(self.name + "_head")
        self.body = self.fn.append_basic_block(self.name + "_body")
        self.exit = self.fn.append_basic_block(self.name + "_exit")
        b.branch(self.head)
        b.position_at_end(self.head)
        self.t = b.phi(I64)
        self.t.add_incoming(self.start, self.before)
        b.cbranch(b.icmp_signed("<", self.t, self.stop), self.body, self.exit)
        b.position_at_end(self.body)
        return self.t

    def __exit__(self, *exc: object) -> None:
        b = self.b
        self.t.add_incoming(b.add(self.t, ir.Constant(I64, 1)), b.block)
        b.branch(self.head)
        b.position_at_end(self.exit)
