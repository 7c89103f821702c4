"""Gradients (frontend/autodiff/): every adjoint against central finite differences in
float64, the GradientTape API inside and outside tj.function, tj.grad/value_and_grad, and
the optimizers against their update rules written out in NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tracejit as tj
from tests.conftest import answers_with_user_defaults, run_eagerly
from tests.gradient_checks import check_gradient, numeric_gradient
from tracejit.frontend.autodiff import NotDifferentiableError

RNG = np.random.default_rng(0)


# --- element-wise ------------------------------------------------------------------------
UNARY = {  # op -> a domain where it is smooth
    np.exp: (-2, 2),
    np.expm1: (-2, 2),
    np.exp2: (-2, 2),
    np.log: (0.5, 3),
    np.log1p: (-0.5, 3),
    np.log2: (0.5, 3),
    np.log10: (0.5, 3),
    np.sqrt: (0.5, 3),
    np.cbrt: (0.5, 3),
    np.abs: (0.2, 2),
    np.sin: (-3, 3),
    np.cos: (-3, 3),
    np.tan: (-1, 1),
    np.arcsin: (-0.8, 0.8),
    np.arccos: (-0.8, 0.8),
    np.arctan: (-3, 3),
    np.sinh: (-2, 2),
    np.cosh: (-2, 2),
    np.tanh: (-2, 2),
    np.arcsinh: (-2, 2),
    np.arccosh: (1.5, 3),
    np.arctanh: (-0.8, 0.8),
    np.negative: (-2, 2),
    np.square: (-2, 2),
    np.reciprocal: (0.5, 2),
}
SHAPES = st.sampled_from([(), (3,), (2, 3), (0,), (1, 4)])


@settings(max_examples=2, deadline=None)
@given(shape=SHAPES)
@pytest.mark.parametrize("ufunc", list(UNARY), ids=lambda u: u.__name__)
def test_unary_gradient(ufunc, shape):
    low, high = UNARY[ufunc]
    x = RNG.uniform(low, high, shape)
    if ufunc is np.abs:
        x *= np.sign(RNG.uniform(-1, 1, x.shape))
    check_gradient(ufunc, x)


BINARY = {
    np.add: None,
    np.subtract: None,
    np.multiply: None,
    np.divide: (0.5, 2),
    np.power: (0.5, 2),
    np.hypot: (0.5, 2),
    np.arctan2: (0.5, 2),
    np.maximum: None,
    np.minimum: None,
    np.fmax: None,
    np.fmin: None,
}


@settings(max_examples=4, deadline=None)
@given(shapes=st.sampled_from([((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 3)), ((), (2,))]))
@pytest.mark.parametrize("ufunc", list(BINARY), ids=lambda u: u.__name__)
def test_binary_gradient_with_broadcasting(ufunc, shapes):
    low, high = BINARY[ufunc] or (-2, 2)
    x, y = (RNG.uniform(low, high, s) for s in shapes)
    check_gradient(ufunc, x, y, argnums=(0, 1))


@pytest.mark.parametrize("exponent", [0.5, -1.0, 2.0, 0.3])
@pytest.mark.parametrize("shape", [(), (1,)], ids=["0-d", "size-1"])
def test_power_gradient_at_numpys_shortcut_exponents(exponent, shape):
    """NumPy computes x ** y, for one exponent y of 0.5, -1 or 2, as sqrt(x), 1 / x or
    x * x. The gradient is pow's all the same: d/dy is x ** y * log(x), not 0."""
    x = np.array([2.0, 3.0, 0.5])
    y = np.full(shape, exponent)
    check_gradient(np.power, x, y, argnums=(0, 1))
    grads = tj.grad(lambda x, y: np.sum(x**y), argnums=(0, 1))
    for got, want in zip(grads(x, y), run_eagerly(grads, x, y), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(grads(x, y)[1], np.sum(x**y * np.log(x)), rtol=1e-12)


@pytest.mark.parametrize("exponent", [0.5, -1.0, 2.0])
def test_second_derivative_in_the_exponent_at_a_shortcut(exponent):
    x = np.array([2.0, 3.0, 0.5])
    second = tj.grad(tj.grad(lambda y: np.sum(x**y)))(np.float64(exponent))
    np.testing.assert_allclose(second, np.sum(x**exponent * np.log(x) ** 2), rtol=1e-12)


def test_power_gradient_at_a_shortcut_with_the_defaults_users_get():
    x = np.array([2.0, 3.0, 0.5])
    for got in answers_with_user_defaults(lambda y: np.sum(x**y), np.float64(0.5), make=tj.grad):
        np.testing.assert_allclose(got, np.sum(np.sqrt(x) * np.log(x)), rtol=1e-12)


def test_get_concrete_function_of_a_gradient_finds_the_calls_trace():
    """A Python float or a NumPy float64 (a float subclass) to differentiate is a 0-d array
    in calls and in get_concrete_function alike: one trace serves both."""
    f = tj.grad(lambda y: np.sum(np.array([2.0, 3.0]) ** y))
    for y in (0.5, np.float64(0.5), np.array(0.5)):
        f(y)
        f.get_concrete_function(y)
    assert f.experimental_get_tracing_count() == 1


def test_maximum_gives_ties_to_its_first_operand_like_tf():
    x = np.array([1.0, 2.0, 3.0])
    gx, gy = tj.grad(lambda a, b: np.sum(np.maximum(a, b)), argnums=(0, 1))(x, x.copy())
    np.testing.assert_array_equal(gx, [1, 1, 1])
    np.testing.assert_array_equal(gy, [0, 0, 0])


def test_where_and_mixed_dtypes():
    def f(x, y):
        return np.where(x > 0, x * y, np.float32(2) * x).astype(np.float64) + y

    x = np.array([-1.0, 0.5, 2.0], np.float32)
    y = np.array([3.0, 4.0, 5.0], np.float32)
    gx, gy = tj.grad(lambda a, b: np.sum(f(a, b)), argnums=(0, 1))(x, y)
    assert gx.dtype == np.float32 and gy.dtype == np.float32
    np.testing.assert_allclose(gx, [2, 4, 5])
    np.testing.assert_allclose(gy, [1, 1.5, 3])


def test_no_gradient_through_floor_and_none_into_integers():
    g = tj.grad(lambda x, n: np.sum(x * n + np.floor(x)))(np.array([1.5, 2.5]), np.array([2, 3]))
    np.testing.assert_array_equal(g, [2, 3])
    with pytest.raises(TypeError, match="float arguments only"):
        tj.grad(lambda x, n: np.sum(x * n), argnums=1)(np.array([1.5]), np.array([2]))


# --- reductions, matmul, shapes ----------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(shape=SHAPES, axis=st.sampled_from([None, 0, -1]), keepdims=st.booleans())
def test_sum_and_mean_gradient(shape, axis, keepdims):
    if axis is not None and len(shape) == 0:
        axis = None
    x = RNG.standard_normal(shape)
    w = RNG.standard_normal(np.sum(x, axis=axis, keepdims=keepdims).shape)
    check_gradient(lambda a: np.sum(a, axis=axis, keepdims=keepdims) * w, x)
    if x.size:
        check_gradient(lambda a: np.mean(a, axis=axis, keepdims=keepdims) * w, x)


def test_max_reduction_splits_among_ties():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 0.0, -1.0]])
    g = tj.grad(lambda a: np.sum(np.max(a, axis=1)))(x)
    np.testing.assert_array_equal(g, [[0, 0.5, 0.5], [1, 0, 0]])
    g = tj.grad(lambda a: np.min(a))(x)
    np.testing.assert_array_equal(g, [[0, 0, 0], [0, 0, 1]])


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [1.0, 0.0, 3.0], [0.0, 0.0, 2.0]])
def test_prod_gradient_with_zeros(x):
    x = np.array(x)
    expected = [np.prod(np.delete(x, i)) for i in range(3)]
    np.testing.assert_allclose(tj.grad(lambda a: np.prod(a))(x), expected)


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 4), (4, 2)),
        ((4,), (4, 2)),
        ((3, 4), (4,)),
        ((4,), (4,)),
        ((2, 3, 4), (4, 5)),
        ((2, 3, 4), (2, 4, 5)),
        ((1, 3, 4), (2, 4, 2)),
    ],
)
def test_matmul_gradient(shapes):
    a, b = (RNG.standard_normal(s) for s in shapes)
    check_gradient(lambda x, y: x @ y, a, b, argnums=(0, 1))


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x[1:, ::-2] * 3,
        lambda x: x.T @ np.ones(3),
        lambda x: np.reshape(x, (6, 4))[::2],
        lambda x: np.concatenate([x, x[:1] * 2], axis=0),
        lambda x: np.pad(x, ((1, 0), (2, 1))) ** 2,
        lambda x: np.broadcast_to(x[:, :1], (3, 8)) * np.arange(8.0),
        lambda x: x[2] * x[:, 3].sum(),
    ],
)
def test_shape_op_gradients(f):
    check_gradient(f, RNG.standard_normal((3, 8)))


@pytest.mark.parametrize(
    "f",
    [
        lambda x: np.sort(x, axis=1) * np.arange(8.0),
        lambda x: np.sort(x, axis=0)[-1] ** 2,
        lambda x: np.sort(x, axis=None)[:5] * 3,
        lambda x: np.cumsum(x, axis=1) * np.arange(8.0),
        lambda x: np.cumsum(x * x, axis=0)[-1],
        lambda x: np.cumsum(x)[::3],
    ],
    ids=["sort_rows", "sort_columns", "sort_flat", "cumsum_rows", "cumsum_columns", "cumsum_flat"],
)
def test_sort_and_cumsum_gradients(f):
    """np.sort sends each cotangent back where its value came from; np.cumsum's is the sum
    of the cotangents from that position on (compiled and eager against finite
    differences)."""
    x = RNG.standard_normal((3, 8))
    check_gradient(f, x)
    grad = tj.grad(lambda x: np.sum(f(x)))
    np.testing.assert_allclose(grad(x), run_eagerly(grad, x), rtol=1e-12)


def test_scans_without_a_rule_are_refused_naming_their_kind():
    with pytest.raises(NotDifferentiableError, match=r"test_gradients.py:\d+: .*cumulative prod"):
        tj.grad(lambda x: np.sum(np.cumprod(x)))(np.ones(3))


def test_element_reads_in_an_unrolled_loop():
    def f(x):
        total = 0.0
        for i in range(5):  # short: unrolled (a staged loop is refused, see below)
            total = total + x[i] * x[i]
        return total

    x = RNG.standard_normal(5)
    np.testing.assert_allclose(tj.grad(f)(x), 2 * x, rtol=1e-12)


def _set_slice(x):
    a = x * 2.0
    a[1:3] = x[:2] ** 2
    return a * np.arange(6.0)


def _set_index_array(x):
    a = x * 1.0
    a[np.array([0, 4, 0])] = x[:3] * 3.0  # position 0 written twice: the last write wins
    return a * np.arange(1.0, 7.0)


def _augmented_index_array(x):
    a = np.zeros(6)
    a[np.array([1, 1, 3])] += x[:3]  # NumPy's `+=` on repeats: the last one wins too
    return a * x


@pytest.mark.parametrize(
    "f",
    [
        lambda x: x[np.array([0, 2, 2, -1])] * np.arange(4.0),  # repeated indices add up
        lambda x: np.take(x.reshape(2, 3), np.array([2, 0, 2]), axis=1) ** 2,
        lambda x: x[x > 0] ** 2,
        _set_slice,
        _set_index_array,
        _augmented_index_array,
    ],
)
def test_indexing_and_update_gradients(f):
    check_gradient(f, RNG.standard_normal(6))


# --- the tape ----------------------------------------------------------------------------
def test_tape_inside_function_with_nested_sources_and_output_gradients():
    @tj.function
    def f(x, y):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            z = x * y + np.sin(x)
        first = tape.gradient(z, {"x": x, "y": y}, output_gradients=np.float64(2.0) * y)
        second = tape.gradient(z, x)
        return first, second

    x, y = np.array([0.5, 1.0]), np.array([2.0, -3.0])
    first, second = f(x, y)
    np.testing.assert_allclose(first["x"], 2 * y * (y + np.cos(x)))
    np.testing.assert_allclose(first["y"], 2 * y * x)
    np.testing.assert_allclose(second, y + np.cos(x))


def test_unwatched_unconnected_and_stopped():
    @tj.function
    def f(x, y):
        with tj.GradientTape(persistent=True) as tape:
            tape.watch(x)
            with tape.stop_recording():
                hidden = x * 10.0
            z = x * 2.0 + hidden + y
        return (tape.gradient(z, [x, y]), tape.gradient(z, [x, y], unconnected_gradients="zero"))

    (gx, gy), (zx, zy) = f(np.ones(2), np.ones(2))
    np.testing.assert_array_equal(gx, [2, 2])
    assert gy is None
    np.testing.assert_array_equal(zy, [0, 0])


def test_non_persistent_tape_refuses_a_second_gradient():
    @tj.function
    def f(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.gradient(y, x)
        return tape.gradient(y, x)

    with pytest.raises(RuntimeError, match="non-persistent"):
        f(np.ones(2))


def test_variables_are_watched_when_read_and_writes_chain():
    v = tj.Variable(np.array([1.0, 2.0]))
    frozen = tj.Variable(np.array([3.0, 4.0]), trainable=False)

    @tj.function
    def f(x):
        with tj.GradientTape() as tape:
            v.assign(v * x)  # the next read sees the written value
            loss = np.sum(v * frozen)
        return tape.gradient(loss, [v, frozen])

    gv, gf = f(np.array([2.0, 3.0]))
    np.testing.assert_array_equal(gv, [6.0, 12.0])  # d/dv0 of (v*x)*frozen
    assert gf is None  # not trainable, not watched


def test_watch_accessed_variables_false():
    v = tj.Variable(2.0)

    @tj.function
    def f():
        with tj.GradientTape(watch_accessed_variables=False) as tape:
            y = v * v
        return tape.gradient(y, v)

    assert f() is None


def test_eager_tape_records_function_calls():
    """The guide's example: a tape outside, a tj.function inside."""
    v = tj.Variable(1.0)

    @tj.function
    def add(a, b):
        return a + b

    with tj.GradientTape() as tape:
        result = add(v, 1.0)
    assert tape.gradient(result, v) == 1.0

    @tj.function
    def square(x):
        return x * x

    x = np.array([1.0, 2.0, 3.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = square(x)
        z = add(y, x)
    np.testing.assert_array_equal(tape.gradient(z, x), 2 * x + 1)
    with tj.GradientTape() as tape:
        w = np.sin(x)  # plain NumPy: not recorded
    with pytest.raises(ValueError, match="not computed by a tj.function"):
        tape.gradient(w, x)


def test_jacobian():
    @tj.function
    def f(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x)

    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [[2, 0], [0, 4]])


def test_eager_jacobian_of_a_function_call():
    @tj.function
    def square(x):
        return x * x

    x = np.array([1.0, 2.0, 3.0])
    with tj.GradientTape() as tape:
        tape.watch(x)
        y = square(x)
    np.testing.assert_array_equal(tape.jacobian(y, x), np.diag(2 * x))


def test_nested_function_calls_are_differentiated():
    @tj.function
    def inner(x):
        return np.exp(x) * 2.0

    x = np.array([0.0, 1.0])
    np.testing.assert_allclose(tj.grad(lambda a: np.sum(inner(a) + a))(x), 2 * np.exp(x) + 1)


def _branchy(x, y):
    if np.sum(x) > 0:
        z = np.sin(x) * y
        if np.max(y) > 1:
            z = z * y
    else:
        z = x * 3.0
    return np.sum(z * z)


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("scale", [0.5, 2.0])
def test_staged_if_gradient(sign, scale):
    x, y = sign * np.array([0.5, 1.0]), scale * np.array([1.0, -0.5])
    check_gradient(_branchy, x, y, argnums=(0, 1))


def _if_with_int_and_bool_results(x):
    if np.sum(x) > 0:
        y, n, flag = x * 2.0, np.int64(1), np.sum(x) > 3
    else:
        y, n, flag = x * 3.0, np.int64(2), np.sum(x) > -3
    return y * n + flag


def test_staged_if_with_integer_and_bool_results():
    """Only the float results of an if carry cotangents (the fuzzer's finding)."""
    check_gradient(_if_with_int_and_bool_results, np.array([0.5, 1.0]))
    check_gradient(_if_with_int_and_bool_results, np.array([-0.5, -1.0]))


def test_staged_index_loop_gradient():
    def f(x, w):
        total = 0.0
        for i in range(40):  # an index loop: staged as tj.while
            total = total + np.sin(x[i]) * w * x[(i + 1) % 40]
        return total

    x, w = np.linspace(-1, 1, 40), np.float64(1.5)
    check_gradient(f, x, w, argnums=(0, 1))


@pytest.mark.parametrize("start", [[2.0, 1.5], [0.2, 0.3], [5.0, -1.0]])
def test_staged_while_gradient(start):
    """The guide's `while sum(x) > 1: x = tanh(x)`, iterating 0 or more times."""

    def f(x):
        while np.sum(x) > 1:
            x = np.tanh(x)
        return np.sum(x * x)

    check_gradient(f, np.array(start))


def test_loop_with_unknown_shapes_is_refused_at_the_users_line():
    @tj.function(input_signature=[tj.TensorSpec([None], np.float64)])
    def f(x):
        with tj.GradientTape() as tape:
            tape.watch(x)
            y = x
            while np.sum(y) > 1:
                y = np.tanh(y)
            total = np.sum(y)
        return tape.gradient(total, x)

    with pytest.raises(NotDifferentiableError, match="test_gradients.py:"):
        f(np.ones(3))


# --- grad and value_and_grad -------------------------------------------------------------
def test_grad_of_python_float_and_second_derivative():
    def f(x):
        return np.sin(x) * x

    assert np.isclose(tj.grad(f)(2.0), np.cos(2.0) * 2 + np.sin(2.0))
    assert np.isclose(tj.grad(tj.grad(f))(2.0), 2 * np.cos(2.0) - 2 * np.sin(2.0))
    assert isinstance(tj.grad(f), tj.Function)


def test_hessian_vector_product():
    def f(x):
        return np.sum(np.sin(x) * x**2)

    df = tj.grad(f)

    def along(x, v):
        return np.sum(df(x) * v)

    x, v = np.array([0.3, 1.0, -2.0]), np.array([1.0, 0.5, 2.0])
    diagonal = -np.sin(x) * x**2 + 4 * x * np.cos(x) + 2 * np.sin(x)
    np.testing.assert_allclose(tj.grad(along)(x, v), diagonal * v, rtol=1e-12)


def test_value_and_grad_with_aux_and_argnums():
    def loss(w, x):
        prediction = np.tanh(x @ w)
        return np.mean(prediction**2), prediction

    w, x = RNG.standard_normal((3, 2)), RNG.standard_normal((5, 3))
    (value, aux), (gw, gx) = tj.value_and_grad(loss, argnums=(0, 1), has_aux=True)(w, x)
    np.testing.assert_allclose(value, np.mean(np.tanh(x @ w) ** 2))
    np.testing.assert_allclose(aux, np.tanh(x @ w))
    np.testing.assert_allclose(gw, numeric_gradient(lambda a: loss(a, x)[0], w), rtol=1e-5)
    np.testing.assert_allclose(gx, numeric_gradient(lambda a: loss(w, a)[0], x), rtol=1e-5)


def test_grad_of_a_vector_output_is_refused():
    with pytest.raises(TypeError, match="scalar output"):
        tj.grad(lambda x: x * 2.0)(np.ones(3))


# --- optimizers --------------------------------------------------------------------------
@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, False), (0.9, True)])
def test_sgd_matches_keras_rule(momentum, nesterov):
    w = tj.Variable(np.array([1.0, -2.0]))
    opt = tj.optimizers.SGD(0.1, momentum=momentum, nesterov=nesterov)

    @tj.function
    def step(x):
        with tj.GradientTape() as tape:
            loss = np.sum((w * x - 1.0) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w], strict=False))

    x, expected, velocity = np.array([0.5, 2.0]), np.array([1.0, -2.0]), np.zeros(2)
    for _ in range(4):
        step(x)
        g = 2 * (expected * x - 1) * x
        velocity = momentum * velocity - 0.1 * g
        expected = expected + (momentum * velocity - 0.1 * g if nesterov else velocity)
        np.testing.assert_allclose(w.numpy(), expected, rtol=1e-12)


def test_adam_matches_keras_rule_and_makes_slots_on_the_first_trace_only():
    opt1, opt2 = tj.optimizers.Adam(1e-2), tj.optimizers.Adam(1e-3)

    @tj.function
    def train_step(w, x, y, optimizer):
        with tj.GradientTape() as tape:
            loss = np.sum(np.square(w * x - y))
        gradients = tape.gradient(loss, [w])
        optimizer.apply_gradients(zip(gradients, [w], strict=False))

    w, x, y = tj.Variable(2.0), np.array([-1.0]), np.array([2.0])
    m = v = 0.0
    value = 2.0
    for t in range(1, 4):
        train_step(w, x, y, opt1)
        g = 2 * (value * -1 - 2) * -1
        m += (g - m) * 0.1
        v += (g * g - v) * 0.001
        value -= 1e-2 * np.sqrt(1 - 0.999**t) / (1 - 0.9**t) * m / (np.sqrt(v) + 1e-7)
        assert np.isclose(w.numpy(), value, rtol=1e-12)
    with pytest.raises(ValueError, match="non-first call"):
        train_step(w, x, y, opt2)
    step = tj.function(train_step.python_function).get_concrete_function(w, x, y, opt2)
    step(w, x, y)  # the optimizer argument may be omitted, as in the guide
    assert opt2.iterations.numpy() == 1


def test_optimizers_work_eagerly():
    w = tj.Variable(np.array([1.0, 2.0], np.float32))
    tj.optimizers.SGD(0.5).apply_gradients([(np.array([1.0, -1.0]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.5, 2.5])
    with pytest.raises(ValueError, match="No gradients"):
        tj.optimizers.Adam().apply_gradients([(None, w)])


# --- custom gradients --------------------------------------------------------------------
@tj.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return np.log(1 + e), grad


def test_custom_gradient_replaces_the_functions_own():
    """TF's example: the stable gradient where the plain one is NaN (inf / inf)."""
    x = np.array([0.0, 100.0, 1000.0])
    np.testing.assert_allclose(tj.grad(lambda a: np.sum(log1pexp(a)))(x), [0.5, 1.0, 1.0])
    assert np.isnan(tj.grad(lambda a: np.sum(np.log(1 + np.exp(a))))(x)[2])


def test_custom_gradient_with_two_inputs_and_outputs():
    @tj.custom_gradient
    def pair(x, y):
        def grad(g_sum, g_diff):
            return g_sum + g_diff, g_sum - g_diff

        return (x + y, x - y), grad

    def f(x, y):
        s, d = pair(x, y)
        return np.sum(s * 2.0 + d * 3.0)

    gx, gy = tj.grad(f, argnums=(0, 1))(np.ones(2), np.ones(2))
    np.testing.assert_array_equal(gx, [5, 5])
    np.testing.assert_array_equal(gy, [-1, -1])


def test_py_function_gradient_is_registered_or_refused():
    spec = tj.TensorSpec([2], np.float64)

    def f(x, with_grad):
        grad = (lambda g, x: g * np.cos(x)) if with_grad else None
        return np.sum(tj.py_function(np.sin, [x], Tout=spec, grad=grad) * 2.0)

    x = np.array([0.0, 1.0])
    np.testing.assert_allclose(tj.grad(f)(x, True), 2 * np.cos(x))
    with pytest.raises(NotDifferentiableError, match="tj.py_function.*custom_gradient"):
        tj.grad(f)(x, False)
