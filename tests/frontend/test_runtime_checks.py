"""Run-time checks staged with tj.assert fail the call with the named Python exception."""

import numpy as np
import pytest

import tracejit as tj
from tracejit.frontend.staging import primitives


@tj.function
def checked_sum(x):
    total = np.sum(x)
    primitives.assert_true(total.astype(np.bool_), "InvalidArgumentError: sum must be non-zero")
    primitives.assert_true(np.max(x).astype(np.bool_), "IndexError: max must be non-zero")
    return total * 2


def test_passing_checks_return_the_result():
    assert checked_sum(np.array([1.0, 2.0])) == 6.0


def test_failing_check_raises_its_error_type_and_message():
    with pytest.raises(tj.errors.InvalidArgumentError, match="sum must be non-zero"):
        checked_sum(np.array([1.0, -1.0]))
    with pytest.raises(IndexError, match="max must be non-zero"):
        checked_sum(np.array([-1.0, 0.0]))
    assert checked_sum.experimental_get_tracing_count() == 1


def test_assert_is_kept_by_cse_and_dce():
    concrete = checked_sum.get_concrete_function(np.ones(2))
    assert str(concrete.ir(after="cse")).count("tj.assert") == 2
    assert concrete.ir().count("cf.cond_br") >= 2
