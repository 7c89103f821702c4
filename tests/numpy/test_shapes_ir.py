"""The shape and indexing ops' verifiers and NumPy folders."""

import re

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.exceptions import VerifyException

from tracejit.ir.dialect import make_context


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def module(body: str, result: str = "") -> str:
    returned = f"func.return %r : {result}" if result else "func.return"
    return f"""builtin.module {{
      func.func @f(%x: tensor<2x3xf32>, %v: tensor<f32>, %i: tensor<4xi64>, %f: tensor<4xf32>)
          {"-> " + result if result else ""} {{
        {body}
        {returned}
      }}
    }}"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("%r = tj.reshape %x : tensor<2x3xf32> to tensor<4xf32>", "6 elements into 4"),
        ("%r = tj.reshape %x : tensor<2x3xf32> to tensor<6xi32>", "keep the element type"),
        (
            "%r = tj.transpose %x, permutation = [0, 0] : tensor<2x3xf32> to tensor<2x2xf32>",
            "not a permutation",
        ),
        (
            "%r = tj.transpose %x, permutation = [1, 0] : tensor<2x3xf32> to tensor<2x3xf32>",
            "result shape must be [3, 2]",
        ),
        (
            "%r = tj.slice %x, start = [0, 2], step = [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>",
            "leaves a dim of size 3",
        ),
        (
            "%r = tj.slice %x, start = [0, 0], step = [1, 0] : tensor<2x3xf32> to tensor<2x1xf32>",
            "step must not be zero",
        ),
        (
            "%r = tj.slice %x, start = [1, 0], step = [-1, 1] : tensor<2x3xf32> to tensor<3x3xf32>",
            "leaves a dim of size 2",
        ),
        (
            "%r = tj.concat axis = 1, %x, %x"
            " : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>",
            "does not fit",
        ),
        (
            "%r = tj.concat axis = 2, %x : (tensor<2x3xf32>) -> tensor<2x3xf32>",
            "axis 2 out of range",
        ),
        (
            "%r = tj.pad %x, %f, low = [0, 0], high = [1, 1]"
            " : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<3x4xf32>",
            "0-d tensor",
        ),
        (
            "%r = tj.pad %x, %v, low = [0, -1], high = [1, 1]"
            " : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x3xf32>",
            "non-negative",
        ),
        (
            '%r = tj.gather %x[%f], axis = 0, "IndexError: bad"'
            " : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>",
            "indices must be integers",
        ),
        (
            '%r = tj.gather %x[%i], axis = 1, "IndexError: bad"'
            " : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>",
            "result shape must be [2, 4]",
        ),
        (
            '%r = tj.gather %x[%i], axis = 0, "no error type"'
            " : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>",
            "ErrorType: text",
        ),
    ],
)
def test_verifiers_reject_bad_ops(body, message):
    with pytest.raises(VerifyException, match=re.escape(message)):
        parse(module(body)).verify()


C = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
FOLDABLE = [
    ("tj.reshape %c : tensor<2x3xi32> to tensor<3x2xi32>", "3x2", C.reshape(3, 2)),
    ("tj.transpose %c, permutation = [1, 0] : tensor<2x3xi32> to tensor<3x2xi32>", "3x2", C.T),
    (
        "tj.slice %c, start = [1, 2], step = [-1, -2] : tensor<2x3xi32> to tensor<2x2xi32>",
        "2x2",
        C[::-1, ::-2],
    ),
    (
        "tj.concat axis = 1, %c, %c : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x6xi32>",
        "2x6",
        np.hstack([C, C]),
    ),
    (
        "tj.pad %c, %z, low = [1, 0], high = [0, 2]"
        " : (tensor<2x3xi32>, tensor<i32>) -> tensor<3x5xi32>",
        "3x5",
        np.pad(C, ((1, 0), (0, 2)), constant_values=-7),
    ),
    (
        'tj.gather %c[%n], axis = 1, "IndexError: x"'
        " : (tensor<2x3xi32>, tensor<2xi64>) -> tensor<2x2xi32>",
        "2x2",
        C[:, [2, 0]],
    ),
]


@pytest.mark.parametrize(("op", "shape", "expected"), FOLDABLE)
def test_ops_on_constants_fold_to_their_numpy_meaning(op, shape, expected):
    text = f"""builtin.module {{
      func.func @f() -> tensor<{shape}xi32> {{
        %c = tj.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
        %z = tj.constant dense<-7> : tensor<i32>
        %n = tj.constant dense<[-1, 0]> : tensor<2xi64>
        %r = {op}
        func.return %r : tensor<{shape}xi32>
      }}
    }}"""
    folded = parse(text)
    CanonicalizePass().apply(make_context(), folded)
    ops = list(folded.body.block.first_op.body.block.ops)
    assert [o.name for o in ops] == ["tj.constant", "func.return"]
    np.testing.assert_array_equal(ops[0].to_array(), expected)


def test_out_of_range_gather_is_left_to_run_time():
    text = module(
        "%c = tj.constant dense<[0, 1, 2, 7]> : tensor<4xi64>\n"
        '%r = tj.gather %x[%c], axis = 1, "IndexError: x"'
        " : (tensor<2x3xf32>, tensor<4xi64>) -> tensor<2x4xf32>",
        "tensor<2x4xf32>",
    )
    parsed = parse(text)
    CanonicalizePass().apply(make_context(), parsed)
    assert "tj.gather" in str(parsed)
