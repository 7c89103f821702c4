"""bufferize: tensor functions -> buffer functions built of `linalg.generic` ops.

Expects `func.func`s on tensors made of `tj` ops, ending in `func.return`.
Produces destination-passing functions on memrefs, the calling convention of
`codegen/abi.py`:

    func.func @f(%x: memref<4x3xf32>, %out0: memref<3xf32>)   // inputs, then outputs

* every tensor value gets a buffer: a returned value is computed straight into its
  output argument; other values get a `memref.alloc`, freed before the return;
* every `tj` op becomes `linalg.generic`s whose bodies are the op's scalar form
  (`support/scalar_semantics.py`); `lower-to-loops` turns those into loop nests;
* splat constants become a fill, other constants a `memref.global`;
* inputs are read only: a returned input is copied into its output buffer.

The buffer form of each op family lives in a module of this package named after the
family (`elementwise.py`, `structured.py`, `reductions.py`, `shapes.py`, `fused.py`,
`control_flow.py`, `state.py`, `tensor_array.py`, `updates.py`, `cumulative.py`, `sort.py`,
`fft.py`, `nonzero.py`, `lapack.py`); the machinery they share is `builder.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, scf
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tracejit.ir.state import VarType
from tracejit.passes.bufferize.absorbed_operands import ABSORBING_HANDLERS
from tracejit.passes.bufferize.builder import BufferizeState, FunctionBufferizer, Handler
from tracejit.passes.bufferize.control_flow import CONTROL_FLOW_HANDLERS
from tracejit.passes.bufferize.cumulative import CUMULATIVE_HANDLERS
from tracejit.passes.bufferize.elementwise import ELEMENTWISE_HANDLERS
from tracejit.passes.bufferize.fft import FFT_HANDLERS
from tracejit.passes.bufferize.lapack import LAPACK_HANDLERS
from tracejit.passes.bufferize.nonzero import NONZERO_HANDLERS
from tracejit.passes.bufferize.reductions import REDUCTION_HANDLERS
from tracejit.passes.bufferize.search_sorted import SEARCH_HANDLERS
from tracejit.passes.bufferize.shapes import SHAPE_HANDLERS
from tracejit.passes.bufferize.sort import SORT_HANDLERS
from tracejit.passes.bufferize.state import STATE_HANDLERS
from tracejit.passes.bufferize.structured import STRUCTURED_HANDLERS
from tracejit.passes.bufferize.tensor_array import TENSOR_ARRAY_HANDLERS, lower_while_any
from tracejit.passes.bufferize.updates import UPDATE_HANDLERS
from tracejit.passes.bufferize.write_only import drop_write_only_buffers


def _one_table(*families: Mapping[type[Operation], Handler]) -> dict[type[Operation], Handler]:
    """The op families' tables as one; an op type in two of them is an error, so that no
    handler wins by the order of a dict merge."""
    table: dict[type[Operation], Handler] = {}
    for family in families:
        if shared := table.keys() & family.keys():
            raise AssertionError(f"bufferize: two buffer forms for {sorted(map(str, shared))}")
        table.update(family)
    return table


HANDLERS = _one_table(
    ELEMENTWISE_HANDLERS,
    STRUCTURED_HANDLERS,
    REDUCTION_HANDLERS,
    CONTROL_FLOW_HANDLERS,
    STATE_HANDLERS,
    SHAPE_HANDLERS,
    ABSORBING_HANDLERS,
    TENSOR_ARRAY_HANDLERS,
    UPDATE_HANDLERS,
    CUMULATIVE_HANDLERS,
    SORT_HANDLERS,
    SEARCH_HANDLERS,
    FFT_HANDLERS,
    NONZERO_HANDLERS,
    LAPACK_HANDLERS,
    {
        # scf.while has two buffer forms. control_flow.lower_while keeps each loop value
        # in one state buffer of fixed size; a value whose size can change from one
        # iteration to the next (a growing TensorArray) cannot live there, so
        # tensor_array.lower_while_any carries those in SSA form and hands a loop whose
        # values all have static shapes to lower_while.
        scf.WhileOp: lower_while_any,
        func.ReturnOp: FunctionBufferizer.finish,
    },
)


def _has_tensors(function: func.FuncOp) -> bool:
    """A function still at the tensor level: tensor types anywhere, or tj ops (a function
    that only prints, say, has neither tensor arguments nor results)."""
    types = [*function.function_type.inputs, *function.function_type.outputs]
    # a Variable handle whose reads were all dead code still needs its buffer argument
    return any(isinstance(t, TensorType | VarType) for t in types) or any(
        op.name.startswith("tj.") or any(isinstance(r.type, TensorType) for r in op.results)
        for op in function.walk()
    )


def bufferize_module(module: ModuleOp) -> None:
    for function in list(module.ops):
        if isinstance(function, func.FuncOp) and _has_tensors(function):
            state = BufferizeState.of(function)
            new = FunctionBufferizer(module, function, state).run(HANDLERS)
            drop_write_only_buffers(new)
            module.body.block.insert_op_before(new, function)
            function.detach()
            function.erase()


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """Tensors -> memrefs: every tj op becomes a linalg.generic on buffers."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        bufferize_module(op)
