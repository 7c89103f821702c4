"""One process's view of the persistent cache: `python -m benchmarks.cache_probe --dir D`.

Traces W8, calls it once (compile or cache load, then run), checks the result against NumPy
and prints one JSON line: seconds for the trace and the first call, and the cache's counters.
`--preimport` imports llvmlite and the loader first, so the first call shows the cache's own
cost without the one-time imports every process running machine code pays anyway (the
environment part of the key, computed once per process, stays in the first call).
"""

from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--preimport", action="store_true")
    args = parser.parse_args()

    import numpy as np

    import tracejit as tj
    from benchmarks.workloads import WORKLOADS
    from tracejit.compiler import driver

    report: dict[str, object] = {}
    if args.preimport:
        start = time.perf_counter()
        import tracejit.codegen.jit
        import tracejit.compiler.object_cache  # noqa: F401
        report["preimport"] = time.perf_counter() - start

    tj.config.set_cache_dir(args.dir)
    # a miss compiles before the first call returns, as this probe reports (with tiering on it
    # would be interpreted and stored from the background; a hit is loaded either way)
    tj.config.set_tiered_compilation(False)
    workload = WORKLOADS["W8"]
    inputs = workload.inputs(np.random.default_rng(0))
    function = tj.function(workload.function)
    start = time.perf_counter()
    concrete = function.get_concrete_function(*inputs)
    report["trace"] = time.perf_counter() - start
    start = time.perf_counter()
    result = concrete(*inputs)
    report["first_call"] = time.perf_counter() - start
    np.testing.assert_allclose(result, workload.function(*inputs), rtol=workload.rtol)
    engine = type(concrete.compilation.jit._engine).__name__
    report["loaded_as"] = {"SharedLibrary": "shared library"}.get(engine, "object code")
    from tracejit.codegen import shared_library

    shared_library.wait_for_builds()  # so that the next probe finds the library
    stats = driver.object_cache().stats
    report["stats"] = {"hits": stats.hits, "misses": stats.misses, "stores": stats.stores}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
