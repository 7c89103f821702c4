"""NumPy functions composed from staged operations: np.nan_to_num, np.sinc, np.cross,
np.rot90, np.append, np.delete, np.insert, the splits, np.column_stack, np.dstack,
np.block, np.trim_zeros, np.gradient, np.ediff1d, np.unravel_index, np.ravel_multi_index,
np.meshgrid and np.vander. Each is run compiled and eagerly (plain NumPy) and compared:
values (floats to the bit, signed zeros included), dtypes and shapes; and NumPy's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj
from tests.conftest import assert_same, raises_both, run_eagerly


def assert_bits(compiled, eager) -> None:
    """Same structure, dtypes, shapes and values: exact, floats with the sign of zero (of
    each part of complex numbers) and NaN where NumPy has NaN."""
    if isinstance(eager, list | tuple):
        assert type(compiled) is type(eager) and len(compiled) == len(eager), (compiled, eager)
        for c, e in zip(compiled, eager, strict=True):
            assert_bits(c, e)
        return
    assert isinstance(compiled, np.ndarray | np.generic), type(compiled)
    assert compiled.dtype == eager.dtype, (compiled.dtype, eager.dtype)
    assert np.shape(compiled) == np.shape(eager), (np.shape(compiled), np.shape(eager))
    compiled, eager = np.asarray(compiled), np.asarray(eager)
    if eager.dtype.kind == "c":
        assert_bits(compiled.real.copy(), eager.real.copy())
        assert_bits(compiled.imag.copy(), eager.imag.copy())
        return
    if eager.dtype.kind != "f":
        np.testing.assert_array_equal(compiled, eager)
        return
    nan = np.isnan(eager)
    np.testing.assert_array_equal(np.isnan(compiled), nan)
    np.testing.assert_array_equal(compiled[~nan], eager[~nan])
    np.testing.assert_array_equal(np.signbit(compiled[~nan]), np.signbit(eager[~nan]))


def check(function, *args, rtol=0.0):
    """Compiled == eager (NumPy) to the bit (within `rtol` if given); NumPy's warnings
    silenced. `function` is a tj.Function (reused across calls: one trace per signature)
    or a plain function."""
    f = function if isinstance(function, tj.Function) else tj.function(function)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        expected = run_eagerly(f, *args)
        compiled = f(*args)
    if rtol:
        assert_same(compiled, expected, rtol=rtol)
    else:
        assert_bits(compiled, expected)
    return expected


# --- np.nan_to_num, np.sinc ---------------------------------------------------------------------
SPECIAL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.5, -2.0, 1e30]


def test_nan_to_num_of_every_dtype_to_the_bit():
    f32 = np.array(SPECIAL, np.float32)
    f64 = np.array(SPECIAL[::-1], np.float64)
    c128 = np.array([complex(re, im) for re in SPECIAL for im in SPECIAL])  # signed zeros kept
    c64 = c128.astype(np.complex64)
    ints = np.array([np.iinfo(np.int8).min, 0, np.iinfo(np.int8).max], np.int8)
    flags = np.array([True, False])

    def fixed(f32, f64, c64, c128, ints, flags, scalar):
        return (
            np.nan_to_num(f32),
            np.nan_to_num(f64, nan=-1.0, posinf=np.float32(7.5), neginf=3),
            np.nan_to_num(f32, posinf=1e300),  # overflows float32: inf, as NumPy's copyto
            np.nan_to_num(c64),
            np.nan_to_num(c128, nan=2.5, neginf=-1.0),
            np.nan_to_num(c128, nan=np.nan, posinf=np.inf),  # non-finite replacements
            np.nan_to_num(ints),
            np.nan_to_num(flags),
            np.nan_to_num(scalar),
            np.nan_to_num(f32[:0]),
        )

    check(fixed, f32, f64, c64, c128, ints, flags, np.float64(np.nan))


def test_nan_to_num_copy_false_writes_the_argument_and_errors():
    def in_place(x):
        y = np.nan_to_num(x, copy=False, nan=9.0)
        return y, x + 0

    x = np.array([np.nan, -np.inf, 1.0])
    compiled_input, eager_input = x.copy(), x.copy()
    f = tj.function(in_place)
    expected = run_eagerly(f, eager_input)
    assert_bits(f(compiled_input), expected)
    assert_bits(compiled_input, eager_input)  # the caller's array was written, as in NumPy
    raises_both(TypeError, lambda x: np.nan_to_num(x, nan=1j), x, match="same_kind")


def test_sinc_of_floats_integers_and_specials():
    def sincs(f32, f64, ints, flags):
        return np.sinc(f32), np.sinc(f64), np.sinc(ints), np.sinc(flags), np.sinc(f64[0])

    f32 = np.array([0.0, -0.0, 0.5, 1.0, -2.5, 1e-8, np.nan, np.inf, 3.0], np.float32)
    f64 = np.array([0.25, 0.0, -1.0, 1e-30, np.nan, -np.inf, 2.0 / 3.0, 100.5])
    ints = np.array([np.iinfo(np.int64).min, -1, 0, 1, 7])
    # NumPy's steps; tracejit's sin may differ from the libm NumPy calls by an ulp
    check(sincs, f32, f64, ints, np.array([True, False]), rtol=1e-6)
    with pytest.raises(TypeError, match="np.sinc of complex numbers is not supported"):
        tj.function(np.sinc)(np.array([1j]))


# --- np.cross -------------------------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(
    lengths=st.tuples(st.sampled_from([2, 3]), st.sampled_from([2, 3])),
    batch=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=2, max_side=3),
    dtype=st.sampled_from([np.int8, np.int64, np.uint16, np.float32, np.float64]),
    moved=st.booleans(),
)
def test_cross_broadcasts_and_matches_numpy(lengths, batch, dtype, moved):
    rng = np.random.default_rng(len(batch.input_shapes[0]) * 7 + lengths[0])
    a = (rng.standard_normal((*batch.input_shapes[0], lengths[0])) * 40).astype(dtype)
    b = (rng.standard_normal((*batch.input_shapes[1], lengths[1])) * 40).astype(np.float32)
    b = b.astype(dtype if lengths[1] == 3 else np.float64)  # mixed dtypes promote
    if moved and a.ndim > 1 and b.ndim > 1:
        a, b = np.moveaxis(a, -1, 0), np.moveaxis(b, -1, 0)
        check(lambda a, b: np.cross(a, b, axisa=0, axisb=-b.ndim, axisc=0), a, b)
    else:
        check(lambda a, b: np.cross(a, b), a, b)


def test_cross_axis_argument_int_wrapping_and_errors():
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int8) * 20
    b = np.array([[7, 8, 9], [10, 11, 12]], np.int8) * 11
    check(lambda a, b: (np.cross(a, b, axis=1), np.cross(a.T, b.T, axis=0), np.cross(a, b)), a, b)
    raises_both(ValueError, lambda a: np.cross(a[:, :1], a), a, match="dimension must be 2 or 3")
    raises_both(ValueError, lambda a: np.cross(a[0, 0], a), a, match="zero dimension")
    raises_both(np.exceptions.AxisError, lambda a: np.cross(a, a, axisa=2), a, match="axisa")
    raises_both(np.exceptions.AxisError, lambda a: np.cross(a, a, axisc=-3), a, match="axisc")
    raises_both(ValueError, lambda a: np.cross(a, np.ones((3, 3))), a, match="broadcast")
    with pytest.warns(DeprecationWarning, match="2-dimensional vectors"):
        tj.function(lambda a: np.cross(a[:, :2], a[:, :2]))(a)


# --- np.rot90, np.append, np.delete, np.insert ---------------------------------------------------
def test_rot90_every_quarter_turn_and_axes():
    def turns(m):
        return (
            np.rot90(m), np.rot90(m, 2), np.rot90(m, 3), np.rot90(m, -1), np.rot90(m, 4),
            np.rot90(m, 1, axes=(1, 2)), np.rot90(m, 5, axes=(-1, 0)),
            np.rot90(m, k=2, axes=(2, 1)),
        )  # fmt: skip

    check(turns, np.arange(24, dtype=np.int16).reshape(2, 3, 4))
    m = np.arange(6.0).reshape(2, 3)
    raises_both(ValueError, lambda m: np.rot90(m, axes=(0, 0)), m, match="Axes must be different")
    raises_both(ValueError, lambda m: np.rot90(m, axes=(0, 3)), m, match="out of range")
    raises_both(ValueError, lambda m: np.rot90(m, axes=(0,)), m, match="len")


def test_rot90_and_split_pieces_are_views_as_in_numpy():
    def write_through(m):
        r = np.rot90(m)
        r[0, 0] = -1.0  # m[0, -1]
        top, bottom = np.split(m, 2)
        bottom[0, 1] = -2.0  # m[1, 1]
        m[0, 0] = -3.0
        return r + 0, top + 0, m + 0

    m = np.arange(6.0).reshape(2, 3)
    f = tj.function(write_through)
    compiled_input, eager_input = m.copy(), m.copy()
    assert_bits(f(compiled_input), run_eagerly(f, eager_input))
    assert_bits(compiled_input, eager_input)


def test_append_delete_insert_forms():
    def edits(a, v):
        return (
            np.append(a, v), np.append(a, [[1.5, 2.5, 3.5]], axis=0), np.append(a, a, axis=-1),
            np.append(a[0], 7), np.append(v, 300),  # a Python int: int64, as NumPy's
            np.delete(a, 1), np.delete(a, -1, axis=0), np.delete(a, [0, 2], axis=1),
            np.delete(a, slice(None, None, 2), axis=1), np.delete(a, slice(5, 1, -2)),
            np.delete(a, np.array([True, False, True]), axis=1), np.delete(a, [], axis=0),
            np.delete(a, [0, 0, 1], axis=0),
            np.insert(a, 1, 5.25), np.insert(a, 0, v, axis=1), np.insert(a, [1], v, axis=1),
            np.insert(a, [0, 3, 3, -1], [7, 8, 9, 10], axis=1), np.insert(a, 2, [[1], [2]], axis=1),
            np.insert(a, slice(0, 2), 0.5, axis=0), np.insert(v, 1, 2.9),  # cast to int8: 2
            np.insert(a, 3, v[:, None], axis=1), np.insert(a, np.array([], np.intp), 1.0),
            np.insert(a, -2, [[4, 5, 6]], axis=0),
        )  # fmt: skip

    check(edits, np.arange(6.0).reshape(2, 3) - 2.5, np.array([-128, 127], np.int8))


def test_append_delete_insert_of_empty_and_errors():
    def empties(e):
        return np.append(e, e), np.delete(e, []), np.insert(e, 0, [1, 2]), np.append(e, [])

    check(empties, np.zeros(0, np.float32))
    a = np.arange(6).reshape(2, 3)
    raises_both(IndexError, lambda a: np.delete(a, 3, axis=1), a, match="out of bounds for axis 1")
    raises_both(IndexError, lambda a: np.insert(a, 4, 0, axis=1), a, match="out of bounds")
    raises_both(IndexError, lambda a: np.delete(a, [0, 6]), a, match="out of bounds")
    raises_both(ValueError, lambda a: np.delete(a, [True, False], axis=1), a, match="boolean")
    two_columns = [[1, 2, 3]]  # into (2, 2)
    raises_both(ValueError, lambda a: np.insert(a, [0, 1], two_columns, axis=1), a, match="broad")
    raises_both(np.exceptions.AxisError, lambda a: np.delete(a, 0, axis=2), a)
    raises_both(OverflowError, lambda a: np.insert(a.astype(np.int8), 0, 300), a)
    with pytest.raises(NotImplementedError, match="known only at run time"):
        tj.function(lambda a, i: np.delete(a, i))(a, np.int64(1))


# --- splitting and stacking ----------------------------------------------------------------------
def test_splits_of_sections_and_indices():
    def pieces(a):
        return (
            np.split(a, 2), np.split(a, [1, 3], axis=1), np.split(a, [-1, 10]),
            np.array_split(a, 3, axis=1), np.array_split(a, 5), np.array_split(a, [3, 1]),
            np.hsplit(a, 4), np.vsplit(a, [1]), np.dsplit(a[..., None], [0]),
            np.hsplit(a[0], 2), np.split(a, np.array([1]), axis=-1),
        )  # fmt: skip

    check(pieces, np.arange(8, dtype=np.uint8).reshape(2, 4))
    a = np.arange(6.0).reshape(2, 3)
    raises_both(ValueError, lambda a: np.split(a, 2, axis=1), a, match="equal division")
    raises_both(ValueError, lambda a: np.array_split(a, 0), a, match="larger than 0")
    raises_both(ValueError, lambda a: np.vsplit(a[0], 1), a, match="2 or more")
    raises_both(ValueError, lambda a: np.hsplit(a[0, 0], 1), a, match="1 or more")


def test_column_stack_dstack_and_block():
    def stacked(a, v, s):
        return (
            np.column_stack([v, v * 2]), np.column_stack((a, v[:2], a)), np.column_stack([s, s]),
            np.dstack([v, v]), np.dstack([a, a, a]), np.dstack((s, s)),
            np.dstack([a[..., None], a]),
            np.block([[a, a], [a, a]]), np.block([v, v, 7]), np.block([[[a]], [[a]]]),
            np.block([[s, s], [s, s]]), np.block(v), np.block([a, np.ones((2, 1), np.int8)]),
            np.block([[a], [v[:3]]]),
        )  # fmt: skip

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    check(stacked, a, np.arange(3.0), np.float32(-0.0))
    raises_both(ValueError, lambda a: np.block([[a], a]), a, match="List depths are mismatched")
    raises_both(ValueError, lambda a: np.block([[a, a], [a]]), a)
    raises_both(ValueError, lambda a: np.block([]), a, match="cannot be empty")
    raises_both(TypeError, lambda a: np.block((a, a)), a, match="tuple")
    raises_both(ValueError, lambda a: np.column_stack([a, a[0]]), a)


def test_trim_zeros_sizes_are_the_datas():
    def trims(x, m):
        return (
            np.trim_zeros(x), np.trim_zeros(x, "f"), np.trim_zeros(x, trim="B"),
            np.trim_zeros(m), np.trim_zeros(m, axis=0), np.trim_zeros(m, "b", axis=-1),
            np.trim_zeros(m, axis=()),
        )  # fmt: skip

    f = tj.function(trims)
    m = np.zeros((3, 4), np.int32)
    check(f, np.array([0.0, -0.0, 1.0, np.nan, 0.0, 2.0, 0.0]), m)  # one trace for all
    m[1, 2] = 5
    check(f, np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]), m)
    m[2, 0] = -1
    check(f, np.array([3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 4.0]), m)
    raises_both(ValueError, lambda x: np.trim_zeros(x, "x"), np.ones(3), match="unexpected")


# --- np.gradient, np.ediff1d ---------------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(
    x=st.sampled_from([np.float32, np.float64, np.int16, np.uint8]).flatmap(
        lambda dtype: hnp.arrays(
            dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=3, max_side=5),
            elements=st.integers(0, 100) if np.dtype(dtype).kind in "iu" else
            st.floats(-1e3, 1e3, width=np.dtype(dtype).itemsize * 8),
        )
    ),
    edge_order=st.sampled_from([1, 2]),
    spacing=st.sampled_from([None, 0.5, 3, np.float32(0.25)]),
)  # fmt: skip
def test_gradient_along_every_axis(x, edge_order, spacing):
    spacings = () if spacing is None else (spacing,)
    check(lambda x: np.gradient(x, *spacings, edge_order=edge_order), x)


def test_gradient_axes_coordinates_and_errors():
    f = np.array([[1.0, 2.0, 4.0, 7.0, 11.0], [2.0, 3.5, 5.0, 6.0, 9.5]], np.float32)

    def gradients(f, h):
        x = np.array([0.0, 0.5, 1.5, 1.75, 3.0])  # coordinates known at trace time
        return (
            np.gradient(f, axis=1), np.gradient(f, 2.0, x), np.gradient(f, x, axis=1, edge_order=2),
            np.gradient(f, x, axis=-1), np.gradient(f, np.arange(5), axis=1, edge_order=2),
            np.gradient(f, h, axis=(1, 0)), np.gradient(f[0], np.float64(0.1)),
        )  # fmt: skip

    check(gradients, f, np.float32(0.3))
    raises_both(ValueError, lambda f: np.gradient(f[:, :2], axis=1, edge_order=2), f, match="small")
    raises_both(TypeError, lambda f: np.gradient(f, 1.0, 2.0, 3.0), f, match="invalid number")
    raises_both(ValueError, lambda f: np.gradient(f, np.ones(3), axis=1), f, match="must match")
    raises_both(ValueError, lambda f: np.gradient(f, edge_order=3), f, match="greater than 2")
    raises_both(TypeError, lambda b: np.gradient(b), np.array([True, False, True]))
    with pytest.raises(NotImplementedError, match="traced coordinates"):
        tj.function(lambda f, x: np.gradient(f, x, axis=1))(f, np.arange(5.0))


def test_ediff1d_with_ends():
    def differences(x, ints):
        return (
            np.ediff1d(x), np.ediff1d(x, to_begin=-1.5), np.ediff1d(x, to_end=[1, 2], to_begin=0),
            np.ediff1d(ints, to_end=np.array([1000])), np.ediff1d(ints[:0], to_begin=[5]),
            np.ediff1d(ints[:1]),
        )  # fmt: skip

    ints = np.array([[np.iinfo(np.int16).min, 0], [np.iinfo(np.int16).max, -7]], np.int16)
    check(differences, np.array([1.0, -0.0, 0.0, np.inf, 2.5, np.nan], np.float32), ints)
    raises_both(TypeError, lambda x: np.ediff1d(x, to_begin=1.5), ints, match="same_kind")


# --- index arithmetic, grids, np.vander ----------------------------------------------------------
def test_unravel_and_ravel_multi_index():
    def indices(flat, i, j):
        return (
            np.unravel_index(flat, (3, 4, 5)), np.unravel_index(flat, (5, 12), order="F"),
            np.unravel_index(flat[0], (60,)), np.unravel_index(flat[:0], (0, 2)),
            np.ravel_multi_index((i, j), (3, 7)), np.ravel_multi_index((i, j), (3, 7), order="F"),
            np.ravel_multi_index((i[:, None], j), (3, 7)),
            np.ravel_multi_index((i - 5, j + 4), (3, 7), mode="wrap"),
            np.ravel_multi_index((i - 5, j + 4), (3, 7), mode=("clip", "wrap")),
            np.ravel_multi_index((i[0], j[1]), (3, 7)),
        )  # fmt: skip

    flat = np.array([[0, 59], [17, 42]], np.int32)
    check(indices, flat, np.array([0, 2, 1], np.uint8), np.array([6, 0, 3]))


def test_index_errors_when_the_function_runs():
    f = tj.function(lambda flat: np.unravel_index(flat, (3, 4)))
    check(f, np.array([0, 11]))
    for bad in (np.array([0, 12]), np.array([-1, 0])):
        with pytest.raises(ValueError, match="out of bounds for array with size 12"):
            run_eagerly(f, bad)
        with pytest.raises(ValueError, match="out of bounds for array with size 12"):
            f(bad)  # the same trace: checked by the kernel
    g = tj.function(lambda i, j: np.ravel_multi_index((i, j), (3, 4)))
    check(g, np.array([2]), np.array([3]))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        g(np.array([2]), np.array([4]))
    raises_both(TypeError, lambda x: np.unravel_index(x, (3,)), np.array([1.0]), match="only int")
    i = np.array([1])
    raises_both(ValueError, lambda i: np.ravel_multi_index((i,), (3, 4)), i, match="length 2")
    raises_both(ValueError, lambda i: np.ravel_multi_index((i, i), (3, 0)), i, match="zero entries")
    raises_both(ValueError, lambda i: np.ravel_multi_index((i, i), (3, 4), mode="x"), i)


def test_meshgrid_indexings_sparse_and_copies():
    def grids(x, y, z):
        return (
            np.meshgrid(x, y), np.meshgrid(x, y, indexing="ij"), np.meshgrid(x, y, z),
            np.meshgrid(x, y, z, indexing="ij", sparse=True), np.meshgrid(x, y, sparse=True),
            np.meshgrid(x), np.meshgrid(x, y, copy=False),
            np.meshgrid(y, x, copy=False, sparse=True),
            np.meshgrid(),
        )  # fmt: skip

    check(grids, np.arange(3.0), np.array([[-1, 2]], np.int8), np.array([True]))
    raises_both(ValueError, lambda x: np.meshgrid(x, indexing="yx"), np.arange(2), match="Valid")

    def written(x, y):
        a, b = np.meshgrid(x, y)
        a[0, 0] = 9.0  # a copy: x is not written
        xs, ys = np.meshgrid(x, y, sparse=True, copy=False)
        xs[0, 1] = -1.0  # a view of x, as NumPy's
        return a, x + 0

    x = np.arange(3.0)
    f = tj.function(written)
    compiled_input, eager_input = x.copy(), x.copy()
    assert_bits(f(compiled_input, np.arange(2.0)), run_eagerly(f, eager_input, np.arange(2.0)))
    assert_bits(compiled_input, eager_input)


def test_vander_dtypes_and_orders():
    def matrices(x, ints, flags, z):
        return (
            np.vander(x), np.vander(x, 5, increasing=True), np.vander(x, 0), np.vander(x, N=1),
            np.vander(ints), np.vander(ints, 4, True), np.vander(flags, 3), np.vander(x[:0], 2),
            np.vander(z, 3),
        )  # fmt: skip

    x = np.array([1.5, -0.0, 3.25, 1e30], np.float32)
    ints = np.array([np.iinfo(np.uint32).max, 3, 0], np.uint32)
    check(matrices, x, ints, np.array([True, False]), np.array([1 + 2j, -0.5j], np.complex64))
    raises_both(ValueError, lambda x: np.vander(x), np.ones((2, 2)), match="one-dimensional")


# --- dims known only at run time ------------------------------------------------------------
def test_one_trace_serves_every_length():
    def edits(x):
        return (
            np.append(x, [1.0]), np.trim_zeros(x), np.split(x, [1, 3]),
            np.ediff1d(x, to_begin=[9.0]),
            np.nan_to_num(x), np.column_stack([x, x]), np.isin(x, x[:2]), np.partition(x, [1, -2]),
            np.unravel_index(np.argsort(x), (2, 50)), np.meshgrid(x, x[:1], sparse=True),
        )  # fmt: skip

    f = tj.function(edits, input_signature=[tj.TensorSpec([None], np.float64)])
    for x in (np.array([0.0, 0.0, 3.0, np.nan, -0.0, np.inf, 0.0]), np.array([2.0, -1.0, 0.0])):
        check(f, x)
    with pytest.raises(ValueError, match=r"kth\(=1\) out of bounds"):
        f(np.array([1.0]))  # the same trace: the kernel checks kth against the length
