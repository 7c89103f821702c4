"""Every element-wise op of the dialect has an entry in every per-op table the compiler
keeps, so that adding an op fails here once, naming each place it still needs.

The tables: the dialect's op list, `ir/fused.py`'s ELEMENTWISE_OPS (what fusion and
bufferize take as element-wise), the scalar form the loop bodies are built from
(`passes/support/scalar_semantics.py`, and `complex_semantics.py` for complex elements),
the fusion cost (`passes/fuse_elementwise.py`), the adjoint or a declaration that there is
none (`frontend/autodiff/adjoints.py`), and the NumPy evaluation that folding and the graph
interpreter run (`evaluate`, `runtime/graph_interpreter.py`).
"""

from __future__ import annotations

import pytest
from xdsl.ir import Operation
from xdsl.traits import HasFolder

from tracejit.frontend.autodiff.adjoints import ADJOINTS, NON_DIFFERENTIABLE, PIECEWISE_CONSTANT
from tracejit.ir import elementwise as ew
from tracejit.ir.complex_parts import ComplexPartOp
from tracejit.ir.dialect import TJ
from tracejit.ir.dtypes import COMPLEX
from tracejit.ir.elementwise_base import ElementwiseBinaryOp, ElementwiseUnaryOp
from tracejit.ir.fused import ELEMENTWISE_OPS
from tracejit.passes.fuse_elementwise import OP_COSTS
from tracejit.passes.support.complex_semantics import COMPLEX_OPS
from tracejit.passes.support.scalar_semantics import OP_FORMS, SCALAR_OPS
from tracejit.runtime.graph_interpreter import EVALUATED


def _defined_in_ir(base: type) -> list[type[Operation]]:
    """The op classes of tracejit.ir derived from `base` (not those other tests define)."""
    found, stack = [], list(base.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        named = isinstance(getattr(cls, "name", None), str)
        if named and cls.__module__.startswith("tracejit.ir."):
            found.append(cls)
    return found


ALL_ELEMENTWISE: list[type[Operation]] = sorted(
    {
        *ELEMENTWISE_OPS,
        *_defined_in_ir(ElementwiseUnaryOp),
        *_defined_in_ir(ElementwiseBinaryOp),
        *_defined_in_ir(ComplexPartOp),
        ew.CompareOp,
        ew.SelectOp,
        ew.CastOp,
    },
    key=lambda op: op.name,
)


def _emitted_by_emit_scalar(op: type[Operation]) -> bool:
    """Ops whose scalar form is `emit_scalar`'s table lookup, by element kind."""
    return issubclass(op, ElementwiseUnaryOp | ElementwiseBinaryOp)


def missing_tables(op: type[Operation]) -> list[str]:
    missing = []
    if op not in TJ.operations:
        missing.append("the dialect's op list (ir/dialect.py TJ)")
    if op not in ELEMENTWISE_OPS:
        missing.append(
            "ELEMENTWISE_OPS (ir/fused.py, from UNARY_OPS / BINARY_OPS / OTHER_ELEMENTWISE_OPS)"
        )
    if op not in OP_FORMS:
        missing.append("its scalar form (passes/support/scalar_semantics.py OP_FORMS)")
    elif OP_FORMS[op].__name__ == "_elementwise_form" and _emitted_by_emit_scalar(op):
        domain = getattr(op, "DOMAIN", frozenset())
        if domain - {COMPLEX} and op not in SCALAR_OPS:
            missing.append("its real scalar form (passes/support/scalar_semantics.py SCALAR_OPS)")
        if COMPLEX in domain and op not in COMPLEX_OPS:
            missing.append(
                "its complex scalar form (passes/support/complex_semantics.py COMPLEX_OPS)"
            )
    if op not in OP_COSTS:
        missing.append("its fusion cost (passes/fuse_elementwise.py OP_COSTS)")
    declared = [op in ADJOINTS, op in PIECEWISE_CONSTANT, op in NON_DIFFERENTIABLE]
    if not any(declared):
        missing.append(
            "an adjoint (frontend/autodiff/adjoints.py ADJOINTS), or a declaration that it "
            "has none (PIECEWISE_CONSTANT or NON_DIFFERENTIABLE there)"
        )
    elif sum(declared) > 1:
        missing.append(
            "exactly one of ADJOINTS, PIECEWISE_CONSTANT and NON_DIFFERENTIABLE "
            "(frontend/autodiff/adjoints.py): it is in several"
        )
    if not callable(getattr(op, "evaluate", None)) or not issubclass(op, EVALUATED):
        missing.append(
            "its NumPy evaluation (`evaluate`, and runtime/graph_interpreter.py EVALUATED)"
        )
    if not op.has_trait(HasFolder):
        missing.append("a folder (HasFolderInterface: `fold()`)")
    return missing


@pytest.mark.parametrize("op", ALL_ELEMENTWISE, ids=lambda op: op.name)
def test_elementwise_op_is_in_every_table(op):
    missing = missing_tables(op)
    assert not missing, f"{op.name} ({op.__name__}) has no entry in:\n  " + "\n  ".join(missing)


def test_the_check_finds_every_elementwise_op():
    assert len(ALL_ELEMENTWISE) == len(ELEMENTWISE_OPS) > 50


def test_a_missing_entry_is_named():
    """The message a new op gets: an op in no table."""

    class NewOp(ElementwiseUnaryOp):
        name = "tj.new"

    missing = "\n".join(missing_tables(NewOp))
    for table in ("TJ", "ELEMENTWISE_OPS", "OP_FORMS", "OP_COSTS", "ADJOINTS"):
        assert table in missing
