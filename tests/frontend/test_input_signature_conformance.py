"""input_signature as tf.function has it: one ConcreteFunction for a spec of unknown rank
(the API page's `f.get_concrete_function(vector) is f.get_concrete_function(matrix)`),
and signatures on methods describing the arguments after `self` (tf.Module's pattern).
Every result is compared with the same function run eagerly in NumPy."""

import gc
import os
import sys
import weakref

import numpy as np
import pytest

import tracejit as tj

DTYPES = [np.int32, np.int64, np.float32, np.float64]
# What these tests check (which ConcreteFunction serves a call, the signature it shows, the
# error it raises) does not depend on the dtype, which only has to flow through each path:
# each test takes one integer and one float dtype, the pairs alternating from test to test
# so that every dtype goes through half of them. TRACEJIT_SLOW=1 gives every test all four.
DTYPE_PAIRS = ([np.int32, np.float64], [np.int64, np.float32])


def dtypes(pair: int) -> list:
    return DTYPES if os.environ.get("TRACEJIT_SLOW") == "1" else DTYPE_PAIRS[pair]

INCOMPATIBLE = "Python inputs incompatible with input_signature"


def data(shape, dtype, seed=0):
    values = np.random.default_rng(seed).uniform(-5, 5, size=shape)
    return np.asarray(values).astype(dtype)


def other_dtype(dtype):
    return np.float64 if dtype != np.float64 else np.int32


def assert_identical(a, b):
    """Compiled results of two paths: same type, dtype, shape and values."""
    assert type(a) is type(b) and a.dtype == b.dtype and np.shape(a) == np.shape(b)
    np.testing.assert_array_equal(a, b)


# --- 9. one ConcreteFunction for a spec of unknown rank --------------------------------------
@pytest.mark.parametrize("dtype", dtypes(0))
def test_unknown_rank_signature_has_one_concrete_function(dtype, check_against_eager):
    def f(x):
        return x * 2 + 1

    g = tj.function(f, input_signature=[tj.TensorSpec(shape=None, dtype=dtype)])
    vector, matrix = data((4,), dtype), data((2, 3), dtype)
    concrete = g.get_concrete_function()
    assert g.experimental_get_tracing_count() == 0  # no rank yet: nothing to trace
    assert g.get_concrete_function(vector) is concrete
    assert g.get_concrete_function(matrix) is concrete
    assert g.get_concrete_function(tj.TensorSpec([None, 5], dtype)) is concrete
    assert g.get_concrete_function() is concrete
    assert g.experimental_get_tracing_count() == 2  # the ranks of vector and matrix, traced
    for x in (vector, matrix, data((), dtype)[()], data((2, 1, 3), dtype), data((7,), dtype)):
        compiled = check_against_eager(g, x)
        assert_identical(concrete(x), compiled)
    # one trace per rank (0, 1, 2, 3): the Python function ran four times
    assert g.experimental_get_tracing_count() == 4


@pytest.mark.parametrize("dtype", dtypes(1))
def test_unknown_rank_concrete_function_shows_its_signature(dtype):
    g = tj.function(lambda x: x - 1, input_signature=[tj.TensorSpec(None, dtype)])
    concrete = g.get_concrete_function()
    spec = tj.TensorSpec(None, dtype, name="x")
    assert concrete.structured_input_signature == ((spec,), {})
    text = concrete.pretty_printed_signature()
    assert f"x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=None, dtype={np.dtype(dtype).name}" in text
    assert concrete.structured_outputs is None and "known once called" in text
    concrete(data((3,), dtype))
    assert concrete.structured_outputs == tj.TensorSpec((None,), dtype)
    concrete(data((3, 2), dtype))
    assert concrete.structured_outputs == tj.TensorSpec(None, dtype)  # the rank varies
    assert g.pretty_printed_concrete_signatures() == concrete.pretty_printed_signature()
    assert "ConcreteFunction <lambda>(x)" in repr(concrete)


@pytest.mark.parametrize("dtype", dtypes(0))
def test_unknown_rank_signature_still_checks_inputs(dtype):
    g = tj.function(lambda x: x * 3, input_signature=[tj.TensorSpec(None, dtype)])
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        g(data((2, 2), other_dtype(dtype)))
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        g.get_concrete_function(tj.TensorSpec(None, other_dtype(dtype)))
    with pytest.raises(tj.errors.InvalidArgumentError):  # a ConcreteFunction does not convert
        g.get_concrete_function()(data((2, 2), other_dtype(dtype)))
    out = g([[1, 2], [3, 4]])  # Python lists are converted to the spec's dtype
    assert out.dtype == dtype and out.shape == (2, 2)
    np.testing.assert_array_equal(out, np.array([[3, 6], [9, 12]], dtype))


@pytest.mark.parametrize("dtype", dtypes(1))
def test_unknown_rank_next_to_known_specs_and_python_values(dtype, check_against_eager):
    @tj.function(input_signature=[tj.TensorSpec(None, dtype), tj.TensorSpec([None], dtype)])
    def f(x, y, scale=2):
        return x * scale + np.sum(y)

    y = data((5,), dtype, seed=1)
    concrete = f.get_concrete_function()
    for x in (data((3,), dtype), data((2, 4), dtype), data((), dtype)[()]):
        check_against_eager(f, x, y)
        check_against_eager(f, x, y, scale=3)
        assert_identical(concrete(x, y), f(x, y))
    # a Python value outside the signature is part of the key: another ConcreteFunction
    tripled = f.get_concrete_function(scale=3)
    assert tripled is not concrete and f.get_concrete_function(scale=3) is tripled
    assert f.get_concrete_function(data((3,), dtype), y) is concrete
    with pytest.raises(TypeError, match="constructed with int value 2 in scale"):
        concrete(data((3,), dtype), y, scale=3)
    assert f.experimental_get_tracing_count() == 6  # ranks 1, 2, 0, each for scale 2 and 3


def test_get_concrete_function_of_an_unknown_rank_spec_is_one_object():
    @tj.function
    def pow_(a, b):
        return a**b

    square = pow_.get_concrete_function(a=tj.TensorSpec(None, tj.float32), b=2)
    assert pow_.get_concrete_function(a=tj.TensorSpec(None, tj.float32), b=2) is square
    assert pow_.get_concrete_function(a=tj.TensorSpec(None, tj.float32), b=3) is not square
    assert pow_.get_concrete_function(a=tj.TensorSpec(None, tj.float64), b=2) is not square
    np.testing.assert_array_equal(square(np.full((2, 2), 3, np.float32)), np.full((2, 2), 9.0))


# --- 10. input_signature on methods ------------------------------------------------------
def affine_class(dtype):
    class Affine:
        def __init__(self, w, b):
            self.w, self.b = w, b

        @tj.function(input_signature=[tj.TensorSpec([None], dtype)])
        def apply(self, x):
            return x * self.w + self.b

        @tj.function(input_signature=[tj.TensorSpec([None, None], dtype)])
        def __call__(self, m):
            return np.sum(m, axis=1) * self.w

        @tj.function(input_signature=[tj.TensorSpec(None, dtype)])
        def shift(self, x, by=1):
            return x + by * self.b

    return Affine


@pytest.mark.parametrize("dtype", dtypes(0))
def test_method_signature_describes_the_arguments_after_self(dtype, check_against_eager):
    Affine = affine_class(dtype)
    a, b = Affine(2, 1), Affine(3, -1)
    for n in (4, 9):
        x = data((n,), dtype, seed=n)
        check_against_eager(a.apply, x)
        check_against_eager(b.apply, x)
        check_against_eager(a.apply, x=x)
    check_against_eager(a, data((3, 2), dtype))  # __call__
    # one trace per instance, whatever the length (the spec's dim is None)
    assert Affine.apply.experimental_get_tracing_count() == 2
    assert Affine.__call__.experimental_get_tracing_count() == 1
    out = a.apply([1, 2, 3])  # Python lists are converted to the spec's dtype
    assert out.dtype == dtype and list(out) == [3, 5, 7]


@pytest.mark.parametrize("dtype", dtypes(1))
def test_method_get_concrete_function_uses_the_signature(dtype):
    Affine = affine_class(dtype)
    a, b = Affine(2, 1), Affine(3, -1)
    concrete = a.apply.get_concrete_function()
    x = data((5,), dtype)
    assert_identical(concrete(x), a.apply(x))
    assert_identical(concrete(x=x), a.apply(x))
    assert a.apply.get_concrete_function() is concrete
    assert a.apply.get_concrete_function(x) is concrete
    assert a.apply.get_concrete_function(tj.TensorSpec([None], dtype)) is concrete
    assert b.apply.get_concrete_function() is not concrete  # traces are per instance
    assert concrete.structured_input_signature == ((tj.TensorSpec((None,), dtype, name="x"),), {})
    text = concrete.pretty_printed_signature()
    assert "self" not in text and "x (POSITIONAL_OR_KEYWORD): TensorSpec(shape=(None,)" in text
    assert "func.func" in str(concrete.graph)


@pytest.mark.parametrize("dtype", dtypes(0))
def test_method_signature_rejects_incompatible_inputs(dtype):
    a = affine_class(dtype)(2, 1)
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        a.apply(data((2, 2), dtype))
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        a.apply(data((3,), other_dtype(dtype)))
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        a(data((3,), dtype))
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        a.apply.get_concrete_function(tj.TensorSpec([None, None], dtype))
    with pytest.raises(TypeError):
        a.apply(data((3,), dtype), data((3,), dtype))  # one argument after self
    with pytest.raises(TypeError):
        a.apply()
    assert type(a).apply.experimental_get_tracing_count() == 0


@pytest.mark.parametrize("dtype", dtypes(1))
def test_method_with_a_signature_of_unknown_rank(dtype, check_against_eager):
    Affine = affine_class(dtype)
    a, b = Affine(2, 1), Affine(3, -1)
    concrete = a.shift.get_concrete_function()
    vector, matrix = data((4,), dtype), data((2, 3), dtype)
    assert a.shift.get_concrete_function(vector) is concrete
    assert a.shift.get_concrete_function(matrix) is concrete
    assert b.shift.get_concrete_function() is not concrete
    for x in (vector, matrix, data((), dtype)[()]):
        compiled = check_against_eager(a.shift, x)
        check_against_eager(b.shift, x, by=2)
        assert_identical(concrete(x), compiled)
    spec = tj.TensorSpec(None, dtype, name="x")
    assert concrete.structured_input_signature == ((spec, 1), {})  # `by` as traced


@pytest.mark.parametrize("dtype", dtypes(0))
def test_method_with_a_signature_called_from_another_function(dtype, check_against_eager):
    a = affine_class(dtype)(2, 1)

    @tj.function(input_signature=[tj.TensorSpec(None, dtype)])
    def double(x):
        return x * 2

    @tj.function
    def twice(x):
        return a.apply(x) * 2 + double(x) + np.sum(double(x[:, None]))

    @tj.function
    def wrong_dtype(x):
        return a.apply(x.astype(other_dtype(dtype)))

    check_against_eager(twice, data((6,), dtype))
    check_against_eager(twice, data((3,), dtype))
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        wrong_dtype(data((6,), dtype))


def test_method_traces_die_with_their_instance():
    Affine = affine_class(np.float32)
    a = Affine(2.0, 1.0)
    x = data((3,), np.float32)
    a.apply(x)
    a.shift(x)
    a.shift.get_concrete_function()
    alive = weakref.ref(a)
    del a
    gc.collect()
    assert alive() is None
    assert not Affine.apply._cache and not Affine.shift._cache and not Affine.shift._polymorphic


@pytest.mark.parametrize("dtype", dtypes(1))
def test_plain_function_whose_first_parameter_is_named_self(dtype, check_against_eager):
    @tj.function(input_signature=[tj.TensorSpec([None], dtype), tj.TensorSpec([None], dtype)])
    def difference(self, x):
        return self - x

    x, y = data((4,), dtype), data((4,), dtype, seed=1)
    check_against_eager(difference, x, y)
    args, _ = difference.get_concrete_function().structured_input_signature
    assert [spec.name for spec in args] == ["self", "x"]
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        difference(object(), y)
    with pytest.raises(TypeError):
        difference(x)


@pytest.mark.parametrize("dtype", dtypes(0))
def test_static_and_class_methods(dtype, check_against_eager):
    spec = [tj.TensorSpec([None], dtype)]

    class Base:
        offset = 1

        @staticmethod
        @tj.function(input_signature=spec)
        def static_outside(x):
            return x * 3

        @tj.function(input_signature=spec)
        @staticmethod
        def static_inside(x):
            return x * 4

        @tj.function(input_signature=spec)
        @classmethod
        def class_inside(cls, x):
            return x + cls.offset

    class Derived(Base):
        offset = 5

    x = data((4,), dtype)
    for owner in (Base, Base(), Derived, Derived()):
        check_against_eager(owner.static_outside, x)
        check_against_eager(owner.static_inside, x)
        check_against_eager(owner.class_inside, x)
    # a static method has one trace; a class method one per class
    assert Base.static_inside.experimental_get_tracing_count() == 1
    assert Base.class_inside.experimental_get_tracing_count() == 2
    concrete = Derived().class_inside.get_concrete_function()
    assert Derived.class_inside.get_concrete_function() is concrete
    assert_identical(concrete(x), Derived.class_inside(x))
    assert Base.static_inside.get_concrete_function().structured_input_signature[0][0].name == "x"
    with pytest.raises(ValueError, match=INCOMPATIBLE):
        Base.class_inside(data((2, 2), dtype))


@pytest.mark.skipif(
    sys.version_info >= (3, 13), reason="Python 3.13 no longer chains classmethod.__get__"
)
def test_classmethod_outside_the_function(check_against_eager):
    class Scaled:
        factor = 3.0

        @classmethod
        @tj.function(input_signature=[tj.TensorSpec([None], tj.float32)])
        def scale(cls, x):
            return x * cls.factor

    x = data((5,), np.float32)
    check_against_eager(Scaled.scale, x)
    check_against_eager(Scaled().scale, x)


# --- entries beyond the named parameters describe *args (as in TensorFlow) -------------------
@pytest.mark.parametrize("dtype", dtypes(0))
def test_a_signature_describes_star_args(dtype, check_against_eager):
    @tj.function(input_signature=[tj.TensorSpec([None], dtype), tj.TensorSpec([None, 2], dtype)])
    def weighted(*arrays):
        return arrays[0].sum() * arrays[1], len(arrays)

    @tj.function(input_signature=[tj.TensorSpec([None], dtype), tj.TensorSpec([], dtype)])
    def scaled(x, *factors):
        return x * factors[0]

    for n in (0, 1, 4):
        check_against_eager(weighted, data((n,), dtype), data((n + 1, 2), dtype, seed=n))
        check_against_eager(scaled, data((n,), dtype), data((), dtype)[()])
    product, count = weighted([1, 2], [[3, 4]])  # Python lists convert, as in TF
    assert_identical(product, np.array([1, 2], dtype).sum() * np.array([[3, 4]], dtype))
    assert count == 2
    concrete = weighted.get_concrete_function()
    assert_identical(concrete(data((3,), dtype), data((1, 2), dtype))[0],
                     weighted(data((3,), dtype), data((1, 2), dtype))[0])  # fmt: skip
    assert weighted.experimental_get_tracing_count() == 1
    assert scaled.experimental_get_tracing_count() == 1


def test_star_args_must_hold_as_many_as_the_signature_has_beyond_the_named():
    spec = tj.TensorSpec([None], np.float64)

    @tj.function(input_signature=[spec, spec])
    def total(*xs):
        return sum(x.sum() for x in xs)

    for count in (1, 3):
        with pytest.raises(TypeError, match=f"2 entries, .* called with {count} positional.*"
                                            "test_input_signature_conformance"):  # fmt: skip
            total(*[np.ones(2)] * count)
    with pytest.raises(ValueError, match=INCOMPATIBLE + ".*argument 'xs\\[1\\]'"):
        total(np.ones(2), np.ones(2, np.int32))
    with pytest.raises(TypeError, match="input_signature has 2 entries but the function takes 1"):
        tj.function(lambda x: x, input_signature=[spec, spec])
