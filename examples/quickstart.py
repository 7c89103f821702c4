"""tracejit in one page: decorate a NumPy function, watch it compile, check it, time it.

Run with `make demo` (or `.venv/bin/python examples/quickstart.py`).
"""

import timeit

import numpy as np

import tracejit as tj
from tracejit.passes.pipeline import DEFAULT_PIPELINE


def predict(x, w, b):
    h = np.tanh(x @ w + b)  # a matmul, a broadcast of b, element-wise math
    return np.sum(h * h, axis=1) / 2  # a reduction


f = tj.function(predict)  # the same function, compiled


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32), dtype=np.float32)
    w = rng.standard_normal((32, 16), dtype=np.float32)
    b = rng.standard_normal(16, dtype=np.float32)

    concrete = f.get_concrete_function(x, w, b)
    print("=== traced tj dialect ===")
    print(concrete.graph)
    for pass_name in DEFAULT_PIPELINE:
        print(f"=== IR after {pass_name} ===")
        print(concrete.ir(after=pass_name))

    result = f(x, w, b)
    expected = predict(x, w, b)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
    print("=== result matches NumPy:", result[:4], "...")
    print("traces so far:", f.experimental_get_tracing_count())

    calls = 2000
    compiled = min(timeit.repeat(lambda: f(x, w, b), number=calls, repeat=5)) / calls
    numpy = min(timeit.repeat(lambda: predict(x, w, b), number=calls, repeat=5)) / calls
    print(
        f"time per call: tracejit {compiled * 1e6:.1f} us, NumPy {numpy * 1e6:.1f} us "
        f"(NumPy / tracejit = {numpy / compiled:.2f}x)"
    )


if __name__ == "__main__":
    main()
