"""Python's cyclic collector is paused while a function is traced and compiled
(runtime/gc_pause.py), and afterwards is as the user left it."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import tracejit as tj


def test_the_collector_is_paused_while_tracing_and_on_again_after():
    seen = []

    @tj.function
    def f(x):
        seen.append(gc.isenabled())
        return x + 1

    assert gc.isenabled()
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))
    assert seen == [False]
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off():
    @tj.function
    def g(x):
        return x * 2

    gc.disable()
    try:
        np.testing.assert_array_equal(g(np.ones(2)), np.full(2, 2.0))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_error_while_tracing_turns_the_collector_on_again():
    @tj.function
    def h(x):
        raise RuntimeError("in the user's code")

    with pytest.raises(RuntimeError, match="in the user's code"):
        h(np.ones(2))
    assert gc.isenabled()
