"""np.einsum where a product meets inf * 0: which labels NumPy sums before it multiplies.

NumPy's einsum of two operands sums the labels its inner loop runs along first when only
one operand moves there (`out += a * sum(b)`), so `np.einsum("ij,jk->i", [[inf]], [[0, 1]])`
is inf, not inf * 0 + inf * 1 = NaN. Which loop is innermost depends on the strides;
`einsum_loop.summed_first` replays NumPy's iterator for C-ordered operands. It is checked
here against NumPy itself on random einsums (cheap: NumPy evaluates the model's plan), and
compiled einsums are checked against eager ones on the cases that tell the plans apart.
"""

from __future__ import annotations

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import run_eagerly
from tracejit.frontend.numpy_api.einsum_loop import summed_first

SPECIAL = np.array([0.0, 1.0, 2.0, np.inf, -np.inf])


def planned(subscripts: str, operands: list[np.ndarray]) -> np.ndarray:
    """The einsum as the model says NumPy computes it: the labels it sums first summed,
    then every product formed and summed (NumPy's own loop with that one factoring)."""
    inputs, output = subscripts.split("->")
    terms = inputs.split(",")
    common = np.result_type(*operands)
    casts = [x.dtype != common for x in operands]
    first = summed_first(terms, [x.shape for x in operands], output, casts)
    operands = [x.astype(common) for x in operands]
    if len(terms) == 2 and first is not None:
        k, summed = first
        kept = "".join(c for c in terms[k] if c not in summed)
        operands[k] = np.einsum(f"{terms[k]}->{kept}", operands[k])
        terms[k] = kept
    return _products_summed(terms, operands, output)


def _products_summed(terms: list[str], operands: list[np.ndarray], output: str) -> np.ndarray:
    sizes: dict[str, int] = {}
    for term, x in zip(terms, operands, strict=True):
        sizes.update({c: n for c, n in zip(term, x.shape, strict=True) if n != 1 or c not in sizes})
    order = output + "".join(c for c in dict.fromkeys("".join(terms)) if c not in output)
    product = np.ones([1] * len(order), np.result_type(*operands))
    for term, x in zip(terms, operands, strict=True):
        aligned = np.einsum(f"{term}->{''.join(c for c in order if c in term)}", x)
        product = product * aligned.reshape([sizes[c] if c in term else 1 for c in order])
    product = np.broadcast_to(product, [sizes[c] for c in order])
    return product.sum(axis=tuple(range(len(output), len(order))))


def random_einsum(rng: np.random.Generator) -> tuple[str, list[np.ndarray]]:
    """Two operands (one in eight: three) of up to three labels each out of 'ijkl', an
    output of some labels in any order, sizes 1-3, values among 0, 1, 2, inf and -inf; one
    in four times an operand of another dtype (which NumPy casts, through its buffers)."""
    count = 3 if rng.random() < 0.125 else 2
    terms = ["".join(rng.permutation(list("ijkl"))[: rng.integers(0, 4)]) for _ in range(count)]
    labels = sorted(set("".join(terms)))
    output = "".join(rng.permutation([c for c in labels if rng.random() < 0.4]))
    sizes = {c: int(rng.integers(1, 4)) for c in labels}
    operands = [rng.choice(SPECIAL, size=[sizes[c] for c in term]) for term in terms]
    if rng.random() < 0.25:
        k = int(rng.integers(0, count))
        dtype = rng.choice([np.float32, np.int64, np.int32])
        operands[k] = np.where(np.isinf(operands[k]), 3, operands[k]).astype(dtype)
    return f"{','.join(terms)}->{output}", operands


@pytest.mark.skipif(
    np.lib.NumpyVersion(np.__version__) < "2.3.0",
    reason="the model is NumPy 2.3's buffered iterator; 2.0-2.2 chose other inner loops "
    "where an operand is cast or four labels do not coalesce (66 of 12,000 differ)",
)
@pytest.mark.parametrize("seed", range(4))
def test_the_model_is_numpys_loop(seed):
    rng = np.random.default_rng(seed)
    for _ in range(1500):
        subscripts, operands = random_einsum(rng)
        with np.errstate(all="ignore"):
            expected, actual = np.einsum(subscripts, *operands), planned(subscripts, operands)
        np.testing.assert_array_equal(actual, expected, err_msg=subscripts)


# Each tells "sum first" from "multiply first" (NaN against inf) on these C-ordered values;
# some are summed first (the innermost loop is one operand's), some not.
CASES = {
    "ij,jk->i": ([[np.inf, 1.0]], [[0.0, 1.0], [1.0, 1.0]]),  # k first: [inf]
    "ij,jk->k": ([[np.inf, 1.0], [0.0, 1.0]], [[1.0], [1.0]]),  # i is outer: NaN
    "ij,kj->i": ([[np.inf]], [[0.0], [1.0]]),  # k outer, j inner in both: NaN
    "i,j->": ([np.inf], [0.0, 1.0]),  # j first: inf
    "ij,k->i": ([[np.inf, 2.0]], [0.0, 1.0]),  # k first: [inf]
    "ij,jk->": ([[np.inf]], [[0.0, 1.0]]),  # k first: inf
    "i,i,j->": ([np.inf], [1.0], [0.0, 1.0]),  # three operands multiply first: NaN
    "jk,ij->i": ([[0.0, 1.0]], [[np.inf]]),  # k first (the other operand): [inf]
}


@pytest.mark.parametrize("subscripts", CASES)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.complex128])
def test_compiled_sums_first_where_numpy_does(subscripts, dtype):
    operands = [np.array(x, dtype) for x in CASES[subscripts]]

    @tj.function
    def f(*xs):
        return np.einsum(subscripts, *xs)

    with np.errstate(all="ignore"):
        expected = np.einsum(subscripts, *operands)
        eager = run_eagerly(f, *operands)
    np.testing.assert_array_equal(eager, expected)
    np.testing.assert_array_equal(f(*operands), expected)


def test_an_operand_numpy_casts_is_read_through_its_buffer():
    """y (int64, with float64 x) is cast, so NumPy reads it through a buffer, whose inner
    loop runs along k: y is summed over k first. Of one dtype, nothing is summed first."""
    x = np.array([[np.inf, 1.0], [1.0, 1.0]])
    y = np.array([[0, 0], [1, 1]], np.int64)

    @tj.function
    def f(x, y):
        return np.einsum("ij,ki->ij", x, y), np.einsum("ij,ki->ij", x, y.astype(np.float64))

    with np.errstate(all="ignore"):
        expected = run_eagerly(f, x, y)
    assert np.isinf(expected[0][0, 0]) and np.isnan(expected[1][0, 0])
    for got, want in zip(f(x, y), expected, strict=True):
        np.testing.assert_array_equal(got, want)
