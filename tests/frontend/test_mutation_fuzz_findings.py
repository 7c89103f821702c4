"""Mutation bugs the fuzzer found (tests/fuzz, programs that write arrays), each reduced to
its smallest form. Every test runs the function compiled and eagerly on copies of the
same arguments and compares the results and every argument afterwards."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import assert_same, run_eagerly


def function_of(body: str):
    """`def f(...)` from source text, registered with linecache (AutoGraph reads it)."""
    filename = f"/fuzz_findings/f_{abs(hash(body))}.py"
    linecache.cache[filename] = (len(body), None, body.splitlines(True), filename)
    namespace = {"np": np, "tj": tj}
    exec(compile(body, filename, "exec"), namespace)  # noqa: S102
    return namespace["f"]


def check_writes(function, *args, signature=None):
    """Compiled (with `signature`, if given) and eager agree on the result and on every
    array argument afterwards."""
    eager_args = [a.copy() for a in args]
    compiled_args = [a.copy() for a in args]
    eager = run_eagerly(function, *eager_args)
    compiled = tj.function(function, input_signature=signature)(*compiled_args)
    assert_same(compiled, eager)
    for after, expected in zip(compiled_args, eager_args, strict=True):
        np.testing.assert_array_equal(after, expected)


# --- views NumPy makes, which see later writes to their base ------------------------------------
def test_broadcast_to_is_a_read_only_view():
    def f(x):
        b = np.broadcast_to(x[0], (2, 3))
        x[0, 1] = 100.0
        return b * 1

    check_writes(f, np.arange(6.0).reshape(2, 3))

    @tj.function
    def writes_it(x):
        b = np.broadcast_to(x, (2, 3))
        b[0] = 1.0

    with pytest.raises(ValueError, match="read-only"):
        writes_it(np.arange(3.0))


@pytest.mark.parametrize("form", ["np.atleast_1d(x[0, 0, ...])", "np.atleast_2d(x[0])"])
def test_atleast_nd_are_views(form):
    f = function_of(
        f"def f(x):\n    v = {form}\n    x[0, 0] = 50.0\n    v += 1.0\n    return v * 1\n"
    )
    check_writes(f, np.arange(6.0).reshape(2, 3))


def test_an_ellipsis_key_gives_a_zero_d_view():
    """`x[0, 0, ...]` (and `x[...]` of a 0-d x) is a 0-d array viewing x, not a scalar."""

    def f(x, s):
        e = x[0, 0, ...]
        x[0, 0] = 100.0
        e += 1.0
        t = s[...]
        s += 2.0
        return e * 1, t * 1

    check_writes(f, np.arange(6.0).reshape(2, 3), np.array(3.0))


# --- functions returning new arrays never hand back the argument --------------------------------
COPYING = ["np.floor(x)", "np.ceil(x)", "np.trunc(x)", "np.round(x)", "np.positive(x)", "+x",
           "x.astype(x.dtype)", "np.astype(x, x.dtype)", "np.conj(x)", "np.concatenate([x])",
           "np.roll(x, 0)", "np.pad(x, 0)", "np.hstack([x])", "np.stack([x])[0]",
           "np.clip(x, 0, 255)", "x.flatten()"]  # fmt: skip


@pytest.mark.parametrize("form", COPYING)
def test_a_new_array_is_not_the_argument(form):
    f = function_of(f"def f(x):\n    y = {form}\n    y[...] = 7\n    return y\n")
    check_writes(f, np.array([1, 2, 3], np.uint8))


# --- 0-d arrays ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "form",
    [
        "np.zeros_like(a)",
        "np.full_like(a, 3)",
        "np.empty_like(a)",
        "np.copy(a)",
        "np.array(a)",
        "np.asarray(a.sum())",
    ],  # fmt: skip
)
def test_zero_d_arrays_made_in_the_function_are_written_in_place(form):
    body = f"    z = {form}\n    z[...] = 5\n    w = z[...]\n    z += 1\n    return z, w * 1\n"
    f = function_of("def f(a):\n" + body)
    check_writes(f, np.array(2.0))


def test_zero_d_arrays_are_written_in_place_in_staged_loops():
    def f(a):
        z = np.zeros(())
        w = z[...]
        v = a[...]
        for i in tj.range(3):
            z += i
            a[()] = i
            if i % 2 == 0:
                v[...] = 7  # a 0-d view (a loop variable too) is an array
        return z, w * 1

    check_writes(f, np.array(3.0))


# --- staged loops writing several arrays ----------------------------------------------------------
def test_a_staged_loop_writes_several_arrays():
    def f(a, b):
        w = a[1:]
        for i in tj.range(np.sum(a > 0) % 4):
            w[0] = i
            b[i % 2] = 2.0
        return w * 1

    check_writes(f, np.arange(4.0), np.zeros(3))


# --- dims unknown at trace time ---------------------------------------------------------------
UNKNOWN = [tj.TensorSpec([None], np.float64)]


def test_slice_writes_of_values_with_unknown_dims():
    def f(x):
        x[1:] += 1.0
        x[::-1] = 2 * x
        y = x[None]
        y[:, 1:] = y[:, :-1]
        x[:-3] = 9.0  # a window at 0 shorter than x (was folded into all of x)
        x[:2] -= x[-2:]
        return x * 1

    check_writes(f, np.arange(6.0), signature=UNKNOWN)


def test_an_index_array_of_unknown_size_writes_its_elements():
    def f(x, i):
        x[i % 3] = np.arange(i.shape[0]) * 1.5  # a repeated position keeps the last value

    signature = [tj.TensorSpec([3], np.float64), tj.TensorSpec([None], np.int64)]
    for i in ([0, 2], [], [1, 4, 7], [-1]):
        check_writes(f, np.zeros(3), np.array(i, np.int64), signature=signature)


def test_index_arrays_of_unknown_size_select_rows_to_write():
    def put(x, i):
        x[i % 3] = np.float64(2.5)  # rows: a block of shape (?, 2)

    def add(x, i):
        x[i % 3] += 1.0  # a repeated row gets one addition, as in NumPy

    signature = [tj.TensorSpec([3, 2], np.float64), tj.TensorSpec([None], np.int64)]
    for i in ([0, 2], [], [1, 4, 1]):
        for function in (put, add):
            x = np.arange(6.0).reshape(3, 2)
            check_writes(function, x, np.array(i, np.int64), signature=signature)


def test_like_functions_with_unknown_dims():
    def f(x):
        z = np.zeros_like(x)
        z[1:] = x[:-1]
        # (np.empty_like(x) * 0 is NaN where the memory NumPy hands out held a NaN)
        return z, np.ones_like(x, dtype=np.int8), np.full_like(x, x.sum()), np.empty_like(x).shape

    check_writes(f, np.arange(5.0), signature=UNKNOWN)


@pytest.mark.parametrize(
    "form",
    [
        "a.astype(np.float32)",
        "np.astype(a, np.int32)",
        "np.where(a > 0, a, 1.0)",
        "np.roll(a, 1)",
    ],  # fmt: skip
)
def test_zero_d_array_results_of_functions_are_arrays(form):
    """NumPy gives these 0-d results as arrays (ufuncs and reductions give scalars)."""
    f = function_of(f"def f(a):\n    v = {form}\n    v[...] = 7\n    return v\n")
    check_writes(f, np.array(2.0))


@pytest.mark.parametrize("form", ["a.item()", "np.flip(a)", "a[()]"])
def test_elements_of_zero_d_arrays_are_new_scalars(form):
    """`+=` on them rebinds the name (NumPy scalars), never writes the array."""
    f = function_of(f"def f(a):\n    v = {form}\n    v += 1\n    return v\n")
    check_writes(f, np.array(2.0))


def test_a_view_read_in_one_branch_and_written_in_the_other():
    """A view taken again inside one branch of a staged if must not be reused in the other
    (found inside a staged loop, where AutoGraph carries the view)."""

    def f(a, n):
        b = a.copy()
        w = a[1:]
        for i in tj.range(n):
            if i % 2 == 0:
                b[1] = -7.0
            else:
                w[0] -= 3.0
        return b

    check_writes(f, np.arange(8.0), np.int64(3))


def test_a_view_written_in_one_staged_loop_and_read_in_the_next():
    """The second loop is traced twice (its first attempt learns that it writes `b`); the
    view's value taken in the thrown-away attempt must not be reused (its op is erased)."""

    def f(a, b):
        w = a[None]
        for i in tj.range(3):
            w[0, 1] = i
        for _ in tj.range(2):
            b[0] += w[0, 1]
        return b * 1

    check_writes(f, np.arange(5, dtype=np.uint32), np.array([1, 1, -(2**31), -7], np.int32))


def test_flattening_a_selection():
    """`x[m].ravel()` of a 1-d selection (np.cumsum flattens too) keeps its run-time size."""

    def f(x):
        s = x[x > 1]
        return np.ravel(s), s.reshape(-1), np.cumsum(s)

    check_writes(f, np.arange(6.0).reshape(2, 3))


# --- an update whose source is its own destination -----------------------------------------------
@pytest.mark.parametrize(
    "write",
    [
        "w[:] = a",  # w a reversed view of a: NumPy reads all of a first
        "w[:] = a.T",
        "a[idx] = a",  # a scatter reading its destination
        "a[::2] = a[::-2]",
    ],
)
@pytest.mark.parametrize("trips", [0, 1, 2, 3])
def test_an_update_reading_its_own_destination_in_a_staged_loop(write, trips):
    """The fuzzer found `w[:] = a.T` in a loop, `w = a[::-1]`, stored into the loop's state
    buffer while reading it, so later elements read already-overwritten ones."""
    f = function_of(
        "def f(a, n, idx):\n"
        "    w = a[::-1]\n"
        "    for i in tj.range(n):\n"
        f"        {write}\n"
        "    return w\n"
    )
    a = np.array([-7.0, 1.0, 1.6, -7.0, -2.0])
    check_writes(f, a, np.int64(trips), np.array([4, 3, 2, 1, 0]))


# --- found by probes, taught to the fuzzer (fuzz_mutation's REBINDS and view forms) -----------
def scalar_copy_aliases(a):
    s = a[0, 0].copy()  # a NumPy scalar's copy: a scalar
    t = s
    t += 1.0  # a new scalar: s stays
    c = a[1].copy()[0, None].copy()  # a 1-element array's copy: an array
    d = c
    d += 1.0  # c itself
    return s, t, c


def zero_d_copy_aliases(z):
    c = z.copy()  # a 0-d array's copy: a 0-d array
    d = c
    d += 1.0
    return c + 0, z + 0


def test_copies_of_numpy_scalars_stay_scalars():
    """`x[0, 0].copy()` was a 0-d array in the trace, so `t = s; t += 1` changed s."""
    check_writes(scalar_copy_aliases, np.arange(6.0).reshape(2, 3))
    check_writes(zero_d_copy_aliases, np.array(2.5))


@pytest.mark.parametrize("view", ["z[...]", "z.reshape(())", "z.T", "z"])
def test_the_copy_of_a_view_of_a_0d_array_is_an_array(view):
    """test_fuzz_7be78c7b35: `w = a[...]; c = w.copy(); c[()] -= 2` was refused as an item
    write into a NumPy scalar (a 0-d view's copy lost its being an array)."""
    f = function_of(
        f"def f(z):\n    w = {view}\n    c = w.copy()\n    c[()] -= 2.0\n"
        "    d = c\n    d += 1.0\n    return c + 0, w + 0\n"
    )
    check_writes(f, np.array(2.5))


def test_the_copy_of_a_0d_arrays_element_is_a_numpy_scalar():
    """`z[()]` of a 0-d array is a NumPy scalar (not a view), and so is its copy."""
    f = function_of("def f(z):\n    c = z[()].copy()\n    c[()] = 2.0\n    return c\n")
    with pytest.raises(TypeError, match="does not support item assignment"):
        run_eagerly(f, np.array(2.5))
    with pytest.raises(TypeError, match="does not support item assignment"):
        tj.function(f)(np.array(2.5))


UNKNOWN_1D = [tj.TensorSpec([], np.int64)] * 2 + [tj.TensorSpec([None], np.float64)]


@pytest.mark.parametrize("first, second", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_an_alias_kept_by_a_staged_if_after_an_if_wrote_the_array(first, second):
    """regressions/test_fuzz_b640a51e08.py reduced: with dims unknown at trace time, an
    array written in place in a staged `if` lost its dims, so the alias a second `if` kept
    (`x = v; if c: x = x + x`) was dropped and `x += x` did not reach `v` (v came back
    unchanged where NumPy doubled it)."""
    f = function_of(
        "def f(c1, c2, a):\n"
        "    v = a.copy()\n"
        "    if c1 > 0:\n"
        "        v *= 2\n"
        "    x = v\n"
        "    if c2 > 0:\n"
        "        x = x + x\n"
        "    y = x\n"
        "    y += y\n"
        "    return v, x\n"
    )
    c1, c2, a = np.int64(first), np.int64(second), np.array([-128, 3, 4], np.int8)
    check_writes(f, c1, c2, a, signature=[*UNKNOWN_1D[:2], tj.TensorSpec([None], np.int8)])


def test_a_write_through_an_alias_of_untracked_size_is_refused():
    """`x = t; if c: x = np.concatenate(...)` with dims unknown at trace time: the new
    array's length is computed, so tracejit cannot choose between the two at run time.
    A later write through either name was applied to one of them only (`t += t` left `x`
    unchanged where the branch kept `t`); it is now refused, naming the line."""
    f = function_of(
        "def f(c, unused, t):\n"
        "    x = t\n"
        "    if c > 0:\n"
        "        x = np.concatenate([x[:1], x[1:]])\n"
        "    t += t\n"
        "    return x + 0\n"
    )
    compiled = tj.function(f, input_signature=UNKNOWN_1D)
    with pytest.raises(ValueError, match=r"cannot follow when their sizes may differ.*f_\d+\.py:5"):
        compiled(np.int64(0), np.int64(0), np.arange(3.0))
    check_writes(f, np.int64(0), np.int64(0), np.arange(3.0))  # static shapes: followed


@pytest.mark.parametrize("write", ["t += t", "w = t[1:]\n    w *= 2.0", "early *= 2.0"])
def test_a_write_to_the_base_of_a_view_of_untracked_size_is_refused(write):
    """The same with `x` a view of `t` (`x = t[:3]`): the view was refused writes, but
    a write to `t` itself (or through another view of it) was not, and left `x` unchanged
    where the branch kept the view."""
    f = function_of(
        "def f(c, unused, t):\n"
        "    early = t[1:]\n"
        "    x = t[:3]\n"
        "    if c > 0:\n"
        "        x = np.concatenate([x[:1], x[1:]])\n"
        f"    {write}\n"
        "    return x + 0\n"
    )
    compiled = tj.function(f, input_signature=UNKNOWN_1D)
    with pytest.raises(ValueError, match=r"cannot follow when their sizes may differ"):
        compiled(np.int64(0), np.int64(0), np.arange(4.0))
    check_writes(f, np.int64(0), np.int64(0), np.arange(4.0))  # static shapes: followed


@pytest.mark.parametrize("c", [0, 1])
def test_a_view_of_unknown_length_kept_by_a_staged_if_follows_its_base(c):
    """`x = t[:3]; if c: x = x + x` with `t` of unknown length: the alias after the if was
    refused ("a size only the kernel knows is broadcast"); now `t += 1` shows through x
    where the branch kept the view."""
    f = function_of(
        "def f(c, unused, t):\n"
        "    x = t[:3]\n"
        "    if c > 0:\n"
        "        x = x + x\n"
        "    t += 1.0\n"
        "    return x + 0\n"
    )
    check_writes(f, np.int64(c), np.int64(0), np.arange(5.0), signature=UNKNOWN_1D)
