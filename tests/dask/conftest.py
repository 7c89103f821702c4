"""One real `distributed.LocalCluster` per test module: two worker processes (spawned, each
with its own tracejit), one thread each."""

import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def kernels():
    """The module of tj.functions the workers import by name (they inherit sys.path)."""
    sys.path.insert(0, str(HERE))
    import dask_kernels

    yield dask_kernels
    sys.path.remove(str(HERE))


@pytest.fixture(scope="module")
def client(kernels):
    distributed = pytest.importorskip("distributed")
    # the workers inherit the environment: no tiered first calls (tests/conftest.py), so
    # every block runs compiled code
    assert os.environ.get("TRACEJIT_TIERED") == "0"
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,  # a killed worker is expected: keep its traceback out of the log
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
