"""The on-disk object cache: entry format and validation, keys, atomic writes from concurrent
processes, and the LRU size bound."""

import json
import os
import struct
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, ModuleOp, f64

from tracejit.codegen import load_object
from tracejit.codegen.abi import KernelSignature, MemRefArg, ScalarArg
from tracejit.compiler import object_cache as oc

AXPY = """
func.func @axpy(%x: memref<?xf64>, %a: f64, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %s = arith.mulf %v, %a : f64
    %t = arith.addf %s, %v : f64
    memref.store %t, %out[%i] : memref<?xf64>
  }
  func.return
}
"""


@pytest.fixture(scope="module")
def axpy(build):
    return build(AXPY)


@pytest.fixture
def cache(tmp_path):
    return oc.ObjectCache(tmp_path / "cache", max_bytes=1 << 20)


SIGNATURES = {
    "k": KernelSignature(
        "k",
        (
            MemRefArg(np.dtype(np.float32), (None, 3)),
            ScalarArg(np.dtype(np.int64)),
            MemRefArg(np.dtype(np.bool_), ()),
        ),
        np.dtype(np.int32),
    )
}


def test_entry_round_trip_keeps_signatures_and_extras():
    extra = {"messages": ["ValueError: bad", "IndexError: out of range"]}
    entry = oc.decode_entry(oc.encode_entry(b"\x7fELF object", SIGNATURES, extra))
    assert entry is not None
    assert entry.object_code == b"\x7fELF object"
    assert entry.signatures == SIGNATURES
    assert entry.extra == extra


def test_hit_loads_runnable_object_code(axpy, cache):
    key = oc.cache_key("axpy module", "pipeline")
    assert cache.load(key) is None
    assert cache.store(key, axpy.object_code, axpy.signatures, {"messages": []})
    entry = cache.load(key)
    assert entry is not None and cache.stats.hits == 1 and cache.stats.misses == 1
    kernel = load_object(entry.object_code, entry.signatures).kernel("axpy")
    x = np.linspace(-3, 3, 101)
    out = np.empty_like(x)
    kernel(x, 2.5, out)
    np.testing.assert_array_equal(out, x * 2.5 + x)
    assert not [p for p in cache.directory.iterdir() if p.name.startswith(".tmp-")]


def _valid_bytes() -> bytes:
    return oc.encode_entry(b"object code " * 50, SIGNATURES, {"messages": ["ValueError: x"]})


def _reheader(data: bytes, magic=oc.MAGIC, version=oc.FORMAT_VERSION, length=None) -> bytes:
    """A header with some fields changed but a correct checksum of the payload."""
    magic0, version0, length0, checksum = struct.unpack_from("<8sIQ32s", data)
    payload = data[struct.calcsize("<8sIQ32s") :]
    length = len(payload) if length is None else length
    return struct.pack("<8sIQ32s", magic, version, length, checksum) + payload


def _flip(data: bytes, position: int) -> bytes:
    return data[:position] + bytes([data[position] ^ 0x40]) + data[position + 1 :]


CORRUPTIONS = {
    "empty": lambda d: b"",
    "header only": lambda d: d[:60],
    "truncated payload": lambda d: d[: len(d) // 2],
    "one byte short": lambda d: d[:-1],
    "trailing garbage": lambda d: d + b"x",
    "flipped payload bit": lambda d: _flip(d, len(d) - 10),
    "flipped metadata bit": lambda d: _flip(d, 70),
    "flipped checksum bit": lambda d: _flip(d, 25),
    "foreign file": lambda d: b"\x7fELF\x02\x01\x01" + os.urandom(400),
    "other magic": lambda d: _reheader(d, magic=b"NOTTJOBJ"),
    "other format version": lambda d: _reheader(d, version=oc.FORMAT_VERSION + 1),
    "wrong length field": lambda d: _reheader(d, length=len(d)),
    "valid checksum, bad metadata": lambda d: (
        oc._HEADER.pack(
            oc.MAGIC, oc.FORMAT_VERSION, 12, __import__("hashlib").sha256(b"\xff" * 12).digest()
        )
        + b"\xff" * 12
    ),
}


@pytest.mark.parametrize("corruption", sorted(CORRUPTIONS))
def test_corrupt_truncated_or_foreign_entries_are_rejected_and_removed(cache, corruption):
    assert oc.decode_entry(_valid_bytes()) is not None
    key = oc.cache_key(corruption)
    cache.directory.mkdir(parents=True)
    cache.path(key).write_bytes(CORRUPTIONS[corruption](_valid_bytes()))
    assert cache.load(key) is None
    assert cache.stats.invalid == 1
    assert not cache.path(key).exists()  # so the recompiled entry replaces it


def test_keys_depend_on_every_part_and_the_environment():
    keys = {
        oc.cache_key("a", "b"),
        oc.cache_key("ab"),
        oc.cache_key("a", "c"),
        oc.cache_key("b", "a"),
        oc.cache_key("a", "b", ""),
    }
    assert len(keys) == 5
    assert oc.cache_key("a", "b") == oc.cache_key("a", "b")
    environment = json.loads(oc.environment())
    for field in ("cpu", "llvmlite", "xdsl", "tracejit", "sources", "python"):
        assert environment[field]


def test_the_host_identity_needs_no_llvm_and_names_the_cpu_features():
    """The key is computed without loading LLVM (a shared-library hit never loads it), from
    what LLVM's own host detection reads: on x86 Linux the CPU model and its feature flags."""
    code = (
        "import sys, json; from tracejit.codegen import object_cache as oc; "
        "e = json.loads(oc.environment()); "
        "print(json.dumps(['llvmlite.binding' in sys.modules, e['cpu']]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    llvm_loaded, cpu = json.loads(done.stdout)
    if oc._cpuinfo_identity() is not None:  # x86 Linux; elsewhere LLVM is asked
        assert not llvm_loaded
        assert "avx" in cpu or "sse2" in cpu  # the feature flags are part of the identity


def test_eviction_and_clear_take_the_shared_libraries_along(tmp_path):
    cache = oc.ObjectCache(tmp_path, max_bytes=10**9)
    for key in ("a" * 64, "b" * 64):
        assert cache.store(key, b"object", {})
        cache.library_path(key).write_bytes(b"x" * 1000)
    assert cache.size() == sum(p.stat().st_size for p in tmp_path.iterdir())
    cache.max_bytes = cache.size() - 1  # one entry (with its library) must go
    cache.evict()
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".so", ".tjo"]
    cache.clear()
    assert list(tmp_path.iterdir()) == []


def _constant_module(value: float) -> ModuleOp:
    constant = arith.ConstantOp(FloatAttr(value, f64))
    body = func.FuncOp("c", ((), (f64,)))
    body.body.block.add_ops([constant, func.ReturnOp(constant.result)])
    return ModuleOp([body])


def test_fingerprint_tells_apart_floats_the_generic_form_prints_alike():
    a, b = 0.1, float(np.nextafter(0.1, 1.0))
    assert oc.module_fingerprint(_constant_module(a)) == oc.module_fingerprint(_constant_module(a))
    assert oc.module_fingerprint(_constant_module(a)) != oc.module_fingerprint(_constant_module(b))


def _two_constants_module(first: float, second: float, swap: bool = False) -> ModuleOp:
    a, b = arith.ConstantOp(FloatAttr(first, f64)), arith.ConstantOp(FloatAttr(second, f64))
    lhs, rhs = (b, a) if swap else (a, b)
    diff = arith.SubfOp(lhs.result, rhs.result)
    body = func.FuncOp("c", ((), (f64,)))
    body.body.block.add_ops([a, b, diff, func.ReturnOp(diff.result)])
    return ModuleOp([body])


def test_fingerprint_tells_apart_signed_zeros_and_operand_order():
    # FloatAttr(0.0) == FloatAttr(-0.0): a memo keyed by the attribute alone would merge them.
    prints = {
        oc.module_fingerprint(_two_constants_module(0.0, 0.0)),
        oc.module_fingerprint(_two_constants_module(0.0, -0.0)),
        oc.module_fingerprint(_two_constants_module(-0.0, 0.0)),
        oc.module_fingerprint(_two_constants_module(0.0, 1.0)),
        oc.module_fingerprint(_two_constants_module(0.0, 1.0, swap=True)),
    }
    assert len(prints) == 5
    assert oc.module_fingerprint(_two_constants_module(0.0, -0.0)) == oc.module_fingerprint(
        _two_constants_module(0.0, -0.0)
    )


def test_eviction_keeps_the_size_bound_and_the_recently_used(tmp_path):
    entry_size = len(oc.encode_entry(b"x" * 1000, SIGNATURES, {}))
    cache = oc.ObjectCache(tmp_path, max_bytes=3 * entry_size)
    keys = [oc.cache_key(str(i)) for i in range(6)]
    now = time.time()
    for i, key in enumerate(keys[:3]):
        assert cache.store(key, b"x" * 1000, SIGNATURES)
        os.utime(cache.path(key), (now - 100 + i, now - 100 + i))  # key 0 is the oldest
    assert cache.load(keys[0]) is not None  # a hit makes it the most recently used
    cache.store(keys[3], b"x" * 1000, SIGNATURES)
    assert cache.size() <= cache.max_bytes
    assert cache.path(keys[0]).exists() and not cache.path(keys[1]).exists()
    for key in keys[4:]:
        cache.store(key, b"x" * 1000, SIGNATURES)
        assert cache.size() <= cache.max_bytes
    assert cache.stats.evicted == 3
    assert [p for _, _, p in cache.entries()][-1] == cache.path(keys[5])


def test_stale_temp_files_are_cleaned_and_unwritable_dirs_are_harmless(tmp_path, cache):
    cache.directory.mkdir(parents=True)
    stale = cache.directory / ".tmp-dead-writer.tjo"
    stale.write_bytes(b"partial")
    os.utime(stale, (0, 0))
    cache.evict()
    assert not stale.exists()
    blocked = oc.ObjectCache(tmp_path / "a-file")
    (tmp_path / "a-file").write_text("not a directory")
    assert blocked.store(oc.cache_key("k"), b"code", SIGNATURES) is False
    assert blocked.load(oc.cache_key("k")) is None and blocked.stats.errors


WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    from tracejit.compiler import object_cache as oc
    from tracejit.codegen.abi import KernelSignature, ScalarArg
    cache = oc.ObjectCache(sys.argv[1])
    signatures = {"k": KernelSignature("k", (ScalarArg(np.dtype(np.int64)),), None)}
    tag = sys.argv[2].encode()
    for i in range(150):
        code = tag * 20000 + str(i).encode()
        cache.store(sys.argv[3], code, signatures, {"writer": tag.decode()})
""")


def test_concurrent_writers_from_two_processes_never_corrupt(cache):
    key = oc.cache_key("shared")
    cache.directory.mkdir(parents=True)
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(cache.directory), tag, key])
        for tag in ("A", "B")
    ]
    seen = set()
    while any(w.poll() is None for w in writers):
        entry = cache.load(key)
        if entry is not None:
            tag = entry.extra["writer"]
            assert entry.object_code.startswith(tag.encode() * 20000)
            seen.add(tag)
    assert [w.returncode for w in writers] == [0, 0]
    assert cache.stats.invalid == 0
    final = cache.load(key)
    assert final is not None and final.extra["writer"] in ("A", "B")
    assert [p.name for p in cache.directory.iterdir()] == [cache.path(key).name]
