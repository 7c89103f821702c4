"""Issue 2's acceptance: decorated NumPy functions run as LLVM machine code and
return NumPy's answer (compared with eager mode) for several dtypes and shapes."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj

FLOATS = [np.float32, np.float64]
# Each new shape compiles a kernel (~0.1 s), so examples are few but varied.
SHAPE_SETTINGS = settings(max_examples=12, deadline=None)
dims = st.integers(min_value=1, max_value=9)


def tanh_sum(x, y):
    return np.sum(np.tanh(x) * y + 1, axis=0)


def affine(x, w, b):
    return x @ w + b


def random_array(rng, shape, dtype):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-50, 50, shape).astype(dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@SHAPE_SETTINGS
@given(rows=dims, cols=dims, seed=st.integers(0, 2**32 - 1))
def test_tanh_sum_matches_numpy(check_against_eager, dtype, rows, cols, seed):
    rng = np.random.default_rng(seed)
    f = tj.function(tanh_sum)
    x, y = random_array(rng, (rows, cols), dtype), random_array(rng, cols, dtype)
    check_against_eager(f, x, y, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


@pytest.mark.parametrize("dtype", [*FLOATS, np.int32, np.int64])
@SHAPE_SETTINGS
@given(m=dims, k=dims, n=dims, seed=st.integers(0, 2**32 - 1))
def test_affine_matches_numpy(check_against_eager, dtype, m, k, n, seed):
    rng = np.random.default_rng(seed)
    g = tj.function(affine)
    x, w, b = (random_array(rng, s, dtype) for s in ((m, k), (k, n), (n,)))
    check_against_eager(g, x, w, b, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_new_shape_traces_again_and_seen_shape_does_not():
    f = tj.function(tanh_sum)
    a, b = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    f(a, b)
    f(a + 1, b)
    assert f.experimental_get_tracing_count() == 1
    f(np.ones((4, 3), np.float32), b)
    assert f.experimental_get_tracing_count() == 2
    f(a.astype(np.float64), b.astype(np.float64))
    assert f.experimental_get_tracing_count() == 3
    f(a, b)
    assert f.experimental_get_tracing_count() == 3


def test_python_scalars_are_part_of_the_key(check_against_eager):
    @tj.function
    def scale(x, factor):
        return x * factor

    x = np.arange(4, dtype=np.float32)
    check_against_eager(scale, x, 2)
    check_against_eager(scale, x, 3)
    scale(x, 3)
    assert scale.experimental_get_tracing_count() == 2


def test_kernel_is_llvm_compiled_and_vectorised():
    f = tj.function(lambda x, y: np.tanh(x) * y + 1)
    x = np.ones(1024, np.float32)
    concrete = f.get_concrete_function(x, x)
    llvm_ir = concrete.llvm_ir
    assert re.search(r"define .*i32 @", llvm_ir)  # the kernel returns its status
    assert re.search(r"phi i64", llvm_ir), "expected a loop induction variable"
    assert re.search(r"<(8|16) x float>", llvm_ir), "expected the element-wise loop vectorised"
    assert re.search(r"%[yz]mm\d+", concrete.asm), "expected AVX vector registers in the asm"
    np.testing.assert_allclose(f(x, x), np.tanh(x) * x + 1, rtol=1e-6)


def test_ir_after_each_pass_is_available():
    f = tj.function(affine)
    concrete = f.get_concrete_function(
        np.ones((2, 3), np.float32), np.ones((3, 4), np.float32), np.ones(4, np.float32)
    )
    assert "tj.matmul" in str(concrete.graph)
    assert "linalg.generic" in concrete.ir(after="bufferize")
    assert "scf.for" in concrete.ir(after="lower-to-loops")
    final = concrete.ir()
    assert "cf.br" in final or "cf.cond_br" in final
    assert "scf." not in final and "linalg." not in final
    with pytest.raises(ValueError, match="not in the pipeline"):
        concrete.ir(after="no-such-pass")


def test_full_reduction_returns_a_numpy_scalar(check_against_eager):
    f = tj.function(lambda x: np.sum(x * 2.0))
    result = check_against_eager(f, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert isinstance(result, np.float32)


def test_zero_d_and_empty_inputs(check_against_eager):
    f = tj.function(lambda x, y: x * y + np.max(x, axis=1, keepdims=True))
    check_against_eager(f, np.ones((0, 3), np.float64), np.ones(3, np.float64))
    total = tj.function(lambda x: np.sum(x, axis=0))
    check_against_eager(total, np.ones((0, 3), np.float32))
    no_identity = tj.function(lambda x: np.max(x, axis=0))
    with pytest.raises(ValueError, match="zero-size array"):
        no_identity(np.ones((0, 3)))
    g = tj.function(lambda a, b: a - b)
    check_against_eager(g, np.float32(2.5), np.array(1.0, np.float32))


def test_non_contiguous_inputs(check_against_eager):
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    f = tj.function(lambda a, b: a * 2 + b)
    check_against_eager(f, x[::2, 1::3], x.T[:3, :3])
    check_against_eager(f, x[::-2, ::-3], x[:3, :3].astype(">f4"))


def test_nested_structures_and_python_outputs(check_against_eager):
    @tj.function
    def f(inputs, scale=2):
        x, y = inputs["x"], inputs["y"]
        return {"sum": x + y, "scaled": (x * scale, "label")}

    data = {"x": np.ones(3, np.int64), "y": np.arange(3, dtype=np.int64)}
    check_against_eager(f, data)
    check_against_eager(f, data, scale=5)


def test_function_returning_an_input_returns_a_copy():
    f = tj.function(lambda x: x)
    x = np.arange(3.0)
    out = f(x)
    np.testing.assert_array_equal(out, x)
    out[0] = 99
    assert x[0] == 0


def test_eager_mode_runs_python():
    calls = []

    @tj.function
    def f(x):
        calls.append(1)
        return x + 1

    tj.config.run_functions_eagerly(True)
    try:
        assert tj.config.functions_run_eagerly()
        f(np.ones(2))
        f(np.ones(2))
    finally:
        tj.config.run_functions_eagerly(False)
    assert len(calls) == 2
    assert f.experimental_get_tracing_count() == 0


def test_unsupported_numpy_function_names_it_and_the_user_line():
    @tj.function
    def f(x):
        return np.linalg.eig(x)

    with pytest.raises(
        TypeError,
        match=r"np\.linalg\.eig is not supported by tracejit; wrap the call in tj\.py_function"
        r".* \(test_walking_skeleton\.py:\d+\)",
    ):
        f(np.ones((2, 2)))


def test_tensor_as_python_bool_is_a_clear_error():
    @tj.function(autograph=False)  # with AutoGraph (the default) the `if` would be staged
    def f(x):
        if np.sum(x):
            return x
        return -x

    with pytest.raises(TypeError, match="Python bool"):
        f(np.ones(2))


def test_broadcasting_mismatch_is_a_value_error():
    f = tj.function(lambda x, y: x + y)
    with pytest.raises(ValueError, match=r"could not be broadcast.*\(3,\) and \(4,\)"):
        f(np.ones(3), np.ones(4))


def test_ir_locations_point_at_user_code():
    f = tj.function(tanh_sum)
    concrete = f.get_concrete_function(np.ones((2, 2)), np.ones(2))
    op = next(o for o in concrete.graph.module.walk() if o.name == "tj.tanh")
    assert "test_walking_skeleton.py" in str(op.location)


def test_functools_metadata_is_kept():
    f = tj.function(tanh_sum)
    assert f.__name__ == "tanh_sum" and f.python_function is tanh_sum
    assert f.__wrapped__ is tanh_sum
