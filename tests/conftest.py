"""Shared test helpers: every behaviour test compares compiled results with eager NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st

# `make test` draws the same examples on every run (CI must not fail by chance: random draws
# found edge cases of open bugs in one run out of two); TRACEJIT_HYPOTHESIS=explore draws
# fresh ones, as `make fuzz` does for whole programs.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile(
    "explore" if os.environ.get("TRACEJIT_HYPOTHESIS") == "explore" else "repeatable"
)

# Tests verify the IR at the end of every pipeline (the library skips it unless asked: it is
# slow). After every pass would double the suite's time; the lit tests (tracejit-opt) and
# the fuzzer (fuzz_oracle.py) verify after each pass, and name the pass that broke the IR.
# (Set before tracejit is imported: compiler/options.py reads the environment once.)
os.environ.setdefault("TRACEJIT_VERIFY_EACH", "end")

import tracejit as tj  # noqa: E402

# Tiered execution (frontend/api/tiered.py) would answer every test's first call with the graph
# interpreter, which evaluates each op with the same NumPy code the tests compare against: the
# compiled code would then only be tested from the second call on, which most tests never make.
# So the suite turns it off (also for the subprocesses it starts), and tests/frontend/
# test_tiered.py turns it on where it tests it. `TRACEJIT_TIERED=1 pytest` runs the suite with
# it on.
os.environ.setdefault("TRACEJIT_TIERED", "0")
tj.config.set_tiered_compilation(os.environ["TRACEJIT_TIERED"] not in ("", "0"))


# Every bool, integer and floating dtype tracejit traces (complex ones are tested apart).
REAL_DTYPES = [
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


def run_eagerly(function, *args, **kwargs):
    """Call a tj.Function as plain Python/NumPy (the reference)."""
    tj.config.run_functions_eagerly(True)
    try:
        return function(*args, **kwargs)
    finally:
        tj.config.run_functions_eagerly(False)


def answers_with_user_defaults(python_function, *args, make=None):
    """The answers of a fresh Function made from `python_function` (by `make`, default
    tj.function) with the defaults users get (tiered compilation on): the first while its
    code compiles, then one from the compiled code, which must have taken over."""
    tj.config.set_tiered_compilation(True)
    try:
        function = (make or tj.function)(python_function)
        answers = [function(*args)]  # interpreted while it compiles
        tj.config.wait_for_compiles()
        concrete = function.get_concrete_function(*args)
        assert concrete.is_compiled and concrete.fast_call is not None
        answers.append(function(*args))
        return answers
    finally:
        tj.config.set_tiered_compilation(False)


def raises_both(error, function, *args, match=None):
    """`function` raises `error` (matching `match`) both compiled and eagerly."""
    f = tj.function(function)
    with pytest.raises(error, match=match):
        run_eagerly(f, *args)
    with pytest.raises(error, match=match):
        f(*args)


def holds_in_forked_child(check) -> bool:
    """Whether `check()` returns True in a child made by `os.fork()` (which reports through
    a pipe and exits without ever returning into pytest)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            code = 0 if check() else 2
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    report = os.read(read, 1)
    os.close(read)
    os.waitpid(pid, 0)
    return report == b"\x00"


def assert_same(compiled, eager, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """Same structure, dtypes and shapes; exact for ints and bools, close for floats."""
    if isinstance(eager, list | tuple):
        assert type(compiled) is type(eager) and len(compiled) == len(eager)
        for c, e in zip(compiled, eager, strict=True):
            assert_same(c, e, rtol, atol)
        return
    if isinstance(eager, dict):
        assert compiled.keys() == eager.keys()
        for key in eager:
            assert_same(compiled[key], eager[key], rtol, atol)
        return
    if not isinstance(eager, np.ndarray | np.generic):
        assert compiled == eager
        return
    # 0-d results come back as NumPy scalars (DESIGN §2), also where NumPy itself returns
    # a 0-d array (e.g. np.where on 0-d operands).
    zero_d = isinstance(eager, np.ndarray) and eager.ndim == 0
    assert isinstance(compiled, type(eager)) or (
        isinstance(compiled, np.generic) and (isinstance(eager, np.generic) or zero_d)
    ), (type(compiled), type(eager))
    assert compiled.dtype == eager.dtype, (compiled.dtype, eager.dtype)
    assert np.shape(compiled) == np.shape(eager)
    if eager.dtype.kind in "biu":
        np.testing.assert_array_equal(compiled, eager)
    else:
        np.testing.assert_allclose(compiled, eager, rtol=rtol, atol=atol, equal_nan=True)


@pytest.fixture(scope="session")
def check_against_eager():
    """check(fn, *args, rtol=..., atol=...): compiled result equals the eager result."""

    def check(function, *args, rtol: float = 1e-6, atol: float = 0.0, **kwargs):
        eager = run_eagerly(function, *args, **kwargs)
        compiled = function(*args, **kwargs)
        assert_same(compiled, eager, rtol, atol)
        return compiled

    return check


@st.composite
def axis_for(draw, ndim: int):
    """None, an int (maybe negative) or a tuple of distinct axes (maybe negative)."""
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    single = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(
        lambda axes: tuple(a - ndim if a % 2 else a for a in axes)
    )
    return draw(st.one_of(st.none(), single, several))


# The longest files (and the lit shards) start first, so that no worker is left with one of
# them at the end while the other idles (`pytest --durations=0`, summed per file: 20-46 s
# each, on this 2-core machine).
LONGEST_FIRST = (
    "tests/test_filecheck.py",
    "tests/numpy/test_sorting.py",
    "tests/docs/test_docs.py",
    "tests/fuzz/test_fuzz_quick.py",
    "tests/numpy/test_data_dependent_shapes.py",
    "tests/docs/test_solutions_adversarial.py",
    "tests/frontend/test_dynamic_shape_ops.py",
    "tests/numpy/test_counting.py",
    "tests/numpy/test_fft.py",
    "tests/numpy/test_pad_modes.py",
    "tests/autograph/test_reference_programs.py",
)


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups into node ids
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (`make test` runs `-n auto --dist loadgroup`), each test file runs
    on one worker, so module-scoped fixtures (a Dask cluster, the hostile-input subprocess
    run) are set up once; the lit shards of test_filecheck.py are spread over the workers."""
    for item in items:
        path = item.nodeid.split("::")[0]
        # A file that names its group (the wheel's modules share one build) keeps it: the
        # marker added here would be the closest and split the group.
        if not path.endswith("test_filecheck.py") and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(path))

    def rank(item) -> int:
        path = item.nodeid.split("::")[0]
        return LONGEST_FIRST.index(path) if path in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: the rest keep their order
