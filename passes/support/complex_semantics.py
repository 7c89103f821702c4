"""What element-wise `tj` ops compute on one complex element, in `complex`, `arith`, `math`.

A complex scalar in a loop body is a `complex<fN>` value: `complex.re` / `complex.im` take
it apart and `complex.create` builds one (codegen keeps it as the LLVM struct {fN, fN},
the two floats NumPy stores). Everything in between is float arithmetic, written here as
formulas on (real, imaginary) pairs that follow NumPy 2's loops:

* `a * b`: (ar*br - ai*bi, ar*bi + ai*br) with each sum's first product fused
  (`math.fma`), as NumPy 2.4's SIMD loop on contiguous arrays on an FMA host (x86-64-v3
  and later; NumPy's loop for reversed complex64 operands rounds every product instead, and
  so does its scalar arithmetic on two complex NumPy scalars, where the result can differ
  from tracejit's by an ulp: a traced 0-d value is multiplied like a 0-d array);
* `a / b`: Smith's algorithm, as NumPy's divide loop (bit for bit);
* `a ** b`: NumPy's `npy_cpow`: b == 0 gives 1; a zero base gives 0 for Re(b) > 0 and NaN
  otherwise; an integral real exponent below 100 in magnitude is repeated squaring (with
  plain products; a negative one then divides 1 by the result); other exponents are
  exp(b * log(a));
* `exp`, `log`, `sqrt`: the principal branches with C99 Annex G's special values (what
  NumPy's libm gives for NaN, Inf and signed zeros); see each formula for the deviations.

complex64 transcendentals (`exp`, `log`, `sqrt`, the exp(b * log(a)) of `**`) are computed
in float64 and rounded once, as the float32 `hypot` is: that sidesteps float32 overflow in
the intermediate steps and keeps the result within an ulp or two of NumPy's
`cexpf`/`clogf`/`csqrtf`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, complex, math
from xdsl.dialects.builtin import AnyFloat, ComplexType, FloatAttr, IntegerAttr, f32, f64, i64
from xdsl.ir import Attribute, Operation, SSAValue

from tracejit.ir import elementwise as ew

Pair = tuple[SSAValue, SSAValue]  # (real part, imaginary part)
Emitter = Callable[[Builder, Sequence[SSAValue], Attribute], SSAValue]


def _part_type(element: ComplexType) -> AnyFloat:
    part = element.element_type
    assert isinstance(part, AnyFloat), element  # complex<iN> is no NumPy dtype
    return part


def real_part(builder: Builder, z: SSAValue) -> SSAValue:
    return builder.insert(complex.ReOp(z)).result


def imag_part(builder: Builder, z: SSAValue) -> SSAValue:
    return builder.insert(complex.ImOp(z)).result


def split(builder: Builder, z: SSAValue) -> Pair:
    """(re z, im z) of a complex scalar."""
    return real_part(builder, z), imag_part(builder, z)


def pack(builder: Builder, pair: Pair, element: ComplexType) -> SSAValue:
    """The complex scalar of type `element` with parts `pair`."""
    return builder.insert(complex.CreateOp(pair[0], pair[1], element)).complex


@dataclass
class Floats:
    """Float arithmetic on one float type, inserted by `b` (the formulas' vocabulary)."""

    b: Builder
    part: AnyFloat  # the type of the floats (f32 or f64)

    def insert(self, op: Operation) -> SSAValue:
        """Insert `op` and return its (one) result."""
        return self.b.insert(op).results[0]

    def const(self, value: float) -> SSAValue:
        return self.insert(arith.ConstantOp(FloatAttr(value, self.part)))

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(arith.AddfOp(x, y))

    def sub(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(arith.SubfOp(x, y))

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(arith.MulfOp(x, y))

    def div(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(arith.DivfOp(x, y))

    def fma(self, x: SSAValue, y: SSAValue, z: SSAValue) -> SSAValue:
        return self.insert(math.FmaOp(x, y, z))

    def neg(self, x: SSAValue) -> SSAValue:
        return self.insert(arith.NegfOp(x))

    def abs(self, x: SSAValue) -> SSAValue:
        return self.insert(math.AbsFOp(x))

    def call(self, op_type: type[Operation], *args: SSAValue) -> SSAValue:
        """A `math` op (`math.ExpOp`, `math.Atan2Op`, ...) on `args`."""
        return self.insert(op_type(*args))

    def cmp(self, predicate: str, x: SSAValue, y: SSAValue) -> SSAValue:
        """`arith.cmpf` with an LLVM predicate: `o..` is false on NaN, `u..` true."""
        return self.insert(arith.CmpfOp(x, y, predicate))

    def select(self, condition: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.insert(arith.SelectOp(condition, x, y))

    def pick(self, condition: SSAValue, x: Pair, y: Pair) -> Pair:
        return self.select(condition, x[0], y[0]), self.select(condition, x[1], y[1])

    def and_(self, p: SSAValue, q: SSAValue) -> SSAValue:
        return self.insert(arith.AndIOp(p, q))

    def or_(self, p: SSAValue, q: SSAValue) -> SSAValue:
        return self.insert(arith.OrIOp(p, q))

    def is_inf(self, x: SSAValue) -> SSAValue:
        return self.cmp("oeq", self.abs(x), self.const(float("inf")))

    def is_finite(self, x: SSAValue) -> SSAValue:
        return self.cmp("olt", self.abs(x), self.const(float("inf")))


# --- arithmetic -------------------------------------------------------------------------


def add(f: Floats, a: Pair, b: Pair) -> Pair:
    return f.add(a[0], b[0]), f.add(a[1], b[1])


def sub(f: Floats, a: Pair, b: Pair) -> Pair:
    return f.sub(a[0], b[0]), f.sub(a[1], b[1])


def mul(f: Floats, a: Pair, b: Pair) -> Pair:
    """NumPy's SIMD multiply loop on an FMA host: fma(ar, br, -(ai*bi)), fma(ar, bi, ai*br)."""
    (ar, ai), (br, bi) = a, b
    return f.fma(ar, br, f.neg(f.mul(ai, bi))), f.fma(ar, bi, f.mul(ai, br))


def plain_mul(f: Floats, a: Pair, b: Pair) -> Pair:
    """(ar*br - ai*bi, ar*bi + ai*br) with every product rounded (`npy_cpow`'s cmul)."""
    (ar, ai), (br, bi) = a, b
    return f.sub(f.mul(ar, br), f.mul(ai, bi)), f.add(f.mul(ar, bi), f.mul(ai, br))


def div(f: Floats, a: Pair, b: Pair) -> Pair:
    """Smith's algorithm, NumPy's divide loop: scale by the larger part of b; a zero b
    divides each part of a by |br| (so gives inf or NaN parts); a NaN part of b takes the
    second branch, as C's `>=` does."""
    (ar, ai), (br, bi) = a, b
    abs_br, abs_bi = f.abs(br), f.abs(bi)
    one = f.const(1.0)
    rat = f.div(bi, br)  # |br| >= |bi|
    scl = f.div(one, f.add(br, f.mul(bi, rat)))
    real_major = (f.mul(f.add(ar, f.mul(ai, rat)), scl), f.mul(f.sub(ai, f.mul(ar, rat)), scl))
    rat = f.div(br, bi)  # |br| < |bi|
    scl = f.div(one, f.add(bi, f.mul(br, rat)))
    imag_major = (f.mul(f.add(f.mul(ar, rat), ai), scl), f.mul(f.sub(f.mul(ai, rat), ar), scl))
    by_zero = (f.div(ar, abs_br), f.div(ai, abs_br))
    zero = f.cmp("oeq", abs_br, f.const(0.0))
    first = f.pick(zero, by_zero, real_major)
    return f.pick(f.cmp("oge", abs_br, abs_bi), first, imag_major)


def reciprocal(f: Floats, a: Pair) -> Pair:
    """NumPy's reciprocal loop: with r the smaller part over the larger and d the larger
    part plus the smaller times r, (1 / d, -r / d) or (r / d, -1 / d)."""
    x, y = a
    one = f.const(1.0)
    r = f.div(y, x)  # |y| <= |x|
    d = f.add(x, f.mul(y, r))
    real_major = (f.div(one, d), f.neg(f.div(r, d)))
    r = f.div(x, y)
    d = f.add(f.mul(x, r), y)
    imag_major = (f.div(r, d), f.neg(f.div(one, d)))
    return f.pick(f.cmp("ole", f.abs(y), f.abs(x)), real_major, imag_major)


def neg(f: Floats, a: Pair) -> Pair:
    return f.neg(a[0]), f.neg(a[1])


def conj(f: Floats, a: Pair) -> Pair:
    return a[0], f.neg(a[1])


# --- transcendentals (float64; complex64 is widened first) ------------------------------

LN_DOUBLE_MAX = 709.782712893384  # exp(x) overflows float64 above this


def hypot(f: Floats, x: SSAValue, y: SSAValue) -> SSAValue:
    """sqrt(x**2 + y**2) without overflow: big * sqrt(1 + (small / big)**2); inf if either
    part is inf (also when the other is NaN), as C's hypot."""
    ax, ay = f.abs(x), f.abs(y)
    big, small = f.call(arith.MaximumfOp, ax, ay), f.call(arith.MinimumfOp, ax, ay)
    ratio = f.div(small, big)
    scaled = f.mul(big, f.call(math.SqrtOp, f.fma(ratio, ratio, f.const(1.0))))
    scaled = f.select(f.cmp("oeq", big, f.const(0.0)), f.const(0.0), scaled)
    return f.select(f.or_(f.is_inf(ax), f.is_inf(ay)), f.const(float("inf")), scaled)


def exp(f: Floats, a: Pair) -> Pair:
    """exp(x) * (cos y, sin y). Special values (C99, NumPy): y == 0 gives (exp(x), y);
    x = -inf with y inf or NaN gives (0, +-0); x = +inf with y inf or NaN gives (inf, NaN).
    For x beyond float64's exp range exp(x / 2) is applied twice, so a finite result
    (exp(710 + 1.5j)) stays finite, as glibc's cexp."""
    x, y = a
    big = f.cmp("ogt", x, f.const(LN_DOUBLE_MAX))
    r = f.call(math.ExpOp, f.select(big, f.mul(x, f.const(0.5)), x))
    cos, sin = f.call(math.CosOp, y), f.call(math.SinOp, y)
    re, im = f.mul(r, cos), f.mul(r, sin)
    re, im = f.select(big, f.mul(re, r), re), f.select(big, f.mul(im, r), im)
    real_axis = (f.select(big, f.mul(r, r), r), y)
    result = f.pick(f.cmp("oeq", y, f.const(0.0)), real_axis, (re, im))
    not_finite_y = f.cmp("uge", f.abs(y), f.const(float("inf")))  # inf or NaN
    minus_inf = f.and_(f.cmp("oeq", x, f.const(float("-inf"))), not_finite_y)
    zero = f.const(0.0)
    result = f.pick(minus_inf, (zero, f.call(math.CopySignOp, zero, y)), result)
    plus_inf = f.and_(f.cmp("oeq", x, f.const(float("inf"))), not_finite_y)
    return f.pick(plus_inf, (f.const(float("inf")), f.const(float("nan"))), result)


def log(f: Floats, a: Pair) -> Pair:
    """(log|z|, atan2(y, x)): the imaginary part in [-pi, pi], -pi on the cut's lower side
    (y = -0.0). Where the larger part is in [0.5, 2) and the smaller below 1, log|z| is
    log1p((big - 1) * (big + 1) + small**2) / 2, accurate near |z| = 1 (glibc's clog does
    the same); elsewhere log(big) + log1p((small / big)**2) / 2, which neither overflows
    where |z| exceeds the largest float (1.3e308 * (1 + 1j)) nor loses the bits a
    subnormal |z| would."""
    x, y = a
    ax, ay = f.abs(x), f.abs(y)
    big, small = f.call(arith.MaximumfOp, ax, ay), f.call(arith.MinimumfOp, ax, ay)
    one = f.const(1.0)
    near_one = f.and_(
        f.and_(f.cmp("oge", big, f.const(0.5)), f.cmp("olt", big, f.const(2.0))),
        f.cmp("olt", small, one),
    )
    big_squared_minus_one = f.mul(f.sub(big, one), f.add(big, one))
    near = f.call(math.Log1pOp, f.fma(small, small, big_squared_minus_one))
    near = f.mul(near, f.const(0.5))
    zero = f.cmp("oeq", big, f.const(0.0))
    ratio = f.select(zero, f.const(0.0), f.div(small, big))
    correction = f.mul(f.call(math.Log1pOp, f.mul(ratio, ratio)), f.const(0.5))
    far = f.add(f.call(math.LogOp, big), correction)
    infinite = f.or_(f.is_inf(ax), f.is_inf(ay))  # inf, also beside a NaN part (C's clog)
    far = f.select(infinite, f.const(float("inf")), far)
    return f.select(near_one, near, far), f.call(math.Atan2Op, y, x)


SQRT_TINY = 2.0**-1000  # parts below this are scaled up first (their halves lose bits)
SQRT_HUGE = 2.0**1020  # parts above this are scaled down first (|x| + |z| overflows)


def sqrt(f: Floats, a: Pair) -> Pair:
    """t = sqrt((|x| + |z|) / 2), then (t, y / 2t) for x >= 0 and (|y| / 2t, +-t) for
    x < 0. Special values (C99, NumPy): sqrt(+-0 +- 0j) is (+0, y); an infinite y gives
    (inf, y) whatever x is; x = -inf gives (0 or NaN, +-inf), x = +inf gives (inf, +-0 or
    NaN). Tiny parts are scaled by 2**600 first and the result by 2**-300 after, huge ones
    by 2**-4 and 2**2."""
    x, y = a
    largest = f.call(arith.MaximumfOp, f.abs(x), f.abs(y))
    tiny = f.cmp("olt", largest, f.const(SQRT_TINY))
    huge = f.cmp("ogt", largest, f.const(SQRT_HUGE))
    up = f.select(tiny, f.const(2.0**600), f.select(huge, f.const(2.0**-4), f.const(1.0)))
    x, y = f.mul(x, up), f.mul(y, up)
    half = f.const(0.5)
    t = f.call(math.SqrtOp, f.add(f.mul(f.abs(x), half), f.mul(hypot(f, x, y), half)))
    two_t = f.add(t, t)
    right = (t, f.div(y, two_t))
    left = (f.div(f.abs(y), two_t), f.call(math.CopySignOp, t, y))
    re, im = f.pick(f.cmp("oge", x, f.const(0.0)), right, left)
    down = f.select(tiny, f.const(2.0**-300), f.select(huge, f.const(4.0), f.const(1.0)))
    result = (f.mul(re, down), f.mul(im, down))
    zero = f.and_(f.cmp("oeq", x, f.const(0.0)), f.cmp("oeq", y, f.const(0.0)))
    result = f.pick(zero, (f.const(0.0), a[1]), result)
    return f.pick(f.is_inf(y), (f.const(float("inf")), a[1]), result)


POW_UNROLLED_BITS = 7  # npy_cpow squares for integral exponents below 100 = 0b1100100


def _exp_of_product_with_log(f: Floats, a: Pair, b: Pair) -> Pair:
    return exp(f, plain_mul(f, b, log(f, a)))


def power(f: Floats, a: Pair, b: Pair) -> Pair:
    """NumPy's `npy_cpow` (see the module docstring), the cases as selects. The integral
    cases are computed in the element's own type, as NumPy does (so complex64 powers
    overflow and underflow where NumPy's do); exp(b * log(a)) in float64."""
    (ar, ai), (br, bi) = a, b
    zero, one = f.const(0.0), f.const(1.0)
    general = in_double(f, _exp_of_product_with_log, a, b)
    integral = f.and_(
        f.and_(f.cmp("oeq", bi, zero), f.cmp("oeq", f.call(math.FloorOp, br), br)),
        f.cmp("olt", f.abs(br), f.const(100.0)),
    )
    n_float = f.select(integral, br, zero)  # converted to an integer only when in range
    result = f.pick(integral, _integral_power(f, a, n_float), general)
    for n, special in _small_powers(f, a):  # npy_cpow's unrolled n = 1, 2, 3
        result = f.pick(f.cmp("oeq", n_float, f.const(float(n))), special, result)
    b_zero = f.and_(f.cmp("oeq", br, zero), f.cmp("oeq", bi, zero))
    a_zero = f.and_(f.cmp("oeq", ar, zero), f.cmp("oeq", ai, zero))
    nan = f.const(float("nan"))
    zero_base = f.pick(f.cmp("ogt", br, zero), (zero, zero), (nan, nan))
    result = f.pick(a_zero, zero_base, result)
    return f.pick(b_zero, (one, zero), result)


def _small_powers(f: Floats, a: Pair) -> list[tuple[int, Pair]]:
    square = plain_mul(f, a, a)
    return [(1, a), (2, square), (3, plain_mul(f, a, square))]


def _integral_power(f: Floats, a: Pair, n_float: SSAValue) -> Pair:
    """a ** n for an integral |n| < 100 by squaring, as npy_cpow's loop: the product
    starts from 1 + 0j and takes in a**(2**k) for every bit k of |n|; 1 / it for n < 0."""
    count = f.insert(arith.FPToSIOp(f.abs(n_float), i64))
    product: Pair = (f.const(1.0), f.const(0.0))
    square = a
    for k in range(POW_UNROLLED_BITS):
        bit = f.insert(arith.AndIOp(f.insert(arith.ShRUIOp(count, _i64(f, k))), _i64(f, 1)))
        taken = f.insert(arith.CmpiOp(bit, _i64(f, 0), "ne"))
        product = f.pick(taken, plain_mul(f, product, square), product)
        if k + 1 < POW_UNROLLED_BITS:
            square = plain_mul(f, square, square)
    inverse = div(f, (f.const(1.0), f.const(0.0)), product)
    return f.pick(f.cmp("olt", n_float, f.const(0.0)), inverse, product)


def _i64(f: Floats, value: int) -> SSAValue:
    return f.insert(arith.ConstantOp(IntegerAttr(value, i64)))


# --- the emitters: complex scalars in, complex scalar out ------------------------------

Formula = Callable[..., Pair]


def _exact(formula: Formula) -> Emitter:
    """An emitter computing `formula` in the element's own float type."""

    def emit(builder: Builder, args: Sequence[SSAValue], element: Attribute) -> SSAValue:
        assert isinstance(element, ComplexType)
        f = Floats(builder, _part_type(element))
        return pack(builder, formula(f, *(split(builder, a) for a in args)), element)

    return emit


def in_double(f: Floats, formula: Formula, *args: Pair) -> Pair:
    """`formula` on `args` computed in float64: float32 parts are widened first and the
    result rounded once."""
    if f.part == f64:
        return formula(f, *args)
    wide = Floats(f.b, f64)
    re, im = formula(wide, *(tuple(wide.insert(arith.ExtFOp(p, f64)) for p in a) for a in args))
    return wide.insert(arith.TruncFOp(re, f32)), wide.insert(arith.TruncFOp(im, f32))


def _in_double(formula: Formula) -> Emitter:
    """An emitter computing `formula` in float64 (complex64 widened, then rounded once)."""
    return _exact(lambda f, *args: in_double(f, formula, *args))


COMPLEX_OPS: dict[type[Operation], Emitter] = {
    ew.AddOp: _exact(add),
    ew.SubOp: _exact(sub),
    ew.MulOp: _exact(mul),
    ew.DivOp: _exact(div),
    ew.NegOp: _exact(neg),
    ew.ConjOp: _exact(conj),
    ew.ReciprocalOp: _exact(reciprocal),
    ew.PowOp: _exact(power),
    ew.ExpOp: _in_double(exp),
    ew.LogOp: _in_double(log),
    ew.SqrtOp: _in_double(sqrt),
}


def emit_complex(
    builder: Builder, op_type: type[Operation], args: Sequence[SSAValue], element: Attribute
) -> SSAValue:
    """The scalar form of element-wise `op_type` on complex scalars of type `element`."""
    return COMPLEX_OPS[op_type](builder, args, element)


# --- comparisons: NumPy's lexicographic order (npy_math's CLT/CLE/...) -----------------


def compare(builder: Builder, predicate: str, a: SSAValue, b: SSAValue) -> SSAValue:
    """eq/ne part by part; lt/le/gt/ge compare the real parts strictly first and the
    imaginary parts on a tie (a NaN imaginary part makes the real-part comparison false),
    as NumPy's CLE: (ar < br && !isnan(ai) && !isnan(bi)) || (ar == br && ai <= bi)."""
    element = a.type
    assert isinstance(element, ComplexType)
    f = Floats(builder, _part_type(element))
    (ar, ai), (br, bi) = split(builder, a), split(builder, b)
    if predicate == "eq":
        return f.and_(f.cmp("oeq", ar, br), f.cmp("oeq", ai, bi))
    if predicate == "ne":
        return f.or_(f.cmp("une", ar, br), f.cmp("une", ai, bi))
    strict = {"lt": "olt", "le": "olt", "gt": "ogt", "ge": "ogt"}[predicate]
    ordered = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}[predicate]
    by_real = f.and_(f.cmp(strict, ar, br), f.cmp("ord", ai, bi))
    by_imag = f.and_(f.cmp("oeq", ar, br), f.cmp(ordered, ai, bi))
    return f.or_(by_real, by_imag)


def sum_combiner(builder: Builder, acc: SSAValue, x: SSAValue, fastmath: Attribute) -> SSAValue:
    """acc + x with both part additions carrying `fastmath` (so complex sums vectorise)."""
    element = acc.type
    assert isinstance(element, ComplexType)
    f = Floats(builder, _part_type(element))
    re, im = add(f, split(builder, acc), split(builder, x))
    for part in (re, im):
        owner = part.owner
        assert isinstance(owner, arith.AddfOp)
        owner.properties["fastmath"] = fastmath
    return pack(builder, (re, im), element)
