"""Cached kernels as shared libraries: the quickest way back into machine code in a new process.

Loading object code from the persistent cache (`object_cache.py`) needs LLVM's JIT linker, and
loading LLVM itself (`import llvmlite.binding`, a ~100 MB library) costs ~30 ms, most of a
cache hit. So next to a cache entry `<key>.tjo` goes `<key>.so`: the same optimised module
compiled once more as position-independent code and linked by the system's C compiler driver
(`cc -shared ... -lm`). A later process `dlopen`s it through ctypes (well under a millisecond)
and finds the kernels and entry points by symbol name, never touching LLVM.

The library is built in a background thread after a store (or after a hit that found none), in
its own LLVM context, so it costs the compiling thread nothing; a process that exits first just
leaves the work to the next one. Everything is best effort: without a C compiler, for modules
with run-time callbacks (their addresses are bound per process, `jit._finalize`), or when
`dlopen` fails, the object code path is used as before. The library is written to a temporary
name and renamed, like every cache file, so a reader sees a whole library or none.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import functools
import os
import shutil
import threading
import time
from pathlib import Path

LIBRARY_SUFFIX = ".so"
_LINK_TIMEOUT_SECONDS = 60
_EXIT_WAIT_SECONDS = 10.0
_pending: list[threading.Thread] = []
_pending_lock = threading.Lock()


class SharedLibrary:
    """A loaded library, answering like an MCJIT engine (`jit.JitModule` takes either)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._library = ctypes.CDLL(str(path))  # OSError when it cannot be loaded

    def get_function_address(self, name: str) -> int:
        try:
            function = getattr(self._library, name)
        except AttributeError:
            return 0
        return ctypes.cast(function, ctypes.c_void_p).value or 0

    def get_global_value_address(self, name: str) -> int:
        try:
            return ctypes.addressof(ctypes.c_uint8.in_dll(self._library, name))
        except ValueError:
            return 0


SEARCH = "search"
"""`compiler_driver`'s choice meaning: the first of cc, gcc, clang found on PATH."""


@functools.cache
def compiler_driver(chosen: str | None = SEARCH) -> str | None:
    """The C compiler driver that links libraries here: `chosen` (a name or a path; None:
    none, linking is off; the driver passes `TRACEJIT_CC`), else cc, gcc or clang."""
    if chosen != SEARCH:
        return shutil.which(chosen) if chosen else None
    for name in ("cc", "gcc", "clang"):
        found = shutil.which(name)
        if found:
            return found
    return None


def load(path: Path) -> SharedLibrary | None:
    """The library at `path`, or None when there is none or it does not load."""
    if not path.is_file():
        return None
    try:
        return SharedLibrary(path)
    except OSError:
        with contextlib.suppress(OSError):  # a broken library is rebuilt by a later hit
            path.unlink()
        return None


def build_in_background(llvm_ir: str, destination: Path, chosen: str | None = SEARCH) -> None:
    """Compile the optimised module `llvm_ir` as position-independent code and link it to
    `destination` with `compiler_driver(chosen)`, in a daemon thread (see the module
    docstring)."""
    driver = compiler_driver(chosen)
    if driver is None:
        return
    thread = threading.Thread(
        target=_build, args=(llvm_ir, destination, driver), name="tracejit-link", daemon=True
    )
    with _pending_lock:
        _pending[:] = [t for t in _pending if t.is_alive()]
        _pending.append(thread)
        thread.start()
    _wait_at_exit()


def wait_for_builds(timeout: float | None = None) -> None:
    """Wait for the libraries being built (tests and benchmarks call this), at most
    `timeout` seconds in all."""
    deadline = None if timeout is None else time.monotonic() + timeout
    with _pending_lock:
        threads = list(_pending)
    for thread in threads:
        thread.join(None if deadline is None else max(deadline - time.monotonic(), 0.0))


@functools.cache
def _wait_at_exit() -> None:
    """LLVM's static destructors run when the process exits: a build thread still inside LLVM
    then could crash the exit, so exiting waits for the builds (briefly) first."""
    atexit.register(wait_for_builds, _EXIT_WAIT_SECONDS)


def _build(llvm_ir: str, destination: Path, driver: str) -> None:
    with contextlib.suppress(Exception):  # best effort: the object code path still works
        with BACKGROUND_LLVM:
            object_code = pic_object_code(llvm_ir)
        link(object_code, destination, driver)


BACKGROUND_LLVM = threading.Lock()
"""Held by a background thread while it is inside LLVM: a build here, or the runtime's
compile (runtime_binding.py). `os.fork()` waits for it: a child forked then would inherit
LLVM's locks held by a thread it does not have, and hang in its first compile (as
frontend/api/tiered.py makes a fork wait for the background compile). The forking thread holds
it across the fork and lets go of it on both sides."""

if hasattr(os, "register_at_fork"):
    os.register_at_fork(
        before=BACKGROUND_LLVM.acquire,
        after_in_parent=BACKGROUND_LLVM.release,
        after_in_child=BACKGROUND_LLVM.release,
    )


def pic_object_code(llvm_ir: str) -> bytes:
    """Position-independent object code for the (already optimised) module `llvm_ir`, made in
    a fresh LLVM context so that it can run beside compiles in other threads."""
    import llvmlite.binding as llvm

    from tracejit.codegen.jit import host_cpu

    cpu, features = host_cpu()
    machine = llvm.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=3, reloc="pic", codemodel="default"
    )
    module = llvm.parse_assembly(llvm_ir, context=llvm.create_context())
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    return machine.emit_object(module)


def link(object_code: bytes, destination: Path, driver: str) -> bool:
    """Link `object_code` into the shared library `destination` (atomically) with the C
    compiler `driver`. False when it fails."""
    # imported here: a process that only loads libraries from the cache never needs them
    import subprocess
    import tempfile

    # the object file goes to the system's temp directory, the library to a temp name beside
    # its final one (the cache removes stale `.tmp-` files), then renamed into place
    fd, built = tempfile.mkstemp(dir=destination.parent, prefix=".tmp-", suffix=LIBRARY_SUFFIX)
    os.close(fd)
    try:
        with tempfile.TemporaryDirectory(prefix="tracejit-link-") as work:
            source = os.path.join(work, "kernel.o")
            with open(source, "wb") as handle:
                handle.write(object_code)
            done = subprocess.run(
                [driver, "-shared", "-o", built, source, "-lm"],
                capture_output=True,
                timeout=_LINK_TIMEOUT_SECONDS,
                check=False,
            )
        if done.returncode != 0:
            return False
        # private, whatever the umask: the cache reads no file that others can write
        os.chmod(built, 0o700)
        os.replace(built, destination)
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(built)  # already renamed on success
