"""`vector.load` and `vector.store` printed the way upstream MLIR writes them.

xDSL prints a non-temporal access's flag in the attribute dictionary,
`vector.store %v, %m[%i] {nontemporal = true} : ...`, which upstream MLIR's parser rejects
(as it does memref.alloca's alignment there: see upstream_memref.py); upstream's custom
syntax is `vector.store %v, %m[%i] nontemporal = true : memref<64xf32>, vector<16xf32>`.
These subclasses print that form and parse both. Everything else, including the classes
`isinstance` checks name, is xDSL's.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects import vector
from xdsl.dialects.builtin import BoolAttr, IndexType, IntegerAttr, MemRefType, VectorType, i1
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, var_operand_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

_NONTEMPORAL = "nontemporal"


def is_nontemporal(op: vector.LoadOp | vector.StoreOp) -> bool:
    return bool(op.nontemporal.value.data)


def _print_tail(op: vector.LoadOp | vector.StoreOp, printer: Printer, vtype: Attribute) -> None:
    """`[indices] (nontemporal = true)? attr-dict? : memref type, vector type`."""
    printer.print_string("[")
    printer.print_list(op.indices, printer.print_ssa_value)
    printer.print_string("]")
    if is_nontemporal(op):
        printer.print_string(f" {_NONTEMPORAL} = true")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.base.type)
    printer.print_string(", ")
    printer.print_attribute(vtype)


def _parse_tail(parser: Parser):
    """What `_print_tail` prints; `{nontemporal = ...}` in the attribute dictionary (xDSL's
    own form) is taken as the property too."""
    indices = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    nontemporal = False
    if parser.parse_optional_keyword(_NONTEMPORAL) is not None:
        parser.parse_punctuation("=")
        nontemporal = parser.parse_boolean()
    attrs = dict(parser.parse_optional_attr_dict())
    if _NONTEMPORAL in attrs:
        flag = attrs.pop(_NONTEMPORAL)
        if not (isinstance(flag, IntegerAttr) and flag.type == i1):
            parser.raise_error("nontemporal must be true or false")
        nontemporal = bool(flag.value.data)
    parser.parse_punctuation(":")
    base_type = parser.parse_type()
    parser.parse_punctuation(",")
    vector_type = parser.parse_type()
    return indices, nontemporal, attrs, base_type, vector_type


def _resolve_indices(parser: Parser, indices: list[UnresolvedOperand]):
    return [parser.resolve_operand(i, IndexType()) for i in indices]


@irdl_op_definition
class LoadOp(vector.LoadOp):
    """`vector.load %m[%i] : memref<64xf32>, vector<16xf32>` (upstream's syntax)."""

    name = "vector.load"
    assembly_format = None  # type: ignore[assignment]  # own print/parse, not xDSL's format

    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def(VectorType)
    nontemporal = opt_prop_def(BoolAttr, default_value=BoolAttr.from_bool(False))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.base)
        _print_tail(self, printer, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        base = parser.parse_unresolved_operand()
        indices, nontemporal, attrs, base_type, vector_type = _parse_tail(parser)
        assert isinstance(vector_type, VectorType)
        op = cls(parser.resolve_operand(base, base_type), _resolve_indices(parser, indices),
                 vector_type)  # fmt: skip
        op.nontemporal = BoolAttr.from_bool(nontemporal)
        op.attributes |= attrs
        return op


@irdl_op_definition
class StoreOp(vector.StoreOp):
    """`vector.store %v, %m[%i] nontemporal = true : memref<64xf32>, vector<16xf32>`."""

    name = "vector.store"
    assembly_format = None  # type: ignore[assignment]  # custom printing

    vector = operand_def(VectorType)
    base = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    nontemporal = opt_prop_def(BoolAttr, default_value=BoolAttr.from_bool(False))

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.vector)
        printer.print_string(", ")
        printer.print_ssa_value(self.base)
        _print_tail(self, printer, self.vector.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        base = parser.parse_unresolved_operand()
        indices, nontemporal, attrs, base_type, vector_type = _parse_tail(parser)
        op = cls(
            parser.resolve_operand(value, vector_type),
            parser.resolve_operand(base, base_type),
            _resolve_indices(parser, indices),
            BoolAttr.from_bool(nontemporal),
        )
        op.attributes |= attrs
        return op


def _vector_dialect() -> Dialect:
    """xDSL's vector dialect with these two ops in place of its own."""
    replaced: dict[str, type[Operation]] = {LoadOp.name: LoadOp, StoreOp.name: StoreOp}
    ops = [replaced.get(op.name, op) for op in vector.Vector.operations]
    return Dialect("vector", ops, list(vector.Vector.attributes), list(vector.Vector._interfaces))


VECTOR = _vector_dialect()
