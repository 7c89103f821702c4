"""An eager tj.GradientTape around calls of tj.functions that capture tj.Variables (issue 35,
point 3): Keras's pattern, a tj.Module whose `__call__` reads `self.w`, and plain functions
reading global Variables. Every gradient is compared with central finite differences of the
eager program and with the same tape around the functions run with
`tj.config.run_functions_eagerly(True)`; the rules (what is watched, integer and
non-trainable Variables, writes inside the call) are TensorFlow's."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj


@contextlib.contextmanager
def eagerly(on: bool = True):
    tj.config.run_functions_eagerly(on)
    try:
        yield
    finally:
        tj.config.run_functions_eagerly(False)


def numeric_variable_gradients(loss, variables, state=(), eps=1e-6):
    """Central differences of the float `loss()` (run eagerly, as NumPy) with respect to each
    Variable's value; `state`: other Variables the program writes, restored around each run."""
    restored = list(dict.fromkeys([*variables, *state]))
    saved = [v.numpy() for v in restored]

    def run() -> float:
        try:
            with eagerly():
                return float(loss())
        finally:
            for v, value in zip(restored, saved, strict=True):
                v.assign(value)

    grads = []
    for variable in variables:
        base = variable.numpy()
        grad = np.zeros(variable.shape)
        for index in np.ndindex(variable.shape):
            values = []
            for delta in (eps, -eps):
                moved = np.array(base, np.float64)
                moved[index] += delta
                variable.assign(moved)
                values.append(run())
            grad[index] = (values[0] - values[1]) / (2 * eps)
        grads.append(grad)
    return grads


def tape_gradients(loss, sources, eager=False, **tape_options):
    with eagerly(eager), tj.GradientTape(**tape_options) as tape:
        value = loss()
    return value, tape.gradient(value, sources)


def assert_gradients(actual, expected, rtol=1e-5, atol=1e-7):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        if e is None:
            assert a is None
        else:
            assert a is not None
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


class Dense(tj.Module):
    def __init__(self, n_in, n_out, rng):
        super().__init__()
        self.w = tj.Variable(rng.normal(size=(n_in, n_out)))
        self.b = tj.Variable(rng.normal(size=n_out))
        self.calls = tj.Variable(0)  # an integer, trainable (as tf.Variable(0) is): no gradient

    @tj.function
    def __call__(self, x):
        self.calls.assign_add(1)
        return np.tanh(x @ self.w + self.b)


class Model(tj.Module):
    def __init__(self, rng):
        super().__init__()
        self.hidden = Dense(3, 4, rng)
        self.out = Dense(4, 1, rng)

    @tj.function
    def __call__(self, x):
        return self.out(self.hidden(x))


@tj.function
def mse(prediction, target):
    return np.mean((prediction - target) ** 2)


# --- the issue's pattern: a tj.Module's method reads its Variables ----------------------
# new Modules each time
@pytest.mark.filterwarnings("ignore::tracejit.frontend.api.retracing.RetracingWarning")
@settings(max_examples=8, deadline=None)
@given(batch=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_module_variables_get_the_gradients_of_finite_differences(batch, seed):
    rng = np.random.default_rng(seed)
    model = Model(rng)
    x, y = rng.normal(size=(batch, 3)), rng.normal(size=(batch, 1))
    variables = [model.hidden.w, model.hidden.b, model.out.w, model.out.b]

    def loss():
        return mse(model(x), y)

    value, grads = tape_gradients(loss, variables)
    expected = numeric_variable_gradients(loss, variables, state=[model.hidden.calls,
                                                                  model.out.calls])
    assert_gradients(grads, expected)
    eager_value, eager_grads = tape_gradients(loss, variables, eager=True)
    np.testing.assert_allclose(eager_value, value)
    assert_gradients(eager_grads, grads, rtol=1e-12, atol=1e-14)


def test_the_issues_model_and_its_training_loop():
    class Linear(tj.Module):
        def __init__(self):
            super().__init__()
            self.w = tj.Variable(np.ones((3, 1)))
            self.b = tj.Variable(np.zeros(1))

        @tj.function
        def __call__(self, x):
            return x @ self.w + self.b

    model = Linear()
    x = np.arange(6.0).reshape(2, 3)
    y = np.array([[1.0], [2.0]])
    with tj.GradientTape() as tape:
        loss = mse(model(x), y)
    gw, gb = tape.gradient(loss, [model.w, model.b])
    residual = x @ np.ones((3, 1)) - y
    np.testing.assert_allclose(gw, x.T @ residual)  # d mean(r^2) = 2/2 * x^T r
    np.testing.assert_allclose(gb, [residual.sum()])
    assert tape.watched_variables() == (model.w, model.b)

    optimizer = tj.optimizers.SGD(0.02)
    losses = []
    for _ in range(60):
        with tj.GradientTape() as tape:
            loss = mse(model(x), y)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        losses.append(float(loss))
    assert losses[-1] < 1e-2 * losses[0]


def test_a_loss_method_that_calls_the_model():
    rng = np.random.default_rng(3)
    model = Model(rng)

    class Trainer(tj.Module):
        @tj.function
        def loss(self, x, y):
            return mse(model(x), y)

    trainer = Trainer()
    x, y = rng.normal(size=(2, 3)), rng.normal(size=(2, 1))
    variables = [v for v in model.trainable_variables if v.dtype.kind == "f"]
    _, grads = tape_gradients(lambda: trainer.loss(x, y), variables)
    _, direct = tape_gradients(lambda: mse(model(x), y), variables)
    assert_gradients(grads, direct, rtol=1e-12, atol=1e-14)


# --- plain functions reading global Variables -------------------------------------------
W = tj.Variable(np.array([[0.5, -1.0], [2.0, 0.25]]))
B = tj.Variable(np.array([0.1, -0.2]))


@tj.function
def predict(x):
    return np.sum(np.exp(np.sin(x @ W) + B) * x)


@settings(max_examples=8, deadline=None)
@given(
    x=st.lists(st.floats(-2, 2), min_size=2, max_size=2),
    w=st.lists(st.floats(-2, 2), min_size=4, max_size=4),
)
def test_a_function_reading_global_variables(x, w):
    W.assign(np.reshape(w, (2, 2)))
    x = np.array(x)
    value, grads = tape_gradients(lambda: predict(x), [W, B])
    assert_gradients(grads, numeric_variable_gradients(lambda: predict(x), [W, B]),
                     rtol=1e-5, atol=1e-6)
    _, eager_grads = tape_gradients(lambda: predict(x), [W, B], eager=True)
    assert_gradients(eager_grads, grads, rtol=1e-12, atol=1e-14)


def test_watched_arrays_and_captured_variables_together():
    x = np.array([[0.3, -0.7]])
    with tj.GradientTape() as tape:
        tape.watch(x)
        out = predict(x)
    gx, gw = tape.gradient(out, [x, W])
    eps = 1e-6
    numeric = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        with eagerly():
            numeric[index] = (predict(up) - predict(down)) / (2 * eps)
    np.testing.assert_allclose(gx, numeric, rtol=1e-6)
    np.testing.assert_allclose(gw, numeric_variable_gradients(lambda: predict(x), [W])[0],
                               rtol=1e-6)


# --- what the tape watches ----------------------------------------------------------------
@pytest.mark.parametrize("eager", [False, True], ids=["compiled", "eager"])
def test_watch_accessed_variables_false_records_only_watched_variables(eager):
    v = tj.Variable(np.array([1.0, 2.0]))
    u = tj.Variable(np.array([3.0, 4.0]))

    @tj.function
    def f(x):
        return np.sum(v * u * x)

    x = np.array([1.0, -1.0])
    with eagerly(eager):
        with tj.GradientTape(watch_accessed_variables=False) as tape:
            out = f(x)
        assert tape.gradient(out, [v, u]) == [None, None]
        assert tape.watched_variables() == ()

        with tj.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(v)
            out = f(x)
        gv, gu = tape.gradient(out, [v, u])
        np.testing.assert_array_equal(gv, u.numpy() * x)
        assert gu is None

        with tj.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
            out = f(x)
            tape.watch(u)  # after the call, as in TensorFlow: that call is not seen
            out2 = f(2 * x)
        assert tape.gradient(out, u) is None
        np.testing.assert_array_equal(tape.gradient(out2, u), v.numpy() * 2 * x)


@pytest.mark.parametrize("eager", [False, True], ids=["compiled", "eager"])
def test_non_trainable_variables_get_none_unless_watched(eager):
    v = tj.Variable(np.array([1.0, 2.0]))
    frozen = tj.Variable(np.array([3.0, 4.0]), trainable=False)

    @tj.function
    def f(x):
        return np.sum(v * frozen * x)

    x = np.array([1.0, 2.0])
    with eagerly(eager):
        _, (gv, gf) = tape_gradients(lambda: f(x), [v, frozen])
        assert gf is None
        np.testing.assert_array_equal(gv, frozen.numpy() * x)
        with tj.GradientTape() as tape:
            tape.watch(frozen)
            out = f(x)
        np.testing.assert_array_equal(tape.gradient(out, frozen), v.numpy() * x)
        with tj.GradientTape() as tape:
            out = f(x)
        zeros = tape.gradient(out, frozen, unconnected_gradients="zero")
        np.testing.assert_array_equal(zeros, [0.0, 0.0])


@pytest.mark.parametrize("eager", [False, True], ids=["compiled", "eager"])
def test_integer_variables_get_none_with_tensorflows_warning(eager):
    w = tj.Variable(np.array([0.5, 1.5]))
    n = tj.Variable(np.array([2, 3]))  # trainable, as tf.Variable([2, 3]) is

    @tj.function
    def f(x):
        return np.sum(w * n * x)

    x = np.array([1.0, 2.0])
    with eagerly(eager):
        with tj.GradientTape(persistent=True) as tape:
            first = f(x)
            second = f(x)  # two reads of the integer Variable: still one None
        with pytest.warns(UserWarning, match="source tensor must be floating.*int64"):
            gw, gn = tape.gradient([first, second], [w, n])
        np.testing.assert_array_equal(gw, 2 * n.numpy() * x)
        assert gn is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # only integer sources warn
            np.testing.assert_array_equal(tape.gradient(first, w), n.numpy() * x)
        assert n in tape.watched_variables()  # watched as TF watches it, yet no gradient


# --- tapes: nested, persistent, stopped -----------------------------------------------------
def test_nested_and_persistent_tapes_each_see_the_call():
    v = tj.Variable(np.array([0.5, -1.0]))

    @tj.function
    def f(x):
        return np.sum(np.sin(v) * x)

    x = np.array([2.0, 3.0])
    with tj.GradientTape(persistent=True) as outer:
        with tj.GradientTape() as inner:
            out = f(x)
        later = f(2 * x)  # only the outer tape is open
    expected = np.cos(v.numpy()) * x
    np.testing.assert_allclose(inner.gradient(out, v), expected)
    np.testing.assert_allclose(outer.gradient(out, v), expected)
    np.testing.assert_allclose(outer.gradient(out, v), expected)  # persistent: again
    np.testing.assert_allclose(outer.gradient([out, later], v), 3 * expected)


def test_a_call_under_stop_recording_is_not_recorded():
    v = tj.Variable(2.0)

    @tj.function
    def f(x):
        return v * x

    with tj.GradientTape() as tape, tape.stop_recording():
        out = f(np.float64(3.0))
    with pytest.raises(ValueError, match="not computed by a tj.function"):
        tape.gradient(out, v)


# --- Variables passed, written, changed between calls ---------------------------------------
@pytest.mark.parametrize("eager", [False, True], ids=["compiled", "eager"])
def test_a_variable_passed_as_argument_and_captured(eager):
    w = tj.Variable(np.array([1.0, 2.0, 3.0]))

    @tj.function
    def f(a, x):
        return np.sum(a * w * x) + np.sum(np.exp(a))

    x = np.array([0.5, -1.0, 2.0])
    with eagerly(eager):
        _, (g,) = tape_gradients(lambda: f(w, x), [w])
    # d/dw sum(w^2 x) + sum(exp w): both reads are the same Variable
    np.testing.assert_allclose(g, 2 * w.numpy() * x + np.exp(w.numpy()))
    np.testing.assert_allclose(g, numeric_variable_gradients(lambda: f(w, x), [w])[0],
                               rtol=1e-6)


@pytest.mark.parametrize("eager", [False, True], ids=["compiled", "eager"])
def test_variables_assigned_in_the_call(eager):
    """The gradient is of the values the call read (the accumulator's read after its
    assign_add: d/dacc sum(acc'^2) = 2 acc', as in TensorFlow), and taking it does not run
    the call's writes again."""
    acc = tj.Variable(np.array([1.0, 1.0]))
    w = tj.Variable(np.array([0.5, 2.0]))

    @tj.function
    def step(x):
        acc.assign_add(x)
        return np.sum(acc * acc) + np.sum(w * x)

    x1, x2 = np.array([1.0, 2.0]), np.array([-3.0, 0.5])
    with eagerly(eager):
        with tj.GradientTape() as tape:
            first = step(x1)
            second = step(x2)
        after = acc.numpy()
        g_acc, g_w = tape.gradient([first, second], [acc, w])
    np.testing.assert_array_equal(acc.numpy(), after)  # not written again
    np.testing.assert_array_equal(after, [1.0 + 1.0 - 3.0, 1.0 + 2.0 + 0.5])
    np.testing.assert_allclose(g_acc, 2 * (np.array([1.0, 1.0]) + x1)
                               + 2 * (np.array([1.0, 1.0]) + x1 + x2))
    np.testing.assert_allclose(g_w, x1 + x2)


def test_a_variable_changed_between_two_calls():
    w = tj.Variable(np.array([0.2, -0.4]))

    @tj.function
    def f(x):
        return np.sum(np.sin(w) * x)

    x = np.array([1.0, 3.0])
    w0 = w.numpy()
    with tj.GradientTape() as tape:
        first = f(x)
        w.assign([1.0, 2.0])  # eagerly, between the calls
        second = f(x)
    np.testing.assert_allclose(tape.gradient([first, second], w),
                               np.cos(w0) * x + np.cos([1.0, 2.0]) * x)


def test_a_method_traced_for_two_shapes():
    model = Dense(3, 2, np.random.default_rng(5))
    small, large = np.ones((1, 3)), np.ones((4, 3))
    with tj.GradientTape(persistent=True) as tape:
        a = mse(model(small), 0.0)
        b = mse(model(large), 0.0)
    ga = tape.gradient(a, [model.w, model.b])
    gb = tape.gradient(b, [model.w, model.b])
    assert_gradients(ga, gb, rtol=1e-12)  # the same rows, averaged
    assert_gradients(
        ga, numeric_variable_gradients(lambda: mse(model(small), 0.0), [model.w, model.b],
                                       state=[model.calls]),
    )


def test_eager_jacobian_with_respect_to_a_captured_variable():
    v = tj.Variable(np.array([1.0, 2.0]))

    @tj.function
    def f(x):
        return v * v * x

    x = np.array([3.0, 4.0])
    with tj.GradientTape() as tape:
        y = f(x)
    np.testing.assert_allclose(tape.jacobian(y, v), np.diag(2 * v.numpy() * x))


@pytest.mark.parametrize("eager", [False, True], ids=["compiled", "eager"])
def test_an_argument_the_call_writes_is_differentiated_at_its_value_before(eager):
    w = tj.Variable(np.array([0.5, 2.0]))

    @tj.function
    def f(x, counts):
        out = np.sum(w * x * counts)
        counts += 1  # NumPy semantics: the caller's array changes
        return out

    x, counts = np.array([1.0, 3.0]), np.array([1.0, 2.0])
    with eagerly(eager):
        with tj.GradientTape() as tape:
            tape.watch(x)
            out = f(x, counts)
        gx, gw = tape.gradient(out, [x, w])
    np.testing.assert_array_equal(counts, [2.0, 3.0])  # written once, by the call
    np.testing.assert_array_equal(gx, w.numpy() * [1.0, 2.0])
    np.testing.assert_array_equal(gw, x * [1.0, 2.0])
