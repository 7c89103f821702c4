# The guide's non-strict execution example: a gather whose result is unused is removed
# (it has no side effect), so its out-of-range index raises nothing when compiled, while
# eager NumPy raises IndexError. The run-time bounds check belongs to the gather itself, so
# it goes with it; tj.assert, tj.print and Variable writes are never removed.
# RUN: %python %s | filecheck %s
import numpy as np

import tracejit as tj


@tj.function
def unused_return_graph(x, index):
    np.take(x, index)  # unused
    return x


x, index = np.array([0.0], np.float32), np.array([1])

concrete = unused_return_graph.get_concrete_function(x, index)
# CHECK:      traced: True
print("traced:", "tj.gather" in str(concrete.graph))
# CHECK-NEXT: after cse: False
print("after cse:", "tj.gather" in concrete.ir(after="cse"))
# CHECK-NEXT: compiled: [0.]
print("compiled:", unused_return_graph(x, index))
tj.config.run_functions_eagerly(True)
try:
    unused_return_graph(x, index)
except IndexError as error:
    # CHECK-NEXT: eager: IndexError
    print("eager:", type(error).__name__)
finally:
    tj.config.run_functions_eagerly(False)
