"""`tj.config.set_cache_dir`: a second process loads the compiled code instead of compiling,
with identical results and run-time checks; bad entries are recompiled; concurrent compiling
processes share one directory safely."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import tracejit as tj
from tracejit.codegen import shared_library
from tracejit.compiler import driver
from tracejit.compiler.options import OPTIONS, from_environment
from tracejit.frontend.api import config

# A process that compiles (or loads) `f`, calls it, and prints the results and cache counters.
# With "forbid", compiling is made impossible: the call must be served by the cache.
SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tracejit as tj
    import tracejit.codegen
    from tracejit.codegen import shared_library
    from tracejit.compiler import driver
    from tracejit.frontend.staging import primitives

    cache_dir, mode = sys.argv[1], sys.argv[2]
    tj.config.set_cache_dir(cache_dir)
    if mode == "forbid":
        def forbidden(*args, **kwargs):
            raise AssertionError("the passes or LLVM ran on a cache hit")
        driver.lower = driver.compile_to_machine_code = forbidden
        tracejit.codegen.compile_module = tracejit.codegen.compile_llvm_ir = forbidden

    @tj.function
    def f(x, n, k):
        primitives.assert_true(np.max(x).astype(np.bool_), "IndexError: max must be non-zero")
        y = np.tanh(x * 0.1) + x / 3.0 - 0.30000000000000004
        return {"y": y, "p": k ** n, "s": np.sum(y * y)}

    x = np.linspace(-2.0, 2.0, 37)
    k = np.arange(-3, 4, dtype=np.int32)
    out = f(x, np.int32(3), k)
    errors = []
    try:
        f(x, np.int32(-1), k)
    except ValueError as error:
        errors.append(str(error))
    try:
        f(np.zeros(37) - 1.0 * (np.arange(37) > 0), np.int32(3), k)
    except IndexError as error:
        errors.append(str(error))
    stats = driver.object_cache().stats
    compiler = ["tracejit.codegen.emit_llvm", "tracejit.passes.bufferize"]
    engine = f.get_concrete_function(x, np.int32(3), k)._compilation.jit._engine
    loaded_as = type(engine).__name__
    llvm_loaded = "llvmlite.binding" in sys.modules
    shared_library.wait_for_builds()  # the next process finds the library this one links
    print(json.dumps({
        "compiler_imported": [name for name in compiler if name in sys.modules],
        "loaded_as": loaded_as, "llvm_loaded": llvm_loaded,
        "y": out["y"].tobytes().hex(), "p": out["p"].tolist(), "s": float(out["s"]),
        "errors": errors, "hits": stats.hits, "stores": stats.stores, "invalid": stats.invalid,
    }))
""")


def run_script(cache_dir: Path, mode: str = "compile", env: dict | None = None) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(cache_dir), mode],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_loads_instead_of_compiling(tmp_path):
    first = run_script(tmp_path, "compile")
    assert first["stores"] == 1 and first["hits"] == 0
    second = run_script(tmp_path, "forbid")
    assert second["hits"] == 1 and second["stores"] == 0
    # A hit does not even import the emitter or the passes.
    assert first["compiler_imported"] != [] and second["compiler_imported"] == []
    ignored = ("hits", "stores", "compiler_imported", "loaded_as", "llvm_loaded")
    assert {k: v for k, v in second.items() if k not in ignored} == {
        k: v for k, v in first.items() if k not in ignored
    }
    assert len(first["errors"]) == 2
    assert "negative integer powers" in first["errors"][0]
    assert "max must be non-zero" in first["errors"][1]


def test_a_hit_loads_the_linked_library_without_loading_llvm(tmp_path):
    """The first process stores the object code and links a shared library beside it; the
    next one dlopens that library: same results and run-time checks, and neither the passes
    nor LLVM are even imported."""
    first = run_script(tmp_path, "compile")
    assert first["loaded_as"] == "ExecutionEngine" and first["llvm_loaded"]
    if shared_library.compiler_driver() is None:
        pytest.skip("no C compiler driver (cc/gcc/clang) to link shared libraries with")
    assert len(list(tmp_path.glob("*.so"))) == 1
    second = run_script(tmp_path, "forbid")
    assert second["loaded_as"] == "SharedLibrary" and not second["llvm_loaded"]
    for field in ("y", "p", "s", "errors"):
        assert second[field] == first[field]


def test_without_a_linker_or_with_a_broken_library_hits_use_the_object_code(tmp_path):
    env = {**os.environ, "TRACEJIT_CC": ""}  # linking turned off
    first = run_script(tmp_path, "compile", env)
    assert not list(tmp_path.glob("*.so"))
    second = run_script(tmp_path, "forbid", env)
    assert second["hits"] == 1 and second["loaded_as"] == "ExecutionEngine"
    assert second["y"] == first["y"]
    if shared_library.compiler_driver() is None:
        return
    (entry,) = tmp_path.glob("*.tjo")
    entry.with_suffix(".so").write_bytes(b"\x7fELF not really a library")
    third = run_script(tmp_path, "forbid")  # the broken library is replaced, not loaded
    assert third["hits"] == 1 and third["loaded_as"] == "ExecutionEngine"
    assert third["y"] == first["y"] and third["errors"] == first["errors"]
    assert run_script(tmp_path, "forbid")["loaded_as"] == "SharedLibrary"


def test_modules_with_callbacks_get_no_library(cache_dir):
    @tj.function
    def printing(x):
        tj.print("sum", np.sum(x))
        return x * 2.0

    printing(np.ones(3))
    shared_library.wait_for_builds()
    assert len(list(cache_dir.glob("*.tjo"))) == 1 and not list(cache_dir.glob("*.so"))


def test_concurrent_compiling_processes_leave_one_valid_entry(tmp_path):
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(tmp_path), "compile"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [json.loads(r.communicate()[0].strip().splitlines()[-1]) for r in runs]
    assert [r.returncode for r in runs] == [0, 0]
    assert outputs[0]["y"] == outputs[1]["y"]
    assert [p.suffix for p in tmp_path.glob("*.tjo")] == [".tjo"]
    assert not list(tmp_path.glob(".tmp-*"))  # no half-written entry or library is left
    assert run_script(tmp_path, "forbid")["hits"] == 1


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(config, "_cache_dir", config._cache_dir)
    monkeypatch.setattr(config, "_cache_max_bytes", config._cache_max_bytes)
    tj.config.set_cache_dir(tmp_path / "cache")
    return tmp_path / "cache"


def scaled_sum(x):
    return np.sum(np.exp(x) * 0.5 - x)


def test_corrupt_entry_is_recompiled_and_replaced(cache_dir, check_against_eager):
    x = np.linspace(-1.0, 1.0, 9, dtype=np.float32)
    tj.function(scaled_sum)(x)
    (entry,) = cache_dir.glob("*.tjo")
    entry.write_bytes(entry.read_bytes()[:-7])  # truncated
    cache = driver.object_cache()
    invalid = cache.stats.invalid
    check_against_eager(tj.function(scaled_sum), x)  # a fresh Function: looks in the cache
    assert cache.stats.invalid >= invalid + 1
    hits = cache.stats.hits
    fresh = tj.function(scaled_sum)(x)
    np.testing.assert_allclose(fresh, scaled_sum(x), rtol=1e-6)  # exp is approximated
    assert cache.stats.hits == hits + 1


def test_hit_still_shows_llvm_ir_and_asm(cache_dir):
    x = np.ones(5)
    first = tj.function(scaled_sum)(x)
    hits = driver.object_cache().stats.hits
    concrete = tj.function(scaled_sum).get_concrete_function(x)
    assert concrete(x) == first  # the cached machine code computes the same bits
    assert driver.object_cache().stats.hits == hits + 1
    assert "define" in concrete.llvm_ir and concrete.asm.strip()


def test_cache_is_off_by_default_and_follows_the_environment(monkeypatch, tmp_path):
    assert from_environment({}).cache_dir is None  # off by default
    given = from_environment(
        {"TRACEJIT_CACHE_DIR": str(tmp_path), "TRACEJIT_CACHE_MAX_BYTES": "12345"}
    )
    monkeypatch.setattr(OPTIONS, "cache_dir", given.cache_dir)
    monkeypatch.setattr(OPTIONS, "cache_max_bytes", given.cache_max_bytes)
    assert tj.config.cache_dir() == tmp_path and tj.config.cache_max_bytes() == 12345
    tj.config.set_cache_dir(None)  # explicit beats the environment
    assert driver.object_cache() is None
    assert tj.config.cache_dir() is None
    tj.config.set_cache_dir(tmp_path / "x", max_bytes=1000)
    assert driver.object_cache().max_bytes == 1000
    with pytest.raises(ValueError, match="max_bytes"):
        tj.config.set_cache_dir(tmp_path, max_bytes=-1)


def test_bounds_checked_and_unchecked_code_are_separate_entries(cache_dir, monkeypatch):
    """Bounds checks (`tj.config.set_check_bounds`) change the machine code, so they are part
    of the key: turning them on must compile checked code, not load the unchecked entry."""
    x = np.linspace(-1.0, 1.0, 9, dtype=np.float32)
    tj.function(scaled_sum)(x)
    cache = driver.object_cache()
    hits = cache.stats.hits
    monkeypatch.setattr(OPTIONS, "check_bounds", True)  # tj.config.set_check_bounds(True)
    tj.function(scaled_sum)(x)
    assert cache.stats.hits == hits
    assert len(list(cache_dir.glob("*.tjo"))) == 2
    tj.function(scaled_sum)(x)  # the checked entry is now there
    assert cache.stats.hits == hits + 1
