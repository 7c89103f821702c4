"""NumPy's in-place reshape, `x.shape = s` (frontend/staging/views.py, `reshape_in_place`):
the array object itself takes the new shape, so every name of it sees it. Allowed on an
array made in the function that nothing depends on by its old shape; refused (with what to
write) on an argument, a view, an array with views, or inside a staged loop; NumPy's own
errors for a size mismatch or a Fortran-ordered array. Compiled vs eager NumPy.

Also `t[idx]` of a 1-D array, which NumPy lays out as its index array (C for a C-ordered
one), so that its reshapes are views (frontend/numpy_api/indexing.py, `getitem`).
"""

import numpy as np
import pytest

import tracejit as tj
from benchmarks.program_kernels import mandelbrot2  # the benchmark's own program
from tests.conftest import assert_same, raises_both, run_eagerly


def check(function, *args):
    compiled = tj.function(function)
    assert_same(compiled(*args), run_eagerly(compiled, *args))


@pytest.mark.parametrize("shape", [12, (12,), (-1, 2), (2, 3, 2), [3, -1]])
def test_every_name_sees_the_new_shape(shape):
    def flattened(x):
        y = x * 2.0
        alias = y
        y.shape = shape
        return alias, alias.sum(axis=-1), y + 1

    check(flattened, np.arange(12.0).reshape(4, 3))


def test_chained_assignment_as_npbench_writes_it():
    def grids(n):
        xi = np.arange(n * n).reshape(n, n) // n
        yi = xi.T.copy()
        c = xi + 1j * yi
        xi.shape = yi.shape = c.shape = n * n
        return xi, yi, c

    check(grids, 5)


def test_a_size_mismatch_raises_numpys_value_error():
    def wrong(x):
        y = x + 1
        y.shape = 5
        return y

    raises_both(ValueError, wrong, np.ones(12), match="cannot reshape array of size 12")


def test_a_fortran_ordered_array_raises_numpys_attribute_error():
    def fortran(x):
        y = x.T * 2  # NumPy lays it out in Fortran order: no in-place reshape
        y.shape = 12
        return y

    raises_both(AttributeError, fortran, np.ones((3, 4)), match="in-place modification")


def test_an_array_laid_out_as_an_argument_takes_only_c_ordered_ones():
    def flattened(x):
        y = x * 2.0  # NumPy: C-ordered when x is
        y.shape = 12
        return y

    check(flattened, np.ones((3, 4)))
    with pytest.raises(tj.errors.InvalidArgumentError, match="in-place reshape"):
        tj.function(flattened)(np.asfortranarray(np.ones((3, 4))))


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("x.shape = 12", "it is an argument"),
        ("v = x[1:] * 1\n    w = v[0]\n    v.shape = 9", "views of it were taken"),
        ("v = (x * 1)[1:]\n    v.shape = 9", "it is a view of another array"),
    ],
)
def test_refused_where_tracejit_cannot_follow_it(body, why):
    namespace = {"np": np}
    exec(f"def f(x):\n    {body}\n    return x", namespace)
    with pytest.raises(AttributeError, match=why):
        tj.function(namespace["f"])(np.ones((4, 3)))


def test_refused_inside_a_staged_loop():
    @tj.function
    def in_loop(x, n):
        y = x * 1
        for _ in tj.range(n):
            y.shape = 12
        return y

    with pytest.raises(AttributeError, match="inside a staged loop"):
        in_loop(np.ones((4, 3)), np.int64(2))


def test_npbench_mandelbrot2_as_published():
    """The programs benchmark's P5: NPBench's code, `Xi.shape = Yi.shape = C.shape = n`."""
    args = (-2.25, 0.75, -1.25, 1.25, 30, 24, 40)
    assert_same(tj.function(mandelbrot2)(*args), mandelbrot2(*args))


def test_a_take_of_a_c_ordered_index_has_reshapes_that_are_views():
    def written_through_ravel(t, idx):
        y = t[idx]
        y.ravel()[::2] = -1.0  # a view of y, as NumPy's (C-ordered: laid out as idx)
        return y

    t, idx = np.arange(10.0), np.arange(12).reshape(3, 4) % 10
    check(written_through_ravel, t, idx)
    with pytest.raises(tj.errors.InvalidArgumentError):  # NumPy: a copy for this layout
        tj.function(written_through_ravel)(t, np.asfortranarray(idx))


def test_with_the_defaults_users_get():
    """Tiered compilation on (the suite turns it off): NPBench's mandelbrot2 answers while
    it compiles (interpreted), then compiled, and both agree with NumPy."""
    args = (-2.0, 0.5, -1.1, 1.1, 17, 13, 30)
    want = mandelbrot2(*args)
    tj.config.set_tiered_compilation(True)
    try:
        compiled = tj.function(mandelbrot2)
        answers = [compiled(*args)]  # interpreted while it compiles
        tj.config.wait_for_compiles()
        concrete = compiled.get_concrete_function(*args)
        assert concrete.is_compiled and concrete.fast_call is not None
        answers.append(compiled(*args))
        for got in answers:
            assert_same(got, want)
    finally:
        tj.config.set_tiered_compilation(False)
