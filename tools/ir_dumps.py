"""IR dumps between passes: `--print-ir-{before,after}[-all]` and `--print-changed[=diff]`.

Each dump is headed like mlir-opt's, `// ----- IR after <pass> -----`, and goes to stderr, as
mlir-opt's do: stdout (or `-o`) gets the final module alone, so `tracejit-opt ... | FileCheck`
sees only the result (`2>&1` checks the dumps). The driver only calls
back after a pass; the IR before pass k is the IR after pass k-1 (or the input), so the
"before" dump of k is written when k finishes, or by `before_failure` when k fails.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp


@dataclass
class DumpRequest:
    """Which dumps the command line asked for."""

    after_all: bool = False
    before_all: bool = False
    after: set[str] = field(default_factory=set)
    before: set[str] = field(default_factory=set)
    changed: str | None = None  # None, "full" or "diff"

    @staticmethod
    def from_args(args: argparse.Namespace) -> DumpRequest:
        return DumpRequest(
            args.print_ir_after_all,
            args.print_ir_before_all,
            args.print_ir_after,
            args.print_ir_before,
            args.print_changed,
        )

    def any(self) -> bool:
        return bool(self.after_all or self.before_all or self.after or self.before or self.changed)


def header(when: str, pass_name: str) -> str:
    return f"// ----- IR {when} {pass_name} -----\n"


class IrDumper:
    """The after-pass hook that writes the requested dumps to stderr. Without a dump
    request it only records the passes that ran: printing the IR after every pass costs as
    much as the passes."""

    def __init__(self, request: DumpRequest, input_module: ModuleOp):
        self.request = request
        self.previous = str(input_module) if request.any() else ""  # the IR before the pass
        self.ran: list[str] = []

    def __call__(self, pass_name: str, module: ModuleOp) -> None:
        self.ran.append(pass_name)
        if not self.request.any():
            return
        text = str(module)
        self.before_failure(pass_name)
        sys.stderr.write(self.after_dump(pass_name, text))
        self.previous = text

    def before_failure(self, pass_name: str) -> None:
        """Write the "before" dump of `pass_name` (also called when the pass fails)."""
        if self.request.before_all or pass_name in self.request.before:
            sys.stderr.write(header("before", pass_name) + self.previous + "\n")

    def after_dump(self, pass_name: str, text: str) -> str:
        request = self.request
        if request.after_all or pass_name in request.after:
            return header("after", pass_name) + text + "\n"
        if request.changed is None or text == self.previous:
            return ""
        if request.changed == "full":
            return header("after", pass_name) + text + "\n"
        return header("after", pass_name) + unified_diff(self.previous, text, pass_name)


def unified_diff(before: str, after: str, pass_name: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(),
        after.splitlines(),
        fromfile=f"before {pass_name}",
        tofile=f"after {pass_name}",
        lineterm="",
    )
    return "".join(line + "\n" for line in lines)


def unused_requests(request: DumpRequest, ran: list[str]) -> str:
    """A note for `--print-ir-after/before=PASS` naming a pass that never ran."""
    missing = sorted((request.after | request.before) - set(ran))
    if not missing:
        return ""
    return (
        f"note: --print-ir-after/before: pass '{missing[0]}' did not run "
        "(choose passes with -p, --pipeline or --emit)\n"
    )
