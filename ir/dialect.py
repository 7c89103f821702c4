"""The `tj` dialect: every op and the context that parses tracejit IR at any stage."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Dialect

from tracejit.ir.constant import ConstantOp, TjConstantMaterialization
from tracejit.ir.control_flow import CONTROL_FLOW_OPS
from tracejit.ir.cumulative import CumulativeOp
from tracejit.ir.effects import AssertOp, CheckInterruptOp, ClearInterruptOp
from tracejit.ir.elementwise import BINARY_OPS, OTHER_ELEMENTWISE_OPS, UNARY_OPS
from tracejit.ir.fft import FftOp
from tracejit.ir.fused import FUSED_OPS
from tracejit.ir.indexing import GatherOp
from tracejit.ir.linalg import LinalgOp
from tracejit.ir.matmul import MatmulOp
from tracejit.ir.nonzero import NonzeroOp
from tracejit.ir.poison import PoisonOp
from tracejit.ir.reduce import ReduceOp
from tracejit.ir.scatter_combine import ScatterCombineOp
from tracejit.ir.search_sorted import SearchSortedOp
from tracejit.ir.shape_ops import SHAPE_OPS
from tracejit.ir.sort import SortOp
from tracejit.ir.state import STATE_OPS, STATE_TYPES
from tracejit.ir.tensor_array import TENSOR_ARRAY_OPS
from tracejit.ir.update import UPDATE_OPS

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
        CheckInterruptOp,
        ClearInterruptOp,
        PoisonOp,
        *CONTROL_FLOW_OPS,
        *STATE_OPS,
        *FUSED_OPS,
        *TENSOR_ARRAY_OPS,
        *UPDATE_OPS,
        ScatterCombineOp,
        SearchSortedOp,
        CumulativeOp,
        SortOp,
        FftOp,
        NonzeroOp,
        LinalgOp,
    ],
    [*STATE_TYPES],
    [TjConstantMaterialization()],
)


def _dialect_in(module: str, name: str) -> Callable[[], Dialect]:
    """A factory that imports `module` for its Dialect `name` only when called."""
    return lambda: getattr(importlib.import_module(module), name)


# Every dialect a tracejit module may contain besides builtin and tj, from traced tj IR down
# to the cf level: dialect name -> factory. The context loads one when the IR names it, so
# that a run on tj IR does not define the ~250 ops of the others (~0.1 s of xDSL imports).
UPSTREAM_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "func": _dialect_in("xdsl.dialects.func", "Func"),
    "arith": _dialect_in("xdsl.dialects.arith", "Arith"),
    # complex.re/im/create: complex scalars in loop bodies
    "complex": _dialect_in("xdsl.dialects.complex", "Complex"),
    "math": _dialect_in("xdsl.dialects.math", "Math"),
    # xDSL's memref, alloc/alloca printed as upstream MLIR writes them
    "memref": _dialect_in("tracejit.ir.upstream_memref", "MEMREF"),
    "linalg": _dialect_in("xdsl.dialects.linalg", "Linalg"),
    "scf": _dialect_in("xdsl.dialects.scf", "Scf"),
    "cf": _dialect_in("xdsl.dialects.cf", "Cf"),
    "tensor": _dialect_in("xdsl.dialects.tensor", "Tensor"),
    "affine": _dialect_in("xdsl.dialects.affine", "Affine"),
    # vector.load/store (stream-stores writes whole cache lines), printed as upstream does
    "vector": _dialect_in("tracejit.ir.upstream_vector", "VECTOR"),
}


def make_context() -> Context:
    """A context that can parse and verify tracejit IR of every stage."""
    ctx = Context()
    ctx.load_dialect(builtin.Builtin)
    ctx.load_dialect(TJ)
    for name, factory in UPSTREAM_DIALECTS.items():
        ctx.register_dialect(name, factory)
    return ctx
