"""What the driver tells the passes of the CPU the code generator compiles for (the host:
codegen targets `llvm.get_host_cpu_name()` and its features, and the compile cache keys on
them), as pass options (`tile-matmul{target=...}`, `stream-stores{min-bytes=...}`: a pass
reads no host facts itself).

Kept to what a pass needs to size its tiles (read from Linux's /proc/cpuinfo) and to know
which outputs outgrow the cache (its sysfs cache sizes), without loading LLVM: a CPU whose
flags are unknown counts as AVX2-class, and an unknown cache as 32 MiB, which is correct
everywhere and only leaves speed unused.
"""

from __future__ import annotations

import functools
import glob

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


CACHES = "/sys/devices/system/cpu/cpu0/cache"
ASSUMED_CACHE_BYTES = 32 << 20
"""The last-level cache assumed when Linux does not say (a server CPU's L3 slice)."""


@functools.cache
def host_last_level_cache_bytes() -> int:
    """The size of the host's largest cache (L3 on most x86 CPUs), from Linux's sysfs."""
    return last_level_cache_bytes_of(CACHES)


def last_level_cache_bytes_of(caches: str) -> int:
    """The largest `size` among the `index*` entries of a sysfs cache directory such as
    /sys/devices/system/cpu/cpu0/cache ("32768K"), else ASSUMED_CACHE_BYTES."""
    largest = 0
    for size_file in glob.glob(f"{caches}/index*/size"):
        try:
            with open(size_file, encoding="ascii") as text:
                size = text.read().strip()
        except OSError:
            continue
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:], 1)
        digits = size.rstrip("KMG")
        if digits.isdigit():
            largest = max(largest, int(digits) * scale)
    return largest or ASSUMED_CACHE_BYTES
