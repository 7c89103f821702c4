"""The benchmarks' timing helpers: `on_one_cpu` pins every thread of the process, and puts
them back, so that "one thread" holds for peers that start threads of their own."""

from __future__ import annotations

import os
import threading

import pytest

from benchmarks.timing import on_one_cpu

linux = pytest.mark.skipif(
    not hasattr(os, "sched_setaffinity") or not os.path.isdir("/proc/self/task"),
    reason="thread affinity is set through Linux's /proc/self/task",
)


@linux
def test_every_thread_is_pinned_then_put_back():
    before = os.sched_getaffinity(0)
    started, stop = threading.Event(), threading.Event()
    seen = {}

    def worker():
        seen["tid"] = threading.get_native_id()
        started.set()
        stop.wait()

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait()
    try:
        with on_one_cpu():
            assert os.sched_getaffinity(0) == {min(before)}
            assert os.sched_getaffinity(seen["tid"]) == {min(before)}  # not only the caller
        assert os.sched_getaffinity(0) == before
        assert os.sched_getaffinity(seen["tid"]) == before
    finally:
        stop.set()
        thread.join()


def test_unpinned_when_asked_not_to():
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    with on_one_cpu(pin=False):
        if before is not None:
            assert os.sched_getaffinity(0) == before
