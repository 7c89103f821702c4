"""Scale out with Dask: a tj.function as the per-block function of a Dask array that is far
larger than memory.

    python examples/dask_blocks.py                   # 50 GB of float32, local threads
    python examples/dask_blocks.py --size 200MB --check
    python examples/dask_blocks.py --workers 2       # a distributed.LocalCluster

Two inputs of `--size` bytes each are generated lazily, block by block (`dask.array.random`),
never whole: each task makes its blocks of x and y, runs the element-wise W2 expression on
them as compiled code, and reduces the block to a float64 sum (`dask.array.reduction`, whose
chunk, combine and aggregate steps are tj.functions too). Dask frees each block once its sum
is taken, so memory stays at a few blocks per thread whatever the size. Each worker process
traces each function once per block shape (`tj.Function`s pickle by reference), and `--check`
repeats the computation with plain NumPy blocks.
"""

from __future__ import annotations

import argparse
import re
import resource
import sys
import time

import numpy as np

import tracejit as tj


def blend(x, y):
    """W2: an element-wise expression NumPy evaluates in four passes over memory."""
    return x**2 + 3 * y - np.tanh(x) * 0.5


def block_sum(w, axis, keepdims):
    """dask.array.reduction's chunk step: one block summed, in float64 (12.5e9 float32 values
    would lose all precision in a float32 sum)."""
    return np.sum(w.astype(np.float64), axis=axis, keepdims=keepdims)


def add_up(sums, axis, keepdims):
    """The combine and aggregate steps: the blocks' sums, summed."""
    return np.sum(sums, axis=axis, keepdims=keepdims)


compiled = {"blend": tj.function(blend), "chunk": tj.function(block_sum),
            "aggregate": tj.function(add_up)}  # fmt: skip
numpy_only = {"blend": blend, "chunk": block_sum, "aggregate": add_up}


def parse_size(text: str) -> int:
    """Bytes of "50GB", "200MB", "1.5GiB" or a plain number."""
    match = re.fullmatch(r"\s*([0-9.]+)\s*([KMGT]?)(i?)B?\s*", text, re.IGNORECASE)
    if match is None:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (write e.g. 50GB or 200MB)")
    number, prefix, binary = match.groups()
    base = 1024 if binary else 1000
    return int(float(number) * base ** "_KMGT".index(prefix.upper() or "_"))


def inputs(size: int, block: int):
    """Two lazily generated float32 vectors of `size` bytes each, in blocks of `block` bytes."""
    import dask.array as da

    n = max(size // 4, 1)
    chunk = max(min(block // 4, n), 1)
    rng = da.random.default_rng(2024)
    x = rng.standard_normal(n, chunks=chunk, dtype=np.float32)
    y = rng.random(n, chunks=chunk, dtype=np.float32)
    return x, y


def total(x, y, functions):
    """The sum of W2 over every element, as a lazy Dask scalar."""
    import dask.array as da

    w = da.map_blocks(functions["blend"], x, y, dtype=np.float32, meta=np.empty(0, np.float32))
    # Dask fuses generating x and y, W2 and the block's sum into one task per block, so no
    # block of w outlives its task
    return da.reduction(
        w,
        chunk=functions["chunk"],
        combine=functions["aggregate"],
        aggregate=functions["aggregate"],
        axis=0,
        dtype=np.float64,
        meta=np.empty((), np.float64),
        split_every=16,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=parse_size, default=parse_size("50GB"),
                        help="bytes of each input (default 50GB)")  # fmt: skip
    parser.add_argument("--block", type=parse_size, default=parse_size("64MB"),
                        help="bytes of each input block (default 64MB)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=0,
                        help="worker processes of a distributed.LocalCluster "
                        "(default 0: Dask's local threads)")  # fmt: skip
    parser.add_argument("--check", action="store_true",
                        help="also compute with NumPy blocks and compare")  # fmt: skip
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    x, y = inputs(args.size, args.block)
    print(f"inputs: 2 x {args.size / 1e9:.3g} GB of float32 in {x.numblocks[0]} blocks each")
    lazy = total(x, y, compiled)
    start = time.perf_counter()
    if args.workers:
        result = run_on_cluster(lazy, args.workers, not args.no_progress)
    else:
        result = run_locally(lazy, not args.no_progress)
    seconds = time.perf_counter() - start
    print(f"sum of x**2 + 3*y - tanh(x)*0.5 = {result:.9g} ({seconds:.2f} s, "
          f"{2 * args.size / seconds / 1e9:.3g} GB/s of input)")  # fmt: skip
    # ru_maxrss is in KiB on Linux: this process's peak, i.e. a few blocks, not the inputs
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {peak:.0f} MiB")
    if args.check:
        expected = run_locally(total(x, y, numpy_only), progress=False)
        print(f"NumPy blocks: {expected:.9g}")
        if not np.isclose(result, expected, rtol=1e-6, atol=1e-6 * np.sqrt(args.size)):
            print("MISMATCH", file=sys.stderr)
            return 1
        print("results agree")
    return 0


def run_locally(lazy, progress: bool) -> float:
    """Dask's threaded scheduler, one thread per core; compiled code on one thread per task."""
    import contextlib

    from dask.diagnostics import ProgressBar

    threads = tj.config.num_threads()
    tj.config.set_num_threads(1)  # Dask already runs a block per core
    try:
        with ProgressBar() if progress else contextlib.nullcontext():
            return float(lazy.compute(scheduler="threads"))
    finally:
        tj.config.set_num_threads(threads)


def run_on_cluster(lazy, workers: int, progress: bool) -> float:
    from distributed import Client, LocalCluster
    from distributed import progress as show_progress

    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                     dashboard_address=None) as cluster,  # fmt: skip
        Client(cluster) as client,
    ):
        client.run(tj.config.set_num_threads, 1)  # one worker process per core
        future = client.compute(lazy)
        if progress:
            show_progress(future)
            print()
        return float(future.result())


if __name__ == "__main__":
    sys.exit(main())
