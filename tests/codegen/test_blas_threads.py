"""OpenBLAS's thread count fitted to the cores other processes leave (runtime/blas_threads.py):
the decision from CPU-time samples, the fitting loop's rules, and the real thing on NumPy's
OpenBLAS with both cores made busy."""

from __future__ import annotations

import multiprocessing
import time

import numpy as np
import pytest

import tracejit as tj
from tracejit.runtime import blas_threads, lapack, settings
from tracejit.runtime.blas_threads import _Fitter, _Sample, fitted_thread_count, others_busy_cores


@pytest.mark.parametrize(
    "others, cores, most, wanted",
    [(0.0, 2, 2, 2), (0.4, 2, 2, 2), (0.6, 2, 2, 1), (2.0, 2, 2, 1), (3.5, 2, 2, 1),
     (1.0, 8, 8, 7), (1.0, 8, 4, 4), (0.0, 2, 1, 1)],
)  # fmt: skip
def test_the_threads_are_the_free_cores_rounded_between_one_and_the_most(
    others, cores, most, wanted
):
    assert fitted_thread_count(others, cores, most) == wanted


def test_other_processes_busy_time_is_the_machines_less_this_processs():
    before = _Sample(wall=10.0, machine_busy=5.0, own=1.0)
    after = _Sample(wall=10.5, machine_busy=6.5, own=1.3)  # 1.5 s busy, 0.3 s ours, in 0.5 s
    assert others_busy_cores(before, after) == pytest.approx(2.4)
    assert others_busy_cores(after, after) == 0.0
    assert others_busy_cores(before, _Sample(10.5, 5.2, 1.5)) == 0.0  # never negative


class FakeBlas:
    def __init__(self, count: int) -> None:
        self.count = count
        self.sets: list[int] = []

    def get(self) -> int:
        return self.count

    def set(self, count: int) -> None:
        self.count = count
        self.sets.append(count)


def test_the_fitter_follows_the_load_and_adopts_a_count_set_by_someone_else(monkeypatch):
    monkeypatch.setattr(settings, "available_cpus", lambda: 4)
    monkeypatch.setattr(settings.THREAD_COUNT, "value", 4)
    blas = FakeBlas(4)
    fitter = _Fitter(blas)  # type: ignore[arg-type]
    fitter.fit(others=2.2)
    assert blas.count == 2
    fitter.fit(others=0.1)
    assert blas.count == 4  # the machine idle again: every thread back
    blas.count = 3  # threadpoolctl, say
    fitter.fit(others=0.0)
    assert blas.count == 3 and fitter.most == 3  # adopted, not overridden
    fitter.fit(others=0.0)
    assert blas.sets == [2, 4]
    monkeypatch.setattr(settings.THREAD_COUNT, "value", 1)  # tj.config.set_num_threads(1)
    fitter.fit(others=0.0)
    assert blas.count == 1


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.skipif(lapack.numpy_blas_library() is None, reason="NumPy bundles no OpenBLAS here")
def test_busy_cores_take_openblas_to_one_thread_and_stop_gives_its_count_back():
    blas = blas_threads._OpenBlasThreads(lapack.numpy_blas_library())
    if settings.available_cpus() < 2 or blas.get() < 2:
        pytest.skip("OpenBLAS has one thread here: nothing to fit")
    a = np.random.default_rng(0).standard_normal((300, 300))
    product = tj.function(lambda a, x: a.T @ (a @ x))
    x = np.ones(300)
    np.testing.assert_allclose(product(a, x), a.T @ (a @ x), rtol=1e-12)  # starts the fitter
    assert blas_threads._fitter is not None
    most = blas_threads._fitter.most
    spinners = [multiprocessing.get_context("fork").Process(target=_spin, args=(3.0,))
                for _ in range(settings.available_cpus())]  # fmt: skip
    for spinner in spinners:
        spinner.start()
    try:
        deadline = time.perf_counter() + 2.5
        while blas.get() > 1 and time.perf_counter() < deadline:
            time.sleep(0.02)
        assert blas.get() == 1
        np.testing.assert_allclose(product(a, x), a.T @ (a @ x), rtol=1e-12)
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()
        blas_threads.stop()
    assert blas.get() == most
