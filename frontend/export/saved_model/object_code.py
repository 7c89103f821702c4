"""The host machine code saved beside a trace's IR, and when it may be used again.

Each saved object file is a cache entry of `compiler/object_cache.py` (its header carries a
checksum, so a torn or foreign file is detected), stored under the key the persistent cache
would use (`driver.object_code_key`): a SHA-256 over the IR's fingerprint, the pass
pipeline, the bounds-check setting and the environment -- host CPU name and features, the
tracejit, xdsl and llvmlite versions, a digest of the compiler's sources. `load` recomputes
that key from the IR it just parsed and this process's environment and uses the object code
only when both match; otherwise (another CPU, another compiler) the function is compiled
again from its IR.

Trust: object code is machine code. Loading a directory whose key matches runs that code in
this process, so load only directories you trust, as with pickle (`use_object_code=False`
always compiles from the IR).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tracejit.compiler import driver

if TYPE_CHECKING:
    from tracejit.frontend.api.concrete_function import ConcreteFunction


@dataclass
class ObjectCode:
    """A compiled trace's machine code and the key it was compiled under."""

    key: str
    data: bytes  # one object_cache entry: header, signatures, extras, object code


def export(concrete: ConcreteFunction) -> ObjectCode | None:
    """The object code of `concrete` (compiled now if it was not yet), or None when it has
    none to give."""
    data = driver.encode_object_code(concrete.compilation)
    if data is None:
        return None
    return ObjectCode(driver.object_code_key(concrete.graph.module, concrete.record.pipeline), data)


def install(concrete: ConcreteFunction, object_code: ObjectCode) -> bool:
    """Make `concrete` call the saved machine code if its key is this process's key for the
    function's IR; False (and nothing changes) otherwise, or if the entry is invalid."""
    if object_code.key != driver.object_code_key(concrete.graph.module, concrete.record.pipeline):
        return False
    compilation = driver.decode_object_code(object_code.data)
    if compilation is None:
        return False
    concrete.install_compilation(compilation)
    return True
