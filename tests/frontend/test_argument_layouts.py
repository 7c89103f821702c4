"""Reshapes of arguments and of views, for every memory layout an argument may have.

NumPy's `x.reshape(...)` and `x.ravel()` are views of a C-contiguous `x` and copies of a
Fortran-ordered or strided one; only size-1 dims coming or going (`np.expand_dims`,
`np.squeeze`, `v[:, None]`) are views whatever the layout. A kernel sees a C-contiguous
copy of each argument, so a trace that relies on a reshape of an argument being a view (a
write through it, a read of it after a write into the argument) refuses a call passing
another layout; a reshape of a view (a slice, a transpose) is a view or a copy depending on
strides, so writes through it, and reads of it after a write into its array, are refused.
Everything else matches NumPy, compiled and eager, for every layout (frontend/staging/views.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import assert_same, run_eagerly

BASE = np.arange(24.0).reshape(4, 6)


def layouts(array: np.ndarray) -> dict[str, np.ndarray]:
    wide = np.repeat(array, 2, axis=1)
    return {
        "C": array.copy(),
        "Fortran": np.asfortranarray(array),
        "transpose": np.ascontiguousarray(array.T).T,
        "strided": wide[:, ::2],
        "reversed": np.ascontiguousarray(array[::-1])[::-1],
    }


def both(function, argument: np.ndarray):
    """(eager result and argument after, compiled result and argument after)."""
    eager_arg, compiled_arg = argument.copy(order="K"), argument.copy(order="K")
    if not argument.flags.c_contiguous and not argument.flags.f_contiguous:
        eager_arg, compiled_arg = layouts(BASE)["strided"], layouts(BASE)["strided"]
    eager = run_eagerly(function, eager_arg)
    return (eager, eager_arg), (function(compiled_arg), compiled_arg)


def reads_reshapes(x):
    flat = x.ravel()
    return flat * 2, x.reshape(6, 4)[1], np.reshape(x, (2, -1)).sum(axis=1), flat[::5]


def writes_unit_dim_views(x):
    column = x[:, 1][:, None]  # a view of a view, but only a size-1 dim added: a view
    column += 100.0
    np.expand_dims(x, 0)[0, 2] = -1.0
    np.squeeze(x[None])[3, 3] = -2.0
    return x.sum(), column.copy()


@pytest.mark.parametrize("layout", ["C", "Fortran", "transpose", "strided", "reversed"])
@pytest.mark.parametrize("function", [reads_reshapes, writes_unit_dim_views])
def test_reshapes_match_numpy_for_every_layout(function, layout):
    (eager, eager_arg), (compiled, compiled_arg) = both(
        tj.function(function), layouts(BASE)[layout]
    )
    assert_same(compiled, eager)
    np.testing.assert_array_equal(compiled_arg, eager_arg)


def fill_diagonal_through_ravel(x):
    x.ravel()[:: x.shape[1] + 1] = 0.0  # NumPy's idiom: writes x only if C-contiguous
    return x.sum()


def read_after_write(x):
    flat = x.reshape(-1)
    x[0, 1] = 500.0
    return flat[:4].copy()


@pytest.mark.parametrize("function", [fill_diagonal_through_ravel, read_after_write])
def test_a_trace_relying_on_an_argument_reshape_being_a_view_refuses_other_layouts(function):
    compiled = tj.function(function)
    (eager, eager_arg), (result, result_arg) = both(compiled, layouts(BASE)["C"])
    assert_same(result, eager)
    np.testing.assert_array_equal(result_arg, eager_arg)
    for layout in ("Fortran", "transpose", "strided"):
        argument = layouts(BASE)[layout]
        before = argument.copy()
        with pytest.raises(
            tj.errors.InvalidArgumentError, match="not C-contiguous.*test_argument_layouts.py:"
        ):
            compiled(argument)
        np.testing.assert_array_equal(argument, before)  # refused before the kernel ran
    assert compiled.experimental_get_tracing_count() == 1


def read_reshape_of_slice_after_write(x):
    rows = x[1:3].reshape(-1)  # NumPy: a view here (C-contiguous rows), a copy for others
    x[1, 0] = 500.0
    return rows[:2].copy()


def reshape_of_slice_unused_after_write(x):
    rows = x[1:3].reshape(-1)
    total = rows.sum()
    x[1, 0] = 500.0
    return total, x.sum()


def test_a_reshape_of_a_view_read_after_a_write_is_refused():
    with pytest.raises(NotImplementedError, match="reading a reshape of a view"):
        tj.function(read_reshape_of_slice_after_write)(BASE.copy())
    (eager, _), (compiled, _) = both(tj.function(reshape_of_slice_unused_after_write), BASE.copy())
    assert_same(compiled, eager)


def test_writing_into_a_reshape_of_a_view_is_refused():
    def f(x):
        x.T.reshape(-1)[0] = 1.0
        return x

    with pytest.raises(ValueError, match="writing into a reshape of a view"):
        tj.function(f)(BASE.copy())


@settings(max_examples=8, deadline=None)
@given(
    layout=st.sampled_from(["C", "Fortran", "transpose", "strided", "reversed"]),
    shape=st.sampled_from([(4, 6), (1, 6), (4, 1), (2, 3)]),
)
def test_read_only_reshapes_of_any_layout(layout, shape):
    array = np.arange(float(np.prod(shape))).reshape(shape) - 3.5
    argument = layouts(array)[layout]

    def f(x):
        return x.ravel() * 2, x.reshape(-1)[::2], x.reshape(x.shape[::-1]).sum(axis=0)

    compiled = tj.function(f)
    assert_same(compiled(argument), run_eagerly(compiled, argument))


def contiguous_copies(x):
    c = np.ascontiguousarray(x)  # x itself when C-contiguous: the write reaches x
    c[0, 0] = -1.0
    return x.sum(), np.ascontiguousarray(x.T)[0] * 1.0, np.ascontiguousarray(x[1, 1]).shape


def test_ascontiguousarray_is_the_array_or_a_copy_as_in_numpy():
    f = tj.function(contiguous_copies)
    (eager, eager_arg), (compiled, compiled_arg) = both(f, layouts(BASE)["C"])
    assert_same(compiled, eager)
    np.testing.assert_array_equal(compiled_arg, eager_arg)
    with pytest.raises(tj.errors.InvalidArgumentError, match="not C-contiguous"):
        f(layouts(BASE)["Fortran"])
    reads = tj.function(lambda x: np.ascontiguousarray(x) * 2)
    for layout in ("C", "Fortran", "strided"):
        (eager, _), (compiled, _) = both(reads, layouts(BASE)[layout])
        assert_same(compiled, eager)


def zero_d_views(x):
    a = x[0, 0].copy()  # a 0-d array made here
    np.ascontiguousarray(a)[0] = 5.0  # a 1-element view of it (0-d becomes 1-d)
    b = x[1, 1].copy()
    np.asfortranarray(b)[0] += 1.0
    return a * 1.0, b * 1.0


def fortran_copies(x):
    made = x.copy() * 2.0  # C-ordered whatever x's layout
    f = np.asfortranarray(made)  # a Fortran-ordered copy: writes stay in it
    f[0, 0] = -7.0
    row = np.asfortranarray(made[1])  # 1-d: the array itself
    row[0] = 9.0
    flat = f.reshape(-1)  # a copy of a Fortran-ordered array (read only)
    return made, f, flat, np.asfortranarray(x).sum(axis=0), np.asfortranarray(x[:, :1]).shape


def writes_fortran_copy_of_argument(x):
    f = np.asfortranarray(x)  # x itself when x is Fortran-ordered, else a copy
    f[0, 0] = 1.0
    return x.sum()


def test_asfortranarray_is_the_array_or_a_copy_as_in_numpy():
    """np.asfortranarray was refused; 0-d arrays through np.ascontiguousarray were copies
    where NumPy gives a view (a write through it was lost)."""
    views_of_0d, copies = tj.function(zero_d_views), tj.function(fortran_copies)
    for layout in ("C", "Fortran", "strided"):
        for function in (views_of_0d, copies):
            (eager, _), (compiled, _) = both(function, layouts(BASE)[layout])
            assert_same(compiled, eager)
    with pytest.raises(ValueError, match="np.array\\(x, order='F'\\)"):
        tj.function(writes_fortran_copy_of_argument)(layouts(BASE)["C"])


def reshapes_of_arrays_made_from_a_transpose(x):
    m = x.T * 2.0  # Fortran-ordered in NumPy (element-wise results follow their operands)
    flat = m.ravel()  # so a copy
    return flat * 1.0, m.reshape(-1)[::5] + 0.0


def writes_through_reshape_of_transpose_product(x):
    m = x.T * 2.0
    m.reshape(-1)[0] = 5.0  # NumPy writes a copy: m keeps its value
    return m


def writes_through_reshape_of_argument_product(x):
    m = x * 2.0  # ordered as x is
    m.reshape(-1)[0] = 5.0
    return m


def test_arrays_made_from_transposes_are_not_c_ordered():
    """`x.T * 2` is Fortran-ordered in NumPy, so its reshape is a copy: tracejit took it
    for a view of a C-ordered array (a write through it changed m; a read of it after a
    write into m saw the write). Now reads are right, and relying on a view is refused;
    an array made element-wise from an argument is as C-ordered as the argument."""
    reads = tj.function(reshapes_of_arrays_made_from_a_transpose)
    for layout in ("C", "Fortran", "transpose"):
        (eager, _), (compiled, _) = both(reads, layouts(BASE)[layout])
        assert_same(compiled, eager)
    with pytest.raises(ValueError, match="memory layout"):
        tj.function(writes_through_reshape_of_transpose_product)(layouts(BASE)["C"])
    follows = tj.function(writes_through_reshape_of_argument_product)
    (eager, _), (compiled, _) = both(follows, layouts(BASE)["C"])
    assert_same(compiled, eager)
    with pytest.raises(tj.errors.InvalidArgumentError, match="not C-contiguous"):
        follows(layouts(BASE)["Fortran"])
