"""The compiler driver: traced module -> pass pipeline -> LLVM -> machine code.

This is the one module that ties the frontend to `passes` and `codegen`; the
`tracejit-opt` CLI and `ConcreteFunction` both compile through it, so what the CLI
prints for a function is exactly what the function runs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp

from tracejit.passes.pipeline import DEFAULT_PIPELINE, AfterPassHook, Pipeline


@dataclass
class Stage:
    """The IR after one pass, and how long the pass took."""

    pass_name: str
    ir: str
    seconds: float


@dataclass
class LoweredModule:
    module: ModuleOp
    stages: list[Stage] = field(default_factory=list)


def lower(
    module: ModuleOp,
    pipeline: str | Sequence[str] = DEFAULT_PIPELINE,
    record_stages: bool = False,
    verify_each: bool = True,
    after_pass: AfterPassHook | None = None,
) -> LoweredModule:
    """Run `pipeline` on a copy of `module` (the traced graph stays untouched)."""
    lowered = LoweredModule(module.clone())
    last = time.perf_counter()

    def hook(pass_name: str, current: ModuleOp) -> None:
        nonlocal last
        now = time.perf_counter()
        if record_stages:
            lowered.stages.append(Stage(pass_name, str(current), now - last))
        if after_pass is not None:
            after_pass(pass_name, current)
        last = time.perf_counter()

    Pipeline.parse(pipeline).run(lowered.module, verify_each=verify_each, after_pass=hook)
    return lowered


def error_messages(module: ModuleOp) -> list[str]:
    """The run-time check messages of a lowered module, indexed by kernel status - 1."""
    from tracejit.passes.lower_asserts import MESSAGES_ATTR

    attr = module.attributes.get(MESSAGES_ATTR)
    return [m.data for m in attr] if attr is not None else []  # type: ignore[union-attr]


def compile_to_machine_code(module: ModuleOp):
    """Translate a cf-level module to LLVM IR and JIT it (returns a codegen JitModule)."""
    from tracejit.codegen import compile_module

    return compile_module(module)


def inlined_function(module: ModuleOp, name: str):
    """A copy of function `name` of a traced module with its own calls inlined (so it can
    be placed, self-contained, into another trace's module)."""
    from xdsl.dialects import func

    from tracejit.passes.inline import inline_module

    copy = module.clone()
    inline_module(copy)
    for op in copy.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            op.detach()
            return op
    raise KeyError(name)
