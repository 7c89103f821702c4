"""Resident memory over N calls of a function whose dynamic TensorArray's `stack()` the
kernel allocates and hands to NumPy (run in a fresh interpreter by test_memory.py, so
the numbers are this workload's). Prints one JSON object.

    python tensor_array_probe.py N
"""

from __future__ import annotations

import gc
import json
import sys

import numpy as np
from memory_probe import rss  # this script's directory is on sys.path

import tracejit as tj


@tj.function
def collect(x, n):
    ta = tj.TensorArray(np.float64, size=0, dynamic_size=True, element_shape=x.shape)
    for i in tj.range(n):
        ta = ta.write(i, x * i)
    return ta.stack()


def calls(count: int) -> dict:
    x, n = np.linspace(0, 1, 16), np.int64(100)  # ~13 KB per result, 7 reallocations
    for _ in range(min(count // 10, 2_000)):  # warm up: caches, arenas
        collect(x, n)
    gc.collect()
    before = rss()
    for _ in range(count):
        collect(x, n)
    gc.collect()
    return {"before": before, "after": rss(), "calls": count}


if __name__ == "__main__":
    print(json.dumps(calls(int(sys.argv[1]))))
