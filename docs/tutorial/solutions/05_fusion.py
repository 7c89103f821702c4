"""Solutions to the exercises of chapter 05 (fusion). Run: .venv/bin/python <this file>."""

import numpy as np
from course_checks import check_compiled

import tracejit as tj


def fused_ir(function, *args) -> str:
    return tj.function(function).get_concrete_function(*args).ir(after="fuse-elementwise")


x = np.linspace(-1, 1, 16, dtype=np.float32)


# 1. exp is expensive: computed once, in one kernel with two outputs (the consumers share
#    the input, so the kernels merge). x + 3 is cheap: also one kernel, computed once there.
def two_uses_of_exp(x):
    return np.exp(x) + 1, np.exp(x) * 2


def two_uses_of_add(x):
    return (x + 3) + 1, (x + 3) * 2


for function in (two_uses_of_exp, two_uses_of_add):
    ir = fused_ir(function, x)
    assert ir.count("tj.fused") == 1, ir
    assert ir.count("tj.exp") + ir.count("tj.add %") <= 3, ir  # the shared op appears once
    check_compiled(tj.function(function), x, rtol=1e-6)


# 2. Softmax needs four kernels: the max (a reduction: it ends a kernel); e = exp(x - max)
#    (needed at full shape by the division, and a kernel with a reduction yields only
#    reductions, so e is materialised); the sum of e; the division by the sum. A reduction
#    with nothing to fuse into it stays a plain tj.reduce.
#    `--emit loops` shows six loop nests, in this order: (1) fill the max's accumulator
#    with -inf, (2) the max; (3) exp(x - max) into a 4x8 temporary; (4) fill the sum's
#    accumulator with 0, (5) the sum; (6) the division, into the output. A reduction is
#    always two nests (its identity first, as for softplus_sum in the chapter). keepdims=True
#    is a tj.broadcast_in_dim to a 4x1 shape, a view: the kernel after it reads the 4 maxima
#    (sums) through it and the broadcast to 4x8, a chain of views, with no copy.
def softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    return e / np.sum(e, axis=1, keepdims=True)


m = np.arange(32, dtype=np.float32).reshape(4, 8) / 7
ir = fused_ir(softmax, m)
body = ir[ir.index("func.func") :]
top_level_reductions = sum(
    1 for line in body.splitlines() if line.startswith("    %") and "tj.reduce" in line
)
assert ir.count("tj.fused") + top_level_reductions == 4, ir
loops = tj.function(softmax).get_concrete_function(m).ir(after="lower-to-loops")
nests = [line for line in loops.splitlines() if line.startswith("    scf.for")]
assert len(nests) == 6, loops
check_compiled(tj.function(softmax), m, rtol=1e-6)


# 3. A print is a barrier: the two halves end up in different kernels.
def with_print(x):
    y = x * 2
    tj.print("here")
    return y + 1


ir = fused_ir(with_print, x)
body = ir[ir.index("func.func") :]
assert body.index("tj.mul") < body.index("tj.print") < body.index("tj.add"), ir
print("ok")
