"""`tj.extent`: a buffer that is only a shape, no data.

    %e = tj.extent(%n) : memref<?x12xi8>

`bufferize` gives it to a `linalg.generic` as an input its body never reads, so that
`lower-to-loops` bounds the loops no other operand walks (it takes a loop's trip count
from the dims of the operands the loop indexes): a fused kernel that reads `x[:i]` and
`y[:i]` in place through loads and reduces them into a scalar walks no operand of size
`i`. Its dims are the `index` operands (one per `?` dim, in order) and the static sizes of
its type; its data pointer is null, so nothing may load or store it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, MemRefType, i8
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def, traits_def, var_operand_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class ExtentOp(IRDLOperation):
    """A data-less buffer of the given shape, a loop bound (see the module docstring)."""

    name = "tj.extent"
    sizes = var_operand_def(IndexType)
    result = result_def(MemRefType)
    traits = traits_def(Pure())
    assembly_format = "`(` $sizes `)` attr-dict `:` type($result)"

    def __init__(self, shape: Sequence[int], sizes: Sequence[SSAValue]):
        super().__init__(operands=[list(sizes)], result_types=[MemRefType(i8, list(shape))])

    def verify_(self) -> None:
        assert isinstance(self.result.type, MemRefType)
        dynamic = list(self.result.type.get_shape()).count(DYNAMIC_INDEX)
        if len(self.sizes) != dynamic:
            raise VerifyException(f"tj.extent needs one size per `?` dim ({dynamic})")
