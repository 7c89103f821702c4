"""tj.Variable: eager API, in-place updates from compiled code, creation rules."""

import gc

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import run_eagerly


def both_ways(make_and_run):
    """Run `make_and_run()` eagerly and compiled; return (eager, compiled) results."""
    tj.config.run_functions_eagerly(True)
    try:
        eager = make_and_run()
    finally:
        tj.config.run_functions_eagerly(False)
    return eager, make_and_run()


def test_eager_api():
    v = tj.Variable(np.array([1, 2], np.int32), name="v")
    assert v.shape == (2,) and v.dtype == np.int32 and v.name == "v:0"
    v.assign([5, 6])
    v.assign_add(np.array([1, 1], np.int32))
    v.assign_sub(2)
    np.testing.assert_array_equal(v.numpy(), [4, 5])
    np.testing.assert_array_equal(np.asarray(v), [4, 5])
    np.testing.assert_array_equal(v + 1, [5, 6])
    assert repr(tj.Variable(4, dtype=np.int32, name="v")) == (
        "<tj.Variable 'v:0' shape=() dtype=int32, numpy=4>"
    )
    with pytest.raises(ValueError, match="shape"):
        v.assign(np.zeros(3))


class _Count:
    """The guide's counter: its Variable is created on the first call."""

    def __init__(self):
        self.count = None

    @tj.function
    def __call__(self):
        if self.count is None:
            self.count = tj.Variable(0)
        return self.count.assign_add(1)


def test_count_module_from_the_guide():
    def run():
        c = _Count()
        return [int(c()) for _ in range(3)], int(c.count.numpy())

    eager, compiled = both_ways(run)
    assert eager == compiled == ([1, 2, 3], 3)


def test_training_step_updates_weights_in_place():
    def run():
        w = tj.Variable(np.ones((3, 2)), name="w")
        b = tj.Variable(np.zeros(2), name="b")
        buffer = w._buffer

        @tj.function
        def train_step(x, y, lr):
            error = x @ w + b - y
            w.assign_sub(lr * (x.T @ error) / len(x))
            b.assign_sub(lr * np.mean(error, axis=0))
            return np.mean(error**2)

        rng = np.random.default_rng(0)
        x, y = rng.standard_normal((8, 3)), rng.standard_normal((8, 2))
        losses = [float(train_step(x, y, 0.1)) for _ in range(5)]
        assert w._buffer is buffer  # updated in place, never replaced
        return losses, w.numpy(), b.numpy()

    eager, compiled = both_ways(run)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-12)
    np.testing.assert_allclose(compiled[1], eager[1], rtol=1e-12)
    np.testing.assert_allclose(compiled[2], eager[2], rtol=1e-12)


def test_functional_style_state(check_against_eager):
    @tj.function
    def f(state, x):
        return state * 0.9 + x

    check_against_eager(f, np.ones(3), np.arange(3.0))


def test_variables_as_arguments_and_in_lists():
    @tj.function
    def scale_all(variables, factor):
        for v in variables:
            v.assign(v * factor)
        return variables[0] + variables[1]

    a, b = tj.Variable(np.ones(2)), tj.Variable(np.full(2, 3.0))
    np.testing.assert_array_equal(scale_all([a, b], 2.0), [8.0, 8.0])
    np.testing.assert_array_equal(a.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(b.numpy(), [6.0, 6.0])
    c = tj.Variable(np.zeros(2))
    scale_all([a, c], 2.0)  # a different Variable: a new trace (keyed by identity)
    assert scale_all.experimental_get_tracing_count() == 2


def test_read_then_write_keeps_the_read_value():
    v = tj.Variable(np.array([1.0, 2.0]))

    @tj.function
    def swap_in(x):
        old = v.read_value()
        v.assign(x)
        return old, v.read_value()

    old, new = swap_in(np.array([7.0, 8.0]))
    np.testing.assert_array_equal(old, [1.0, 2.0])
    np.testing.assert_array_equal(new, [7.0, 8.0])


def test_creating_variables_on_a_later_trace_is_an_error():
    @tj.function
    def f(x):
        v = tj.Variable(1.0)
        return v + x

    f(np.float64(1.0))  # first trace: allowed (the function owns the Variable)
    assert f(np.float64(2.0)) == 3.0
    hint = r"non-first call\. Create each tj.Variable once, outside the function"
    with pytest.raises(ValueError, match=hint):
        f(np.ones(2))


def test_each_instance_creates_its_variables_on_its_own_first_call():
    """A method is one Function per instance in TensorFlow, so a second object of the
    guide's Count class creates its Variable on its first call too (it was refused as a
    non-first call, the class's method having been traced for the first object). A second
    trace of the same object still may not create one."""
    first, second = _Count(), _Count()
    assert [int(first()), int(first()), int(second()), int(first())] == [1, 2, 1, 3]
    assert first.count is not second.count and int(second.count.numpy()) == 1

    class Grows(tj.Module):
        @tj.function
        def __call__(self, x):
            self.v = tj.Variable(x.shape[0])  # a new Variable on every trace
            return self.v.read_value()

    grows = Grows()
    assert grows(np.ones(2)) == 2
    with pytest.raises(ValueError, match="non-first call"):
        grows(np.ones(3))


def test_dead_captured_variable_is_a_failed_precondition():
    v = tj.Variable(np.ones(2))

    @tj.function
    def f(v, x):
        return v + x

    concrete = f.get_concrete_function(v, np.ones(2))
    del v
    gc.collect()
    with pytest.raises(tj.errors.FailedPreconditionError, match="garbage-collected"):
        concrete.call_leaves([None, np.ones(2)])


def test_assign_in_a_staged_loop_updates_in_place():
    total = tj.Variable(np.int64(0))

    @tj.function
    def accumulate(n):
        tj.while_loop(lambda i: i, lambda i: (total.assign_add(i) * 0 + i - 1,), (n,))
        return total.read_value()

    assert accumulate(np.int64(4)) == 10
    assert total.numpy() == 10
    assert accumulate(np.int64(3)) == 16


def test_unnamed_variables_get_distinct_names_and_given_names_are_kept():
    first, second = tj.Variable(1.0), tj.Variable(2.0)
    assert first.name != second.name
    assert first.name.endswith(":0") and second.name.endswith(":0")
    assert tj.Variable(3.0, name="weights").name == "weights:0"
    assert tj.Variable(3.0, name="bias:0").name == "bias:0"


def test_reading_a_variable_as_a_number_while_tracing_is_refused():
    """`v.numpy()` and `float(v)` in a function froze the value at trace time: later
    assignments were missed (a probe of the tf.function contract; tf.function refuses
    `.numpy()` there too). Outside a function they read the current value."""
    v, s = tj.Variable(np.array([1.0, 2.0])), tj.Variable(3.0)
    with pytest.raises(TypeError, match="numpy\\(\\) while tracing"):
        tj.function(lambda x: v.numpy() + x)(np.float64(1.0))
    with pytest.raises(TypeError, match="Python float while tracing"):
        tj.function(lambda x: s.__float__() + x)(np.float64(1.0))
    s.assign(30.0)
    assert float(s) == 30.0 and int(s) == 30
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    copied = tj.function(lambda x: tj.Variable(v) * x)  # a Variable made from one: its value
    np.testing.assert_array_equal(copied(np.float64(2.0)), [2.0, 4.0])


def test_a_variable_made_from_an_array_the_function_builds():
    """`self.v = tj.Variable(np.ones_like(x))` (the API page's example) was refused: under
    AutoGraph np.ones_like(x) is a constant of the trace, which is a concrete value."""

    class Scale(tj.Module):
        def __init__(self):
            self.v = None

        @tj.function
        def __call__(self, x):
            if self.v is None:
                self.v = tj.Variable(np.ones_like(x))
            return self.v * x

    scale = Scale()
    np.testing.assert_array_equal(scale(np.array([1.0, 2.0])), [1.0, 2.0])
    scale.v.assign([2.0, 3.0])
    np.testing.assert_array_equal(scale(np.array([1.0, 2.0])), [2.0, 6.0])
    with pytest.raises(TypeError, match="concrete initial value"):
        tj.function(lambda x: tj.Variable(x * 2) * x)(np.array([1.0]))  # a traced value


class _Accumulator(tj.Module):
    """A Variable whose initial value the function computes from constants only."""

    def __init__(self, initial):
        self.initial = initial
        self.total = None

    @tj.function
    def __call__(self, x):
        if self.total is None:
            self.total = tj.Variable(self.initial(x))
        self.total.assign_add(x)
        return self.total.read_value()


@pytest.mark.parametrize(
    "initial",
    [
        lambda x: np.ones_like(x) * 2,
        lambda x: np.eye(x.shape[0])[0] + np.arange(x.shape[0]) ** 2,
        lambda x: np.zeros(x.shape, np.float32).astype(x.dtype) - 0.5,
    ],
    ids=["ones_like_times_two", "eye_row_plus_squares", "zeros_cast_minus_half"],
)
def test_a_variable_made_from_constants_the_function_computes(initial):
    """`tj.Variable(np.ones_like(x) * 2)` was refused: the initial value is computed from
    constants of the trace, so it is known while tracing (evaluated as the interpreter
    would). Compiled and eagerly: created on the first call only, then accumulated into."""
    x = np.array([1.0, 2.0, 3.0])
    compiled, eager = _Accumulator(initial), _Accumulator(initial)
    for _ in range(2):
        np.testing.assert_array_equal(compiled(x), run_eagerly(eager, x))
    np.testing.assert_array_equal(compiled.total.numpy(), initial(x) + 2 * x)
    with pytest.raises(TypeError, match="depends on the function's inputs"):
        tj.function(lambda x: tj.Variable(np.sin(x) + 1) * x)(x)
