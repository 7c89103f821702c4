"""Dask+tracejit against Dask+NumPy on one `distributed.LocalCluster` (`--only dask`).

Two worker processes, one thread each (and one tracejit thread each), hold two float32 inputs
in memory (persisted, so generating them is not timed); the same graphs then run with NumPy
blocks and with tj.function blocks:

- W2 per block (`map_blocks`), the result kept on the workers;
- W2 and a float64 sum per block (`reduction`, tj.functions for chunk and aggregate).

Next to them, one block of W2 in this process (NumPy over tracejit), the per-block speedup the
cluster's should carry over, less Dask's per-task overhead. Skipped when Dask or distributed is
not installed (they are in the `test` extra).
"""

from __future__ import annotations

import statistics
import sys
import time
import uuid
from typing import Any

import numpy as np

from benchmarks.timing import format_seconds, format_table
from benchmarks.workloads import w2_elementwise


def block_sum(w, axis, keepdims):
    return np.sum(w.astype(np.float64), axis=axis, keepdims=keepdims)


def add_up(sums, axis, keepdims):
    return np.sum(sums, axis=axis, keepdims=keepdims)


def blend_sum_graph(x, y, functions, name):
    import dask.array as da

    w = da.map_blocks(
        functions["blend"], x, y, dtype=np.float32, meta=np.empty(0, np.float32), name=name
    )
    return da.reduction(
        w,
        chunk=functions["chunk"],
        combine=functions["aggregate"],
        aggregate=functions["aggregate"],
        axis=0,
        dtype=np.float64,
        meta=np.empty((), np.float64),
        name=f"sum-{name}",
    )


def blend_graph(x, y, functions, name):
    import dask.array as da

    return da.map_blocks(
        functions["blend"], x, y, dtype=np.float32, meta=np.empty(0, np.float32), name=name
    )


def report(quick: bool) -> dict[str, Any]:
    try:
        import dask.array as da
        from distributed import Client, LocalCluster, wait
    except ImportError as error:
        print(f"\ndask section skipped: {error}")
        return {"skipped": str(error)}
    import cloudpickle

    import tracejit as tj

    # the workers get these functions by value: `benchmarks` is also the name of a package of
    # xDSL's, which a worker might import instead
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    numpy_blocks = {"blend": w2_elementwise, "chunk": block_sum, "aggregate": add_up}
    tracejit_blocks = {name: tj.function(f) for name, f in numpy_blocks.items()}
    n, chunk = (2**24, 2**20) if quick else (2**26, 2**22)  # float32: 64 MiB / 4 MiB blocks
    repeats = 3 if quick else 7
    rows, results = [], {}
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                     dashboard_address=None) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        client.run(tj.config.set_num_threads, 1)
        rng = da.random.default_rng(0)
        x = rng.standard_normal(n, chunks=chunk, dtype=np.float32).persist()
        y = rng.random(n, chunks=chunk, dtype=np.float32).persist()
        wait([x, y])
        graphs = (("W2 map_blocks", blend_graph), ("W2 + sum reduction", blend_sum_graph))
        for name, graph in graphs:
            times = {}
            values = {}
            for impl, functions in (("NumPy", numpy_blocks), ("tracejit", tracejit_blocks)):

                def run(graph=graph, functions=functions):
                    # a new name each time: never the result of the last run, still in memory
                    out = graph(x, y, functions, f"bench-{uuid.uuid4().hex}").persist()
                    wait(out)  # computed on the workers, kept there
                    return out

                values[impl] = run().compute() if name.endswith("reduction") else None
                client.run(tj.config.wait_for_compiles)  # the compiled code is what is timed
                times[impl] = _median(run, repeats)
            if values["NumPy"] is not None:
                np.testing.assert_allclose(values["tracejit"], values["NumPy"], rtol=1e-5)
            speedup = times["NumPy"] / times["tracejit"]
            rows.append([name, f"{x.numblocks[0]} x {chunk * 4 >> 20} MiB",
                         format_seconds(times["NumPy"]), format_seconds(times["tracejit"]),
                         f"{speedup:.2f}x"])  # fmt: skip
            results[name] = {"numpy_s": times["NumPy"], "tracejit_s": times["tracejit"],
                             "speedup": speedup}  # fmt: skip
    block = _one_block(chunk, repeats, tracejit_blocks["blend"])
    rows.append(["W2, one block here", f"1 x {chunk * 4 >> 20} MiB", format_seconds(block[0]),
                 format_seconds(block[1]), f"{block[0] / block[1]:.2f}x"])  # fmt: skip
    results["one block"] = {"numpy_s": block[0], "tracejit_s": block[1],
                            "speedup": block[0] / block[1]}  # fmt: skip
    print("\nDask on a LocalCluster (2 worker processes x 1 thread), inputs persisted:")
    print(format_table(["graph", "blocks", "Dask+NumPy", "Dask+tracejit", "speedup"], rows))
    return results


def _one_block(chunk: int, repeats: int, compiled: Any) -> tuple[float, float]:
    import tracejit as tj

    rng = np.random.default_rng(0)
    x = rng.standard_normal(chunk, dtype=np.float32)
    y = rng.random(chunk, dtype=np.float32)
    threads = tj.config.num_threads()
    tj.config.set_num_threads(1)
    try:
        compiled(x, y)
        tj.config.wait_for_compiles()
        return (
            _median(lambda: w2_elementwise(x, y), repeats),
            _median(lambda: compiled(x, y), repeats),
        )
    finally:
        tj.config.set_num_threads(threads)


def _median(run: Any, repeats: int) -> float:
    run()  # warm
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
