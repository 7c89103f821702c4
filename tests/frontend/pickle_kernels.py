"""tj.functions at the top level of an importable module, for tests/frontend/test_pickling.py
(which puts this directory on sys.path, so that worker processes import it by name)."""

import numpy as np

import tracejit as tj


@tj.function
def blend(x, y):
    return x**2 + 3 * y - np.tanh(x) * 0.5


@tj.function(
    input_signature=[tj.TensorSpec([None], np.float64)], reduce_retracing=True, autograph=False
)
def scaled_sum(x):
    return np.sum(x * 2.0)


def plain_square(x):  # wrapped by the tests with options of their own
    return x * x


class Model:
    def __init__(self, scale):
        self.scale = scale

    @tj.function
    def apply(self, x):
        return x * self.scale

    @tj.function
    @staticmethod
    def double(x):
        return x * 2.0

    @tj.function
    @classmethod
    def name_length(cls, x):
        return x + len(cls.__name__)


def call_in_worker(function, *args):
    """What a worker process runs: the Function it was sent, called, and how often it traced."""
    result = function(*args)
    return result, function.experimental_get_tracing_count()
