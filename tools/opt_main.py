"""tracejit-opt: run tracejit's passes on IR, or on a traced Python function, like mlir-opt.

    tracejit-opt input.mlir -p canonicalize,cse
    tracejit-opt examples/quickstart.py:predict --signature "f32[64,32], f32[32,16], f32[16]" \\
        --print-ir-after-all --emit asm
    tracejit-opt input.mlir --emit llvm
    tracejit-opt kernel.mlir --run --input x=x.npy
    tracejit-opt cases.mlir --split-input-file --verify-diagnostics

`--emit tj|loops|cf|llvm|asm|dot` lowers along the default pipeline, from the stage the
input is at, to that stage. With no `-p`, `--pipeline` or `--emit`, an `.mlir` input is
parsed, verified and printed (a round trip, as in mlir-opt) and a Python input is traced and
lowered to cf (as with `--emit cf`, so `--print-ir-after-all` shows every pass); `-p ''`
runs no pass and prints a Python input's traced module. `--split-input-file` runs one
session per part of the input between `// -----` lines; `--verify-diagnostics` checks the
errors against the input's `expected-error` comments instead of printing them.

The pieces: `opt_args.py` (flags), `opt_session.py` (one run), `ir_dumps.py`,
`diagnostics.py`, `verify_diagnostics.py`, `timing.py`, `op_stats.py`, `run_module.py`,
`stages.py` (the --emit ladder), `mlir_input.py`, `python_input.py`; `--emit dot` draws with
compiler/dot_graph.py (which notebooks' display of a ConcreteFunction uses too).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from tracejit.tools.diagnostics import Diagnostic, ToolError
from tracejit.tools.mlir_input import SPLIT_MARKER, Chunk, input_name, read_source, split_input
from tracejit.tools.opt_args import UsageError, is_python_input, parse_args
from tracejit.tools.pass_info import pass_listing, pipelines_listing

# Errors a user can cause (bad input, unsupported function): a message, no traceback.
USER_ERRORS = (ValueError, TypeError, NotImplementedError, KeyError, IndexError, OSError)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except UsageError as error:
        print(f"tracejit-opt: error: {error}", file=sys.stderr)
        return 1
    except SystemExit as exit_request:  # --help
        return int(exit_request.code or 0)
    if args.list_passes:
        sys.stdout.write(pass_listing() + "\n" + pipelines_listing())
        return 0
    if args.list:
        from tracejit.tools.saved_input import list_signatures

        try:
            sys.stdout.write(list_signatures(args.input))
        except Exception as error:
            sys.stderr.write(describe_failure(error, input_name(args.input)))
            return 1
        return 0
    from tracejit.tools.opt_session import check_pipeline

    try:
        if args.passes:  # a bad pass list fails before any input is read, as in mlir-opt
            check_pipeline(args.passes)
        chunks = input_chunks(args)
    except Exception as error:
        sys.stderr.write(describe_failure(error, input_name(args.input)))
        return 1
    return run_chunks(args, chunks)


def input_chunks(args: argparse.Namespace) -> list[Chunk | None]:
    """The .mlir text to process, cut at `// -----` with --split-input-file ([None]: a Python
    input, which the session traces)."""
    if is_python_input(args.input):
        return [None]
    source = read_source(args.input)
    return [*split_input(source)] if args.split_input_file else [Chunk(source)]


def run_chunks(args: argparse.Namespace, chunks: list[Chunk | None]) -> int:
    """Run a session per chunk; outputs are separated by `// -----` as in mlir-opt. Without
    --verify-diagnostics a failing chunk prints its error, and the others still run."""
    from tracejit.tools.opt_session import Session
    from tracejit.tools.verify_diagnostics import DiagnosticVerifier

    name = input_name(args.input)
    verifier = DiagnosticVerifier(name) if args.verify_diagnostics else None
    outputs: list[str] = []
    failed = False
    for index, chunk in enumerate(chunks):
        if index:
            emit(SPLIT_MARKER + "\n", args.output, outputs)
        session = Session(args, chunk)
        reported: list[Diagnostic] = []
        try:
            emit(session.run(), args.output, outputs)
        except UsageError as error:  # the command line is wrong for every chunk: stop
            sys.stderr.write(describe_failure(error, name))
            return 1
        except Exception as error:  # every other failure is one diagnostic
            if args.debug:
                traceback.print_exc()
            reported.append(diagnostic_of(error, name))
        if verifier is not None and chunk is not None:  # (a Python input has no chunk)
            verifier.check(chunk, reported)
        elif reported:
            sys.stdout.flush()  # the output so far comes first, also in a pipe
            sys.stderr.write(str(reported[0]))
            failed = True
            continue
        sys.stdout.flush()  # the reports follow the output, also when both go to a terminal
        sys.stderr.write(session.reports)
    if verifier is not None and verifier.report:
        sys.stdout.flush()
        sys.stderr.write(verifier.report)
        failed = True
    if not failed and args.output is not None:
        with open(args.output, "w") as out:
            out.write("".join(outputs))
    return int(failed)


def emit(text: str, path: str | None, outputs: list[str]) -> None:
    """Write `text` to stdout now, or keep it for the -o file (written if all went well)."""
    if path is None:
        sys.stdout.write(text)
    else:
        outputs.append(text)


def diagnostic_of(error: Exception, input_name: str) -> Diagnostic:
    if isinstance(error, ToolError):
        return error.diagnostic
    if isinstance(error, USER_ERRORS):
        return Diagnostic(str(error), input_name)
    return Diagnostic(
        f"internal error: {type(error).__name__}: {error}",
        input_name,
        details="note: run with --debug for the Python traceback\n",
    )


def describe_failure(error: Exception, input_name: str) -> str:
    if isinstance(error, UsageError):
        return f"tracejit-opt: error: {error}\n"
    return str(diagnostic_of(error, input_name))


if __name__ == "__main__":
    sys.exit(main())
