"""The benchmark kernels (benchmarks/kernels.py) compile unchanged and match NumPy on tiny
inputs, and twin kernels (loops vs vectorised) agree with each other. Nothing is timed here:
`make bench` times them."""

import importlib.util
import pathlib
import sys
import warnings

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same

SOURCE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "kernels.py"


def load_kernels():
    spec = importlib.util.spec_from_file_location("benchmark_kernels", SOURCE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up
    spec.loader.exec_module(module)
    return module


KERNELS = load_kernels()

# Kernels tracejit does not compile as written yet (the benchmark reports them too): the
# warning or error they give now. When one starts working, its entry fails the test: delete
# the entry.
UNROLLED: dict[str, str] = {}
REFUSED: dict[str, tuple] = {}


def copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("key", sorted(KERNELS.KERNELS, key=lambda k: int(k[1:])))
def test_kernel_compiles_and_matches_numpy(key):
    kernel = KERNELS.KERNELS[key]
    args = kernel.inputs(np.random.default_rng(1), True)
    compiled = tj.function(kernel.function)
    with warnings.catch_warnings():
        # Every loop of a kernel must compile as a loop: unrolling one is an error here
        # (it is also much faster to stop there than to compile the unrolled copies).
        warnings.simplefilter("error", tj.LoopUnrolledWarning)
        if key in UNROLLED or key in REFUSED:
            error, message = REFUSED.get(key, (tj.LoopUnrolledWarning, UNROLLED.get(key)))
            with pytest.raises(error, match=message):
                compiled(*args)
            return
        given = copies(args)
        got = compiled(*given)
    assert_same(got, kernel.function(*args), rtol=kernel.rtol, atol=kernel.atol)
    for before, after in zip(args, given, strict=True):  # the kernels change no argument
        assert_same(after, before, rtol=0.0)


@pytest.mark.parametrize("pair", KERNELS.TWINS, ids="-".join)
def test_twin_kernels_agree(pair):
    first, second = (KERNELS.KERNELS[k] for k in pair)
    args = first.inputs(np.random.default_rng(2), True)
    np.testing.assert_allclose(first.function(*args), second.function(*args), rtol=1e-12)
