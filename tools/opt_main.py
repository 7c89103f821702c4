"""tracejit-opt: run tracejit's passes on IR, or on a traced Python function, like mlir-opt.

    tracejit-opt input.mlir -p canonicalize,cse
    tracejit-opt examples/quickstart.py:f --signature "f32[4,3], f32[3]" --print-ir-after-all
    tracejit-opt input.mlir --emit llvm

With no `-p`, `--pipeline` or `--emit` the input is parsed, verified and printed (a
round trip). `--emit tj|loops|cf|llvm|asm` runs the default pipeline up to that stage.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tracejit.frontend import driver
from tracejit.passes.pipeline import (
    DEFAULT_PIPELINE,
    NAMED_PIPELINES,
    PASSES,
    PipelineError,
    describe,
)

# The --emit ladder: each stage is the default pipeline up to and including a pass.
EMIT_STAGES = {
    "tj": "cse",
    "loops": "lower-to-loops",
    "cf": "lower-asserts",
    "llvm": "lower-asserts",
    "asm": "lower-asserts",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tracejit-opt",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        epilog="default pipeline: " + ",".join(DEFAULT_PIPELINE),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "input", nargs="?", default="-", help=".mlir file, '-' (stdin) or file.py:function"
    )
    parser.add_argument("-p", "--passes", help="comma-separated pass list, e.g. canonicalize,cse")
    parser.add_argument("--pipeline", choices=sorted(NAMED_PIPELINES), help="a named pipeline")
    parser.add_argument(
        "--emit", choices=list(EMIT_STAGES), help="lower to this stage and print it"
    )
    parser.add_argument("--signature", help='input types of a Python function: "f32[4,?], i64[]"')
    parser.add_argument("--print-ir-after-all", action="store_true")
    parser.add_argument("--print-ir-before-all", action="store_true")
    parser.add_argument("--print-ir-after", default="", help="comma-separated pass names")
    parser.add_argument(
        "--no-verify-each", action="store_true", help="do not verify after each pass"
    )
    parser.add_argument("--list-passes", action="store_true", help="list the passes and exit")
    parser.add_argument("-o", "--output", help="write the result here instead of stdout")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_passes:
        for name in sorted(PASSES):
            print(f"  {name:<16} {describe(name)}")
        return 0
    try:
        text = run(args)
    except (
        ParseError,
        DiagnosticException,
        PipelineError,
        ValueError,
        TypeError,
        NotImplementedError,
    ) as error:
        if args.debug:
            traceback.print_exc()
        print(f"{_input_name(args)}: error: {error}", file=sys.stderr)
        return 1
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _input_name(args: argparse.Namespace) -> str:
    return "<stdin>" if args.input == "-" else args.input


def run(args: argparse.Namespace) -> str:
    module = load_input(args)
    passes = _pass_list(args)
    after = {p for p in args.print_ir_after.split(",") if p}
    previous = [str(module)]

    def dump(pass_name: str, current: ModuleOp) -> None:
        text = str(current)
        if args.print_ir_before_all:
            sys.stdout.write(f"// ----- IR before {pass_name} -----\n{previous[0]}\n")
        if args.print_ir_after_all or pass_name in after:
            sys.stdout.write(f"// ----- IR after {pass_name} -----\n{text}\n")
        previous[0] = text

    lowered = driver.lower(
        module, passes, verify_each=not args.no_verify_each, after_pass=dump
    ).module
    if args.emit in ("llvm", "asm"):
        compiled = driver.compile_to_machine_code(lowered)
        return compiled.optimized_llvm_ir if args.emit == "llvm" else compiled.asm
    return str(lowered) + "\n"


def _pass_list(args: argparse.Namespace) -> list[str]:
    if args.passes:
        return [args.passes]
    if args.pipeline:
        return list(NAMED_PIPELINES[args.pipeline])
    if args.emit:
        last = EMIT_STAGES[args.emit]
        return list(DEFAULT_PIPELINE[: DEFAULT_PIPELINE.index(last) + 1])
    return []


def load_input(args: argparse.Namespace) -> ModuleOp:
    from tracejit.ir.dialect import make_context

    if ".py:" in args.input:
        return trace_python_input(args.input, args.signature)
    if args.input == "-":
        source = sys.stdin.read()
    else:
        with open(args.input) as file:
            source = file.read()
    module = Parser(make_context(), source, _input_name(args)).parse_module()
    module.verify()
    return module


def trace_python_input(target: str, signature: str | None) -> ModuleOp:
    """Trace `path/to/file.py:function` for the `--signature` types."""
    import importlib.util

    from tracejit.frontend.function import Function
    from tracejit.tools.signature_parser import parse_signature

    path, _, name = target.rpartition(":")
    spec = importlib.util.spec_from_file_location("_tracejit_opt_input", path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {path}")
    user_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(user_module)
    target_fn = getattr(user_module, name, None)
    if target_fn is None:
        raise ValueError(f"{path} has no function '{name}'")
    function = target_fn if isinstance(target_fn, Function) else Function(target_fn)
    if signature is None:
        if function.input_signature is None:
            raise ValueError("a Python input needs --signature (or an input_signature)")
        specs = list(function.input_signature)
    else:
        specs = parse_signature(signature)
    return function.get_concrete_function(*specs).graph.module


if __name__ == "__main__":
    sys.exit(main())
