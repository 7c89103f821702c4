"""The on-disk compiled-code cache: optimised object code that a later process loads instead of
compiling again.

An entry is one file `<key>.tjo` in the cache directory, named by a SHA-256 key over what
determines the machine code: the caller's parts (the driver passes the traced module's fingerprint,
`fingerprint.py`, and the pass pipeline) plus this build's environment (`environment()`: the
host CPU's identity and features, the versions of tracejit, xdsl and llvmlite, and a digest of
the path, size and mtime of tracejit's own sources so an edited compiler never reuses stale
code). An entry may have a shared library beside it, `<key>.so` (`shared_library.py`), evicted
and cleared with it.
The file is

    header  = MAGIC (8 bytes) | format version (u32) | payload length (u64) | SHA-256 of payload
    payload = metadata length (u32) | metadata (JSON: kernel signatures, caller's extras) | object

and is loaded only if every header field matches, so a corrupt, truncated or foreign file is
detected, deleted and compiled again, never handed to the JIT. (The checksum guards against
accidents, not attackers: whoever can write the cache directory can run code in every process
that reads it, as with any compiled-code cache.) So, like ssh with `~/.ssh` and ccache with
its directory, the cache trusts only what no one else could have written: it creates its
directory with mode 0700 and does not read a directory, entry or library that is group- or
other-writable or owned by another user (root aside) -- it warns once per path and compiles
instead (`untrusted_reason`). Writers write a temp file in the same directory
and `os.replace` it over the entry, so a reader sees the old file, the new file or nothing, and
two processes storing the same key at once both leave a complete entry. No `fsync`: an entry torn
by a power loss fails validation like any other corrupt file.

The directory is bounded: after each store, entries are evicted oldest-first by modification time
until the total is below `max_bytes`; a hit touches its file, so eviction is least-recently-used.
Every operation is best effort -- an unreadable or read-only directory only costs a recompile.

The cache is off by default (see `tracejit.frontend.api.config.set_cache_dir`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
import struct
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tracejit.codegen.abi import KernelSignature, MemRefArg, ScalarArg

# The module part of the key, re-exported for callers of this module.
from tracejit.codegen.fingerprint import digest_of
from tracejit.codegen.fingerprint import module_fingerprint as module_fingerprint

LIBRARY_SUFFIX = ".so"  # shared_library.py's libraries, named like their entries

MAGIC = b"TJOBJ\x00\x01\x00"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sIQ32s")
_META_LENGTH = struct.Struct("<I")
SUFFIX = ".tjo"
_TEMP_PREFIX = ".tmp-"
# A temp file this old belongs to a writer that died; it is removed during eviction.
_STALE_TEMP_SECONDS = 3600.0
DEFAULT_MAX_BYTES = 256 * 1024 * 1024
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


@dataclass
class CacheEntry:
    """What a hit gives back: object code, kernel signatures and the caller's extras."""

    object_code: bytes
    signatures: dict[str, KernelSignature]
    extra: dict[str, Any]


@dataclass
class CacheStats:
    """Counters for tests and benchmarks (per `ObjectCache` instance)."""

    hits: int = 0
    misses: int = 0
    stores: int = 0
    invalid: int = 0
    evicted: int = 0
    untrusted: int = 0  # loads refused: the directory or entry was writable by others
    errors: list[str] = field(default_factory=list)


# --- the environment part of the key ---------------------------------------------------------
@functools.cache
def environment() -> str:
    """Everything besides the module that decides the machine code (computed once per process,
    in ~1 ms, without loading LLVM: a cache hit must not cost more than the compile it saves a
    small kernel)."""
    versions = distribution_versions("xdsl", "tracejit", "llvmlite")
    parts = {
        **host_identity(),
        # llvmlite's version pins the LLVM it bundles
        "llvmlite": versions["llvmlite"],
        "xdsl": versions["xdsl"],
        "tracejit": versions["tracejit"],
        "sources": _source_digest(),
        "format": str(FORMAT_VERSION),
        # the entry points call CPython's C API (pyobject_entry.py)
        "python": f"{sys.implementation.cache_tag}{getattr(sys, 'abiflags', '')}",
    }
    return json.dumps(parts, sort_keys=True)


def host_identity() -> dict[str, str]:
    """What tells this host's CPU apart for code generation. On Linux, the machine name and the
    first processor's identity and feature flags in /proc/cpuinfo: LLVM derives its host CPU
    name and features from the same CPUID bits, so equal entries mean equal targets. Elsewhere
    (or if that file is unreadable) LLVM is asked directly."""
    cpu = _cpuinfo_identity()
    if cpu:
        return {"machine": f"{sys.platform}-{os.uname().machine}", "cpu": cpu}
    import llvmlite.binding as llvm

    from tracejit.codegen.jit import host_cpu

    name, features = host_cpu()
    return {"triple": llvm.get_process_triple(), "cpu": name, "features": features}


_CPUINFO_FIELDS = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags")


def _cpuinfo_identity() -> str | None:
    """The identifying lines of the first processor in /proc/cpuinfo, or None."""
    found: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if not line.strip():
                    break  # the end of the first processor's block
                name, _, value = line.partition(":")
                if name.strip() in _CPUINFO_FIELDS:
                    found[name.strip()] = value.strip()
    except OSError:
        return None
    if "flags" not in found or "model" not in found:
        return None  # not the x86 layout: let LLVM say what the host is
    return json.dumps(found, sort_keys=True)


def distribution_versions(*names: str) -> dict[str, str]:
    """The installed versions of distributions `names`, read from their
    `<name>-<version>.dist-info` directories on `sys.path` in one scan. Importing
    `importlib.metadata` (which `xdsl.__version__` does) costs ~45 ms, ten times a whole cache
    hit; it stays the fallback for other layouts."""
    prefixes = {name.replace("-", "_").lower() + "-": name for name in names}
    found: dict[str, str] = {}
    for entry in sys.path:
        with contextlib.suppress(OSError):
            for item in os.listdir(entry or "."):
                if not item.endswith(".dist-info"):
                    continue
                for prefix, name in prefixes.items():
                    if name not in found and item.lower().startswith(prefix):
                        found[name] = item[len(prefix) : -len(".dist-info")]
        if len(found) == len(names):
            return found
    from importlib import metadata

    for name in set(names) - set(found):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "unknown"
    return found


def _source_digest() -> str:
    """A digest of the compiler's own source files: during development the version number does
    not change when a pass does, and a cached kernel must never outlive the code that made it.
    It covers each file's path, size and modification time (ns), like CPython's own check of
    `.pyc` files against their sources: an edit changes the digest (a copy with other times
    only costs a recompile), and stat-ing ~100 files is 20x cheaper than reading them."""
    root = str(_PACKAGE_ROOT)
    # The driver (compiler/) and the runtime's binding decide what an entry holds besides
    # object code.
    paths: list[str] = []
    for layer in ("ir", "passes", "codegen", "runtime", "compiler"):
        paths += _python_files(os.path.join(root, layer))
    digest = hashlib.sha256()
    for path in sorted(paths):
        with contextlib.suppress(OSError):
            st = os.stat(path)
            relative = path[len(root) :]
            digest.update(f"{relative}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _python_files(directory: str) -> list[str]:
    found = []
    with contextlib.suppress(OSError), os.scandir(directory) as it:
        for item in it:
            if item.name.endswith(".py"):
                found.append(item.path)
            elif item.name != "__pycache__" and item.is_dir():
                found += _python_files(item.path)
    return found


def cache_key(*parts: str) -> str:
    """The SHA-256 hex key of `parts` in this environment."""
    return digest_of(environment(), *parts)


# --- serialisation ---------------------------------------------------------------------------
def _signature_json(signature: KernelSignature) -> dict[str, object]:
    def arg(a: MemRefArg | ScalarArg) -> dict[str, Any]:
        if isinstance(a, MemRefArg):
            return {"memref": a.dtype.str, "shape": list(a.shape)}
        return {"scalar": a.dtype.str}

    result = None if signature.result is None else signature.result.str
    return {"name": signature.name, "args": [arg(a) for a in signature.args], "result": result}


def _signature_from_json(data: Mapping[str, Any]) -> KernelSignature:
    def arg(a: Mapping[str, Any]) -> MemRefArg | ScalarArg:
        if "memref" in a:
            return MemRefArg(np.dtype(a["memref"]), tuple(a["shape"]))
        return ScalarArg(np.dtype(a["scalar"]))

    result = None if data["result"] is None else np.dtype(data["result"])
    return KernelSignature(data["name"], tuple(arg(a) for a in data["args"]), result)


def encode_entry(
    object_code: bytes, signatures: Mapping[str, KernelSignature], extra: Mapping[str, object]
) -> bytes:
    """The bytes of one cache file (header + payload)."""
    meta = json.dumps(
        {"signatures": [_signature_json(s) for s in signatures.values()], "extra": dict(extra)}
    ).encode()
    payload = _META_LENGTH.pack(len(meta)) + meta + object_code
    header = _HEADER.pack(MAGIC, FORMAT_VERSION, len(payload), hashlib.sha256(payload).digest())
    return header + payload


def decode_entry(data: bytes) -> CacheEntry | None:
    """The entry in `data`, or None if anything about it is wrong."""
    if len(data) < _HEADER.size:
        return None
    magic, version, length, checksum = _HEADER.unpack_from(data)
    payload = data[_HEADER.size :]
    if magic != MAGIC or version != FORMAT_VERSION or length != len(payload):
        return None
    if hashlib.sha256(payload).digest() != checksum:
        return None
    try:
        (meta_length,) = _META_LENGTH.unpack_from(payload)
        end = _META_LENGTH.size + meta_length
        meta = json.loads(payload[_META_LENGTH.size : end])
        signatures = [_signature_from_json(s) for s in meta["signatures"]]
        extra = meta["extra"]
    except (ValueError, KeyError, TypeError, struct.error):
        return None
    if not isinstance(extra, dict) or end >= len(payload):
        return None
    return CacheEntry(payload[end:], {s.name: s for s in signatures}, extra)


# --- trust -----------------------------------------------------------------------------------
def owner_uid(st: os.stat_result) -> int:
    """The owner of a stat'ed path (a function of its own so that tests can play another
    user: they may run as root, whose files every check trusts)."""
    return st.st_uid


def untrusted_reason(st: os.stat_result) -> str | None:
    """Why a cache directory or file with this stat must not be read, or None if it may: it
    is writable by the group or by everyone, or owned by someone other than this user and root
    (the same rule as ssh's StrictModes). Off POSIX there are no such bits to check."""
    if not hasattr(os, "geteuid"):
        return None
    mode = stat.S_IMODE(st.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by {'everyone' if mode & stat.S_IWOTH else 'its group'} (mode {mode:o})"
    owner = owner_uid(st)
    if owner not in (os.geteuid(), 0):
        return f"owned by another user (uid {owner}, not {os.geteuid()})"
    return None


_warned: set[str] = set()  # paths warned about in this process


def _warn_untrusted(path: Path, reason: str, directory: Path) -> None:
    if str(path) in _warned:
        return
    _warned.add(str(path))
    warnings.warn(
        f"tracejit: not reading the compiled-code cache at {path}: it is {reason}, so another "
        "user could have put machine code there that this process would run; compiling instead. "
        f"Make the cache your own and private (`chmod 700 {directory}` and remove entries you "
        "did not write), or point tj.config.set_cache_dir at a directory of your own.",
        RuntimeWarning,
        stacklevel=2,
    )


# --- the directory ---------------------------------------------------------------------------
class ObjectCache:
    """A bounded directory of cache entries (see the module docstring)."""

    def __init__(self, directory: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES):
        self.directory = Path(directory)
        self.max_bytes = int(max_bytes)
        self.stats = CacheStats()

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{SUFFIX}"

    def library_path(self, key: str) -> Path:
        """Where the entry's shared library goes (`shared_library.py`); it is evicted and
        cleared with its entry."""
        return self.directory / f"{key}{LIBRARY_SUFFIX}"

    def trusted(self, path: Path | None = None) -> bool:
        """Whether the directory, and `path` in it if given, may be read (see
        `untrusted_reason`); an untrusted one is counted and warned about once."""
        for checked in (self.directory, path):
            if checked is None:
                continue
            try:
                st = checked.stat()
            except OSError:
                continue  # a missing path holds no code (and the reads will fail)
            reason = untrusted_reason(st)
            if reason is not None:
                self.stats.untrusted += 1
                _warn_untrusted(checked, reason, self.directory)
                return False
        return True

    def load(self, key: str) -> CacheEntry | None:
        """The valid entry for `key` (touched for LRU), or None; invalid files are removed,
        untrusted ones left alone (they are not ours to delete)."""
        path = self.path(key)
        if not self.trusted():
            self.stats.misses += 1
            return None
        try:
            with open(path, "rb") as handle:
                # checked on the open file: the path could be swapped after a check by name
                reason = untrusted_reason(os.fstat(handle.fileno()))
                data = b"" if reason is not None else handle.read()
        except OSError:
            self.stats.misses += 1
            return None
        if reason is not None:
            self.stats.untrusted += 1
            self.stats.misses += 1
            _warn_untrusted(path, reason, self.directory)
            return None
        entry = decode_entry(data)
        if entry is None:
            self.stats.invalid += 1
            self.stats.misses += 1
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)
        self.stats.hits += 1
        return entry

    def store(
        self,
        key: str,
        object_code: bytes,
        signatures: Mapping[str, KernelSignature],
        extra: Mapping[str, Any] | None = None,
    ) -> bool:
        """Write the entry atomically, then evict down to the size bound. False on failure."""
        data = encode_entry(object_code, signatures, extra or {})
        try:
            # private: whoever can write here can run code in every process reading it
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not self.trusted():  # others could replace what we write: not worth writing
                return False
            self._write_atomically(self.path(key), data)
        except OSError as error:
            self.stats.errors.append(f"store {key}: {error}")
            return False
        self.stats.stores += 1
        self.evict()
        return True

    def _write_atomically(self, path: Path, data: bytes) -> None:
        import tempfile  # here: a process that only reads the cache never needs it

        fd, temp = tempfile.mkstemp(dir=self.directory, prefix=_TEMP_PREFIX, suffix=SUFFIX)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def entries(self) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every entry, oldest first."""
        found = []
        try:
            with os.scandir(self.directory) as it:
                for item in it:
                    if item.name.endswith(SUFFIX) and not item.name.startswith(_TEMP_PREFIX):
                        with contextlib.suppress(OSError):
                            st = item.stat()
                            found.append((st.st_mtime, st.st_size, Path(item.path)))
        except OSError:
            return []
        return sorted(found)

    def size(self) -> int:
        """Bytes of the entries and their shared libraries."""
        total = 0
        for _, size, path in self.entries():
            total += size
            with contextlib.suppress(OSError):
                total += path.with_suffix(LIBRARY_SUFFIX).stat().st_size
        return total

    def evict(self) -> None:
        """Remove least-recently-used entries until the directory fits `max_bytes`, and temp
        files left behind by writers that died."""
        self._remove_stale_temps()
        entries = self.entries()
        total = self.size()
        for _, size, path in entries:
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                self.stats.evicted += 1
            total -= size + _remove_companion(path)

    def _remove_stale_temps(self) -> None:
        cutoff = time.time() - _STALE_TEMP_SECONDS
        with contextlib.suppress(OSError), os.scandir(self.directory) as it:
            for item in it:
                if item.name.startswith(_TEMP_PREFIX):
                    with contextlib.suppress(OSError):
                        if item.stat().st_mtime < cutoff:
                            os.unlink(item.path)

    def clear(self) -> None:
        for _, _, path in self.entries():
            with contextlib.suppress(OSError):
                path.unlink()
            _remove_companion(path)


def _remove_companion(entry: Path) -> int:
    """Remove the shared library beside `entry`; its size (0 if there was none)."""
    library = entry.with_suffix(LIBRARY_SUFFIX)
    try:
        size = library.stat().st_size
        library.unlink()
    except OSError:
        return 0
    return size
