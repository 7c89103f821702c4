"""Gradients against finite differences: the check the gradient tests share."""

from __future__ import annotations

import numpy as np

import tracejit as tj


def numeric_gradient(f, x, eps=1e-6):
    """Central differences of the scalar `f` at the float64 array `x`."""
    x = np.array(x, np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


def check_gradient(f, *args, argnums=0, rtol=1e-5, atol=1e-6):
    """tj.grad(f) against finite differences of the NumPy function `f` (summed output)."""
    positions = (argnums,) if isinstance(argnums, int) else argnums
    compiled = tj.grad(lambda *a: np.sum(f(*a)), argnums=argnums)(*args)
    compiled = (compiled,) if isinstance(argnums, int) else compiled
    for k, g in zip(positions, compiled, strict=True):

        def along(value, k=k):
            changed = list(args)
            changed[k] = value
            return np.sum(f(*changed))

        np.testing.assert_allclose(g, numeric_gradient(along, args[k]), rtol=rtol, atol=atol)
