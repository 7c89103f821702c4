"""Loops through the JIT: element-wise kernels, 2-D nests, reductions, vectorisation."""

import numpy as np
import pytest

LOOPS = """
func.func @vadd(%x: memref<?xf32>, %y: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %r = arith.addf %a, %b : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  func.return
}

func.func @axpy2d(%x: memref<?x?xf64>, %y: memref<?x?xf64>, %alpha: f64,
                  %out: memref<?x?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf64>
  %cols = memref.dim %x, %c1 : memref<?x?xf64>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %a = memref.load %x[%i, %j] : memref<?x?xf64>
      %b = memref.load %y[%i, %j] : memref<?x?xf64>
      %ax = arith.mulf %alpha, %a : f64
      %r = arith.addf %ax, %b : f64
      memref.store %r, %out[%i, %j] : memref<?x?xf64>
    }
  }
  func.return
}

func.func @rowsum(%x: memref<?x5xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %rows = memref.dim %x, %c0 : memref<?x5xf32>
  scf.for %i = %c0 to %rows step %c1 {
    %s = scf.for %j = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x5xf32>
      %t = arith.addf %acc, %v : f32
      scf.yield %t : f32
    }
    memref.store %s, %out[%i] : memref<?xf32>
  }
  func.return
}
"""

SUM = """
func.func @sum(%x: memref<?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %t = arith.addf %acc, %v FASTMATH : f32
    scf.yield %t : f32
  }
  memref.store %s, %out[] : memref<f32>
  func.return
}
"""


@pytest.fixture(scope="module")
def loops(build):
    return build(LOOPS)


@pytest.mark.parametrize("n", [0, 1, 7, 1000, 100003])
def test_vadd_dynamic(loops, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    loops.kernel("vadd")(x, y, out)
    np.testing.assert_array_equal(out, x + y)


def test_vadd_raw_abi_call(loops):
    x = np.arange(10, dtype=np.float32)
    y = np.ones(10, np.float32)
    out = np.empty(10, np.float32)
    # pointers first, then the dynamic dims of x, y, out in argument order
    loops.kernel("vadd").raw(x.ctypes.data, y.ctypes.data, out.ctypes.data, 10, 10, 10)
    np.testing.assert_array_equal(out, x + 1)


def test_vadd_is_vectorised(loops):
    assert "<16 x float>" in loops.optimized_llvm_ir or "<8 x float>" in loops.optimized_llvm_ir
    assert "zmm" in loops.asm or "ymm" in loops.asm


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1), (17, 33)])
def test_2d_nest_dynamic_dims(loops, shape):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, *shape))
    out = np.zeros(shape)
    loops.kernel("axpy2d")(x, y, 2.5, out)
    np.testing.assert_allclose(out, 2.5 * x + y, rtol=1e-15)


def test_mixed_static_dynamic_dims(loops):
    x = np.random.default_rng(2).standard_normal((9, 5), dtype=np.float32)
    out = np.zeros(9, np.float32)
    loops.kernel("rowsum")(x, out)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5)


def test_signature_shapes(loops):
    signature = loops.kernel("rowsum").signature
    assert signature.args[0].shape == (None, 5)
    assert signature.dynamic_dims == ((0, 0), (1, 0))


@pytest.fixture(scope="module")
def sums(build):
    return {
        "reassoc": build(SUM.replace("FASTMATH", "fastmath<reassoc>")),
        "strict": build(SUM.replace("FASTMATH", "")),
    }


@pytest.mark.parametrize("mode", ["reassoc", "strict"])
@pytest.mark.parametrize("n", [0, 1, 31, 100003])
def test_sum(sums, mode, n):
    x = np.random.default_rng(n).random(n, dtype=np.float32)
    out = np.zeros((), np.float32)
    sums[mode].kernel("sum")(x, out)
    np.testing.assert_allclose(out, x.sum(dtype=np.float64), rtol=1e-4)


def test_sum_vectorises_only_with_reassoc(sums):
    def vector_float(text):
        return "<16 x float>" in text or "<8 x float>" in text

    assert vector_float(sums["reassoc"].optimized_llvm_ir)
    assert not vector_float(sums["strict"].optimized_llvm_ir)
