"""Shape functions (issue 3, item 6): compiled results equal eager NumPy.

Many ops share one traced function so that one compile checks them all.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj

# Every example compiles one kernel of a few dozen loop nests (~1-3 s): examples are few,
# with the dtype drawn by hypothesis rather than multiplied in by parametrize.
SETTINGS = settings(max_examples=6, deadline=None)
DTYPES = [np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_]
shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


def random_array(seed, shape, dtype):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 100, shape).astype(dtype)


def reshapes(x):
    # Eager NumPy returns 0-d *arrays* from shape ops where compiled code returns NumPy
    # scalars (DESIGN: 0-d results are scalars); `[..., None]` keeps results >= 1-d.
    return {
        "ravel": x.ravel(),
        "flatten": x.flatten(),
        "minus_one": np.reshape(x, (-1,)),
        "method": x.reshape(1, -1),
        "T": x.T[..., None],
        "transpose": np.transpose(x)[..., None],
        "expand": np.expand_dims(x, 0),
        "expand_last": np.expand_dims(x, -1),
        "squeeze": np.squeeze(np.expand_dims(x, (0, -1)))[..., None],
        "flip": np.flip(x)[..., None],
        "concat": np.concatenate([x[None], x[None]], axis=0),
        "stack": np.stack([x, x], axis=-1),
        "broadcast": np.broadcast_to(x, (2, *x.shape)),
        "tile": np.tile(x, (2, 1)),
        "repeat": np.repeat(x, 2),
        "pad": np.pad(x, 1)[..., None],
    }


@SETTINGS
@given(dtype=st.sampled_from(DTYPES), shape=shapes, seed=st.integers(0, 2**32 - 1))
def test_shape_ops_any_rank(check_against_eager, dtype, shape, seed):
    check_against_eager(tj.function(reshapes), random_array(seed, shape, dtype))


def on_3d(x):
    return {
        "reshape": np.reshape(x, (x.shape[1], -1)),
        "transpose_axes": np.transpose(x, (1, 2, 0)),
        "method_axes": x.transpose(2, 0, 1),
        "swapaxes": np.swapaxes(x, 0, -1),
        "moveaxis": np.moveaxis(x, 0, -1),
        "moveaxes": np.moveaxis(x, [0, 1], [-1, 0]),
        "squeeze_axis": np.squeeze(x[:, :1], axis=1),
        "concat_neg": np.concatenate([x, x[:, :, :1], x], axis=-1),
        "concat_none": np.concatenate([x, x], axis=None),
        "stack_mid": np.stack([x, x, x], axis=1),
        "hstack": np.hstack([x, x]),
        "vstack": np.vstack([x, x]),
        "tile_short": np.tile(x, 2),
        "tile_long": np.tile(x, (2, 1, 1, 3)),
        "repeat_axis": np.repeat(x, 3, axis=1),
        "repeat_counts": np.repeat(x, np.arange(x.shape[0]) % 3, axis=0),
        "flip_axes": np.flip(x, (0, 2)),
        "fliplr": np.fliplr(x),
        "flipud": np.flipud(x),
        "pad_per_axis": np.pad(x, ((1, 0), (0, 2), (3, 1)), constant_values=7),
        "pad_pair": np.pad(x, (2, 1), constant_values=1),
        "broadcast_inner": np.broadcast_to(x[:, :1], (x.shape[0], 3, x.shape[2])),
        "non_contiguous": np.transpose(x, (2, 0, 1))[::-1].reshape(-1, x.shape[1]),
    }


@settings(max_examples=3, deadline=None)
@given(
    dtype=st.sampled_from([np.float32, np.int16, np.uint32, np.bool_]),
    shape=st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(0, 4)),
    seed=st.integers(0, 2**32 - 1),
)
def test_shape_ops_3d(check_against_eager, dtype, shape, seed):
    check_against_eager(tj.function(on_3d), random_array(seed, shape, dtype))


def test_non_contiguous_input(check_against_eager):
    f = tj.function(on_3d)
    sliced = random_array(1, (4, 6, 5), np.float64)[::2, ::-1, 1:]
    transposed = np.transpose(random_array(2, (6, 4, 2), np.float64), (2, 0, 1))
    check_against_eager(f, sliced)
    check_against_eager(f, transposed)
    assert f.experimental_get_tracing_count() == 1


def test_mixed_dtypes_and_constants_join(check_against_eager):
    @tj.function
    def f(a, b):
        return {
            "promote": np.concatenate([a, b]),
            "dtype": np.concatenate([a, b], dtype=np.float32, casting="unsafe"),
            "constant": np.stack([a, np.arange(3, dtype=np.int8)]),
            "scalars": np.hstack([a, 1, 2]),
            "vstack_1d": np.vstack([a, b, a]),
            "pad_float_into_int": np.pad(a, 2, constant_values=3.7),
            "pad_value_tensor": np.pad(b, (1, 0), constant_values=b[0]),
        }

    check_against_eager(f, np.array([1, -2, 3], np.int32), np.array([0.5, -1.5, 2.0]))


def test_pad_with_bool_and_zero_size(check_against_eager):
    @tj.function
    def f(x, e):
        return np.pad(x, ((0, 1), (2, 0)), constant_values=True), np.pad(e, 2, constant_values=5)

    check_against_eager(f, np.array([[True, False]]), np.zeros((0, 3), np.int64))


def test_tril_triu(check_against_eager):
    @tj.function
    def f(x, v):
        return [
            (np.tril(x, k), np.triu(x, k=k), np.tril(v, k), np.triu(x[None], k))
            for k in (-2, 0, 1, 5)
        ]

    check_against_eager(f, random_array(3, (4, 3), np.float32), np.arange(1, 4, dtype=np.int64))
    unknown = [tj.TensorSpec([None, None], np.float32), tj.TensorSpec([None], np.int64)]
    g = tj.function(f.python_function, input_signature=unknown)
    for rows, columns in [(4, 3), (2, 6), (0, 3), (3, 0)]:
        x = random_array(rows, (rows, columns), np.float32)
        check_against_eager(g, x, np.arange(1, columns + 1, dtype=np.int64))


@pytest.mark.parametrize(
    ("fn", "error", "match"),
    [
        (lambda x: np.reshape(x, (4, 4)), ValueError, "cannot reshape array of size 6"),
        (lambda x: x.reshape(-1, -1), ValueError, "only specify one unknown"),
        (lambda x: np.squeeze(x, 0), ValueError, "size not equal to one"),
        (lambda x: np.transpose(x, (0, 0)), ValueError, "repeated axis"),
        (lambda x: np.swapaxes(x, 0, 2), np.exceptions.AxisError, "axis 2 is out of bounds"),
        (lambda x: np.concatenate([x, x.T]), ValueError, "along dimension 1"),
        (lambda x: np.concatenate([x[0, 0], x[0, 0]]), ValueError, "zero-dimensional"),
        (lambda x: np.stack([x, x.T]), ValueError, "same shape"),
        (lambda x: np.broadcast_to(x, (3, 2)), ValueError, "could not be broadcast"),
        (lambda x: np.pad(x, 1, mode=lambda *a: None), NotImplementedError, "function"),
        (lambda x: np.pad(x, -1), ValueError, "negative"),
        (lambda x: np.repeat(x, -1), ValueError, "negative"),
        (lambda x: np.repeat(x, x[0].astype(np.int64)), TypeError, "run time"),
        (lambda x: np.reshape(x, (3, 2), order="F"), NotImplementedError, "order='F'"),
    ],
)
def test_bad_arguments_raise_like_numpy_at_the_user_line(fn, error, match):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(error, match=match) as info:
        tj.function(fn)(x)
    assert "test_shapes.py:" in str(info.value)
    with pytest.raises(error):  # NumPy itself rejects the same call
        if error is not NotImplementedError and "run time" not in match:
            fn(x)
        else:
            raise error
