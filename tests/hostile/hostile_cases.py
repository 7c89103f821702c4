"""Hostile inputs, each a function run in a child interpreter (`test_hostile_inputs.py`).

A case passes when tracejit gives NumPy's answer or raises a clear Python exception; it
fails on a wrong answer, and the runner reports a crash (segfault, abort) as a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import tracejit as tj

OPT = str(Path(sys.executable).with_name("tracejit-opt"))


def raises(kind: type[BaseException], call, *args) -> BaseException:
    try:
        call(*args)
    except kind as error:
        assert str(error), f"{kind.__name__} without a message"
        return error
    raise AssertionError(f"expected {kind.__name__}")


def same(compiled, eager) -> None:
    compiled, eager = np.asarray(compiled), np.asarray(eager)
    assert compiled.dtype == eager.dtype and compiled.shape == eager.shape, (compiled, eager)
    np.testing.assert_array_equal(compiled, eager)


def model(x):
    return np.sum(x * 2 + 1, axis=-1), x[..., ::-1] - x


def eager(fn, *args):
    tj.config.run_functions_eagerly(True)
    try:
        return fn(*args)
    finally:
        tj.config.run_functions_eagerly(False)


def check(fn, *args) -> None:
    compiled, reference = fn(*args), eager(fn, *args)
    for c, e in zip(compiled, reference, strict=True):
        same(c, e)


# --- wrong dtype / rank / shape / structure to a ConcreteFunction ------------------------
def wrong_dtype():
    concrete = tj.function(model).get_concrete_function(np.ones((2, 3), np.float32))
    raises(ValueError, concrete, np.ones((2, 3), np.float64))
    raises(ValueError, concrete, np.ones((2, 3), np.int32))


def wrong_rank_and_shape():
    concrete = tj.function(model).get_concrete_function(np.ones((2, 3), np.float32))
    raises(ValueError, concrete, np.ones((2, 3, 1), np.float32))
    raises(ValueError, concrete, np.ones((3, 2), np.float32))
    raises(ValueError, concrete, np.ones((), np.float32))


def wrong_argument_count():
    concrete = tj.function(model).get_concrete_function(np.ones(3))
    raises(TypeError, concrete)
    raises(TypeError, concrete, np.ones(3), np.ones(3))


# --- unusual memory layouts: must just work --------------------------------------------------
def layouts():
    f = tj.function(model)
    base = np.arange(60, dtype=np.float64).reshape(6, 10)
    readonly = base.copy()
    readonly.flags.writeable = False
    for x in (
        base[::2, ::3],  # non-contiguous
        base[::-1, ::-2],  # negative strides
        np.asfortranarray(base),  # Fortran order
        readonly,  # read-only
        base[:0],  # zero-size
        base.astype(">f8"),  # non-native byte order
        np.broadcast_to(base[0], (4, 10)),  # zero strides, read-only
    ):
        check(f, x)
        check(f, x)  # again: the fast path of the trace used last


def unaligned():
    f = tj.function(model)
    raw = np.zeros(8 * 40 + 1, np.uint8)
    x = np.frombuffer(raw.data, np.float64, count=40, offset=1).reshape(4, 10)
    assert not x.flags.aligned
    x = x.copy() if x.flags.writeable else x
    check(f, x)
    check(f, np.frombuffer(raw.data, np.float64, count=40, offset=1).reshape(4, 10))


def concrete_function_layouts():
    concrete = tj.function(model).get_concrete_function(np.ones((4, 5), np.int32))
    base = np.arange(40, dtype=np.int32).reshape(8, 5)
    for x in (base[::2], base[::-2], np.asfortranarray(base[:4]), base[:4].astype(">i4")):
        for c, e in zip(concrete(x), model(np.ascontiguousarray(x)), strict=True):
            same(c, e)


# --- values that are not tensors --------------------------------------------------------------
def not_tensors():
    f = tj.function(lambda x: x * 2 + 1)
    raises(TypeError, f, np.array([1, "a"], dtype=object))
    raises(TypeError, f, np.array(["a", "b"]))
    raises(TypeError, f, None)
    raises(TypeError, f, {"a": np.ones(2)})
    raises(TypeError, f, np.array([1 + 2j], dtype=np.clongdouble))
    raises(TypeError, f, np.array(["2020-01-01"], dtype="datetime64[D]"))


def strings_as_python_values():
    f = tj.function(lambda x: x * 2)
    assert f("ab") == "abab"  # a Python value runs as Python, like tf.function


# --- allocation failure ---------------------------------------------------------------------
HUGE = (2**23, 2**22)  # 2**45 float64s: 256 TiB, more than any address space maps


def huge_output():
    f = tj.function(lambda x: np.broadcast_to(x, HUGE) + 1.0)
    raises(MemoryError, f, np.ones(HUGE[-1]))
    same(tj.function(lambda x: x + 1.0)(np.ones(3)), np.full(3, 2.0))  # still alive


def huge_intermediate():
    """A kernel-internal buffer (memref.alloc) too large to allocate."""

    def g(x):
        big = np.broadcast_to(x, HUGE)
        both = np.concatenate([big, big], axis=1)
        return np.sum(both[:, ::2] * both[:, 1::2], axis=(0, 1))

    raises(MemoryError, tj.function(g), np.ones(HUGE[-1]))
    same(tj.function(lambda x: x + 1.0)(np.ones(3)), np.full(3, 2.0))


# --- run-time indices ---------------------------------------------------------------------------
def out_of_range_indices():
    f = tj.function(lambda x, i: x[i])
    x = np.arange(5.0)
    same(f(x, np.int64(-5)), x[-5])
    for i in (5, -6, 2**62, -(2**63)):
        raises(IndexError, f, x, np.int64(i))
    g = tj.function(lambda x, i: np.take(x, i, axis=0))
    raises(IndexError, g, x, np.array([0, 7, 1]))
    same(g(x, np.array([0, -1, 4])), np.take(x, [0, -1, 4]))


# --- NaN / Inf flood ---------------------------------------------------------------------------
def nan_inf_flood():
    def h(x, y):
        return (
            np.exp(x) + np.log(y),
            np.sum(x),
            np.max(x, axis=0),
            np.argmax(y),
            x @ y.T,
            np.where(x > 0, x, y),
            np.minimum(x, y),
            np.tanh(x) * 0,
        )

    f = tj.function(h)
    special = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e308, -1e-320])
    x = np.resize(special, (4, 7))
    y = np.resize(special[::-1], (4, 7))
    compiled, reference = f(x, y), eager(h, x, y)
    for c, e in zip(compiled, reference, strict=True):
        np.testing.assert_allclose(c, e, rtol=1e-12, equal_nan=True)
    all_nan = np.full((3, 3), np.nan, np.float32)
    for c, e in zip(f(all_nan, all_nan), eager(h, all_nan, all_nan), strict=True):
        np.testing.assert_array_equal(c, e)


# --- malformed IR fed to tracejit-opt ----------------------------------------------------------
BAD_IR = {
    "garbage": "this is not MLIR at all {{{",
    "truncated": "builtin.module {\n  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n",
    "unknown op": 'builtin.module {\n  "tj.frobnicate"() : () -> ()\n}\n',
    "type mismatch": (
        "builtin.module {\n  func.func @f(%x: tensor<4xf32>, %y: tensor<3xf32>) -> "
        "tensor<4xf32> {\n    %r = tj.add %x, %y : tensor<4xf32>\n"
        "    func.return %r : tensor<4xf32>\n  }\n}\n"
    ),
    "bad return": (
        "builtin.module {\n  func.func @f(%x: tensor<4xf32>) -> tensor<4xi32> {\n"
        "    func.return %x : tensor<4xf32>\n  }\n}\n"
    ),
    "undefined value": (
        "builtin.module {\n  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "    func.return %nope : tensor<4xf32>\n  }\n}\n"
    ),
    "binary": "\x00\x01\x02\xff\xfe",
    "empty": "",
}


def malformed_mlir():
    for label, text in BAD_IR.items():
        verify_only = label not in ("type mismatch", "bad return")
        for args in [[]] if verify_only else [[], ["--pipeline", "default"]]:
            done = subprocess.run(
                [OPT, "-", *args],
                input=text.encode("utf-8", "surrogateescape"),
                capture_output=True,
                timeout=120,
            )
            stderr = done.stderr.decode(errors="replace")
            if label == "empty" and done.returncode == 0:
                continue  # an empty module is a valid module
            assert done.returncode == 1, (label, args, done.returncode, stderr)
            assert stderr.strip(), (label, "no diagnostic")
            assert "Traceback" not in stderr, (label, stderr)


def bad_pass_name():
    ok_ir = BAD_IR["bad return"].replace("tensor<4xi32>", "tensor<4xf32>")
    done = subprocess.run(
        [OPT, "-", "-p", "no-such-pass"], input=ok_ir.encode(), capture_output=True, timeout=120
    )
    assert done.returncode == 1 and b"Traceback" not in done.stderr, done.stderr


# --- loops-stage IR edited by hand, then run (the course invites it) ---------------------------
DOUBLE_LOOPS = """builtin.module {
  func.func @f(%0: memref<8xf32>, %1: memref<8xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %d0 = %c0 to %c8 step %c1 {
      %2 = memref.load %0[%d0] : memref<8xf32>
      %3 = arith.constant 2.000000e+00 : f32
      %4 = arith.mulf %2, %3 : f32
      memref.store %4, %1[%d0] : memref<8xf32>
    }
    func.return
  }
}
"""
EDITED_IR = {  # label -> (edit of DOUBLE_LOOPS, the op and line the error must name)
    "loop bound past the end": (("%c8 = arith.constant 8", "%c8 = arith.constant 100000000"),
                                "memref.load", 7),
    "load past the end": (("memref.load %0[%d0]", "memref.load %0[%c8]"), "memref.load", 7),
    "negative index": (("%c0 = arith.constant 0 : index", "%c0 = arith.constant -3 : index"),
                       "memref.load", 7),
    "store past the end": (("memref.store %4, %1[%d0]", "memref.store %4, %1[%c8]"),
                           "memref.store", 10),
}  # fmt: skip


def hand_edited_ir_out_of_bounds():
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        for label, ((old, new), op, line) in EDITED_IR.items():
            path = Path(directory) / "k.mlir"
            path.write_text(DOUBLE_LOOPS.replace(old, new))
            done = subprocess.run(
                [OPT, str(path), "--run", "--input", "arg0=[1,2,3,4,5,6,7,8]"],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert done.returncode == 1, (label, done.returncode, done.stderr)
            assert f"k.mlir:{line}:" in done.stderr and op in done.stderr, (label, done.stderr)
            assert "indexes out of bounds" in done.stderr, (label, done.stderr)
            assert "tracejit bug" not in done.stderr and "Traceback" not in done.stderr
        # an input whose shape differs from the argument's buffer: refused before the call
        path = Path(directory) / "k.mlir"
        path.write_text(DOUBLE_LOOPS)
        done = subprocess.run(
            [OPT, str(path), "--run", "--input", "arg0=[1,2,3]"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        assert "argument 0 has shape (3,), expected (8,)" in done.stderr, done.stderr


CASES = {fn.__name__: fn for fn in (
    wrong_dtype, wrong_rank_and_shape, wrong_argument_count, layouts, unaligned,
    concrete_function_layouts, not_tensors, strings_as_python_values, huge_output,
    huge_intermediate, out_of_range_indices, nan_inf_flood, malformed_mlir, bad_pass_name,
    hand_edited_ir_out_of_bounds,
)}  # fmt: skip

if __name__ == "__main__":
    os.environ.setdefault("TRACEJIT_VERIFY_EACH", "1")
    from isolation import child_main

    child_main(CASES)
