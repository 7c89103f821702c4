"""One tracejit-opt invocation: load the input, run the passes with the requested dumps,
emit a stage, optionally compile and run, and collect timings and op counts.

Lowering and compiling go through `compiler/driver.py` exactly as `ConcreteFunction` does,
so what this prints for a Python function is what `ConcreteFunction.ir(after=...)`,
`.llvm_ir` and `.asm` return.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ArgSpecParseError, ParseError

from tracejit.compiler import driver
from tracejit.passes.pipeline import EMIT_LAST_PASS, NAMED_PIPELINES, Pipeline, PipelineError
from tracejit.tools import diagnostics
from tracejit.tools.diagnostics import ToolError
from tracejit.tools.ir_dumps import DumpRequest, IrDumper, unused_requests
from tracejit.tools.mlir_input import Chunk, input_name, parse_mlir, read_source
from tracejit.tools.op_stats import dialect_counts, render_stats
from tracejit.tools.opt_args import UsageError, is_python_input
from tracejit.tools.pass_registry import ALL_PASSES
from tracejit.tools.saved_input import is_saved_input
from tracejit.tools.stages import is_upstream_tensor_module, ladder
from tracejit.tools.timing import TimingReport


class Session:
    def __init__(self, args: argparse.Namespace, chunk: Chunk | None = None):
        """`chunk`: the .mlir text to process (one part of a --split-input-file input); by
        default the whole input file is read."""
        self.args = args
        self.chunk = chunk
        self.name = input_name(args.input)
        self.timing = TimingReport()
        self.concrete: Any = None  # the ConcreteFunction of a Python input
        self.dumper: IrDumper | None = None
        self.reports = ""  # --stats / --timing text, for stderr
        self.input_module: ModuleOp | None = None

    # --- the whole run -----------------------------------------------------------------------
    def run(self) -> str:
        """The output text (IR, LLVM IR, assembly, dot, run results)."""
        module = self.input_module = self.load()
        self.dumper = IrDumper(DumpRequest.from_args(self.args), module)
        staged, final = self.lower_stages(module)
        text = self.emit(staged, final)
        self.add_reports(module, staged if final is None else final)
        return text

    def lower_stages(self, module: ModuleOp) -> tuple[ModuleOp, ModuleOp | None]:
        """The module to print (after -p / --pipeline / the --emit ladder), and the cf-level
        module to compile when machine code is needed (else None)."""
        args, explicit = self.args, self.explicit_passes()
        if explicit is None:
            first, rest = ladder(module, EMIT_LAST_PASS.get(self.emit_stage() or ""))
            staged = self.lower(module, first)
            if args.emit == "linalg":  # the tensor level, exported as upstream MLIR
                return self.lower(staged, ["export-linalg"]), None
        else:
            staged = self.lower(module, explicit)
            rest = ladder(staged, None)[1]
        if args.emit in ("llvm", "asm") or (args.run and self.concrete is None):
            return staged, self.lower(staged, rest)
        return staged, None

    def add_reports(self, before: ModuleOp, after: ModuleOp) -> None:
        assert self.dumper is not None
        self.reports += unused_requests(self.dumper.request, self.dumper.ran)
        if self.args.stats:
            self.reports += render_stats(dialect_counts(before), dialect_counts(after))
        if self.args.timing:
            self.reports += self.timing.render()

    def explicit_passes(self) -> str | list[str] | None:
        """`-p` or `--pipeline`; None means: follow the default pipeline (the --emit ladder)."""
        if self.args.passes is not None:
            return self.args.passes
        if self.args.pipeline is not None:
            return list(NAMED_PIPELINES[self.args.pipeline])
        return None

    def emit_stage(self) -> str | None:
        """The stage the default pipeline lowers to when no -p / --pipeline is given: --emit,
        else `cf` for a Python input (so --print-ir-after-all shows every pass), else None: an
        .mlir input is only parsed, verified and printed back, like mlir-opt. `--run` alone
        lowers only what it compiles (a Python input runs as its ConcreteFunction)."""
        if self.args.emit is None and self.concrete is not None and not self.args.run:
            return "cf"
        return self.args.emit

    # --- input -------------------------------------------------------------------------------
    def load(self) -> ModuleOp:
        args = self.args
        if is_saved_input(args.input):
            from tracejit.tools.saved_input import saved_concrete

            with self.timing.measure("load " + args.input):
                self.concrete = saved_concrete(args.input, args.signature, args.arg)
            return self.concrete.graph.module
        if is_python_input(args.input):
            from tracejit.tools.python_input import trace_python_input

            with self.timing.measure("trace " + args.input.rpartition(":")[2]):
                self.concrete = trace_python_input(args.input, args.signature, args.arg)
            return self.concrete.graph.module
        # Outside the clock: stdin may wait for a producer.
        chunk = self.chunk if self.chunk is not None else Chunk(read_source(args.input))
        import tracejit.ir.dialect  # noqa: F401  # so is importing the dialect

        try:
            with self.timing.measure("parse"):
                module = parse_mlir(chunk.text, self.name, chunk.line_offset)
        except ParseError as error:
            raise ToolError(diagnostics.diagnose_parse_error(error)) from error
        with self.timing.measure("verify input"):
            try:
                module.verify()
            except Exception as error:
                diagnostic = diagnostics.diagnose_invalid_ir(module, error, self.name)
                raise ToolError(diagnostic) from error
        if is_upstream_tensor_module(module):  # upstream linalg on tensors: made tj first
            from tracejit.passes.import_linalg import import_module

            with self.timing.measure("import-linalg"):
                import_module(module)
        return module

    # --- passes ------------------------------------------------------------------------------
    def lower(self, module: ModuleOp, passes: str | Sequence[str]) -> ModuleOp:
        """Run `passes` through the driver (on a copy), dumping and timing each."""
        if not passes:
            return module
        check_pipeline(passes)
        try:
            lowered = driver.lower(
                module,
                passes,
                verify_each=not self.args.no_verify_each,
                after_pass=self.dumper,
                registry=ALL_PASSES,
            )
        except PipelineError as error:
            assert self.dumper is not None
            self.dumper.before_failure(error.pass_name)
            diagnostic = diagnostics.diagnose_pass_failure(
                getattr(error, "module", None), error, self.name, error.pass_name
            )
            raise ToolError(diagnostic) from error
        for pass_name, seconds in lowered.pass_seconds:
            self.timing.add(pass_name, seconds)
        return lowered.module

    # --- output ------------------------------------------------------------------------------
    def emit(self, staged: ModuleOp, final: ModuleOp | None) -> str:
        compiled = self.compile(final) if final is not None else None
        text = self.stage_text(staged, compiled)
        if self.args.run:
            with self.timing.measure("run"):
                text += self.run_function(final, compiled)
        return text

    def stage_text(self, staged: ModuleOp, compiled: Any) -> str:
        emitters = {
            "llvm": lambda: compiled.optimized_llvm_ir,
            "asm": lambda: self.assembly(compiled),
            "dot": lambda: dot_text(staged),
        }
        if self.args.emit in emitters:
            return emitters[self.args.emit]()
        if self.args.run and self.args.emit is None:
            return ""  # --run alone prints only the results
        return str(staged) + "\n"

    def assembly(self, compiled: Any) -> str:
        with self.timing.measure("assembly printing"):
            return compiled.asm

    def compile(self, module: ModuleOp) -> object:
        import tracejit.codegen  # noqa: F401  # imported before the clock starts

        start = time.perf_counter()
        # IR from a file may be hand-edited: --run range-checks its memory accesses (a
        # wrong index is reported at its op, not a crash); elsewhere TRACEJIT_CHECK_BOUNDS.
        check_bounds = True if self.args.run and not self.args.no_check_bounds else None
        compiled = driver.compile_to_machine_code(module, check_bounds=check_bounds)
        self.timing.add_compile(time.perf_counter() - start, compiled)
        return compiled

    def run_function(self, lowered: ModuleOp | None, compiled: object) -> str:
        from tracejit.tools import run_module

        if self.concrete is not None:
            return run_module.run_concrete(self.concrete, self.args.inputs)
        assert lowered is not None and self.input_module is not None
        entry = run_module.entry_function(self.input_module, self.args.entry)
        return run_module.run_lowered(entry, lowered, compiled, self.args.inputs)


def check_pipeline(passes: str | Sequence[str]) -> None:
    """Report a bad pass list or pass option as a usage error, before anything runs."""
    try:
        Pipeline.parse(passes, ALL_PASSES)
    except (ValueError, TypeError) as error:
        raise UsageError(f"-p: {error}") from None
    except ArgSpecParseError as error:  # a BaseException in xDSL
        raise UsageError(f"-p: {error}") from None


def dot_text(module: ModuleOp) -> str:
    from tracejit.compiler.dot_graph import module_to_dot  # imports xDSL's func dialect

    return module_to_dot(module)
