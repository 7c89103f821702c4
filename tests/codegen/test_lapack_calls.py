"""LAPACK calls in compiled code (codegen/emit_lapack.py, ir/lapack_contract.py): every
argument by pointer, the routine's address read from the loader-filled table, `info` the
call's result, and LAPACK_MISSING while the table or the routine's entry is null."""

import ctypes

import numpy as np
import pytest

from tests.codegen.conftest import parse_cf
from tracejit.codegen import compile_module, translate_module
from tracejit.ir.lapack_contract import LAPACK_TABLE_GLOBAL, ROUTINES
from tracejit.ir.runtime_contract import LAPACK_MISSING

# dpotrf("L") of a 2x2 column-major matrix; returns info as the kernel's status
POTRF = """
func.func private @tracejit_lapack_dpotrf(i8, i32, memref<?xf64>, i32) -> i32
func.func @factor(%a: memref<?xf64>, %info: memref<i32>) -> i32 {
  %uplo = arith.constant 76 : i8
  %n = arith.constant 2 : i32
  %i = func.call @tracejit_lapack_dpotrf(%uplo, %n, %a, %n) : (i8, i32, memref<?xf64>, i32) -> i32
  memref.store %i, %info[] : memref<i32>
  %ok = arith.constant 0 : i32
  func.return %ok : i32
}
"""


def test_a_lapack_call_is_an_indirect_call_with_every_argument_by_pointer():
    text = translate_module(parse_cf(POTRF))
    assert f'@"{LAPACK_TABLE_GLOBAL}" = global ptr null' in text
    assert "tracejit_lapack_dpotrf" not in text  # no function of that name: a table entry
    assert f'%".5" = load ptr, ptr @"{LAPACK_TABLE_GLOBAL}"' in text
    assert f'getelementptr ptr, ptr %".5", i32 {ROUTINES.index("dpotrf")}' in text
    assert 'icmp eq ptr %".10", null' in text  # the entry, null without SciPy's LAPACK
    assert 'store i8 76, ptr %".14"' in text and 'store i32 2, ptr %".16"' in text
    # uplo, n, a's data, lda, info: five pointers
    assert 'call void %".10"(ptr %".14", ptr %".16", ptr %"arg0", ptr %".18", ptr %".20")' in text
    assert f"ret i32 {LAPACK_MISSING}" in text


def _run(jit, matrix):
    a = np.asfortranarray(matrix).ravel(order="F")
    info = np.zeros((), np.int32)
    kernel = jit.kernel("factor")
    return kernel(a, info), int(info), a


def test_the_loader_fills_the_table_and_the_call_factors():
    pytest.importorskip("scipy", reason="LAPACK comes from SciPy (tracejit[linalg])")
    from tracejit.compiler import driver

    jit = driver.compile_to_machine_code(parse_cf(POTRF))
    status, info, a = _run(jit, np.array([[4.0, 2.0], [2.0, 5.0]]))
    assert (status, info) == (0, 0)
    np.testing.assert_allclose(a[[0, 1, 3]], [2.0, 1.0, 2.0])  # the lower triangle of L
    status, info, _ = _run(jit, np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert (status, info) == (0, 2)  # not positive definite: the 2nd leading minor


def test_a_null_table_returns_lapack_missing():
    jit = compile_module(parse_cf(POTRF))
    slot = jit.global_address(LAPACK_TABLE_GLOBAL)
    ctypes.c_void_p.from_address(slot).value = None  # as in a process without SciPy
    status, _, _ = _run(jit, np.eye(2))
    assert status == LAPACK_MISSING


def test_a_null_entry_returns_lapack_missing():
    """A table of NumPy's own BLAS routines only (SciPy missing): LAPACK's entries are null."""
    jit = compile_module(parse_cf(POTRF))
    table = (ctypes.c_void_p * len(ROUTINES))()  # every entry null
    slot = jit.global_address(LAPACK_TABLE_GLOBAL)
    ctypes.c_void_p.from_address(slot).value = ctypes.addressof(table)
    status, _, _ = _run(jit, np.eye(2))
    assert status == LAPACK_MISSING
