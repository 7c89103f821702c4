"""The loops benchmark group (benchmarks/loop_kernels.py, loop_bench.py) keeps working: its
kernels compile as loops and match NumPy at tiny N, JAX's versions match NumPy when JAX is
installed, and the group runs end to end (NumPy and tracejit) and prints its table. Nothing
here is timed: `make bench BENCH_ARGS="--only loops"` times them."""

import warnings

import numpy as np
import pytest

import tracejit as tj
from benchmarks import harness, loop_bench
from benchmarks.kernel_bench import Timing, check
from benchmarks.loop_kernels import LOOP_KERNELS, jax_sources
from benchmarks.peers import importable

KEYS = sorted(LOOP_KERNELS, key=lambda k: int(k[1:]))


@pytest.mark.parametrize("key", KEYS)
def test_loop_kernel_stays_a_loop_and_matches_numpy(key):
    kernel = LOOP_KERNELS[key]
    compiled = tj.function(kernel.function)
    for n in (1, 9, 12):  # 9: just above the unroll limit, so staged with the shapes known
        args = kernel.inputs(np.random.default_rng(n), n)
        with warnings.catch_warnings():
            warnings.simplefilter("error", tj.LoopUnrolledWarning)  # every loop a loop
            got = compiled(*args)
        check(kernel, got, kernel.function(*args), same_dtype=True)


@pytest.mark.skipif(not importable("jax"), reason="JAX is an optional peer (the bench extra)")
def test_jax_versions_match_numpy():
    import jax

    jax.config.update("jax_enable_x64", True)
    sources = jax_sources(jax)
    assert set(sources) <= set(LOOP_KERNELS)
    for key in sources:
        kernel = LOOP_KERNELS[key]
        args = kernel.inputs(np.random.default_rng(0), 9)
        got = jax.jit(sources[key])(*args)
        check(kernel, jax.tree.map(np.asarray, got), kernel.function(*args), same_dtype=False)


def test_the_group_runs_and_prints_its_table(capsys):
    results = loop_bench.report(quick=True, sizes=(6,), peers=False)  # one compile each
    assert [(r["key"], r["n"]) for r in results] == [(k, 6) for k in KEYS]
    for r in results:
        assert r["numpy"]["status"] == "ok" and r["tracejit"]["status"] == "ok", r
        assert r["tracejit"]["warnings"] == [], r  # no loop unrolled, nothing refused
        assert r["numba"]["status"] == "not measured"
    table = capsys.readouterr().out
    assert "Cholesky, in place" in table and "NumPy/tj" in table


def test_a_size_that_would_take_too_long_is_skipped():
    cubic = LOOP_KERNELS["L1"]
    seconds = loop_bench.MAX_CALL_SECONDS / 100
    assert loop_bench.too_long(cubic, 400, (100, Timing(run=seconds))) is None  # 64x
    assert "would take" in loop_bench.too_long(cubic, 1000, (100, Timing(run=seconds)))


def test_only_names_loop_kernels_and_the_section():
    chosen = harness.selection("L1,L6")
    assert chosen.loops == ["L1", "L6"] and chosen.sections == ["loops"]
    assert harness.selection("loops").loops == []  # the section: every loop kernel
