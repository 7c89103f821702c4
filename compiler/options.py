"""The compiler driver's options, and every environment variable tracejit reads: once, here.

`OPTIONS` is read from the environment when tracejit is imported; `tj.config` changes it
afterwards (a variable set after the import changes nothing). Below this floor nothing reads
the environment: passes get their settings as pass options in the pipeline text, the code
generator as arguments, the runtime through `runtime/settings.py`, which this module sets.

| variable                      | default     | meaning                                          |
|-------------------------------|-------------|--------------------------------------------------|
| `TRACEJIT_CACHE_DIR`          | unset (off) | directory of the persistent compiled-code cache  |
| `TRACEJIT_CACHE_MAX_BYTES`    | 256 MiB     | size bound of that directory                     |
| `TRACEJIT_TIERED`             | `1`         | `0`: compile before the first call returns       |
| `TRACEJIT_NUM_THREADS`        | the CPUs    | threads of parallel loops                        |
| `TRACEJIT_BUFFER_CACHE_BYTES` | 512 MiB     | bound of each cache of freed blocks              |
| `TRACEJIT_CHECK_BOUNDS`       | `0`         | `1`: range-check every memory access             |
| `TRACEJIT_VERIFY_EACH`        | `0`         | `1`: verify the IR after each pass; `end`: once  |
| `TRACEJIT_CC`                 | search      | C compiler linking cached kernels; empty: none   |
| `TRACEJIT_STREAM_MIN_BYTES`   | the LLC     | outputs this big skip the cache; 0: every one    |
| `TRACEJIT_FIT_THREADS`        | `1`         | `0`: the default thread count ignores the load   |

docs/guide.md ("Environment variables") has the same table for users.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path

from tracejit.runtime import buffer_pool, load_fitting, settings

DEFAULT_CACHE_MAX_BYTES = 256 * 1024 * 1024
_SEARCH = "search"  # TRACEJIT_CC unset: look for cc, gcc, clang


@dataclass
class CompileOptions:
    """How functions are compiled and where compiled code is kept, for the whole process."""

    cache_dir: Path | None = None  # None: no persistent cache
    cache_max_bytes: int = DEFAULT_CACHE_MAX_BYTES
    tiered: bool = True  # interpret first calls while compiling in the background
    check_bounds: bool = False  # range-check memory accesses (a compiler-bug detector)
    verify: str = "off"  # verify the IR after "each" pass, at the "end", or "off"
    c_compiler: str | None = _SEARCH  # linker driver for cached kernels; None: do not link
    stream_min_bytes: int | None = None  # stream-stores' threshold; None: the last-level cache

    def describe(self) -> str:
        """`name=value` for every option, as a log line or an error shows them."""
        return ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self))


def _flag(value: str | None, default: bool) -> bool:
    return default if value is None else value not in ("", "0")


def _bytes(value: str | None, default: int) -> int:
    """A byte count from the environment; a bad one counts as unset (an import must not fail
    on it)."""
    try:
        return max(int(value), 0) if value else default
    except ValueError:
        return default


def from_environment(environ: Mapping[str, str]) -> CompileOptions:
    """The options the variables in `environ` give (the table in the module docstring)."""
    cache_dir = environ.get("TRACEJIT_CACHE_DIR")
    verify = environ.get("TRACEJIT_VERIFY_EACH", "0")
    cc = environ.get("TRACEJIT_CC")
    stream = environ.get("TRACEJIT_STREAM_MIN_BYTES", "").strip()
    return CompileOptions(
        cache_dir=Path(cache_dir).expanduser() if cache_dir else None,
        cache_max_bytes=_bytes(environ.get("TRACEJIT_CACHE_MAX_BYTES"), DEFAULT_CACHE_MAX_BYTES),
        tiered=_flag(environ.get("TRACEJIT_TIERED"), True),
        check_bounds=_flag(environ.get("TRACEJIT_CHECK_BOUNDS"), False),
        verify="end" if verify == "end" else "off" if verify in ("", "0") else "each",
        c_compiler=_SEARCH if cc is None else (cc or None),
        stream_min_bytes=int(stream) if stream.isdigit() else None,
    )


def thread_count_from_environment(environ: Mapping[str, str]) -> int | None:
    """TRACEJIT_NUM_THREADS as a count, None when unset or not a number."""
    value = environ.get("TRACEJIT_NUM_THREADS", "").strip()
    try:
        return settings.clamp_thread_count(int(value)) if value else None
    except ValueError:
        return None


def apply_runtime_environment(environ: Mapping[str, str]) -> None:
    """Give the runtime's settings their values from `environ` (at import)."""
    count = thread_count_from_environment(environ)
    if count is not None:
        settings.DEFAULT_THREAD_COUNT = count
        settings.DEFAULT_IS_CHOSEN = True  # the user's count: kept whatever the load
        settings.set_thread_count(None)
    limit = _bytes(environ.get("TRACEJIT_BUFFER_CACHE_BYTES"), settings.DEFAULT_CACHE_BYTES)
    settings.CACHE_BYTES.value = limit
    buffer_pool.POOL.limit = limit
    load_fitting.ENABLED = _flag(environ.get("TRACEJIT_FIT_THREADS"), True)


FROM_ENVIRONMENT = from_environment(os.environ)
"""The options as the environment set them (what a `tj.config` setter given None goes back to)."""
OPTIONS = replace(FROM_ENVIRONMENT)
apply_runtime_environment(os.environ)
