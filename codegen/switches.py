"""Environment switches of the code generator, readable without importing it.

The driver asks for them before deciding whether to compile at all (a persistent-cache hit
compiles nothing), so this module imports nothing heavier than `os`.
"""

from __future__ import annotations

import os


def bounds_checks_enabled() -> bool:
    """The default of `check_bounds` (`translate_module`, the driver's `compile`):
    `TRACEJIT_CHECK_BOUNDS=1` guards every memref.load/store/copy with a range check
    failing its own check (a compiler-bug detector: correct code never trips it, and the
    checks cost speed)."""
    return os.environ.get("TRACEJIT_CHECK_BOUNDS", "0") not in ("", "0")
