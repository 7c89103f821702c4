"""A worker process killed in the middle of a computation: its nanny starts a new one, the
scheduler reruns the lost blocks (the new worker traces its own Functions), and the result is
still NumPy's."""

import os
import signal
import time

import dask.array as da
import numpy as np
import pytest

pytest.importorskip("distributed")


def test_a_killed_worker_is_replaced_and_the_result_is_right(client, kernels):
    rng = np.random.default_rng(7)
    x, y = rng.standard_normal((2000, 100)), rng.standard_normal((2000, 100))
    dx, dy = da.from_array(x, chunks=(50, 100)), da.from_array(y, chunks=(50, 100))
    # 40 blocks of 50 ms on two workers: ~1 s of work
    lazy = da.map_blocks(kernels.slow_blend, dx, dy, dtype=x.dtype, meta=np.empty((0, 0)))
    future = client.compute(lazy)
    victim = sorted(client.scheduler_info()["workers"])[0]
    victim_pid = client.run(os.getpid, workers=[victim])[victim]
    deadline = time.monotonic() + 30
    while not client.processing(victim).get(victim) and time.monotonic() < deadline:
        time.sleep(0.01)  # until the victim is running blocks of this graph
    time.sleep(0.2)
    assert not future.done()  # killed mid-computation
    os.kill(victim_pid, signal.SIGKILL)
    result = future.result(timeout=60)
    np.testing.assert_allclose(result, kernels.blend_numpy(x, y), rtol=1e-12, atol=1e-15)
    client.wait_for_workers(2, timeout=30)  # the nanny has started a replacement
    pids = set(client.run(os.getpid).values())
    assert victim_pid not in pids and len(pids) == 2
