"""What the passes may know of the CPU the code generator compiles for (the host: codegen
targets `llvm.get_host_cpu_name()` and its features, and the compile cache keys on them).

Kept to what a pass needs to size its tiles, read from Linux's /proc/cpuinfo so that the
passes need not load LLVM: a CPU whose flags are unknown counts as AVX2-class, which is
correct everywhere and only leaves speed unused.
"""

from __future__ import annotations

import functools

CPUINFO = "/proc/cpuinfo"


@functools.cache
def host_vector_target() -> str:
    """`avx512` when the host has AVX-512F (32 vector registers of 64 bytes), else `avx2`."""
    return vector_target_of(CPUINFO)


def vector_target_of(cpuinfo: str) -> str:
    """The vector target a /proc/cpuinfo-style file describes (its first `flags` line)."""
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as lines:
            for line in lines:
                if line.startswith("flags"):
                    return "avx512" if "avx512f" in line.split() else "avx2"
    except OSError:
        pass
    return "avx2"
