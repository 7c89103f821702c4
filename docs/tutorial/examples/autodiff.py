"""Chapter 11: functions to differentiate (see docs/tutorial/11-reverse-mode-differentiation.md)."""

import numpy as np

import tracejit as tj


def tanh_layer(x, w):
    return np.sum(np.tanh(x * w))


def power(x, n):
    y = np.ones_like(x)
    for _ in tj.range(n):  # a staged loop: n is known only when the kernel runs
        y = y * x
    return np.sum(y)
