"""Solutions to the exercises of chapter 01 (tracing). Run: .venv/bin/python <this file>."""

import numpy as np
from course_checks import check_compiled, run_compiled

import tracejit as tj

# 1. Arrays are keyed by (shape, dtype), Python values by (type, value), lists by their
#    structure plus the keys of their items.
f = tj.function(lambda x: np.add(x, 1))
f(np.ones(3))  # trace 1: float64[3]
f(np.zeros(3))  # same key: reused
f(np.ones(3, np.float32))  # trace 2: a new dtype
f(1.0)  # trace 3: the Python float 1.0, baked in
f(1)  # trace 4: int 1 is a different key from float 1.0
f(np.float64(1.0))  # trace 5: a 0-d float64 tensor
f(np.float64(2.0))  # reused: NumPy scalars are keyed by shape and dtype
f([1.0, 2.0])  # trace 6: a list of two Python floats, each baked in
assert f.experimental_get_tracing_count() == 6
check_compiled(f, np.array([-1.0, np.nan, np.inf]))  # the machine code adds like NumPy

# 2. The conversion is an explicit tj.cast; NumPy 2 (NEP 50) promotes int32 with a Python
#    float to float64, because a Python float is "weak" but a float beats any integer kind.
to_f64 = tj.function(lambda x: np.exp(x.astype(np.float64)) + 1)
graph = str(to_f64.get_concrete_function(np.ones(4, np.float32)).graph)
assert "tj.cast %0 : tensor<4xf32> to tensor<4xf64>" in graph, graph
plus = tj.function(lambda x: x + 1.5)
graph = str(plus.get_concrete_function(np.ones(4, np.int32)).graph)
assert "tensor<4xi32> to tensor<4xf64>" in graph, graph
assert np.result_type(np.int32, 1.5) == np.float64
assert run_compiled(plus, np.arange(4, dtype=np.int32)).dtype == np.float64


# 3. The Python loop runs while tracing: it is unrolled, and the list never reaches the IR.
@tj.function
def unrolled(x):
    terms = []
    for k in range(3):
        terms.append(x * k)
    return sum(terms)  # Python's sum: 0 + t0 + t1 + t2


graph = str(unrolled.get_concrete_function(np.ones(2, np.float32)).graph)
assert graph.count("tj.add") == 3, graph  # 0 + t0 is an add with the constant 0 too
check_compiled(unrolled, np.ones(2, np.float32), expected=np.array([3.0, 3.0], np.float32))
print("ok")
