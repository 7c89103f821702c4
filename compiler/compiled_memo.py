"""Machine code this process has compiled, kept in memory by module, so that a module traced
again is loaded instead of compiled again.

The same module comes back whenever a Function is made again from the same code: a notebook
cell run a second time, a `tj.function` created per call or per test, two Functions wrapping
one helper, a retrace that lands on a module already seen. Loading its object code into a
new engine takes about a millisecond; compiling it again took 0.05 s for a small kernel and
seconds for a whole program. (In `make test`, one compile in seven was of a module compiled
before in the same process.)

Only when the persistent cache is off (`tj.config.set_cache_dir`): with a cache directory,
the directory serves the same module, and its entries can be inspected and counted.

An entry holds what the persistent cache stores: the object code, the kernel signatures, the
run-time messages, the callback sites (rebound to the new Function's own callbacks), and the
optimised LLVM IR (zlib-compressed; `optimized_llvm_ir` and `asm` of a loaded module read
it). The entries are bounded by MAX_BYTES, least recently used first out: 1,000 distinct
small Functions compiled and dropped leave at most that much behind.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_BYTES = 8 * 1024 * 1024
"""Bound of the memo: object code plus compressed IR (a small kernel's entry is 4-10 KiB,
a whole program's up to a few hundred)."""


@dataclass(frozen=True)
class MemoEntry:
    object_code: bytes
    signatures: Mapping[str, Any]  # kernel name -> codegen KernelSignature
    messages: tuple[str, ...]
    callback_sites: tuple[dict, ...]  # CallbackSite.to_json() of each tj.print / py_function
    compressed_llvm_ir: bytes

    @property
    def size(self) -> int:
        return len(self.object_code) + len(self.compressed_llvm_ir)

    @property
    def llvm_ir(self) -> str:
        return zlib.decompress(self.compressed_llvm_ir).decode()


class CompiledMemo:
    """A thread-safe LRU map from a module's key to its MemoEntry, bounded in bytes."""

    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, MemoEntry] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def bytes(self) -> int:
        return self._bytes

    def __contains__(self, key: str) -> bool:
        return key in self._entries

    def get(self, key: str) -> MemoEntry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: str, entry: MemoEntry) -> None:
        if entry.size > self.max_bytes:
            return  # larger than the whole memo: it would only evict everything else
        with self._lock:
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._bytes -= previous.size
            self._entries[key] = entry
            self._bytes += entry.size
            while self._bytes > self.max_bytes:
                _, evicted = self._entries.popitem(last=False)
                self._bytes -= evicted.size

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0


def entry_for(
    object_code: bytes,
    signatures: Mapping[str, Any],
    messages: list[str],
    callback_sites: list[dict],
    llvm_ir: str,
) -> MemoEntry:
    """The memo entry of one compile's results (level 1 compresses 100 KiB of IR in ~0.3 ms,
    to about a sixth)."""
    return MemoEntry(
        object_code,
        dict(signatures),
        tuple(messages),
        tuple(callback_sites),
        zlib.compress(llvm_ir.encode(), 1),
    )


MEMO = CompiledMemo()
"""The process's memo (compiler/driver.py fills it and loads from it)."""
