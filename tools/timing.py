"""`--timing`: a wall-time table of every step, in the layout of mlir-opt's `--mlir-timing`."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

RULE = "===" + "-" * 70 + "==="


class TimingReport:
    """Steps in the order they ran: tracing or parsing, each pass, LLVM, running."""

    def __init__(self) -> None:
        self.rows: list[tuple[str, float]] = []

    def add(self, name: str, seconds: float) -> None:
        self.rows.append((name, seconds))

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def add_compile(self, total_seconds: float, jit) -> None:
        """The steps of `driver.compile_to_machine_code` (timed inside codegen/jit.py)."""
        llvm_seconds = jit.parse_seconds + jit.optimize_seconds + jit.codegen_seconds
        self.add("translate to LLVM IR", max(total_seconds - llvm_seconds, 0.0))
        self.add("LLVM parse + verify", jit.parse_seconds)
        self.add("LLVM optimisation (O3)", jit.optimize_seconds)
        self.add("machine code generation", jit.codegen_seconds)

    def render(self) -> str:
        total = sum(seconds for _, seconds in self.rows)
        lines = [
            RULE,
            "... Execution time report ...".center(len(RULE)).rstrip(),
            RULE,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for name, seconds in [*self.rows, ("Total", total)]:
            share = 100.0 * seconds / total if total > 0 else 0.0
            lines.append(f"  {seconds:8.4f} ({share:5.1f}%)  {name}")
        return "\n".join(lines) + "\n"
