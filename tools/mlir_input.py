"""Reading a `.mlir` file (or stdin) with every op's source position.

xDSL's parser knows each op's span but keeps it only for ops written with `loc(...)`; this
parser records `file:line:col` of every other op as a `FileLineColLoc`. Locations are not
printed (so dumps are unchanged) but survive cloning, so a verifier error, even one after a
pass, can point at the line of an op that came from the file.

`--split-input-file` cuts the text at lines `// -----` into `Chunk`s, each parsed as its own
module; a chunk's positions keep the file's line numbers (xDSL's `Span.line_offset`, which
xdsl-opt sets the same way). xdsl-opt's splitter is not reused: it cuts at `// -----`
anywhere in a line, also inside a comment such as `// ----- IR after cse -----`.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import AttributeInvT, Operation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span


class LocatingParser(Parser):
    """A Parser that gives each parsed op without an explicit location its position, and
    reports a value that is never defined at its first use (xDSL points at the end)."""

    def __init__(self, ctx: Context, source: str, name: str, line_offset: int = 0):
        super().__init__(ctx, source, name)
        self.first_use: dict[str, Span] = {}
        self.line_offset = line_offset  # lines of the file before `source` (a split chunk)

    def resolve_operand(self, operand: UnresolvedOperand, type: AttributeInvT):
        if operand.operand_name not in self.ssa_values:
            self.first_use.setdefault(operand.operand_name, operand.span)
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except ParseError:
            undefined = [
                self.first_use[n] for n in self.forward_ssa_references if n in self.first_use
            ]
            if not undefined:
                raise
            first = min(undefined, key=lambda span: span.start)
            self.raise_error(f"use of undefined value {first.text}", first)

    def parse_operation(self) -> Operation:
        # `_current_token` is xDSL's lexer position; the op starts at its first token.
        location = self._current_token.span.get_location()
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            op.location = FileLineColLoc(
                StringAttr(location.file),
                IntAttr(location.line + self.line_offset),
                IntAttr(location.col),
            )
        return op


SPLIT_MARKER = "// -----"


@dataclass
class Chunk:
    """A part of the input: its text and how many lines of the file come before it."""

    text: str
    line_offset: int = 0


def split_input(source: str) -> list[Chunk]:
    """`source` cut at each line that is exactly `// -----` (spaces around it allowed), as
    mlir-opt's --split-input-file does; the marker lines belong to no chunk."""
    chunks: list[Chunk] = []
    lines: list[str] = []
    start = 0
    for number, line in enumerate(source.split("\n")):  # lines as xDSL's lexer counts them
        if line.strip() == SPLIT_MARKER:
            chunks.append(Chunk("\n".join(lines), start))
            lines, start = [], number + 1
        else:
            lines.append(line)
    chunks.append(Chunk("\n".join(lines), start))
    return chunks


def input_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def read_source(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path) as file:
        return file.read()


def parse_mlir(source: str, name: str, line_offset: int = 0) -> ModuleOp:
    """Parse (not verify) the module text `source` read from `name`, where `line_offset`
    lines come before it."""
    from tracejit.ir.dialect import make_context

    try:
        return LocatingParser(make_context(), source, name, line_offset).parse_module()
    except ParseError as error:
        error.span = dataclasses.replace(error.span, line_offset=line_offset)
        raise
