"""How a transform of length n is computed: its radices, its twiddle factors, and when it
takes Bluestein's route instead (the plan `bufferize` builds `tj.fft`'s loops from,
passes/bufferize/fft.py). Everything here is plain Python and NumPy, run at compile time.

A length whose prime factors are all at most MAX_RADIX is a mixed-radix transform: one
Stockham stage per radix, 4s first (then a 2, then the odd primes in increasing order). A
length with a larger prime factor is a Bluestein transform of a length M >= 2n - 1 (a
power of two, or three times one).

Twiddle factors W^k = exp(-2 pi i k / N) are never computed by the compiled code from sin
and cos: it multiplies two entries of two small tables computed here in extended precision,
`coarse[k >> shift] * fine[k & (2**shift - 1)]` (each ~sqrt(N) long), as pocketfft does;
each entry is correctly rounded, so a product is within about an ulp of the exact root.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_RADIX = 13  # a larger prime factor takes Bluestein's route


def prime_factors(n: int) -> list[int]:
    """The prime factors of `n`, smallest first, with repeats."""
    factors, p = [], 2
    while p * p <= n:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors + ([n] if n > 1 else [])


def radices(n: int) -> list[int]:
    """The radix of each Stockham stage of a length-`n` transform (n's factors, 4s first)."""
    factors = prime_factors(n)
    twos = factors.count(2)
    odd = [p for p in factors if p != 2]
    return [4] * (twos // 2) + [2] * (twos % 2) + odd


def needs_bluestein(n: int) -> bool:
    return n > 1 and prime_factors(n)[-1] > MAX_RADIX


def bluestein_length(n: int) -> int:
    """The transform length M >= 2n - 1 of Bluestein's route for length n: a power of two,
    or 3 times one when that is shorter (radix-4 stages are the fastest and the least code;
    NumPy's pocketfft takes any 2^a 3^b 5^c)."""
    power = 1 << (2 * n - 2).bit_length()
    three = 3 << max((2 * n - 2) // 3, 0).bit_length()
    return min(power, three)


def bluestein_tables(n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The chirp c_j = W_2n^(j^2 mod 2n) (j < n) and the transform of conj(c) wrapped around
    to length m, divided by m (the convolution's inverse scale), computed in extended
    precision."""
    j = np.arange(n, dtype=np.int64)
    chirp = roots(2 * n, (j * j) % (2 * n))
    wrapped = np.zeros(m, np.clongdouble)
    wrapped[:n] = np.conj(chirp)
    wrapped[m - n + 1 :] = np.conj(chirp[1:][::-1])
    return chirp, np.fft.fft(wrapped) / m


@dataclass(frozen=True)
class Stage:
    """One Stockham stage: `radix`-point butterflies over `m` = (length left) / radix
    positions, `stride` apart, with the twiddles W_N^(j * p * step) for j in [1, radix)
    and p in [0, m) at `offset` of the twiddle table ((radix - 1) * m of them; none for
    the last stage, where m is 1 and every twiddle is W^0 = 1)."""

    radix: int
    m: int
    stride: int  # in lines of the batch: element t of a line is at t * batch
    step: int
    offset: int


def stages(n: int) -> list[Stage]:
    """The stages of a length-`n` mixed-radix transform, in order."""
    result, left, stride, offset = [], n, 1, 0
    for radix in radices(n):
        m = left // radix
        result.append(Stage(radix, m, stride, n // left, offset))
        offset += (radix - 1) * m if m > 1 else 0
        left, stride = m, stride * radix
    return result


def twiddle_count(n: int) -> int:
    return sum((s.radix - 1) * s.m for s in stages(n) if s.m > 1)


def roots(n: int, k: np.ndarray) -> np.ndarray:
    """exp(-2 pi i k / n) for integer `k`, correctly rounded to complex128 (computed in
    extended precision; exact 0 and +-1 where the root is on an axis)."""
    k = np.asarray(k, dtype=np.int64) % n
    angle = 2 * np.arccos(np.longdouble(-1)) * k / n
    re, im = np.cos(angle), -np.sin(angle)
    on_axis = (4 * k) % n == 0
    quarter = (4 * k) // n % 4
    re = np.where(on_axis, np.array([1, 0, -1, 0])[quarter], re)
    im = np.where(on_axis, np.array([0, -1, 0, 1])[quarter], im)
    return re.astype(np.float64) + 1j * im.astype(np.float64)


def root_tables(n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(coarse, fine, shift) with W_n^k ~= coarse[k >> shift] * fine[k & (2**shift - 1)]
    for k in [0, n) (module docstring)."""
    shift = max((n - 1).bit_length() + 1, 0) // 2
    fine = roots(n, np.arange(1 << shift))
    coarse = roots(n, np.arange(((n - 1) >> shift) + 1) << shift)
    return coarse, fine, shift
