"""Pausing Python's cyclic garbage collector while a function is traced and compiled.

Tracing and the passes make and drop tens of thousands of IR objects, and CPython's collector
runs whenever allocations outnumber deallocations by its threshold: now and then a full
collection, which walks every object of the process (xDSL's, NumPy's, the user's). Measured
on a Gauss-Seidel sweep's first call: 245 ms with the collector, 210 ms without it (one full
collection in `bufferize` cost ~40 ms). The pause is one per process, however many threads
trace or compile at once, and only turns the collector back on if it was on; what became
garbage meanwhile is collected by the next collection after it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_active = 0  # traces and compiles running now
_resume = False  # whether the collector was on when the first of them began


@contextmanager
def collection_paused() -> Iterator[None]:
    global _active, _resume
    with _lock:
        if _active == 0:
            _resume = gc.isenabled()
            gc.disable()
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _resume:
                gc.enable()
