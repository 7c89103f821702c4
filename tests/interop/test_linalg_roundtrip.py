"""Export then import: every example program (and some NumPy edge cases) goes to upstream
linalg (`export-linalg`), back to tj (`import-linalg`), through tracejit's own pipeline
and machine code, and still computes what NumPy computes. Needs no IREE."""

from __future__ import annotations

import numpy as np
import pytest
from interop_cases import example_programs

import tracejit as tj
from tracejit.compiler import driver
from tracejit.passes.export_linalg import export_module
from tracejit.passes.pipeline import TENSOR_OPT_PIPELINE
from tracejit.tools.linalg_roundtrip import run_upstream_text


def round_trip(function, args, tmp_path=None) -> list[np.ndarray]:
    """Trace, export as text, import the text, compile it, run it on `args`."""
    concrete = tj.function(function).get_concrete_function(*args)
    exported = driver.lower(concrete.graph.module, TENSOR_OPT_PIPELINE).module
    export_module(exported)
    return run_upstream_text(str(exported), args)


def _flat(result) -> list[np.ndarray]:
    return [np.asarray(r) for r in (result if isinstance(result, tuple | list) else [result])]


@pytest.mark.parametrize("name", ["softmax", "layer_norm", "mlp_forward", "quickstart.predict"])
def test_examples_round_trip(name, tmp_path):
    function, args = example_programs()[name]
    got = round_trip(function, args, tmp_path)
    for ours, numpy in zip(got, _flat(function(*args)), strict=True):
        np.testing.assert_allclose(ours, numpy, rtol=1e-4, atol=1e-5)


def test_round_trip_keeps_numpy_semantics(tmp_path):
    def program(a, b):
        return a // b, np.maximum(a, b) * 2, a.reshape(2, 3).T, np.sum(a), a[1:4:2] + b[0]

    a = np.array([-7, 7, -3, 3, 0, 9], np.int64)
    b = np.array([2, -2, 2, -2, 5, 4], np.int64)
    for ours, numpy in zip(round_trip(program, (a, b), tmp_path), program(a, b), strict=True):
        np.testing.assert_array_equal(ours, numpy)


def _staged(x, n):
    s = x * 0
    i = 0
    while i < n:  # staged: n is a tensor
        s = s + x
        i += 1
    if np.sum(s) > 10:  # noqa: SIM108  (a staged if, not an expression)
        s = s * 2
    else:
        s = -s
    return s


@pytest.mark.parametrize("n", [0, 3])
def test_round_trip_staged_control_flow(n, tmp_path):
    """tj.while / tj.if -> scf.while / scf.if -> tj.while / tj.if."""
    x, count = np.array([1, 2, 3], np.float32), np.int64(n)
    (got,) = round_trip(_staged, (x, count), tmp_path)
    np.testing.assert_array_equal(got, _staged(x, count))
    assert np.signbit(got).tolist() == np.signbit(_staged(x, count)).tolist()


def test_import_refuses_what_it_cannot_take_by_name():
    """A scan exports as an scf.for over index values: import refuses it with a clear
    error (it once crashed on the index constant)."""
    from tracejit.passes.import_linalg import ImportError_

    with pytest.raises(ImportError_, match="'arith.constant'.*index values"):
        round_trip(np.cumsum, (np.ones(3, np.float32),))
