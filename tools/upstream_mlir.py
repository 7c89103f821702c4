"""Upstream MLIR as a checker: parse and verify tracejit IR with `iree-opt`.

`iree-opt` (from the optional `interop` extra, the `iree-base-compiler` wheel) registers
upstream MLIR's `arith`, `math`, `scf`, `cf`, `memref`, `func`, `linalg` and `tensor`
dialects. Feeding it a stage tracejit printed is the test that the text is MLIR, not only
xDSL: the two parsers agree on most syntax but not all (see `ir/upstream_memref.py`).
Many modules go through one process, separated by `// -----` (`--split-input-file`),
since starting the binary costs more than checking a module.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

SPLIT = "// -----"


class UpstreamMlirMissing(RuntimeError):
    """The `interop` extra (iree-base-compiler) is not installed."""


def iree_opt() -> str:
    """The path of the `iree-opt` binary, or UpstreamMlirMissing saying how to get it."""
    try:
        from iree.compiler.tools.binaries import find_tool
    except ImportError:
        found = shutil.which("iree-opt")
        if found is None:
            raise UpstreamMlirMissing(
                "iree-opt not found: install the interop extra "
                "(pip install 'tracejit[interop]', i.e. iree-base-compiler)"
            ) from None
        return found
    return find_tool("iree-opt")


@dataclass
class Rejection:
    """One module upstream MLIR refused: its label and iree-opt's diagnostics."""

    label: str
    message: str

    def __str__(self) -> str:
        return f"{self.label}:\n{self.message}"


def check_modules(modules: Sequence[tuple[str, str]], timeout: float = 120) -> list[Rejection]:
    """Parse and verify every `(label, text)` with upstream MLIR; the modules it rejects."""
    if not modules:
        return []
    texts = [text.replace(SPLIT, "// --") for _, text in modules]  # no stray separators
    joined = f"\n{SPLIT}\n".join(texts)
    starts, line = [], 1
    for text in texts:
        starts.append(line)
        line += text.count("\n") + 2
    done = subprocess.run(
        [iree_opt(), "--split-input-file", "--verify-each", "-o", "/dev/null", "-"],
        input=joined,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode == 0:
        return []
    return _rejections(done.stderr, modules, starts)


def _rejections(
    stderr: str, modules: Sequence[tuple[str, str]], starts: list[int]
) -> list[Rejection]:
    """Group iree-opt's `<stdin>:LINE:COL: error: ...` lines by the module they fall in."""
    found: dict[int, list[str]] = {}
    current = None
    for text_line in stderr.splitlines():
        match = re.match(r"<stdin>:(\d+):\d+: error", text_line)
        if match:
            line = int(match.group(1))
            current = max(i for i, start in enumerate(starts) if start <= line)
        if current is not None:
            found.setdefault(current, []).append(text_line)
    if not found:  # an error without a position: blame the whole batch
        return [Rejection("(all modules)", stderr[-3000:])]
    return [Rejection(modules[i][0], "\n".join(lines[:12])) for i, lines in sorted(found.items())]
