"""expand-math: the expanded math ops agree with NumPy within 4 ulp, special values exactly.

Each op is compiled once per dtype in a 1-D kernel (`scf.for` over `memref<?xT>`: load, op,
store) through `expand-math,scf-to-cf` and run on ~1.5M f32 / ~1M f64 points: random bit
patterns (every exponent, subnormals, NaNs), the op's interesting range, and the special
values (+-0, +-inf, NaN, overflow/underflow thresholds). Errors are measured in ulp against
NumPy on the same dtype and against an "exact" reference (f64 NumPy rounded to f32; long
double for f64). The exhaustive f32 sweep (all 2^32 inputs) runs with TRACEJIT_SLOW=1.
"""

from __future__ import annotations

import functools
import math
import os
import re

import numpy as np
import pytest
from xdsl.parser import Parser

import tracejit as tj
from tracejit.compiler import driver
from tracejit.ir.dialect import make_context
from tracejit.passes.expand_math import SIN_COS_LIMIT
from tracejit.passes.support.expand_math_builder import SLOW_PATH_ATTR

MAX_ULP = 4
SLOW = os.environ.get("TRACEJIT_SLOW") == "1"

# --- kernels ------------------------------------------------------------------------------


def kernel_text(op: str, ty: str, arity: int = 1) -> str:
    inputs = ", ".join(f"%in{k}: memref<?x{ty}>" for k in range(arity))
    loads = "\n".join(f"    %v{k} = memref.load %in{k}[%i] : memref<?x{ty}>" for k in range(arity))
    args = ", ".join(f"%v{k}" for k in range(arity))
    return f"""
func.func @k({inputs}, %out: memref<?x{ty}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %out, %c0 : memref<?x{ty}>
  scf.for %i = %c0 to %n step %c1 {{
{loads}
    %r = {op} {args} : {ty}
    memref.store %r, %out[%i] : memref<?x{ty}>
  }}
  func.return
}}
"""


@functools.cache
def compiled(op: str, ty: str, arity: int = 1, passes: str = "expand-math,scf-to-cf"):
    """(run(*arrays) -> array, JitModule) for `op` on `ty`, compiled once per session."""
    module = Parser(make_context(), kernel_text(op, ty, arity)).parse_module()
    lowered = driver.lower(module, passes).module
    jit = driver.compile_to_machine_code(lowered)
    kernel = jit.kernel("k")

    def run(*arrays: np.ndarray) -> np.ndarray:
        out = np.empty_like(arrays[0])
        kernel(*arrays, out)
        return out

    return run, jit, lowered


# --- ulp distance -----------------------------------------------------------------------------


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in ulp via the ordered integer view; NaN vs NaN is 0, NaN vs number huge.
    (+0 and -0 are 0 apart here: signs of zero are checked by `assert_specials_exact`.)"""
    ints = np.int32 if a.dtype == np.float32 else np.int64
    magnitude = np.iinfo(ints).max
    ai, bi = a.view(ints).astype(np.int64), b.view(ints).astype(np.int64)
    ai = np.where(ai < 0, -(ai & magnitude), ai)
    bi = np.where(bi < 0, -(bi & magnitude), bi)
    # same sign: exact int64 difference; opposite signs (may overflow int64): via float
    same_sign = (ai >= 0) == (bi >= 0)
    with np.errstate(over="ignore"):
        exact_difference = np.abs(np.where(same_sign, ai - bi, 0)).astype(np.float64)
    distance = np.where(same_sign, exact_difference, np.abs(ai / 1.0) + np.abs(bi / 1.0))
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    distance[nan_a & nan_b] = 0
    distance[nan_a ^ nan_b] = np.inf
    return distance


def worst(x, got, want) -> tuple[float, str]:
    d = ulp_distance(got, want)
    i = int(np.argmax(d))
    return float(d[i]), f"x={x[i]!r} got={got[i]!r} want={want[i]!r}"


# --- inputs ----------------------------------------------------------------------------------

F32_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 1.1754942e-38,
                1.1754944e-38, 3.4028235e38, -3.4028235e38, 88.72283, 88.72284, -87.33654,
                -103.97208, -103.97209, -104.0, 89.0, 0.5, 2.0, 1e-20, 30.0, -30.0, 9.0, 3.9,
                1.5707964, 3.1415927, 2.0 ** 50, 2.0 ** 48]  # fmt: skip
F64_SPECIALS = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 5e-324, -5e-324,
                2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
                -1.7976931348623157e308, 709.782712893384, 709.7827128933841, -708.3964185322641,
                -745.1332191019411, -745.1332191019412, -746.0, 710.0, 1e-300, 0.5, 2.0, 20.0,
                -20.0, 6.0, 1.5707963267948966, 3.141592653589793, 2.0 ** 48]  # fmt: skip


def random_bits(rng, n: int, dtype) -> np.ndarray:
    """Uniform random bit patterns: every exponent, subnormals, infinities and NaNs."""
    if dtype == np.float32:
        return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)


# The op's interesting range: (low, high) for a uniform sample (scaled per dtype) and a
# log-uniform sample of |x| in [2^lo, 2^hi] with both signs.
RANGES = {
    "exp": ((-110.0, 90.0), (-750.0, 712.0), (-30, 10)),
    "exp2": ((-155.0, 130.0), (-1080.0, 1030.0), (-30, 10)),
    "expm1": ((-20.0, 90.0), (-40.0, 712.0), (-60, 7)),
    "log": ((0.0, 4.0), (0.0, 4.0), (-1074, 1023)),
    "log2": ((0.0, 4.0), (0.0, 4.0), (-1074, 1023)),
    "log10": ((0.0, 4.0), (0.0, 4.0), (-1074, 1023)),
    "log1p": ((-1.0, 3.0), (-1.0, 3.0), (-1074, 1023)),
    "tanh": ((-10.0, 10.0), (-25.0, 25.0), (-60, 6)),
    "sin": ((-100.0, 100.0), (-100.0, 100.0), (-30, 60)),
    "cos": ((-100.0, 100.0), (-100.0, 100.0), (-30, 60)),
    "erf": ((-5.0, 5.0), (-7.0, 7.0), (-60, 3)),
    "tan": ((-100.0, 100.0), (-100.0, 100.0), (-30, 60)),
    "atan": ((-10.0, 10.0), (-10.0, 10.0), (-60, 60)),
    "asin": ((-1.0, 1.0), (-1.0, 1.0), (-60, 1)),
    "acos": ((-1.0, 1.0), (-1.0, 1.0), (-60, 1)),
    "sinh": ((-90.0, 90.0), (-712.0, 712.0), (-60, 10)),
    "cosh": ((-90.0, 90.0), (-712.0, 712.0), (-60, 10)),
}


def sample(name: str, dtype, n_bits: int, n_range: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    f32_range, f64_range, (lo, hi) = RANGES[name]
    low, high = f32_range if dtype == np.float32 else f64_range
    exponents = rng.uniform(lo, hi, n_range // 2)
    signs = rng.choice([-1.0, 1.0], n_range // 2)
    with np.errstate(over="ignore", under="ignore"):
        log_uniform = (signs * np.exp2(exponents)).astype(dtype)
    specials = np.array(F32_SPECIALS if dtype == np.float32 else F64_SPECIALS, dtype)
    with np.errstate(over="ignore"):
        up, down = np.nextafter(specials, np.inf), np.nextafter(specials, -np.inf)
    neighbours = np.concatenate([up, down])
    return np.concatenate([
        specials, neighbours, random_bits(rng, n_bits, dtype),
        rng.uniform(low, high, n_range // 2).astype(dtype), log_uniform,
    ])  # fmt: skip


# --- references -------------------------------------------------------------------------------


def _erf(x: np.ndarray) -> np.ndarray:
    out = np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))
    return out.astype(x.dtype)


NUMPY = {
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "tanh": np.tanh, "sin": np.sin, "cos": np.cos,
    "erf": _erf,  # NumPy has no erf: the C library's, as the unexpanded op would give
    "tan": np.tan, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
    "cosh": np.cosh,
}  # fmt: skip


def exact(name: str, x: np.ndarray) -> np.ndarray:
    """A reference more accurate than the result: f64 NumPy rounded to f32; long double
    (x87, 64-bit mantissa) for f64 where NumPy has it."""
    wide = np.float64 if x.dtype == np.float32 else np.longdouble
    fn = NUMPY[name]
    if name == "erf":
        return fn(x)
    return fn(x.astype(wide)).astype(x.dtype)


def reference(name: str, x: np.ndarray, how: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        return NUMPY[name](x) if how == "numpy" else exact(name, x)


# --- tests -------------------------------------------------------------------------------------

UNARY = list(NUMPY)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_within_4_ulp_of_numpy(name, dtype):
    ty = "f32" if dtype == np.float32 else "f64"
    n = 150_000 if name == "erf" else (1_000_000 if dtype == np.float32 else 600_000)
    x = sample(name, dtype, n_bits=n // 2, n_range=n // 2)
    run, _, _ = compiled(f"math.{name}", ty)
    got = run(x)
    for how in ("numpy", "exact"):
        error, where = worst(x, got, reference(name, x, how))
        assert error <= MAX_ULP, f"{name} {ty}: {error} ulp vs {how} at {where}"


def assert_specials_exact(got: np.ndarray, want: np.ndarray, x: np.ndarray) -> None:
    """NaN -> NaN, and every zero/infinite result bit-identical (sign included)."""
    assert np.array_equal(np.isnan(got), np.isnan(want)), x[np.isnan(got) != np.isnan(want)]
    exact_kind = (want == 0) | np.isinf(want)
    bad = exact_kind & (got.view(got.dtype) != want) | exact_kind & (
        np.signbit(got) != np.signbit(want)
    )
    assert not bad.any(), list(zip(x[bad][:5], got[bad][:5], want[bad][:5], strict=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", UNARY)
def test_special_values_exact(name, dtype):
    specials = np.array(F32_SPECIALS if dtype == np.float32 else F64_SPECIALS, dtype)
    x = specials
    run, _, _ = compiled(f"math.{name}", "f32" if dtype == np.float32 else "f64")
    assert_specials_exact(run(x), reference(name, x, "numpy"), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_sin_cos_huge_arguments_take_the_exact_path(name, dtype):
    """Past SIN_COS_LIMIT (up to the largest float) the expansion branches to libm: NumPy's
    answer, never NaN; at the limit itself the polynomial path is still within the bound."""
    limit = SIN_COS_LIMIT[dtype == np.float64]
    above = np.nextafter(dtype(limit), dtype(np.inf))
    x = np.array([above, -limit * 4, 1e30, -3e20, np.finfo(dtype).max, -np.finfo(dtype).max,
                  2.0**60, limit, -limit, 0.5, np.inf, np.nan], dtype)  # fmt: skip
    rng = np.random.default_rng(3)
    huge = np.exp2(rng.uniform(np.log2(limit), np.log2(np.finfo(dtype).max), 20_000))
    x = np.concatenate([x, (huge * rng.choice([-1, 1], huge.size)).astype(dtype)])
    run, _, lowered = compiled(f"math.{name}", "f32" if dtype == np.float32 else "f64")
    assert SLOW_PATH_ATTR in str(lowered)
    for how in ("numpy", "exact"):
        error, where = worst(x, run(x), reference(name, x, how))
        assert error <= MAX_ULP, f"{name}: {error} ulp vs {how} at {where}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_tan_next_to_odd_multiples_of_half_pi(dtype):
    """tan is steepest (and the reduced argument smallest) next to (2k+1) pi/2: the floats
    nearest to it and their neighbours, for k up to 2^20, stay within the bound."""
    k = np.concatenate([np.arange(-2000, 2000), np.arange(1, 2**20, 997)])
    centre = ((2 * k + 1) * (np.pi / 2)).astype(dtype)
    x = np.concatenate([np.nextafter(centre, dtype(np.inf)), centre,
                        np.nextafter(centre, dtype(-np.inf))])  # fmt: skip
    run, _, _ = compiled("math.tan", "f32" if dtype == np.float32 else "f64")
    for how in ("numpy", "exact"):
        error, where = worst(x, run(x), reference("tan", x, how))
        assert error <= MAX_ULP, f"tan: {error} ulp vs {how} at {where}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_atan2_special_cases_and_values(dtype):
    """C99/NumPy special cases exactly (signed zeros, +-pi, +-pi/4, 3pi/4, NaN) on a grid
    of specials, and within the bound on random bit patterns and wide-range samples."""
    ty = "f32" if dtype == np.float32 else "f64"
    run, _, _ = compiled("math.atan2", ty, arity=2)
    info = np.finfo(dtype)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 2.0, -3.0, 0.5,
                         info.max, -info.max, info.tiny, info.smallest_subnormal,
                         -info.smallest_subnormal, 1e30, -1e-30], dtype)  # fmt: skip
    ys, xs = (g.ravel() for g in np.meshgrid(specials, specials))
    with np.errstate(all="ignore"):
        assert_specials_exact(run(ys, xs), np.arctan2(ys, xs), np.stack([ys, xs], 1))
    rng = np.random.default_rng(7)
    n = 300_000
    log_uniform = [(np.exp2(rng.uniform(-140, 127, n)) * rng.choice([-1, 1], n)).astype(dtype)
                   for _ in range(2)]  # fmt: skip
    samples = [
        (random_bits(rng, n, dtype), random_bits(rng, n, dtype)),
        (rng.normal(0, 3, n).astype(dtype), rng.normal(0, 3, n).astype(dtype)),
        tuple(log_uniform),
    ]
    wide = np.float64 if dtype == np.float32 else np.longdouble
    for y, x in samples:
        got = run(y, x)
        with np.errstate(all="ignore"):
            wants = {"numpy": np.arctan2(y, x),
                     "exact": np.arctan2(y.astype(wide), x.astype(wide)).astype(dtype)}
        for how, want in wants.items():
            error, where = worst(np.stack([y, x], 1), got, want)
            assert error <= MAX_ULP, f"atan2 {ty}: {error} ulp vs {how} at {where}"


@pytest.mark.parametrize("name", ["sin", "cos"])
def test_trig_false_leaves_trig_to_libm(name):
    _, _, lowered = compiled(f"math.{name}", "f32", passes="expand-math{trig=false},scf-to-cf")
    assert f"math.{name} " in str(lowered) and SLOW_PATH_ATTR not in str(lowered)


def test_powf_f32_special_cases_and_values():
    run, _, _ = compiled("math.powf", "f32", arity=2)
    specials = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, np.inf, -np.inf,
                         np.nan, 1e-45, 3e38, 0.75, -1e-45, 1.5], np.float32)  # fmt: skip
    xs, ys = (g.ravel() for g in np.meshgrid(specials, specials))
    with np.errstate(all="ignore"):
        assert_specials_exact(run(xs, ys), np.power(xs, ys), np.stack([xs, ys], 1))
        assert ulp_distance(run(xs, ys), np.power(xs, ys)).max() <= MAX_ULP
    rng = np.random.default_rng(5)
    samples = [
        (random_bits(rng, 300_000, np.float32), random_bits(rng, 300_000, np.float32)),
        (rng.uniform(0, 4, 300_000), rng.normal(0, 30, 300_000)),
        (-rng.uniform(0, 4, 300_000), np.round(rng.normal(0, 30, 300_000))),
    ]
    for x, y in samples:
        x, y = x.astype(np.float32), y.astype(np.float32)
        with np.errstate(all="ignore"):
            error, where = worst(np.stack([x, y], 1), run(x, y), np.power(x, y))
        assert error <= MAX_ULP, f"powf: {error} ulp at {where}"


def test_powf_f64_is_left_alone():
    _, _, lowered = compiled("math.powf", "f64", arity=2)
    assert "math.powf" in str(lowered)


# exp family and tanh run natively in f32 (8 lanes on AVX2); log, sin, ... widen to f64, so
# their f32 loops are <4 x float> (or <8 x float>) loads feeding <4 x double> math.
F32_VECTORS = {
    "native": ("<8 x float>", "<16 x float>"),
    "via f64": ("<4 x double>", "<8 x double>"),
}


@pytest.mark.parametrize(
    ("name", "f32_kind"),
    [("exp", "native"), ("tanh", "native"), ("expm1", "native"), ("log", "via f64"),
     ("sin", "native"), ("cos", "native"), ("tan", "via f64"), ("atan", "via f64"),
     ("asin", "via f64"), ("acos", "via f64"), ("sinh", "via f64"), ("cosh", "via f64")],
)  # fmt: skip
def test_expanded_loop_vectorises(name, f32_kind):
    """No libm call or math intrinsic is left (but a slow path's), and LLVM's loop vectoriser
    made <N x T> code."""
    for ty, vector in (("f32", F32_VECTORS[f32_kind]), ("f64", ("<4 x double>", "<8 x double>"))):
        _, jit, lowered = compiled(f"math.{name}", ty)
        unexpanded = [line for line in str(lowered).splitlines() if f"math.{name} " in line]
        assert all(SLOW_PATH_ATTR in line for line in unexpanded)
        llvm_ir = jit.optimized_llvm_ir
        assert any(v in llvm_ir for v in vector), f"{name} {ty} not vectorised"
        assert f"@llvm.{name}." not in llvm_ir
        assert unexpanded or (f"@{name}f" not in llvm_ir and f"@{name}(" not in llvm_ir)


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_slow_path_stays_behind_its_branch(name):
    """The vector loop calls libm only in a block guarded by a per-vector test of the
    huge-argument mask (the masked vector variant, inlined after vectorisation): no
    unconditional scalarised call or vector libm call in the loop body."""
    _, jit, _ = compiled(f"math.{name}", "f64")
    llvm_ir = jit.optimized_llvm_ir
    body = llvm_ir[llvm_ir.index("vector.body:"):llvm_ir.index("middle.block:")]
    head = body.split("br i1", 1)[0]  # the straight-line vector code up to the first branch
    widths = set(re.findall(r"<(\d+) x double>", head))  # 4 with AVX2, 8 with AVX-512
    assert widths & {"4", "8"}, "the loop is not vectorised"
    assert f"@{name}(" not in head and not re.search(r"call <\d+ x double> @__tj", head)
    assert f"call double @{name}(" in body
    # inlined, the variants are deleted before machine-code generation (jit.py)
    assert not re.search(rf"define .*@__tj_slow_{name}_m\d+\(", llvm_ir)
    assert re.search(rf"define .*@__tj_slow_{name}\(", llvm_ir)  # the scalar wrapper stays


def test_default_pipeline_expands_and_matches_eager(check_against_eager):
    """Through `tj.function` (default pipeline): compiled = eager NumPy within 4 ulp."""

    @tj.function
    def f(x):
        return np.exp(x), np.log(np.abs(x)), np.tanh(x), np.sin(x), np.expm1(x) * np.cos(x)

    x = np.linspace(-20, 20, 1001, dtype=np.float32)
    check_against_eager(f, x, rtol=2e-6)
    check_against_eager(f, x.astype(np.float64), rtol=1e-14)
    assert "math.exp" not in f.get_concrete_function(x).ir()


def test_default_pipeline_expands_trig_and_matches_eager(check_against_eager):
    """The trigonometric family through `tj.function`, huge arguments included."""

    @tj.function
    def f(x, y):
        return (np.sin(x), np.cos(x), np.tan(x), np.arctan(x), np.arctan2(x, y),
                np.arcsin(y), np.arccos(y), np.sinh(y * 3), np.cosh(y * 3))  # fmt: skip

    x = np.concatenate([np.linspace(-20, 20, 1001), [1e30, -3e20, 2.0**60, 0.0, -0.0]])
    y = np.linspace(-1, 1, x.size)
    for dtype, rtol in ((np.float32, 2e-6), (np.float64, 1e-14)):
        check_against_eager(f, x.astype(dtype), y.astype(dtype), rtol=rtol)
    ir = f.get_concrete_function(x, y).ir()
    assert "math.atan" not in ir and "math.sinh" not in ir


def test_pipeline_without_the_pass_keeps_math_ops():
    _, _, lowered = compiled("math.exp", "f32", passes="scf-to-cf")
    assert "math.exp" in str(lowered)


# --- the exhaustive sweep (TRACEJIT_SLOW=1) -----------------------------------------------------

_CHUNK = 1 << 24


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="exhaustive f32 sweep: set TRACEJIT_SLOW=1 (minutes per op)")
@pytest.mark.parametrize("name", UNARY)
def test_exhaustive_f32(name):
    """Every f32 bit pattern: within 4 ulp of NumPy and of the exact reference."""
    run, _, _ = compiled(f"math.{name}", "f32")
    worst_seen = {"numpy": 0.0, "exact": 0.0}
    for start in range(0, 1 << 32, _CHUNK):
        x = np.arange(start, start + _CHUNK, dtype=np.uint64).astype(np.uint32).view(np.float32)
        got = run(x)
        for how in worst_seen:
            want = reference(name, x, how)
            error, where = worst(x, got, want)
            assert error <= MAX_ULP, f"{name} f32: {error} ulp vs {how} at {where}"
            worst_seen[how] = max(worst_seen[how], error)
            if how == "numpy":
                assert_specials_exact(got, want, x)
    print(f"{name} f32 exhaustive: max ulp {worst_seen}")
