"""The tj dialect: textual round trip, verifiers, NumPy-backed folding, dense literals."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr, ModuleOp
from xdsl.parser import Parser
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.exceptions import ParseError, VerifyException

import tracejit as tj
from tracejit.ir.constant import ConstantOp
from tracejit.ir.dense import array_from_dense, dense_from_array
from tracejit.ir.dialect import make_context
from tracejit.ir.dtypes import tensor_type

DTYPES = [
    np.bool_,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
    np.float32,
    np.float64,
]


def parse(text: str):
    return Parser(make_context(), text).parse_module()


def only_constant(module) -> np.ndarray:
    (op,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    return op.to_array()


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_dense_attribute_round_trips_bits(dtype, data):
    array = data.draw(
        hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    )
    attr = dense_from_array(array)
    back = array_from_dense(attr)
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == array.tobytes()
    # and through the textual form, NaN/Inf/-0.0 included
    module = ModuleOp([ConstantOp(attr)])
    reparsed = parse(str(module))
    assert str(reparsed) == str(module)
    assert only_constant(reparsed).tobytes() == array.tobytes()


def test_non_finite_constants_round_trip_exactly():
    array = np.array([np.nan, -np.inf, np.inf, -0.0, 1.5], np.float32)
    text = str(ModuleOp([ConstantOp.from_array(array)]))
    assert 'dense<"0x' in text
    assert text == str(parse(text))
    assert only_constant(parse(text)).tobytes() == array.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_constant_splat_is_the_value_all_elements_hold(dtype):
    one = np.ones((), dtype)[()]
    stored_once = ConstantOp.from_array(np.full((2, 3), one))
    assert stored_once.value.data.data == dense_from_array(np.array(one)).data.data
    stored_each = ConstantOp(
        DenseIntOrFPElementsAttr(
            tensor_type((2, 3), dtype), BytesAttr(stored_once.to_array().tobytes())
        )
        if dtype != np.bool_
        else stored_once.value
    )
    for op in (stored_once, stored_each, ConstantOp.from_array(np.array(one))):
        assert (splat := op.splat()) is not None
        assert splat.dtype == dtype and splat == one
    assert ConstantOp.from_array(np.array([0, 1], dtype)).splat() is None
    # the one rule for empty constants: a splat of zero (see ConstantOp.splat)
    empty = ConstantOp.from_array(np.zeros((0, 3), dtype)).splat()
    assert empty is not None and empty.dtype == dtype and empty == 0


def test_constant_splat_compares_bits():
    assert ConstantOp.from_array(np.array([-0.0, 0.0])).splat() is None
    assert np.signbit(ConstantOp.from_array(np.array([-0.0, -0.0])).splat())
    assert np.isnan(ConstantOp.from_array(np.full(3, np.nan, np.float32)).splat())


@pytest.mark.parametrize(
    "function, args",
    [
        (lambda x, y: np.sum(np.tanh(x) * y + 1, axis=0), (np.ones((4, 3)), np.ones(3))),
        (
            lambda x, w, b: x @ w + b,
            (np.ones((2, 3), np.int32), np.ones((3, 4), np.int32), np.ones(4, np.int32)),
        ),
        (lambda x: np.maximum(x, 0) ** 2 - np.sqrt(np.abs(x)) / 3, (np.ones(5, np.float32),)),
        (lambda x: np.mean(x, axis=(0, 1), keepdims=True), (np.ones((2, 3, 4), np.uint8),)),
    ],
)
def test_traced_modules_round_trip(function, args):
    module = tj.function(function).get_concrete_function(*args).graph.module
    text = str(module)
    reparsed = parse(text)
    reparsed.verify()
    assert str(reparsed) == text


def fold(text: str) -> np.ndarray:
    """Canonicalize a module whose function computes from constants; return the constant."""
    module = parse(text)
    CanonicalizePass().apply(make_context(), module)
    consts = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert len(consts) == 1, str(module)
    return consts[0].to_array()


def test_canonicalize_folds_with_numpy_semantics():
    result = fold("""builtin.module {
      func.func @f() -> tensor<3xi8> {
        %a = tj.constant dense<[100, -128, 7]> : tensor<3xi8>
        %b = tj.constant dense<[100, -1, 2]> : tensor<3xi8>
        %s = tj.add %a, %b : tensor<3xi8>
        %p = tj.pow %s, %b : tensor<3xi8>
        func.return %s : tensor<3xi8>
      }
    }""")
    a, b = np.array([100, -128, 7], np.int8), np.array([100, -1, 2], np.int8)
    np.testing.assert_array_equal(result, a + b)  # wraps like NumPy


def test_fold_float_chain_bit_identical_to_numpy():
    result = fold("""builtin.module {
      func.func @f() -> tensor<2xf32> {
        %a = tj.constant dense<[0.5, -2.0]> : tensor<2xf32>
        %e = tj.exp %a : tensor<2xf32>
        %t = tj.tanh %e : tensor<2xf32>
        %b = tj.broadcast_in_dim %t, dims = [0] : tensor<2xf32> to tensor<2xf32>
        func.return %b : tensor<2xf32>
      }
    }""")
    expected = np.tanh(np.exp(np.array([0.5, -2.0], np.float32)))
    assert result.tobytes() == expected.tobytes()


def test_large_results_are_not_folded():
    module = parse("""builtin.module {
      func.func @f() -> tensor<1024x1024xf32> {
        %a = tj.constant dense<[1.0]> : tensor<1xf32>
        %b = tj.broadcast_in_dim %a, dims = [1] : tensor<1xf32> to tensor<1024x1024xf32>
        %e = tj.exp %b : tensor<1024x1024xf32>
        func.return %e : tensor<1024x1024xf32>
      }
    }""")
    CanonicalizePass().apply(make_context(), module)
    assert any(op.name == "tj.exp" for op in module.walk())


@pytest.mark.parametrize(
    "body, message",
    [
        ("%r = tj.add %x, %y : tensor<4xf32>", "tensor<3xf32>"),
        ("%r = tj.exp %i : tensor<3xi32>", "expects a float or complex tensor"),
        ("%r = tj.neg %b : tensor<3xi1>", "not defined on bool"),
        (
            '%r = tj.reduce "sum" %x, axes = [1] : tensor<3xf32> to tensor<f32>',
            "axes [1] must be increasing and in range",
        ),
        (
            '%r = tj.reduce "median" %x, axes = [0] : tensor<3xf32> to tensor<f32>',
            "unknown reduction kind",
        ),
        ("%r = tj.cast %x : tensor<3xf32> to tensor<4xf32>", "keep the shape"),
        (
            "%r = tj.matmul %x, %y : (tensor<3xf32>, tensor<4xf32>) -> tensor<f32>",
            "shapes do not match",
        ),
    ],
)
def test_verifier_rejects_bad_ops(body, message):
    text = f"""builtin.module {{
      func.func @f(%x: tensor<3xf32>, %y: tensor<4xf32>, %i: tensor<3xi32>, %b: tensor<3xi1>) {{
        {body}
        func.return
      }}
    }}"""
    with pytest.raises((VerifyException, ParseError), match=re.escape(message)):
        parse(text).verify()
