"""Everyday NumPy code that tracejit compiles unchanged: decorate and call.

Each function below is plain NumPy (it runs without tracejit too); `tj.function`
turns it into one compiled kernel. Run this file to check each against NumPy and
time both:  .venv/bin/python examples/numpy_models.py
"""

import timeit

import numpy as np

import tracejit as tj


def softmax(logits):
    shifted = logits - np.max(logits, axis=-1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=-1, keepdims=True)


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def mlp_forward(x, w1, b1, w2, b2):
    hidden = np.maximum(x @ w1 + b1, 0.0)
    return hidden @ w2 + b2


def kmeans_assign(points, centroids):
    """The index of the nearest centroid for every point (one k-means step)."""
    distances = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
    return np.argmin(distances, axis=1)


def heat_step(u, alpha=0.1):
    """One explicit finite-difference step of the 2-D heat equation (fixed boundary)."""
    laplacian = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    inner = u[1:-1, 1:-1] + alpha * laplacian
    return np.pad(inner, 1, constant_values=0.0)


def example_inputs(rng):
    """name -> (function, arguments): small but realistic shapes."""
    f32 = np.float32
    return {
        "softmax": (softmax, (rng.standard_normal((64, 100)).astype(f32),)),
        "layer_norm": (
            layer_norm,
            (rng.standard_normal((32, 256)).astype(f32), np.ones(256, f32), np.zeros(256, f32)),
        ),
        "mlp_forward": (
            mlp_forward,
            (
                rng.standard_normal((16, 64)).astype(f32),
                rng.standard_normal((64, 32)).astype(f32) * 0.1,
                np.zeros(32, f32),
                rng.standard_normal((32, 10)).astype(f32) * 0.1,
                np.zeros(10, f32),
            ),
        ),
        "kmeans_assign": (
            kmeans_assign,
            (rng.standard_normal((500, 3)), rng.standard_normal((8, 3))),
        ),
        "heat_step": (heat_step, (rng.random((64, 64)),)),
    }


def main() -> None:
    rng = np.random.default_rng(0)
    for name, (function, args) in example_inputs(rng).items():
        compiled = tj.function(function)
        np.testing.assert_allclose(compiled(*args), function(*args), rtol=1e-4, atol=1e-5)
        ours = min(timeit.repeat(lambda: compiled(*args), number=200, repeat=3)) / 200  # noqa: B023
        theirs = min(timeit.repeat(lambda: function(*args), number=200, repeat=3)) / 200  # noqa: B023
        timing = f"tracejit {ours * 1e6:8.1f} us   NumPy {theirs * 1e6:8.1f} us"
        print(f"{name:14s} matches NumPy   {timing}")


if __name__ == "__main__":
    main()
