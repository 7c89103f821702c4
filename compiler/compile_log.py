"""What the compiler is doing, through the standard `logging` module (logger "tracejit").

Each trace (the function, its signature, why it traced again, how long it took), each
compile (how long, per stage; loaded from the persistent cache or compiled; in the
background for tiered execution or not) and each store into the cache is logged at DEBUG.
`tj.config.set_log_compiles(True)` logs them at WARNING instead, as `jax_log_compiles` does,
so they show without configuring logging. A compile slower than SLOW_COMPILE_SECONDS says so
once per function at WARNING, naming the stage that took longest.

    import logging
    logging.basicConfig(level=logging.DEBUG)   # or: tj.config.set_log_compiles(True)
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracejit.compiler.driver import Compilation

logger = logging.getLogger("tracejit")

SLOW_COMPILE_SECONDS = 3.0
"""A synchronous compile longer than this is reported at WARNING (once per function)."""

_log_compiles = False
_warned_slow: set[str] = set()


def set_log_compiles(enabled: bool) -> None:
    global _log_compiles
    _log_compiles = bool(enabled)


def log_compiles() -> bool:
    return _log_compiles


def _level() -> int:
    return logging.WARNING if _log_compiles else logging.DEBUG


def traced(function: str, signature: str, reason: str, seconds: float) -> None:
    """A new trace of `function` for `signature`, because of `reason`."""
    if logger.isEnabledFor(_level()):
        logger.log(
            _level(),
            "traced %s(%s) in %.1f ms (%s)",
            function,
            signature,
            seconds * 1e3,
            reason,
        )


def compiled(function: str, compilation: Compilation, seconds: float, background: bool) -> None:
    """A compile of `function` (`compilation`: the driver's Compilation) that took `seconds`."""
    where = "in the background (tiered execution)" if background else "synchronously"
    stages = compile_stages(compilation, seconds)
    if logger.isEnabledFor(_level()):
        if compilation.from_cache:
            logger.log(
                _level(),
                "loaded %s from %s in %.1f ms (cache hit)",
                function,
                "this process's earlier compile of the same module"
                if compilation.from_memo
                else "the compiled-code cache",
                seconds * 1e3,
            )
        else:
            detail = ", ".join(f"{name} {t * 1e3:.1f} ms" for name, t in stages)
            logger.log(
                _level(),
                "compiled %s %s in %.1f ms (cache miss): %s",
                function,
                where,
                seconds * 1e3,
                detail,
            )
    if seconds > SLOW_COMPILE_SECONDS and not background and function not in _warned_slow:
        _warned_slow.add(function)
        name, longest = max(stages, key=lambda stage: stage[1]) if stages else ("all", seconds)
        logger.warning(
            "compiling %s took %.1f s; the longest stage was %s (%.1f s). Set "
            "tj.config.set_log_compiles(True) to see every stage",
            function,
            seconds,
            name,
            longest,
        )


def compile_stages(compilation: Compilation, seconds: float) -> list[tuple[str, float]]:
    """(stage, seconds): each pass, then LLVM's parse, O3 and machine code, and the rest
    (translation to LLVM IR and loading) as "translation"."""
    stages = list(getattr(compilation, "pass_seconds", []) or [])
    jit = compilation.jit
    llvm = [
        ("LLVM parse", getattr(jit, "parse_seconds", 0.0)),
        ("LLVM O3", getattr(jit, "optimize_seconds", 0.0)),
        ("machine code", getattr(jit, "codegen_seconds", 0.0)),
    ]
    stages += [stage for stage in llvm if stage[1] > 0]
    rest = seconds - sum(t for _, t in stages)
    if stages and rest > 0:
        stages.append(("translation", rest))
    return stages


def stored(key: str, size: int) -> None:
    """Object code stored in the persistent cache under `key`."""
    if logger.isEnabledFor(_level()):
        logger.log(_level(), "stored %d bytes of object code in the cache (%s)", size, key[:16])
