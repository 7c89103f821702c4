"""The default thread count fitted to the cores other processes leave (runtime/
load_fitting.py): the decision from CPU-time samples, the rules (a count the user set
stays), and the real thing with both cores made busy: the default count goes to one thread,
results unchanged, and back when the fitting stops."""

from __future__ import annotations

import multiprocessing
import time

import numpy as np
import pytest

import tracejit as tj
from tracejit.runtime import load_fitting, settings
from tracejit.runtime.load_fitting import _Fitter, _Sample, fitted_thread_count, others_busy_cores


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


@pytest.fixture
def four_cores(monkeypatch):
    """A 4-core machine, the default count, restored afterwards; the process's own sampling
    stopped meanwhile (it would fit the counts under the test's feet)."""
    load_fitting.stop()
    monkeypatch.setattr(settings, "available_cpus", lambda: 4)
    monkeypatch.setattr(settings, "DEFAULT_THREAD_COUNT", 4)
    monkeypatch.setattr(settings, "DEFAULT_IS_CHOSEN", False)
    settings.set_thread_count(None)
    yield
    settings.fit_to_free_cores(settings.MAX_THREADS)
    monkeypatch.undo()
    settings.set_thread_count(None)


def test_the_default_count_follows_the_load_a_chosen_one_stays(four_cores):
    fitter = _Fitter()
    fitter.fit(others=2.2)
    assert settings.RUN_THREAD_COUNT.value == 2 and tj.config.num_threads() == 4
    fitter.fit(others=0.1)
    assert settings.RUN_THREAD_COUNT.value == 4
    tj.config.set_num_threads(3)  # the user's count: kept under load
    fitter.fit(others=4.0)
    assert settings.RUN_THREAD_COUNT.value == 3
    tj.config.set_num_threads(None)  # the default again: fitted
    assert settings.RUN_THREAD_COUNT.value == 1


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def _wait_until(condition, seconds: float = 2.5) -> bool:
    deadline = time.perf_counter() + seconds
    while not condition() and time.perf_counter() < deadline:
        time.sleep(0.02)
    return condition()


def test_busy_cores_take_the_default_count_to_one_thread_with_the_same_results():
    if settings.available_cpus() < 2:
        pytest.skip("one CPU: nothing to fit")
    tj.config.set_num_threads(None)
    x = np.random.default_rng(0).standard_normal((1500, 1500))
    statistics = tj.function(lambda x: (np.var(x, axis=0), np.sum(x * x, axis=1)))
    expected = statistics(x)  # binds a module with parallel loops: starts the fitting
    assert load_fitting._fitter is not None
    spinners = [multiprocessing.get_context("fork").Process(target=_spin, args=(3.0,))
                for _ in range(settings.available_cpus())]  # fmt: skip
    for spinner in spinners:
        spinner.start()
    try:
        assert _wait_until(lambda: settings.RUN_THREAD_COUNT.value == 1)
        for got, want in zip(statistics(x), expected, strict=True):
            assert np.array_equal(got, want)  # the same bits on one thread
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()
        load_fitting.stop()
    assert settings.RUN_THREAD_COUNT.value == settings.THREAD_COUNT.value


def test_only_the_cpus_of_the_affinity_mask_are_sampled(monkeypatch, tmp_path):
    """A process pinned to CPUs 0 and 1 of four: CPUs 2 and 3 busy leave it both cores."""
    stat = tmp_path / "stat"
    lines = ["cpu  400 0 0 400 0 0 0 0 0 0",
             "cpu0 0 0 0 100 0 0 0 0 0 0", "cpu1 0 0 0 100 0 0 0 0 0 0",
             "cpu2 100 0 0 0 0 0 0 0 0 0", "cpu3 100 0 0 0 0 0 0 0 0 0", "intr 1 2 3"]  # fmt: skip
    stat.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(load_fitting, "PROC_STAT", str(stat))
    monkeypatch.setattr(load_fitting.os, "sched_getaffinity", lambda _: {0, 1})
    sample = load_fitting._read_sample(100.0)
    assert (sample.wall, sample.machine_busy) == (1.0, 0.0)  # 100 ticks each of 2 CPUs, idle
    monkeypatch.setattr(load_fitting.os, "sched_getaffinity", lambda _: {0, 1, 2, 3})
    assert load_fitting._read_sample(100.0).machine_busy == 2.0
