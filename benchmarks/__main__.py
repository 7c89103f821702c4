"""`python -m benchmarks`: parse the options, pin the thread count, then run.

The thread count has to reach OpenBLAS, MKL, OpenMP, XLA and TensorFlow through the environment
before any of them is imported, so this module imports nothing numerical at the top.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "latest.json"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Workloads W1-W9, kernels K1-K29 and loop kernels L1-L8 on tracejit, NumPy "
        "and the installed peers.",
    )
    parser.add_argument(
        "--only",
        default="",
        help="comma-separated workloads (W1..W9), kernels (K1..K29), loop kernels (L1..L13) "
        "and/or sections: latency, cache, scale, kernels, loops, programs, fft, gradients, "
        "linalg, matmul, dask, "
        "load "
        "(default: all workloads and every section but scale, which runs only when named)",
    )
    parser.add_argument(
        "--loop-sizes",
        type=lambda text: tuple(int(n) for n in text.split(",") if n.strip()),
        default=None,
        help="comma-separated N for the loops section (default 100,400,1000; 100,400 with --quick)",
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats, smaller sweeps")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="threads for NumPy/BLAS/peers and tracejit (with more than one, tracejit also "
        "runs on one thread, and the speedup is printed)",
    )
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help="where to write results")
    return parser.parse_args(argv)


def pin_threads(threads: int) -> None:
    n = str(threads)
    for name in (
        "OMP_NUM_THREADS",
        "OPENBLAS_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMBA_NUM_THREADS",
        "TF_NUM_INTRAOP_THREADS",
        "TF_NUM_INTEROP_THREADS",
    ):
        os.environ[name] = n
    if threads == 1:
        flags = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flags}".strip()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if "numpy" in sys.modules:
        print("warning: NumPy was imported before the thread count was set", file=sys.stderr)
    pin_threads(args.threads)
    from benchmarks.harness import run

    return run(args)


if __name__ == "__main__":
    sys.exit(main())
