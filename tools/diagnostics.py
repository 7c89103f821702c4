"""Errors as `file:line:col: error: message`, with the offending op and the pass that broke
the IR, like mlir-opt's diagnostics.

Positions come from the span of a ParseError, or from the `FileLineColLoc` the locating
parser (`mlir_input.py`) gives every op of an input file. xDSL's verifier reports which op
failed only inside a printed note, so `failing_op` re-verifies the ops one at a time, inner
ops first like the verifier, to find it. Ops a pass created have no position: the nearest
enclosing op that has one is named instead (and the note says so); a traced Python function
has no positions at all, so its errors name `file.py:function`.

Each error is a `Diagnostic`: printed as is, or, under `--verify-diagnostics`, matched by its
line and message against the input's `expected-error` comments (`verify_diagnostics.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError


@dataclass
class Diagnostic:
    """One error: `where: error: message`, then `details` (source lines, the op, notes)."""

    message: str
    where: str | None = None  # `file:line:col`, or the input's name when there is no position
    line: int | None = None  # the line of `where`; None: no position
    details: str = ""  # whole lines, each ending in a newline

    def __str__(self) -> str:
        prefix = f"{self.where}: " if self.where else ""
        return f"{prefix}error: {self.message}\n{self.details}"


class ToolError(Exception):
    """A diagnostic that is ready to print (no prefix added)."""

    def __init__(self, diagnostic: Diagnostic):
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


def diagnose_parse_error(error: ParseError) -> Diagnostic:
    location = error.span.get_location()
    # print_with_context(None) is the location line, then the source lines with carets.
    context = error.span.print_with_context().split("\n", 1)[1]
    return Diagnostic(error.msg, str(location), location.line, context)


def failing_op(module: ModuleOp) -> tuple[Operation, str] | None:
    """The first op (inner ops first) whose own verification fails, and its message."""
    for op in module.walk(region_first=True):
        try:
            op.verify(verify_nested_ops=False)
        except Exception as error:  # any verifier complaint names this op
            return op, str(error)
    return None


def location_of(op: Operation) -> tuple[FileLineColLoc, bool] | None:
    """The position of `op`, or of its nearest located ancestor (second item False)."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current.location, FileLineColLoc):
            return current.location, current is op
        current = current.parent_op()
    return None


def position_text(loc: FileLineColLoc) -> str:
    return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"


def op_excerpt(op: Operation) -> str:
    """The op as printed; for an op with regions only its first line."""
    lines = str(op).splitlines()
    shown = lines[:1] + ["  ..."] if op.regions and len(lines) > 1 else lines
    return "".join(f"  {line}\n" for line in shown)


def diagnose_invalid_ir(
    module: ModuleOp, error: BaseException, input_name: str, pass_name: str | None = None
) -> Diagnostic:
    """A verifier failure in `module`, pointing at the op that fails and the pass."""
    found = failing_op(module)
    notes = []
    if found is None:
        diagnostic = Diagnostic(str(error), input_name)
    else:
        op, message = found
        diagnostic = Diagnostic(f"'{op.name}' op {message}", input_name, details=op_excerpt(op))
        located = location_of(op)
        if located is not None:
            diagnostic.where, diagnostic.line = position_text(located[0]), located[0].line.data
            if not located[1]:
                notes.append(
                    "the op has no source position (a pass made it); shown: the enclosing op"
                )
    if pass_name is not None:
        notes.append(f"the IR was invalid after pass '{pass_name}'")
    diagnostic.details += "".join(f"note: {note}\n" for note in notes)
    return diagnostic


def diagnose_pass_failure(
    module: ModuleOp | None, error: Exception, input_name: str, pass_name: str
) -> Diagnostic:
    """A pass raised: its own error, or the verifier's on the IR the pass left."""
    cause = error.__cause__ or error
    if module is not None and is_verifier_error(cause):
        return diagnose_invalid_ir(module, cause, input_name, pass_name)
    return Diagnostic(f"pass '{pass_name}' failed: {_describe(cause)}", input_name)


def is_verifier_error(error: BaseException) -> bool:
    from xdsl.utils.exceptions import VerifyException

    return isinstance(error, VerifyException)


def _describe(error: BaseException) -> str:
    """`ValueError: msg` for unexpected exception types; the message alone for ours."""
    expected = (ValueError, TypeError, NotImplementedError)
    name = "" if type(error) in expected else f"{type(error).__name__}: "
    return name + str(error)
