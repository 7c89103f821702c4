"""Slices of dims only the kernel knows (a dynamic TensorArray's stack, a cast of an unknown
dim): every slice but the whole-dim ones must be applied, never dropped."""

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

SLICES = [slice(None, None, -1), slice(1, None), slice(None, -1), slice(None, None, 2),
          slice(-2, None, -1), slice(0, None)]  # fmt: skip


@pytest.mark.parametrize("window", SLICES, ids=str)
@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_slices_of_a_dynamic_stack(window, n):
    expected = (np.arange(n) * 1.5)[window]
    np.testing.assert_array_equal(_stacked(window)(np.int64(n)), expected)


_STACKED: dict[int, tj.Function] = {}  # one per slice: its one trace serves every length


def _stacked(window: slice) -> tj.Function:
    key = SLICES.index(window)  # (a slice is not hashable before Python 3.12)
    if key not in _STACKED:

        @tj.function
        def stacked(n):
            values = tj.TensorArray(tj.float64, size=0, dynamic_size=True)
            for i in tj.range(n):
                values = values.write(i, i * 1.5)
            return values.stack()[window]

        _STACKED[key] = stacked
    return _STACKED[key]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int32])
@pytest.mark.parametrize("window", SLICES, ids=str)
def test_slices_of_a_keepdims_sum_with_unknown_rows(dtype, window):
    def reversed_sums(x):
        return np.sum(x, axis=1, keepdims=True)[window]

    f = tj.function(reversed_sums, input_signature=[tj.TensorSpec([None, 3], dtype)])
    x = np.arange(15, dtype=dtype).reshape(5, 3)
    assert_same(f(x), run_eagerly(f, x))
