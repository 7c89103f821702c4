"""Solutions to the exercises of chapter 06 (AutoGraph). Run: .venv/bin/python <this file>."""

import numpy as np
from course_checks import run_compiled

import tracejit as tj


# 1. range(tensor) is staged as a tj.while; range(int) is unrolled while tracing.
def total(n):
    s = 0
    for i in range(n):
        s += i
    return s


f = tj.function(total)
unrolled = str(f.get_concrete_function(5).graph)
staged = str(f.get_concrete_function(np.int64(5)).graph)
assert "tj.while" in staged and "tj.while" not in unrolled
assert f(5) == 10  # all Python: the result is the Python int 10, returned as is
assert run_compiled(f, np.int64(5)) == 10 and run_compiled(f, np.int64(100)) == 4950
# The staged loop variable has n's dtype (as in TF), and s = 0 is a weak Python int, so the
# sum has n's dtype too: f(np.int8(100)) wraps to 86, where plain Python gives 4950.
assert run_compiled(f, np.int8(100)) == np.int8(86)


# 2. `break` becomes a flag: the loop test gains `not break_`, the rest of the body is guarded.
def collatz_capped(n):
    steps = np.int64(0)
    while n != 1:
        if n > 1000:
            break
        if n % 2 == 0:  # noqa: SIM108  (a statement on purpose: AutoGraph stages it)
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


code = tj.autograph.to_code(collatz_capped)
assert "break_" in code, code
capped = tj.function(collatz_capped)
assert run_compiled(capped, np.int64(6)) == 8  # 6 3 10 5 16 8 4 2 1
assert run_compiled(capped, np.int64(27)) < 111  # 27 climbs above 1000 and stops early


# 3. The same loop with explicit staged control flow.
@tj.function(autograph=False)
def collatz_explicit(n):
    def body(n, steps):
        n = tj.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    _, steps = tj.while_loop(lambda n, steps: n != 1, body, (n, np.int64(0)))
    return steps


def python_collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


for start in (1, 2, 6, 27, 97):
    assert run_compiled(collatz_explicit, np.int64(start)) == python_collatz(start)
print("ok")
