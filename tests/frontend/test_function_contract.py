"""tf.function's tracing contract (issue 4), with the API page's and the guide's
examples translated to NumPy."""

import functools
import gc
import threading
import warnings
from collections import namedtuple

import numpy as np
import pytest

import tracejit as tj
from tracejit.frontend.staging.tracing import is_tracing


def i32(values):
    return np.array(values, dtype=np.int32)


# --- 1. cache keys -----------------------------------------------------------------------
def test_double_tracing_sequence_from_the_guide(check_against_eager):
    @tj.function
    def double(a):
        return a + a

    check_against_eager(double, i32(1))
    check_against_eager(double, np.float32(1.1))
    assert double.experimental_get_tracing_count() == 2
    double(1)
    double(2)
    assert double.experimental_get_tracing_count() == 4  # Python values are part of the key
    double(np.int32(1))  # a NumPy scalar is a tensor input, immutable unlike i32(1)'s 0-d
    double(np.int32(7))  # array (`y = a; y += 1` writes an array): one more trace, for both
    assert double.experimental_get_tracing_count() == 5


def test_keywords_and_defaults_share_one_trace():
    @tj.function
    def f(x, b=2):
        return x * b

    x = np.ones(3)
    f(x, 2)
    f(x, b=2)
    f(x)
    assert f.experimental_get_tracing_count() == 1
    f(x, 3)
    assert f.experimental_get_tracing_count() == 2


def test_structures_are_part_of_the_key(check_against_eager):
    Pair = namedtuple("Pair", "a b")

    @tj.function
    def f(pair, items, mapping):
        return pair.a + pair.b + items[0] * mapping["k"]

    x = np.ones(2)
    check_against_eager(f, Pair(x, x), [x, 3], {"k": x})
    f(Pair(x, x), [x, 3], {"k": x})
    f(Pair(x, x), (x, 3), {"k": x})  # a tuple where a list was: new structure
    assert f.experimental_get_tracing_count() == 2


def test_objects_are_keyed_by_identity_and_held_weakly():
    class Model:
        def __init__(self, scale):
            self.scale = scale

    @tj.function
    def evaluate(model, x):
        return x * model.scale

    x = np.ones(2)
    first = Model(2.0)
    np.testing.assert_array_equal(evaluate(first, x), [2.0, 2.0])
    first.scale = 3.0  # the documented pitfall: mutating the same object does not retrace
    np.testing.assert_array_equal(evaluate(first, x), [2.0, 2.0])
    np.testing.assert_array_equal(evaluate(Model(3.0), x), [3.0, 3.0])
    assert evaluate.experimental_get_tracing_count() == 2
    del first
    gc.collect()
    assert len(evaluate._cache) <= 1  # the dead objects' traces were dropped


def test_separate_functions_never_share_traces():
    def g(x):
        return x + 1

    a, b = tj.function(g), tj.function(g)
    a(np.ones(2))
    b(np.ones(2))
    assert a.experimental_get_tracing_count() == b.experimental_get_tracing_count() == 1


# --- 2. ConcreteFunction ------------------------------------------------------------------
def test_get_concrete_function_identity_rules():
    @tj.function
    def f(x):
        return x + 1

    assert f.get_concrete_function(1) is not f.get_concrete_function(2)
    assert f.get_concrete_function(i32([1, 2])) is f.get_concrete_function(i32([3, 4]))
    spec = tj.TensorSpec([2], tj.int32)
    assert f.get_concrete_function(spec) is f.get_concrete_function(i32([5, 6]))
    assert f.experimental_get_tracing_count() == 3


def test_concrete_function_signature_and_calls():
    @tj.function
    def double(a):
        return a + a

    concrete = double.get_concrete_function(tj.TensorSpec([], tj.float32))
    args, kwargs = concrete.structured_input_signature
    assert args == (tj.TensorSpec((), tj.float32, name="a"),) and kwargs == {}
    assert concrete.structured_outputs == tj.TensorSpec((), tj.float32)
    assert concrete(np.float32(2)) == np.float32(4)
    assert concrete(a=np.float32(3)) == np.float32(6)
    text = concrete.pretty_printed_signature()
    assert "a (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(), dtype=float32" in text
    with pytest.raises(tj.errors.InvalidArgumentError):
        concrete(np.int32(1))
    with pytest.raises(tj.errors.InvalidArgumentError):
        concrete(np.ones(2, np.float32))


def test_pretty_printed_concrete_signatures_lists_every_trace():
    @tj.function
    def my_relu(x):
        return np.maximum(0.0, x)

    my_relu(np.float32(5.5))
    my_relu([1, -1])
    my_relu(np.array([3.0, -3.0], np.float32))
    text = my_relu.pretty_printed_concrete_signatures()
    assert text.count("Input Parameters:") == 3
    assert "List[Literal[1], Literal[-1]]" in text
    assert "TensorSpec(shape=(2,), dtype=float32" in text


def test_concrete_function_rejects_a_different_python_value():
    @tj.function
    def pow_(a, b):
        return a**b

    square = pow_.get_concrete_function(a=tj.TensorSpec([], tj.float32), b=2)
    assert square(np.float32(3)) == np.float32(9)
    assert square(np.float32(3), 2) == np.float32(9)
    with pytest.raises(
        TypeError,
        match=r"constructed with int value 2 in b, but was called "
        r"with int value 3",
    ):
        square(np.float32(10), b=3)


# --- 3. input_signature ---------------------------------------------------------------------
def test_input_signature_converts_python_values_and_traces_once(check_against_eager):
    @tj.function(input_signature=(tj.TensorSpec([3], tj.int32),))
    def f(x):
        return x * 2

    check_against_eager(f, i32([1, 2, 3]))
    out = f([4, 5, 6])
    assert out.dtype == np.int32 and list(out) == [8, 10, 12]
    assert f.experimental_get_tracing_count() == 1
    assert f.input_signature == (tj.TensorSpec([3], tj.int32),)


def test_input_signature_errors_from_the_guide():
    @tj.function(input_signature=(tj.TensorSpec(shape=[2], dtype=tj.int32),))
    def next_collatz(x):
        return x * 3 + 1

    with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
        next_collatz(i32([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="Python inputs incompatible with input_signature"):
        next_collatz(np.array([1.0, 2.0], np.float32))
    with pytest.raises(ValueError, match="Python inputs incompatible"):
        next_collatz([1.5, 2.5])


def test_input_signature_is_validated_at_decoration_time():
    with pytest.raises(TypeError, match="only tj.TensorSpec"):
        tj.function(input_signature=(np.ones(2),))(lambda x: x)
    with pytest.raises(TypeError, match=r"\*\*kwargs"):
        tj.function(input_signature=(tj.TensorSpec([2]),))(lambda x, **kw: x)


def test_nested_input_signature():
    sig = ((tj.TensorSpec([2], tj.float64), tj.TensorSpec([2], tj.float64)),)

    @tj.function(input_signature=sig)
    def f(pair):
        return pair[0] - pair[1]

    np.testing.assert_array_equal(f((np.ones(2), np.zeros(2))), [1.0, 1.0])
    np.testing.assert_array_equal(f([[3.0, 3.0], [1.0, 2.0]]), [2.0, 1.0])
    assert f.experimental_get_tracing_count() == 1


# --- 6. type hints --------------------------------------------------------------------------
def test_follow_type_hints():
    @tj.function(experimental_follow_type_hints=True)
    def with_hints(x: tj.Tensor):
        return x + 1

    @tj.function(experimental_follow_type_hints=False)
    def no_hints(x: tj.Tensor):
        return x + 1

    for value in (1, 2):
        assert with_hints(value) == value + 1
        assert no_hints(value) == value + 1
    assert with_hints.experimental_get_tracing_count() == 1
    assert no_hints.experimental_get_tracing_count() == 2


# --- 7. methods and callables ---------------------------------------------------------------
def test_methods_trace_per_instance():
    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        @tj.function
        def scale(self, x):
            return x * self.factor

        @tj.function
        def __call__(self, x):
            return x + self.factor

    a, b = Scaler(2.0), Scaler(10.0)
    x = np.ones(3)
    np.testing.assert_array_equal(a.scale(x), 2 * x)
    np.testing.assert_array_equal(b.scale(x), 10 * x)
    np.testing.assert_array_equal(a(x), x + 2)
    np.testing.assert_array_equal(b(x), x + 10)
    assert Scaler.scale.experimental_get_tracing_count() == 2
    concrete = a.scale.get_concrete_function(x)
    np.testing.assert_array_equal(concrete(x), 2 * x)


def test_partial_and_callable_objects():
    def affine(x, w, b):
        return x * w + b

    f = tj.function(functools.partial(affine, w=3.0))
    np.testing.assert_array_equal(f(np.ones(2), b=1.0), [4.0, 4.0])

    class Callable:
        def __call__(self, x):
            return x - 1

    g = tj.function(Callable())
    np.testing.assert_array_equal(g(np.ones(2)), [0.0, 0.0])


def test_wraps_metadata():
    def documented(x):
        """Doubles x."""
        return x * 2

    f = tj.function(documented)
    assert f.__name__ == "documented" and f.__doc__ == "Doubles x."
    assert f.__wrapped__ is documented and f.python_function is documented


# --- 8. nested Functions ---------------------------------------------------------------------
def test_nested_function_is_traced_into_the_caller(check_against_eager):
    @tj.function
    def inner(x, k):
        return np.tanh(x) * k

    @tj.function
    def outer(x):
        return inner(x, 2.0) + inner(x + 1, 3.0)

    x = np.linspace(-1, 1, 5)
    check_against_eager(outer, x, rtol=1e-12)
    concrete = outer.get_concrete_function(x)
    traced = str(concrete.graph)
    assert traced.count("func.call @inner") == 2
    assert "func.call" not in concrete.ir(after="inline")


# --- 9. retracing warning --------------------------------------------------------------------
def test_retracing_warning_names_the_function_and_the_cause():
    @tj.function
    def shifty(x):
        return x + 1

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 7):
            shifty(np.ones(n))
    messages = [str(w.message) for w in caught if issubclass(w.category, tj.RetracingWarning)]
    assert len(messages) == 1
    assert "5 out of the last 5 calls to shifty" in messages[0]
    assert "a new shape ((4,) -> (5,)) in argument 'x'" in messages[0]


def test_python_value_retracing_cause():
    @tj.function
    def add(x, n):
        return x + n

    with pytest.warns(tj.RetracingWarning, match="a new Python value"):
        for n in range(6):
            add(np.ones(2), n)


# --- 10. eager switch ---------------------------------------------------------------------------
def test_eager_mode_runs_python_every_call():
    calls = []

    @tj.function
    def f(x):
        calls.append(is_tracing())
        return x * 2

    tj.config.run_functions_eagerly(True)
    try:
        f(np.ones(2))
        f(np.ones(2))
    finally:
        tj.config.run_functions_eagerly(False)
    assert calls == [False, False] and f.experimental_get_tracing_count() == 0


# --- 11. experimental_implements ---------------------------------------------------------------
def test_experimental_implements_is_recorded():
    f = tj.function(lambda x: x + 1, experimental_implements="embedded.add_one")
    concrete = f.get_concrete_function(np.ones(2))
    assert 'tj.implements = "embedded.add_one"' in str(concrete.graph)


def test_deprecated_aliases_warn():
    with pytest.warns(DeprecationWarning, match="reduce_retracing"):
        tj.function(lambda x: x, experimental_relax_shapes=True)
    with pytest.warns(DeprecationWarning, match="jit_compile"):
        tj.function(lambda x: x, experimental_compile=True)


# --- 12. threads ---------------------------------------------------------------------
def test_concurrent_first_calls_trace_each_signature_once():
    @tj.function
    def f(x):
        return x * 2 + 1

    shapes = [(2,), (3,), (2, 2)]
    errors = []

    def worker(seed):
        try:
            for i in range(20):
                x = np.full(shapes[(seed + i) % 3], float(seed))
                np.testing.assert_array_equal(f(x), x * 2 + 1)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and not any(t.is_alive() for t in threads)
    assert f.experimental_get_tracing_count() == 3
