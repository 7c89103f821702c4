"""The `tj` dialect: every op and the context that parses tracejit IR at any stage."""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import (
    affine,
    arith,
    builtin,
    cf,
    complex,
    func,
    linalg,
    math,
    scf,
    tensor,
)
from xdsl.ir import Dialect

from tracejit.ir.constant import ConstantOp, TjConstantMaterialization
from tracejit.ir.control_flow import CONTROL_FLOW_OPS
from tracejit.ir.cumulative import CumulativeOp
from tracejit.ir.effects import AssertOp
from tracejit.ir.elementwise import BINARY_OPS, OTHER_ELEMENTWISE_OPS, UNARY_OPS
from tracejit.ir.fused import FUSED_OPS
from tracejit.ir.indexing import GatherOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.nonzero import NonzeroOp
from tracejit.ir.poison import PoisonOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.shape_ops import SHAPE_OPS
from tracejit.ir.sort import SortOp
from tracejit.ir.state import STATE_OPS, STATE_TYPES
from tracejit.ir.tensor_array import TENSOR_ARRAY_OPS
from tracejit.ir.update import UPDATE_OPS
from tracejit.ir.upstream_memref import MEMREF

TJ = Dialect(
    "tj",
    [
        ConstantOp,
        *UNARY_OPS,
        *BINARY_OPS,
        *OTHER_ELEMENTWISE_OPS,
        *SHAPE_OPS,
        GatherOp,
        ReduceOp,
        MatmulOp,
        AssertOp,
        PoisonOp,
        *CONTROL_FLOW_OPS,
        *STATE_OPS,
        *FUSED_OPS,
        *TENSOR_ARRAY_OPS,
        *UPDATE_OPS,
        CumulativeOp,
        SortOp,
        NonzeroOp,
    ],
    [*STATE_TYPES],
    [TjConstantMaterialization()],
)

# Every dialect a tracejit module may contain, from traced tj IR down to the cf level.
ALL_DIALECTS = (
    builtin.Builtin,
    func.Func,
    arith.Arith,
    complex.Complex,  # complex.re/im/create: complex scalars in loop bodies
    math.Math,
    MEMREF,  # xDSL's memref, alloc/alloca printed as upstream MLIR writes them
    linalg.Linalg,
    scf.Scf,
    cf.Cf,
    tensor.Tensor,
    affine.Affine,
    TJ,
)


def make_context() -> Context:
    """A context that can parse and verify tracejit IR of every stage."""
    ctx = Context()
    for dialect in ALL_DIALECTS:
        ctx.load_dialect(dialect)
    return ctx
