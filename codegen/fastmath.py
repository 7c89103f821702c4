"""Fast-math flags: xDSL `fastmath<...>` properties -> LLVM instruction flags."""

from __future__ import annotations

from xdsl.ir import Operation

# The seven xDSL flags carry the LLVM flag names ("reassoc", "nnan", ..., "afn").


def flags_of(op: Operation) -> tuple[str, ...]:
    """The LLVM fast-math flags of `op` (empty when it has none)."""
    attr = op.properties.get("fastmath") or op.attributes.get("fastmath")
    if attr is None or not hasattr(attr, "data"):
        return ()
    return tuple(sorted(flag.value for flag in attr.data))
