"""A tj.function as the block function of Dask arrays on a real LocalCluster with worker
processes: map_blocks, blockwise and reduction give NumPy's results; each worker traces once
per block signature; a shared cache directory spares the second worker the compile."""

import os

import dask.array as da
import numpy as np
import pytest

import tracejit as tj

pytest.importorskip("distributed")


def arrays(shape, chunks, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    return x, da.from_array(x, chunks=chunks)


def per_worker_counts(client, kernels, function):
    """{worker pid: how often `function` traced in that worker}."""
    return dict(client.run(kernels.tracing_count, function).values())


def test_map_blocks_traces_once_per_block_signature_in_each_worker(client, kernels):
    x, dx = arrays((350, 300), (100, 100))  # blocks of two shapes: (100, 100) and (50, 100)
    y, dy = arrays((350, 300), (100, 100), seed=1)
    lazy = da.map_blocks(kernels.blend, dx, dy, dtype=dx.dtype, meta=np.empty((0, 0)))
    np.testing.assert_allclose(lazy.compute(), kernels.blend_numpy(x, y), rtol=1e-12, atol=1e-15)
    again = lazy.compute()  # the same signatures again: no new traces
    np.testing.assert_allclose(again, kernels.blend_numpy(x, y), rtol=1e-12, atol=1e-15)
    counts = per_worker_counts(client, kernels, kernels.blend)
    assert len(counts) == 2 and os.getpid() not in counts
    assert all(count <= 2 for count in counts.values()), counts  # 24 tasks, <= 2 traces each
    assert sum(counts.values()) >= 2, counts  # both signatures were traced somewhere
    assert kernels.blend.experimental_get_tracing_count() == 0  # nothing ran in the client


def test_blockwise_outer_product(client, kernels):
    a, da_ = arrays((120,), (40,))
    b, db = arrays((90,), (30,), seed=2)
    lazy = da.blockwise(
        kernels.outer_product, "ij", da_, "i", db, "j", dtype=a.dtype, meta=np.empty((0, 0))
    )
    np.testing.assert_allclose(lazy.compute(), np.outer(a, b), rtol=1e-15)
    counts = per_worker_counts(client, kernels, kernels.outer_product)
    assert all(count <= 1 for count in counts.values()) and sum(counts.values()) >= 1, counts


@pytest.mark.parametrize("axis", [None, 0])
def test_reduction_chunk_and_aggregate(client, kernels, axis):
    x, dx = arrays((400, 60), (50, 30), seed=3)
    lazy = da.reduction(
        dx,
        chunk=kernels.chunk_sum_of_squares,
        aggregate=kernels.aggregate_sum,
        axis=axis,
        dtype=x.dtype,
        meta=np.empty((), x.dtype) if axis is None else np.empty((0,), x.dtype),
        split_every=4,
    )
    np.testing.assert_allclose(lazy.compute(), np.sum(x * x, axis=axis), rtol=1e-12)
    # one block shape, and axis/keepdims are static: one trace per worker and axis
    counts = per_worker_counts(client, kernels, kernels.chunk_sum_of_squares)
    assert all(count <= 2 for count in counts.values()) and sum(counts.values()) >= 1, counts


def test_a_shared_cache_spares_the_second_worker_the_compile(client, kernels, tmp_path):
    cache = tmp_path / "shared-cache"
    client.run(tj.config.set_cache_dir, str(cache))
    try:
        first, second = sorted(client.scheduler_info()["workers"])
        x = np.linspace(-3, 3, 1000)
        for worker in (first, second):  # one after the other: the second finds the entry
            result = client.submit(kernels.softsign, x, workers=[worker], pure=False).result()
            np.testing.assert_allclose(result, x / (1 + np.abs(x)), rtol=1e-15)
        stats = client.run(cache_stats)
        assert stats[first] == {"hits": 0, "stores": 1}, stats
        assert stats[second] == {"hits": 1, "stores": 0}, stats
        assert len(list(cache.glob("*.tjo"))) == 1
    finally:
        client.run(tj.config.set_cache_dir, None)


def cache_stats():
    from tracejit.compiler import driver

    stats = driver.object_cache().stats
    return {"hits": stats.hits, "stores": stats.stores}


def test_dask_names_a_function_without_pickling_it(kernels):
    from dask.base import tokenize

    assert tokenize(kernels.blend) == tokenize(kernels.blend)
    assert tokenize(kernels.blend) != tokenize(tj.function(kernels.blend_numpy))
