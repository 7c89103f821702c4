"""Generate the polynomial coefficients of the `expand-math` pass.

Run `python -m tracejit.tools.gen_math_coefficients > passes/support/expand_math_coefficients.py`.

Everything is derived here, in pure Python with `decimal` at 90 digits: the target functions
are evaluated from their Taylor series (or `Decimal.exp`/`ln`), each approximation is a
minimax polynomial found with the Remez exchange algorithm (Chebyshev nodes as the first
reference, extrema located on a dense grid and refined by golden-section search), and the
coefficients are rounded to float64. The Cody-Waite constants (ln2, pi/2 split into pieces
whose products with small integers are exact) are computed from 100-digit ln2 and pi.

Each `Fit` gives: the function, the interval, the degree (of a polynomial in the fitted
variable) and whether the error is measured relative to the function or absolutely. The
printed comment shows the achieved max error of the float64-rounded polynomial.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal as D

decimal.getcontext().prec = 90
ONE = D(1)


# --- the target functions, in 90-digit arithmetic ------------------------------------------


def _pi() -> D:
    # Machin: pi = 16 atan(1/5) - 4 atan(1/239)
    def atan_inv(n: int) -> D:
        total, term, k, x2 = D(0), ONE / n, 0, D(n * n)
        while term != 0:
            total += term / (2 * k + 1) * (-1) ** k
            term /= x2
            k += 1
        return total

    return 16 * atan_inv(5) - 4 * atan_inv(239)


PI = _pi()
LN2 = D(2).ln()
LN10 = D(10).ln()


def _series(terms: Callable[[int], D]) -> D:
    total, k = D(0), 0
    while True:
        term = terms(k)
        total += term
        if abs(term) < D(10) ** -88 * max(abs(total), D(10) ** -300) and k > 3:
            return total
        k += 1


def sin_over(x: D) -> D:
    """sin(x)/x."""
    x2 = x * x
    term, total, k = ONE, ONE, 1
    while abs(term) > D(10) ** -88:
        term = -term * x2 / ((2 * k) * (2 * k + 1))
        total += term
        k += 1
    return total


def cos_(x: D) -> D:
    x2 = x * x
    term, total, k = ONE, ONE, 1
    while abs(term) > D(10) ** -88:
        term = -term * x2 / ((2 * k - 1) * (2 * k))
        total += term
        k += 1
    return total


def erf_over(x: D) -> D:
    """erf(x)/x = 2/sqrt(pi) * sum (-1)^k x^2k / (k! (2k+1))."""
    x2 = x * x
    term, total, k = ONE, ONE, 0
    while True:
        k += 1
        term = -term * x2 / k
        add = term / (2 * k + 1)
        total += add
        if abs(add) < D(10) ** -88 and k > x2:
            break
    return total * 2 / PI.sqrt()


def atanh_over(s: D) -> D:
    """atanh(s)/s = sum s^2k / (2k+1)."""
    z = s * s
    term, total, k = ONE, ONE, 0
    while abs(term) > D(10) ** -88:
        k += 1
        term *= z
        total += term / (2 * k + 1)
    return total


# The fitted functions (variable t: r for exp, z = x^2 for the even/odd ones).
def exp_q(r: D) -> D:  # (e^r - 1 - r) / r^2
    if abs(r) < D(10) ** -30:
        return D(1) / 2 + r / 6
    return (r.exp() - 1 - r) / (r * r)


def log_u(z: D) -> D:  # 2 (atanh(s)/s - 1) / z,  z = s^2
    if z == 0:
        return D(2) / 3
    return 2 * (atanh_over(z.sqrt()) - 1) / z


def sin_s(z: D) -> D:  # (sin(x)/x - 1) / z,  z = x^2
    if z == 0:
        return -ONE / 6
    return (sin_over(z.sqrt()) - 1) / z


def cos_c(z: D) -> D:  # (cos(x) - 1 + z/2) / z^2
    if z == 0:
        return ONE / 24
    return (cos_(z.sqrt()) - 1 + z / 2) / (z * z)


def atan_s(z: D) -> D:  # (atan(t)/t - 1)/z = -1/3 + z/5 - z^2/7 + ...,  z = t^2
    total, zk, k = D(0), -ONE, 1
    while abs(zk) > D(10) ** -88:
        total += zk / (2 * k + 1)
        zk *= -z
        k += 1
    return total


def asin_s(z: D) -> D:  # (asin(x)/x - 1)/z,  z = x^2
    a, total, k, zk = ONE, D(0), 1, ONE
    while True:
        a = a * (2 * k - 1) / (2 * k)  # (2k)! / (4^k (k!)^2)
        add = a * zk / (2 * k + 1)
        total += add
        if abs(add) < D(10) ** -88:
            return total
        zk *= z
        k += 1


def erf_p(z: D) -> D:  # erf(x)/x - 1,  z = x^2
    return erf_over(z.sqrt()) - 1


def erfc_g(t: D) -> D:  # erfc(x) e^(x^2) with x = 1/t
    x = 1 / t
    return (1 - erf_over(x) * x) * (x * x).exp()


# --- Remez ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    name: str
    fn: Callable[[D], D]
    lo: float
    hi: float
    degree: int
    relative: bool
    doc: str
    # absolute error multiplied by weight(t) (used when not relative)
    weight: Callable[[D], D] | None = None


def _solve(matrix: list[list[D]], rhs: list[D]) -> list[D]:
    n = len(rhs)
    a = [row[:] + [b] for row, b in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= factor * a[col][c]
    x = [D(0)] * n
    for r in reversed(range(n)):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def _power(t: D, j: int) -> D:
    return ONE if j == 0 else t**j


def _horner(coeffs: list[D], t: D) -> D:
    acc = D(0)
    for c in reversed(coeffs):
        acc = acc * t + c
    return acc


def _error(fit: Fit, coeffs: list[D], t: D) -> D:
    f = fit.fn(t)
    e = _horner(coeffs, t) - f
    if fit.relative:
        return e / f
    return e * fit.weight(t) if fit.weight else e


def _refine(fit: Fit, coeffs: list[D], a: D, b: D) -> D:
    """Golden-section search for the extremum of |error| in [a, b]."""
    g = D((math.sqrt(5) - 1) / 2)
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = abs(_error(fit, coeffs, c)), abs(_error(fit, coeffs, d))
    for _ in range(30):
        if fc > fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = abs(_error(fit, coeffs, c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = abs(_error(fit, coeffs, d))
    return (a + b) / 2


def remez(fit: Fit, iterations: int = 12, grid: int = 600) -> list[D]:
    lo, hi = D(fit.lo), D(fit.hi)
    n = fit.degree + 2
    ref = [(lo + hi) / 2 - (hi - lo) / 2 * D(math.cos(math.pi * i / (n - 1))) for i in range(n)]
    coeffs: list[D] = []
    for _ in range(iterations):
        rows, rhs = [], []
        for i, t in enumerate(ref):
            f = fit.fn(t)
            scale = abs(f) if fit.relative else 1 / fit.weight(t) if fit.weight else ONE
            rows.append([_power(t, j) for j in range(fit.degree + 1)] + [(-1) ** i * scale])
            rhs.append(f)
        solution = _solve(rows, rhs)
        coeffs = solution[:-1]
        points = [lo + (hi - lo) * i / grid for i in range(grid + 1)]
        errs = [_error(fit, coeffs, t) for t in points]
        # local extrema of the error, one per sign run, endpoints included
        extrema: list[D] = []
        start = 0
        for i in range(1, grid + 2):
            if i == grid + 1 or (errs[i] > 0) != (errs[start] > 0):
                run = range(start, i)
                best = max(run, key=lambda k: abs(errs[k]))
                a = points[max(best - 1, 0)]
                b = points[min(best + 1, grid)]
                extrema.append(_refine(fit, coeffs, a, b) if 0 < best < grid else points[best])
                start = i
        while len(extrema) > n:  # drop the smallest end extremum
            drop = (
                0
                if abs(_error(fit, coeffs, extrema[0])) < abs(_error(fit, coeffs, extrema[-1]))
                else -1
            )
            extrema.pop(drop)
        if len(extrema) == n:
            ref = extrema
    return coeffs


def max_error_rounded(fit: Fit, coeffs: list[float], grid: int = 3000) -> float:
    """Max error of the float64-rounded coefficients (evaluated exactly)."""
    exact = [D(c) for c in coeffs]
    lo, hi = D(fit.lo), D(fit.hi)
    return float(max(abs(_error(fit, exact, lo + (hi - lo) * i / grid)) for i in range(grid + 1)))


# --- the fits -----------------------------------------------------------------------------

_R_EXP = 0.3466 * 1.02  # ln2/2 plus slack: the reduced argument of exp/expm1/exp2
_Z_LOG = 0.1716**2 * 1.02  # s = f/(2+f) with 1+f in [sqrt(2)/2, sqrt(2))
_Z_TRIG = 0.7854**2 * 1.03  # |r| <= pi/4 plus slack for the rounding of n
_Z_ATAN = 0.41422**2 * 1.02  # |t| <= tan(pi/8) after the three-range reduction
_Z_ASIN = 0.25 * 1.02  # |x| <= 1/2, or z = (1 - |x|)/2 <= 1/4

FITS = [
    Fit("EXP_Q_F64", exp_q, -_R_EXP, _R_EXP, 10, True, "(e^r - 1 - r)/r^2, |r| <= ln2/2"),
    Fit("EXP_Q_F32", exp_q, -_R_EXP, _R_EXP, 5, True, "(e^r - 1 - r)/r^2, |r| <= ln2/2"),
    Fit("LOG_U_F64", log_u, 0.0, _Z_LOG, 6, True, "2 (atanh(s)/s - 1)/s^2 in z = s^2"),
    Fit("LOG_U_F32", log_u, 0.0, _Z_LOG, 3, True, "2 (atanh(s)/s - 1)/s^2 in z = s^2"),
    Fit("SIN_S_F64", sin_s, 0.0, _Z_TRIG, 6, True, "(sin(x)/x - 1)/x^2 in z = x^2"),
    Fit("SIN_S_F32", sin_s, 0.0, _Z_TRIG, 3, True, "(sin(x)/x - 1)/x^2 in z = x^2"),
    Fit("COS_C_F64", cos_c, 0.0, _Z_TRIG, 6, True, "(cos(x) - 1 + x^2/2)/x^4 in z = x^2"),
    Fit("COS_C_F32", cos_c, 0.0, _Z_TRIG, 3, True, "(cos(x) - 1 + x^2/2)/x^4 in z = x^2"),
    Fit("ATAN_S_F64", atan_s, 0.0, _Z_ATAN, 11, True, "(atan(t)/t - 1)/t^2 in z = t^2"),
    Fit("ATAN_S_F32", atan_s, 0.0, _Z_ATAN, 5, True, "(atan(t)/t - 1)/t^2 in z = t^2"),
    Fit("ASIN_S_F64", asin_s, 0.0, _Z_ASIN, 14, True, "(asin(x)/x - 1)/x^2 in z = x^2"),
    Fit("ASIN_S_F32", asin_s, 0.0, _Z_ASIN, 6, True, "(asin(x)/x - 1)/x^2 in z = x^2"),
    Fit("ERF_P_F64", erf_p, 0.0, 1.5625, 15, False, "erf(x)/x - 1 in z = x^2, |x| < 1.25"),
    Fit("ERF_P_F32", erf_p, 0.0, 1.0, 6, False, "erf(x)/x - 1 in z = x^2, |x| < 1"),
    # erfc(x) = e^(-x^2) G(1/x); the error that matters is erfc's absolute error, so the
    # weight is e^(-x^2) (a relative fit of G in 1/x or in x converges far too slowly).
    Fit(
        "ERFC_G_F64",
        erfc_g,
        1 / 6,
        0.8,
        15,
        False,
        "erfc(x) e^(x^2) in t = 1/x, 1.25 <= x <= 6",
        weight=lambda t: (-1 / (t * t)).exp(),
    ),
    Fit(
        "ERFC_G_F32",
        erfc_g,
        1 / 4,
        1.0,
        8,
        False,
        "erfc(x) e^(x^2) in t = 1/x, 1 <= x <= 4",
        weight=lambda t: (-1 / (t * t)).exp(),
    ),
]


# --- the Cody-Waite constants ------------------------------------------------------------


def split(value: D, bits: int, pieces: int) -> list[float]:
    """`value` as a sum of doubles, the first `pieces - 1` with at most `bits` significant
    bits (so their products with an integer of 53 - bits bits are exact), the last full."""
    out, rest = [], value
    for i in range(pieces):
        if i == pieces - 1:
            out.append(float(rest))
            break
        exponent = math.frexp(float(rest))[1]
        quantum = D(2) ** (exponent - bits)
        piece = (rest / quantum).to_integral_value(rounding=decimal.ROUND_HALF_EVEN) * quantum
        out.append(float(piece))
        rest -= D(out[-1])
    return out


def constants() -> dict[str, object]:
    half_pi = PI / 2
    return {
        "LN2_HI_LO": split(LN2, 42, 2),  # e * LN2_HI exact for |e| < 2^11
        "LN2_HI_LO_F32": split(LN2, 16, 2),  # for native f32: k * hi exact for |k| < 2^8
        "LN2_SPLIT": split(LN2, 53, 2),  # ln2 = hi + lo, hi the nearest double
        "LN2_SPLIT_F32": split(LN2, 24, 2),  # hi the nearest float
        "INV_LN2": float(1 / LN2),
        "LN2": float(LN2),
        "INV_LN10": float(1 / LN10),
        "LOG10_2_HI_LO": split(LN2 / LN10, 42, 2),
        "TWO_OVER_PI": float(2 / PI),
        "HALF_PI_PIECES": split(half_pi, 53, 4),  # fma reduction: 4 x 53 bits of pi/2
        "HALF_PI_PIECES_F32": split(half_pi, 24, 3),  # native f32: 3 x 24 bits
        # hi + lo pairs (hi the nearest double) of the angles atan/asin/acos add back
        "QUARTER_PI_SPLIT": split(PI / 4, 53, 2),
        "HALF_PI_SPLIT": split(half_pi, 53, 2),
        "THREE_QUARTER_PI_SPLIT": split(3 * PI / 4, 53, 2),
        "PI_SPLIT": split(PI, 53, 2),
        "TAN_PI_8": float(D(2).sqrt() - 1),  # the atan range boundaries
        "TAN_3PI_8": float(D(2).sqrt() + 1),
    }


def main() -> None:
    print('"""Coefficients of the `expand-math` pass (generated; do not edit).')
    print()
    print("Produced by `tools/gen_math_coefficients.py`: float64-rounded Remez minimax")
    print("polynomials (lowest degree first) and Cody-Waite constants. The comment above each")
    print('fit gives the max error of the rounded polynomial (relative or absolute)."""')
    print()
    for name, value in constants().items():
        if isinstance(value, list):
            print(f"{name} = (")
            for v in value:
                print(f"    {v!r},")
            print(")")
        else:
            print(f"{name} = {value!r}")
    for fit in FITS:
        coeffs = [float(c) for c in remez(fit)]
        err = max_error_rounded(fit, coeffs)
        kind = "relative" if fit.relative else "weighted" if fit.weight else "absolute"
        print()
        print(f"# {fit.doc} on [{fit.lo:.6g}, {fit.hi:.6g}], degree {fit.degree}:")
        print(f"# max {kind} error {err:.3g} (2^{math.log2(err):.1f})")
        print(f"{fit.name} = (")
        for c in coeffs:
            print(f"    {c!r},")
        print(")")


if __name__ == "__main__":
    main()
