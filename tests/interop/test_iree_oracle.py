"""IREE (the `interop` extra) compiles the `--emit linalg` export of the example programs
and its results agree with NumPy and with tracejit's own machine code."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("iree.compiler", reason="needs the interop extra (iree-base-compiler)")
pytest.importorskip("iree.runtime", reason="needs the interop extra (iree-base-runtime)")

from interop_cases import example_programs  # noqa: E402

import tracejit as tj  # noqa: E402
from tracejit.tools import iree_oracle  # noqa: E402


def _flat(result) -> list[np.ndarray]:
    return [np.asarray(r) for r in (result if isinstance(result, tuple | list) else [result])]


def test_example_programs_agree_with_iree():
    cases = {}
    for name, (function, args) in example_programs().items():
        compiled = tj.function(function)
        concrete = compiled.get_concrete_function(*args)
        symbol = name.replace(".", "_")
        cases[symbol] = (iree_oracle.export(concrete, symbol), function, compiled, args)
    functions = iree_oracle.compile_many([exported.function for exported, *_ in cases.values()])
    for symbol, (exported, function, compiled, args) in cases.items():
        got = iree_oracle.call(functions[symbol], args, exported.result_dtypes)
        for ours, numpy, theirs in zip(
            _flat(compiled(*args)), _flat(function(*args)), got, strict=True
        ):
            assert theirs.dtype == numpy.dtype, symbol
            if numpy.dtype.kind == "f":
                np.testing.assert_allclose(theirs, numpy, rtol=2e-5, atol=2e-5, err_msg=symbol)
                np.testing.assert_allclose(theirs, ours, rtol=2e-5, atol=2e-5, err_msg=symbol)
            else:
                np.testing.assert_array_equal(theirs, numpy, err_msg=symbol)
                np.testing.assert_array_equal(theirs, ours, err_msg=symbol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_numpy_semantics_survive_iree(dtype):
    """Floor division and remainder signs, argmax ties and NaN, integer powers, empty
    windows, negative steps, 0-d values, bools: the export carries NumPy's meaning (each
    of these once broke the export or IREE's run)."""

    def program(a, b, m, s):
        q = a // b
        r = a % b
        window = a[::-1][1:1]  # empty, its start at the dim's end
        c = a * 1
        c[2:2] = 7  # an empty write
        c[::-2] = b[:3]  # a write through a negative step
        zero_d = a[:1].reshape(()) + s  # a reshape to 0-d, a 0-d input
        scan = np.cumsum(a)  # in NumPy's order: bit-identical floats
        c[np.array([1, -1, 1])] = b[3:]  # a scatter: a negative index, the last write wins
        return q, r, np.argmax(a), c[0] ** 3, window, m & (a > 0), np.sum(m), c, zero_d, scan

    a = np.array([-7, 7, -3, 3, 0, 9], dtype)
    b = np.array([2, -2, 2, -2, 5, 4], dtype)
    if np.dtype(dtype).kind == "f":
        a[5] = np.nan
    m = np.array([True, False, True, True, False, True])
    s = np.asarray(3, dtype)
    compiled = tj.function(program)
    exported = iree_oracle.export(compiled.get_concrete_function(a, b, m, s), "semantics")
    got = iree_oracle.call(
        iree_oracle.compile_many([exported.function])["semantics"],
        [a, b, m, s],
        exported.result_dtypes,
    )
    expected = program(a.copy(), b, m, s)
    for theirs, numpy in zip(got, expected, strict=True):
        np.testing.assert_array_equal(theirs, np.asarray(numpy))


def test_float16_products_survive_iree():
    """A float16 matmul is exported as a float32 sum in k order rounded once (NumPy's
    HALF_matmul): IREE's results are NumPy's to the bit, where a float16 running sum was
    off by several units (8x1000 @ 1000x8 of values in [0, 1))."""

    def program(a, b, v):
        return a @ b, a @ v, v @ b

    rng = np.random.default_rng(35)
    a, b = rng.random((8, 1000)).astype(np.float16), rng.random((1000, 8)).astype(np.float16)
    v = rng.random(1000).astype(np.float16)
    exported = iree_oracle.export(tj.function(program).get_concrete_function(a, b, v), "half")
    got = iree_oracle.call(
        iree_oracle.compile_many([exported.function])["half"], [a, b, v], exported.result_dtypes
    )
    for theirs, numpy in zip(got, program(a, b, v), strict=True):
        assert theirs.dtype == np.float16
        np.testing.assert_array_equal(theirs.view(np.uint16), numpy.view(np.uint16))
