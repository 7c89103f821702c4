"""Solutions to the exercises of chapter 04 (CSE, DCE, effects). Run: .venv/bin/python <file>."""

import contextlib
import io

import numpy as np
from course_checks import run_compiled

import tracejit as tj
from tracejit.ir.state import PrintOp

v = tj.Variable(np.ones(2, np.float32))


# 1. Two reads with nothing between them are merged; a write between them keeps both.
@tj.function
def merged(x):
    return v.read_value() * x + v.read_value()


@tj.function
def kept(x):
    first = v.read_value()
    v.assign(x)
    return first + v.read_value()


x = np.array([2.0, 3.0], np.float32)
assert merged.get_concrete_function(x).ir(after="cse").count("tj.var_read") == 1
kept_ir = kept.get_concrete_function(x).ir(after="cse")
assert kept_ir.count("tj.var_read") == 2, kept_ir
np.testing.assert_array_equal(run_compiled(kept, x), [3.0, 4.0])  # old value 1 + new value x
np.testing.assert_array_equal(v.numpy(), x)


# 2. tj.print declares MemoryWriteEffect (ir/state.py: `traits = traits_def(MemoryWriteEffect())`),
#    so it is neither pure (no CSE) nor removable (no DCE).
assert not any(type(t).__name__ == "Pure" for t in PrintOp.traits)


@tj.function
def twice(x):
    tj.print("x is", x)
    tj.print("x is", x)
    return x


assert twice.get_concrete_function(x).ir(after="cse").count("tj.print") == 2
out = io.StringIO()
with contextlib.redirect_stdout(out):
    run_compiled(twice, x)
assert out.getvalue() == "x is [2. 3.]\nx is [2. 3.]\n", out.getvalue()


# 3. A staged assertion is a tj.assert with a write effect: kept although nothing uses it.
@tj.function
def checked(x):
    tj.debugging.assert_non_negative(x, message="x must be >= 0")
    return x * 2


np.testing.assert_array_equal(run_compiled(checked, x), x * 2)
try:
    run_compiled(checked, np.array([1.0, -1.0], np.float32))
except tj.errors.InvalidArgumentError as error:
    assert "x must be >= 0" in str(error), error
else:
    raise AssertionError("the assertion was removed")
print("ok")
