"""`--verify-diagnostics`: check the errors tracejit-opt reports against the `expected-error`
comments of the input, as mlir-opt does, instead of printing them.

    %r = tj.exp %x : tensor<4xi32>   // expected-error {{expects a float tensor}}
    // expected-error @+1 {{expects a float tensor}}
    %r = tj.exp %x : tensor<4xi32>

`{{text}}` must be a substring of the error's message, and the error must point at the line
of the comment, or N lines below (`@+N`) or above (`@-N`) it; `@unknown` expects an error
without a position (a pass that raised, a failed run). Each expectation matches one error.
Every error is checked against the expectations of its own chunk (`--split-input-file`).
The run succeeds when every expected error was reported and no other; the report lists the
errors nobody expected and the expectations no error met. xdsl-opt's flag of that name only
prints the error, leaving the checks to FileCheck, so this is tracejit's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracejit.tools.diagnostics import Diagnostic
from tracejit.tools.mlir_input import Chunk

# mlir-opt's syntax: the text runs to the last `}}` of the line.
EXPECTED_ERROR = re.compile(r"expected-error *(?:@(?P<at>[+-]\d+|unknown))? *\{\{(?P<text>.*)\}\}")
# What looks like a directive (prose that names one is not): one this tool cannot read is
# an error rather than a check that silently never runs.
ANY_DIRECTIVE = re.compile(r"expected-[\w-]+ *(?:@\S*)? *\{\{")


@dataclass
class Expectation:
    text: str
    line: int | None  # the line the error must point at; None: an error without a position
    where: str  # `file:line:col` of the comment
    met: bool = False


def expectations(chunk: Chunk, file_name: str) -> tuple[list[Expectation], list[str]]:
    """The `expected-error` comments of `chunk`, and a complaint per directive it cannot
    read (`expected-note`, `@above`, a missing `}}`)."""
    found, malformed = [], []
    for number, line in enumerate(chunk.text.split("\n"), start=chunk.line_offset + 1):
        directive = ANY_DIRECTIVE.search(line)  # one per line, as in mlir-opt
        if directive is None:
            continue
        where = f"{file_name}:{number}:{directive.start() + 1}"
        match = EXPECTED_ERROR.match(line, directive.start())
        if match is None:
            malformed.append(
                f"{where}: error: cannot read this directive; tracejit-opt reports errors "
                "only, written expected-error {{text}}, with @+N, @-N or @unknown before "
                "{{ to point elsewhere than this line\n"
            )
            continue
        at = match["at"]
        target = None if at == "unknown" else number + int(at or 0)
        found.append(Expectation(match["text"], target, where))
    return found, malformed


def unmet_report(expected: list[Expectation], reported: list[Diagnostic], file_name: str) -> str:
    """Pair each reported error with an expectation at its line whose text it contains; the
    report of what stayed unpaired ('' when nothing did)."""
    unexpected = []
    for diagnostic in reported:
        for expectation in expected:
            if (
                not expectation.met
                and expectation.line == diagnostic.line
                and expectation.text in diagnostic.message
            ):
                expectation.met = True
                break
        else:
            unexpected.append(diagnostic)
    report = "".join(
        f"{d.where or file_name}: error: unexpected error: {d.message}\n{d.details}"
        for d in unexpected
    )
    for expectation in expected:
        if not expectation.met:
            report += (
                f'{expectation.where}: error: expected error "{expectation.text}" '
                f"was not produced\n{near_miss(expectation, unexpected)}"
            )
    return report


def near_miss(expectation: Expectation, unexpected: list[Diagnostic]) -> str:
    """A note when an unexpected error has the text but points at another line."""
    for diagnostic in unexpected:
        if expectation.text in diagnostic.message:
            at = "no line" if diagnostic.line is None else f"line {diagnostic.line}"
            wanted = "no line" if expectation.line is None else f"line {expectation.line}"
            return f"note: an error with this text points at {at}, not at {wanted}\n"
    return ""


class DiagnosticVerifier:
    """Collects, chunk by chunk, what did not match."""

    def __init__(self, file_name: str):
        self.file_name = file_name
        self.report = ""

    def check(self, chunk: Chunk, reported: list[Diagnostic]) -> None:
        expected, malformed = expectations(chunk, self.file_name)
        self.report += "".join(malformed) + unmet_report(expected, reported, self.file_name)
