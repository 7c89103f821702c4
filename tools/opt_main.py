"""tracejit-opt: run tracejit's passes on IR, or on a traced Python function, like mlir-opt.

    tracejit-opt input.mlir -p canonicalize,cse
    tracejit-opt examples/quickstart.py:predict --signature "f32[64,32], f32[32,16], f32[16]" \\
        --print-ir-after-all --emit asm
    tracejit-opt input.mlir --emit llvm
    tracejit-opt kernel.mlir --run --input x=x.npy

`--emit tj|loops|cf|llvm|asm|dot` lowers along the default pipeline, from the stage the
input is at, to that stage. With no `-p`, `--pipeline` or `--emit`, an `.mlir` input is
parsed, verified and printed (a round trip, as in mlir-opt) and a Python input is traced and
lowered to cf (as with `--emit cf`, so `--print-ir-after-all` shows every pass); `-p ''`
runs no pass and prints a Python input's traced module.

The pieces: `opt_args.py` (flags), `opt_session.py` (one run), `ir_dumps.py`,
`diagnostics.py`, `timing.py`, `op_stats.py`, `dot_graph.py`, `run_module.py`, `stages.py`
(the --emit ladder), `mlir_input.py`, `python_input.py`.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence

from tracejit.tools.diagnostics import ToolError
from tracejit.tools.opt_args import UsageError, parse_args
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
    from tracejit.tools.opt_session import Session

    session = Session(args)
    try:
        text = session.run()
    except Exception as error:  # every failure becomes one diagnostic and exit status 1
        if args.debug:
            traceback.print_exc()
        sys.stderr.write(describe_failure(error, session.name))
        return 1
    write_output(text, args.output)
    sys.stdout.flush()  # the reports follow the output, also when both go to a terminal
    sys.stderr.write(session.reports)
    return 0


def describe_failure(error: Exception, input_name: str) -> str:
    if isinstance(error, ToolError):
        return str(error)
    if isinstance(error, UsageError):
        return f"tracejit-opt: error: {error}\n"
    if isinstance(error, USER_ERRORS):
        return f"{input_name}: error: {error}\n"
    return (
        f"{input_name}: error: internal error: {type(error).__name__}: {error}\n"
        "note: run with --debug for the Python traceback\n"
    )


def write_output(text: str, path: str | None) -> None:
    if path is None:
        sys.stdout.write(text)
        return
    with open(path, "w") as out:
        out.write(text)


if __name__ == "__main__":
    sys.exit(main())
