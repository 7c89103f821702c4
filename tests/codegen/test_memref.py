"""memref globals, allocation, copies, calls between funcs, and hand-written CFGs."""

import numpy as np
import pytest

from tracejit.codegen import CodegenError

GLOBALS = """
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<2x3xf32>,
    initial_value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>,
    constant}> : () -> ()
"memref.global"() <{sym_name = "scale", sym_visibility = "private", type = memref<f32>,
    initial_value = dense<2.5> : tensor<f32>, constant}> : () -> ()
"memref.global"() <{sym_name = "mask", sym_visibility = "private", type = memref<3xi1>,
    initial_value = dense<[true, false, true]> : tensor<3xi1>, constant}> : () -> ()
"memref.global"() <{sym_name = "sevens", sym_visibility = "private", type = memref<4xi32>,
    initial_value = dense<7> : tensor<4xi32>}> : () -> ()

func.func @globals(%out: memref<2x3xf32>, %mask_out: memref<3xi32>,
                   %sevens_out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %table = memref.get_global @table : memref<2x3xf32>
  %scale_ref = memref.get_global @scale : memref<f32>
  %scale = memref.load %scale_ref[] : memref<f32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %table[%i, %j] : memref<2x3xf32>
      %s = arith.mulf %v, %scale : f32
      memref.store %s, %out[%i, %j] : memref<2x3xf32>
    }
  }
  %mask = memref.get_global @mask : memref<3xi1>
  scf.for %k = %c0 to %c3 step %c1 {
    %m = memref.load %mask[%k] : memref<3xi1>
    %e = arith.extui %m : i1 to i32
    memref.store %e, %mask_out[%k] : memref<3xi32>
  }
  %sevens = memref.get_global @sevens : memref<4xi32>
  "memref.copy"(%sevens, %sevens_out) : (memref<4xi32>, memref<4xi32>) -> ()
  func.return
}
"""

BUFFERS = """
func.func @reverse_twice(%x: memref<?xf64>, %out: memref<?xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %last = arith.subi %n, %c1 : index
  %tmp = memref.alloc(%n) : memref<?xf64>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %d = arith.mulf %v, %two : f64
    memref.store %d, %tmp[%i] : memref<?xf64>
  }
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.subi %last, %i : index
    %v = memref.load %tmp[%j] : memref<?xf64>
    memref.store %v, %out[%i] : memref<?xf64>
  }
  memref.dealloc %tmp : memref<?xf64>
  func.return
}

func.func @scratch(%x: memref<4xf64>, %out: memref<4xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %buf = memref.alloca() : memref<4xf64>
  "memref.copy"(%x, %buf) : (memref<4xf64>, memref<4xf64>) -> ()
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %buf[%i] : memref<4xf64>
    %s = arith.addf %v, %v : f64
    memref.store %s, %out[%i] : memref<4xf64>
  }
  func.return
}

func.func @copy2d(%x: memref<?x?xi16>, %out: memref<?x?xi16>) {
  "memref.copy"(%x, %out) : (memref<?x?xi16>, memref<?x?xi16>) -> ()
  func.return
}

func.func private @square(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.mulf %v, %v : f32
    memref.store %s, %out[%i] : memref<?xf32>
  }
  func.return
}

func.func @offset(%v: f32, %k: f32) -> f32 {
  %r = arith.addf %v, %k : f32
  func.return %r : f32
}

func.func @square_plus(%x: memref<?xf32>, %k: f32, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  func.call @square(%x, %out) : (memref<?xf32>, memref<?xf32>) -> ()
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %out[%i] : memref<?xf32>
    %s = func.call @offset(%v, %k) : (f32, f32) -> f32
    memref.store %s, %out[%i] : memref<?xf32>
  }
  func.return
}
"""

CFG = """
func.func @switch(%flag: i32, %out: memref<i32>) {
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  %c30 = arith.constant 30 : i32
  cf.switch %flag : i32, [
    default: ^join(%c30 : i32),
    0: ^join(%c10 : i32),
    1: ^join(%c20 : i32)
  ]
^join(%v: i32):
  memref.store %v, %out[] : memref<i32>
  func.return
}

func.func @same_target(%c: i1, %a: i64, %b: i64, %out: memref<i64>) {
  cf.cond_br %c, ^join(%a : i64), ^join(%b : i64)
^join(%v: i64):
  memref.store %v, %out[] : memref<i64>
  func.return
}

func.func @countdown(%n: index, %out: memref<index>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%n, %c0 : index, index)
^exit(%total: index):
  memref.store %total, %out[] : memref<index>
  func.return
^body(%j: index, %sum: index):
  %k = arith.subi %j, %c1 : index
  %s2 = arith.addi %sum, %j : index
  cf.br ^head(%k, %s2 : index, index)
^head(%i: index, %acc: index):
  %more = arith.cmpi sgt, %i, %c0 : index
  cf.cond_br %more, ^body(%i, %acc : index, index), ^exit(%acc : index)
}
"""


@pytest.fixture(scope="module")
def mods(build):
    return {"globals": build(GLOBALS), "buffers": build(BUFFERS), "cfg": build(CFG)}


def test_globals(mods):
    out = np.zeros((2, 3), np.float32)
    mask = np.zeros(3, np.int32)
    sevens = np.zeros(4, np.int32)
    mods["globals"].kernel("globals")(out, mask, sevens)
    np.testing.assert_array_equal(out, 2.5 * np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(mask, [1, 0, 1])
    np.testing.assert_array_equal(sevens, [7, 7, 7, 7])


@pytest.mark.parametrize("n", [0, 1, 1000])
def test_alloc_dealloc_dynamic(mods, n):
    x = np.random.default_rng(n).standard_normal(n)
    out = np.zeros(n)
    mods["buffers"].kernel("reverse_twice")(x, out)
    np.testing.assert_array_equal(out, 2 * x[::-1])


def test_alloca_and_static_copy(mods):
    x = np.array([1.0, -2.0, 3.5, 4.0])
    out = np.zeros(4)
    mods["buffers"].kernel("scratch")(x, out)
    np.testing.assert_array_equal(out, 2 * x)


def test_dynamic_copy(mods):
    x = np.arange(35, dtype=np.int16).reshape(5, 7)
    out = np.zeros_like(x)
    mods["buffers"].kernel("copy2d")(x, out)
    np.testing.assert_array_equal(out, x)


def test_calls_between_funcs(mods):
    x = np.linspace(-2, 2, 101, dtype=np.float32)
    out = np.zeros_like(x)
    mods["buffers"].kernel("square_plus")(x, np.float32(0.5), out)
    np.testing.assert_allclose(out, x * x + np.float32(0.5), rtol=1e-6)
    assert mods["buffers"].kernel("offset")(1.25, 2.0) == 3.25


def test_private_func_is_internal(mods):
    assert "square" not in mods["buffers"].signatures
    assert "define internal" not in mods["buffers"].optimized_llvm_ir  # inlined and dropped
    with pytest.raises(CodegenError, match="square"):
        mods["buffers"].function_address("square")


@pytest.mark.parametrize(("flag", "expected"), [(0, 10), (1, 20), (2, 30), (-5, 30)])
def test_switch_with_block_args(mods, flag, expected):
    out = np.zeros((), np.int32)
    mods["cfg"].kernel("switch")(flag, out)
    assert out == expected


@pytest.mark.parametrize(("cond", "expected"), [(True, 11), (False, 22)])
def test_cond_br_same_target_different_args(mods, cond, expected):
    out = np.zeros((), np.int64)
    mods["cfg"].kernel("same_target")(cond, 11, 22, out)
    assert out == expected


@pytest.mark.parametrize("n", [0, 1, 10])
def test_block_order_does_not_matter(mods, n):
    out = np.zeros((), np.int64)
    mods["cfg"].kernel("countdown")(n, out)
    assert out == n * (n + 1) // 2
