"""A short Python loop around a staged one is staged too, decided by a trial trace of its
first trip (autograph/operators.py `_first_trip_stages_a_loop`), which stops at the first
loop it would stage (staging/control_flow.py `stopping_at_a_staged_loop`): nested short
loops must not trace the innermost body once per trial of every loop around it, nor once
per staging of every loop around it (staging/control_flow.py `_WrittenArrays.recall`)."""

import numpy as np

import tracejit as tj

TRACED: list[int] = []


def nest_of_short_loops(d, out):
    for a in range(2):
        for b in range(2):
            for c in range(2):
                for e in range(2):
                    for i in range(d.shape[0]):  # 10 trips: staged, and so each loop around
                        TRACED.append(i if isinstance(i, int) else -1)
                        out[a, b, c, e] += d[i] * (a + b + c + e)
    return out


def test_nested_short_loops_trace_the_innermost_body_once_per_staged_level():
    d, out = np.arange(10.0), np.zeros((2, 2, 2, 2))
    function = tj.function(nest_of_short_loops)
    TRACED.clear()
    graph = str(function.get_concrete_function(d, out).graph.module)
    assert graph.count("tj.while") == 5  # every loop staged: the body is compiled once
    # A staged loop traces its body twice the first time it is staged (the second time
    # carrying the arrays it writes), and once when staged again in the same trace (it
    # remembers them): 5 + 1 traces of the innermost body. Learning anew on every staging
    # took 2**5; the trials before that, 160.
    assert len(TRACED) == 5 + 1 and set(TRACED) == {-1}
    got, expected = function(d, out.copy()), nest_of_short_loops(d, out.copy())  # NumPy's
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert expected[1, 1, 1, 1] == 4 * d.sum()
