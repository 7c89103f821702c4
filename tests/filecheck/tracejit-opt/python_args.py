# Python inputs: --arg gives Python-valued arguments (as literals), a function's own
# input_signature replaces --signature, --run calls the ConcreteFunction, and unknown dims
# (`?`) trace to dynamic tensor types.
# RUN: tracejit-opt %s:power_sum --signature "f64[2,3]" --arg n=2 --arg axis=1 -p '' | filecheck %s
# RUN: tracejit-opt %s:power_sum --signature "f64[2,3]" --arg n=2 --run --input x="[[1, 2, 3], [4, 5, 6]]" | filecheck %s --check-prefix=OUT
# RUN: tracejit-opt %s:pair --run --input a="[1, 2, 3]" --input b="[4, 5, 6]" | filecheck %s --check-prefix=SIG
# RUN: tracejit-opt %s:power_sum --signature "f64[?,3]" --arg n=2 -p '' 2>&1 | filecheck %s --check-prefix=DYN
# RUN: not tracejit-opt %s:power_sum --signature "f64[2,3]" --arg m=2 2>&1 | filecheck %s --check-prefix=NOPARAM
# RUN: not tracejit-opt %s:power_sum --arg n=2 2>&1 | filecheck %s --check-prefix=NOSIG
import numpy as np

import tracejit as tj


def power_sum(x, n, axis=0):
    return np.sum(x**n, axis=axis)


@tj.function(input_signature=[tj.TensorSpec([3], np.int32), tj.TensorSpec([3], np.int32)])
def pair(a, b):
    return {"sum": a + b, "scaled": (a, b * 2)}


# n=2 and axis=1 are traced in as constants:
# CHECK:      func.func @power_sum(%{{.*}}: tensor<2x3xf64>) -> tensor<2xf64> {
# CHECK:        tj.reduce "sum" %{{.*}}, axes = [1] : tensor<2x3xf64> to tensor<2xf64>

# OUT:        result: float64[3] = [17. 29. 45.]

# SIG:        result['scaled'][0]: int32[3] = [1 2 3]
# SIG-NEXT:   result['scaled'][1]: int32[3] = [ 8 10 12]
# SIG-NEXT:   result['sum']: int32[3] = [5 7 9]

# DYN:        func.func @power_sum(%{{.*}}: tensor<?x3xf64>)
# NOPARAM:    tracejit-opt: error: --arg m: the function has no parameter 'm'
# NOSIG:      tracejit-opt: error: a Python input needs --signature
