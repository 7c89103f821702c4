"""`memref.alloc` and `memref.alloca` printed the way upstream MLIR writes them.

xDSL prints an allocation's alignment in the attribute dictionary,
`memref.alloca() {alignment = 64 : i64} : memref<64xf32>`, which upstream MLIR's parser
rejects ("inherent attribute 'alignment' cannot be parsed from attr-dict when strict
properties in assembly format is enabled"): upstream's custom syntax is
`memref.alloca() alignment = 64 : memref<64xf32>`. These subclasses print that form and
parse both (so IR saved by older versions still loads). Everything else, including the
classes `isinstance` checks name, is xDSL's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects import memref
from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, i64
from xdsl.ir import Attribute, Dialect, SSAValue
from xdsl.irdl import irdl_op_definition, opt_prop_def, result_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer

_ALIGNMENT = "alignment"


def _print(op: memref.AllocOp | memref.AllocaOp, printer: Printer) -> None:
    printer.print_string("(")
    printer.print_list(op.dynamic_sizes, printer.print_ssa_value)
    printer.print_string(")")
    if op.symbol_operands:
        printer.print_string("[")
        printer.print_list(op.symbol_operands, printer.print_ssa_value)
        printer.print_string("]")
    if op.alignment is not None:
        printer.print_string(f" alignment = {op.alignment.value.data}")
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_attribute(op.memref.type)


def _parse(
    parser: Parser,
) -> tuple[list[SSAValue], list[SSAValue], IntegerAttr | None, dict[str, Attribute], Attribute]:
    """`(sizes)[symbols]? (alignment = N)? attr-dict? : type`; an `alignment` in the
    attribute dictionary (xDSL's older form) is taken as the property too."""
    sizes = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, parser.parse_unresolved_operand
    )
    symbols = (
        parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        or []
    )
    alignment: IntegerAttr | None = None
    if parser.parse_optional_keyword(_ALIGNMENT) is not None:
        parser.parse_punctuation("=")
        alignment = IntegerAttr(parser.parse_integer(), i64)
    attrs = dict(parser.parse_optional_attr_dict())
    if _ALIGNMENT in attrs:
        old = attrs.pop(_ALIGNMENT)
        if not isinstance(old, IntegerAttr):
            parser.raise_error("memref alignment must be an integer")
        alignment = old
    parser.parse_punctuation(":")
    result_type = parser.parse_type()
    index = IndexType()
    return (
        [parser.resolve_operand(s, index) for s in sizes],
        [parser.resolve_operand(s, index) for s in symbols],
        alignment,
        attrs,
        result_type,
    )


class _UpstreamSyntax:
    """print/parse for both ops (their constructors take the same arguments)."""

    def print(self, printer: Printer) -> None:
        _print(self, printer)  # type: ignore[arg-type]  # mixed only into AllocOp/AllocaOp

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        sizes, symbols, alignment, attrs, result_type = _parse(parser)
        op = cls(sizes, symbols, result_type, alignment)  # type: ignore[call-arg]  # AllocOp/AllocaOp's own __init__
        op.attributes |= attrs  # type: ignore[attr-defined]  # cls builds an op
        return op


@irdl_op_definition
class AllocOp(_UpstreamSyntax, memref.AllocOp):
    """`memref.alloc(%n) alignment = 64 : memref<?xf32>` (upstream's syntax)."""

    name = "memref.alloc"

    dynamic_sizes = var_operand_def(IndexType)
    symbol_operands = var_operand_def(IndexType)
    memref = result_def(MemRefType)
    alignment = opt_prop_def(IntegerAttr)


@irdl_op_definition
class AllocaOp(_UpstreamSyntax, memref.AllocaOp):
    """`memref.alloca() alignment = 64 : memref<64xf32>` (upstream's syntax)."""

    name = "memref.alloca"
    assembly_format = None  # type: ignore[assignment]  # xDSL's format prints the alignment in the attr-dict

    dynamic_sizes = var_operand_def(IndexType)
    symbol_operands = var_operand_def(IndexType)
    memref = result_def(MemRefType)
    alignment = opt_prop_def(IntegerAttr)

    def __init__(
        self,
        dynamic_sizes: Sequence[SSAValue],
        symbol_operands: Sequence[SSAValue],
        result_type: Attribute,
        alignment: IntegerAttr | None = None,
    ):
        super().__init__(
            operands=(dynamic_sizes, symbol_operands),
            result_types=(result_type,),
            properties={_ALIGNMENT: alignment} if alignment is not None else {},
        )

    @staticmethod
    def get(  # type: ignore[override]  # narrower than xDSL's get
        return_type: Attribute,
        alignment: int | IntegerAttr | None = None,
        shape: Sequence[int] | None = None,
        dynamic_sizes: Sequence[SSAValue] | None = None,
    ) -> AllocaOp:
        """A buffer of `shape` (default `[1]`) elements of `return_type`, as xDSL's `get`."""
        if isinstance(alignment, int):
            alignment = IntegerAttr(alignment, i64)
        result_type = MemRefType(return_type, list(shape) if shape is not None else [1])
        return AllocaOp(list(dynamic_sizes or []), [], result_type, alignment)


def _memref_dialect() -> Dialect:
    """xDSL's memref dialect with these two ops in place of its own."""
    replaced = {AllocOp.name: AllocOp, AllocaOp.name: AllocaOp}
    ops = [replaced.get(op.name, op) for op in memref.MemRef.operations]
    return Dialect("memref", ops, list(memref.MemRef.attributes), list(memref.MemRef._interfaces))


MEMREF = _memref_dialect()
