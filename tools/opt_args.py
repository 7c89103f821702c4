"""The command line of tracejit-opt: flags, their checks, and the help text.

The help's epilog is generated from the pass registry (tools/pass_registry.py) and the
named pipelines, so it cannot go stale. It is generated only when the help is printed:
describing every pass imports every pass module (~0.3 s), which a run of one pass skips.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from tracejit.passes.pipeline import NAMED_PIPELINES
from tracejit.tools.pass_info import pass_listing, pipelines_listing
from tracejit.tools.pass_registry import ALL_PASSES
from tracejit.tools.saved_input import is_saved_input

DESCRIPTION = """\
Run tracejit's passes on IR or on a traced Python function, like mlir-opt.

With no -p, --pipeline or --emit:
  input.mlir     is parsed, verified and printed back (a round trip, as in mlir-opt);
  file.py:fn     is traced and lowered along the default pipeline to the cf stage (as
                 with --emit cf), so --print-ir-after-all shows what every pass did.
-p '' runs no pass (it prints a Python input's traced module as is); --run without --emit
prints only the results.

Tests of invalid IR follow mlir-opt: --split-input-file processes each part of the file
between lines `// -----` as a module of its own (outputs are separated by `// -----`, errors
keep the file's line numbers), and --verify-diagnostics checks the errors, instead of
printing them, against comments `// expected-error {{text}}` (an error on this line whose
message contains text), `// expected-error @+N {{text}}` (N lines below; @-N: above) or
`// expected-error @unknown {{text}}` (an error without a position).
"""

USAGE_EXAMPLES = """\
examples:
  tracejit-opt input.mlir -p canonicalize,cse
  tracejit-opt model.py:predict --signature "f32[64,32], f32[32,16], f32[16]" \\
      --print-ir-after-all
  tracejit-opt input.mlir --emit llvm
  tracejit-opt model.py:predict --signature "f32[64,32], f32[32,16], f32[16]" \\
      --print-ir-after-all --emit asm
  tracejit-opt kernel.mlir --run --input x=x.npy --input y="[1.0, 2.0]"
  tracejit-opt model.py:predict --emit dot | dot -Tpng -o graph.png
  tracejit-opt invalid.mlir --split-input-file --verify-diagnostics
  tracejit-opt model.py:predict --signature "f32[8,4]" --emit linalg > m.mlir  # upstream MLIR
  tracejit-opt m.mlir --run --input arg0=x.npy   # upstream linalg on tensors, imported
"""

# --emit stages, in lowering order (`dot` draws the tj-level graph; `linalg` exports the
# tensor level as upstream MLIR, passes/export_linalg.py).
EMIT_CHOICES = ("tj", "loops", "cf", "llvm", "asm", "dot", "linalg")


class UsageError(Exception):
    """A bad command line (reported as `tracejit-opt: error: ...`, exit status 1)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit with 2
        raise UsageError(message)

    def format_help(self) -> str:
        if self.epilog is None:
            self.epilog = f"{USAGE_EXAMPLES}\npasses:\n{pass_listing()}\n{pipelines_listing()}"
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tracejit-opt",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_input_flags(parser)
    _add_pipeline_flags(parser)
    _add_dump_flags(parser)
    _add_output_flags(parser)
    _add_testing_flags(parser)
    return parser


def _add_input_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("input")
    group.add_argument(
        "input",
        nargs="?",
        default="-",
        help=".mlir file of any stage, '-' (stdin), file.py:fn, or export_dir:name (saved by "
        "tj.saved_model.save)",
    )
    group.add_argument(
        "--list", action="store_true", help="print the saved signatures of export_dir:name"
    )
    group.add_argument(
        "--signature", help='tensor types of a Python function, e.g. "f32[4,?], i64[], u8[*]"'
    )
    group.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Python-valued argument of the function (VALUE is a Python literal)",
    )


def _add_pipeline_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("pipeline")
    which = group.add_mutually_exclusive_group()
    which.add_argument("-p", "--passes", help="pass list with options: a,b{opt=1},c ('': none)")
    which.add_argument("--pipeline", choices=list(NAMED_PIPELINES), help="a named pipeline")
    group.add_argument("--list-passes", action="store_true", help="list the passes and exit")
    group.add_argument(
        "--no-verify-each", action="store_true", help="do not verify the IR after each pass"
    )


def _add_dump_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("seeing the stages")
    group.add_argument("--print-ir-after-all", action="store_true")
    group.add_argument("--print-ir-before-all", action="store_true")
    group.add_argument("--print-ir-after", default="", metavar="PASS[,PASS]")
    group.add_argument("--print-ir-before", default="", metavar="PASS[,PASS]")
    group.add_argument(
        "--print-changed",
        nargs="?",
        const="full",
        choices=("full", "diff"),
        help="print the IR after each pass that changed it (=diff: as a unified diff)",
    )
    group.add_argument(
        "--timing", action="store_true", help="wall time per pass and per compile step (stderr)"
    )
    group.add_argument(
        "--stats", action="store_true", help="op counts per dialect before and after (stderr)"
    )


def _add_output_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--emit",
        choices=EMIT_CHOICES,
        help="lower along the default pipeline, from the input's stage, to this stage "
        "(without -p or --pipeline the default is cf for a Python input, none for .mlir)",
    )
    group.add_argument("-o", "--output", help="write the result here instead of stdout")
    group.add_argument(
        "--run",
        action="store_true",
        help="compile, run on the --input arrays, print the results (a Python function runs "
        "as its ConcreteFunction, with the default pipeline)",
    )
    group.add_argument(
        "--input",
        dest="inputs",
        action="append",
        default=[],
        metavar="NAME=FILE.npy|LITERAL",
        help="an input array of --run, by argument name: %%x is x, an unnamed argument N is "
        "argN (so in IR saved from a Python input: arg0, arg1, ...)",
    )
    group.add_argument("--entry", help="the function --run calls (default: the only public one)")
    group.add_argument(
        "--no-check-bounds",
        action="store_true",
        help="--run of a .mlir input range-checks every load, store and copy, so IR edited by "
        "hand that indexes out of bounds is reported at its op; this turns the checks off",
    )
    group.add_argument("--debug", action="store_true", help="show Python tracebacks")


def _add_testing_flags(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("testing (as in mlir-opt)")
    group.add_argument(
        "--split-input-file",
        action="store_true",
        help="process each part of the .mlir input between separator lines as a module of "
        "its own (see above)",
    )
    group.add_argument(
        "--verify-diagnostics",
        action="store_true",
        help="check the errors against the input's expected-error comments (see above): "
        "exit status 0 if each expected error, and no other, was reported, else 1 and a list "
        "of what was missing or unexpected",
    )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    args = build_parser().parse_args(argv)
    for flag in ("print_ir_after", "print_ir_before"):
        setattr(args, flag, pass_names(getattr(args, flag), "--" + flag.replace("_", "-")))
    if not is_python_input(args.input) and (args.signature or args.arg):
        raise UsageError("--signature and --arg need a Python input: path/to/file.py:function")
    if args.list and not is_saved_input(args.input):
        raise UsageError("--list needs a saved function: export_dir:name")
    if args.inputs and not args.run:
        raise UsageError("--input is only used with --run")
    if is_python_input(args.input) and (args.split_input_file or args.verify_diagnostics):
        raise UsageError("--split-input-file and --verify-diagnostics need an .mlir input")
    return args


def pass_names(text: str, flag: str) -> set[str]:
    names = {name.strip() for name in text.split(",") if name.strip()}
    unknown = sorted(names - set(ALL_PASSES))
    if unknown:
        known = ", ".join(sorted(ALL_PASSES))
        raise UsageError(f"{flag}: unknown pass '{unknown[0]}'; known: {known}")
    return names


def is_python_input(target: str) -> bool:
    """A function to trace (`file.py:fn`) or one saved by tj.saved_model (`dir:name`)."""
    return ".py:" in target or is_saved_input(target)


def split_assignment(text: str, flag: str) -> tuple[str, str]:
    """`name=value` -> ("name", "value")."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise UsageError(f"{flag} expects NAME=VALUE, got {text!r}")
    return name.strip(), value.strip()
