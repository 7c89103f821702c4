"""arith ops through the JIT, compared with NumPy (integer overflow wraps, as in NumPy)."""

import numpy as np
import pytest

INT_TYPES = {"i8": np.int8, "i32": np.int32, "i64": np.int64}
UNSIGNED = {np.int8: np.uint8, np.int32: np.uint32, np.int64: np.uint64}


def _u(op):
    """Apply `op` to the unsigned views of signed arrays and view the result as signed."""
    def apply(a, b):
        unsigned = UNSIGNED[a.dtype.type]
        result = op(a.view(unsigned), b.view(unsigned))
        return result if result.dtype == bool else result.astype(unsigned).view(a.dtype)
    return apply


def _trunc_div(a, b):
    q = a // b
    return np.where((a % b != 0) & ((a < 0) != (b < 0)), q + 1, q).astype(a.dtype)


INT_BINARY = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "divsi": _trunc_div,
    "remsi": np.fmod,
    "divui": _u(lambda a, b: a // b),
    "remui": _u(lambda a, b: a % b),
    "floordivsi": lambda a, b: a // b,
    "ceildivsi": lambda a, b: -(-a // b),
    "ceildivui": _u(lambda a, b: a // b + (a % b != 0)),
    "andi": np.bitwise_and,
    "ori": np.bitwise_or,
    "xori": np.bitwise_xor,
    "maxsi": np.maximum,
    "minsi": np.minimum,
    "maxui": _u(np.maximum),
    "minui": _u(np.minimum),
}
SHIFTS = {
    "shli": np.left_shift,
    "shrsi": np.right_shift,
    "shrui": _u(np.right_shift),
}
CMPI = {
    "eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal,
    "sgt": np.greater, "sge": np.greater_equal, "ult": _u(np.less), "ule": _u(np.less_equal),
    "ugt": _u(np.greater), "uge": _u(np.greater_equal),
}


def _int_module(kernel_text):
    funcs = []
    for t in INT_TYPES:
        for name in [*INT_BINARY, *SHIFTS]:
            funcs.append(kernel_text(f"{name}_{t}", t, t,
                                     f"%r = arith.{name} %a, %b : {t}", arity=2))
        for pred in CMPI:
            funcs.append(kernel_text(f"cmpi_{pred}_{t}", t, "i1",
                                     f"%r = arith.cmpi {pred}, %a, %b : {t}", arity=2))
        funcs.append(kernel_text(f"select_{t}", t, t, f"""
    %c = arith.cmpi slt, %a, %b : {t}
    %r = arith.select %c, %b, %a : {t}""", arity=2))
    return "\n".join(funcs)


@pytest.fixture(scope="module")
def ints(build, kernel_text):
    return build(_int_module(kernel_text))


def _operands(dtype, n=500, nonzero=False, shift=False):
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    a[:4] = [info.min, info.max, 0, -1]
    a[a == info.min] = 3  # keep INT_MIN / -1 out of the division tests
    if shift:
        return a, rng.integers(0, info.bits, n, dtype=dtype)
    b = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    b[:8] = [1, -1, 7, -7, 1, 2, 3, -3]
    b[b == 0] = 5 if nonzero else 0
    b[8:40] = a[8:40]  # equal pairs for the comparisons
    return a, b


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("name", [*INT_BINARY, *SHIFTS])
def test_int_binary(ints, t, name):
    dtype = INT_TYPES[t]
    a, b = _operands(dtype, nonzero=True, shift=name in SHIFTS)
    out = np.zeros_like(a)
    ints.kernel(f"{name}_{t}")(a, b, out)
    reference = {**INT_BINARY, **SHIFTS}[name]
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out, reference(a, b).astype(dtype))


@pytest.mark.parametrize("t", INT_TYPES)
@pytest.mark.parametrize("pred", CMPI)
def test_cmpi(ints, t, pred):
    a, b = _operands(INT_TYPES[t])
    out = np.zeros(a.shape, np.bool_)
    ints.kernel(f"cmpi_{pred}_{t}")(a, b, out)
    expected = CMPI[pred](a, b)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("t", INT_TYPES)
def test_select(ints, t):
    a, b = _operands(INT_TYPES[t])
    out = np.zeros_like(a)
    ints.kernel(f"select_{t}")(a, b, out)
    np.testing.assert_array_equal(out, np.maximum(a, b))


FLOAT_BINARY = {
    "addf": np.add, "subf": np.subtract, "mulf": np.multiply, "divf": np.divide,
    "maximumf": np.maximum, "minimumf": np.minimum, "maxnumf": np.fmax, "minnumf": np.fmin,
}
CMPF = {
    "oeq": lambda a, b: a == b,
    "ogt": lambda a, b: a > b,
    "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b,
    "ole": lambda a, b: a <= b,
    "one": lambda a, b: (a != b) & ~(np.isnan(a) | np.isnan(b)),
    "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    "ueq": lambda a, b: (a == b) | np.isnan(a) | np.isnan(b),
    "ugt": lambda a, b: ~(a <= b),
    "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b),
    "ule": lambda a, b: ~(a > b),
    "une": lambda a, b: a != b,
    "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "false": lambda a, b: np.zeros(a.shape, bool),
    "true": lambda a, b: np.ones(a.shape, bool),
}
# (name, in type, out type, body, NumPy reference, input dtype)
CASTS = [
    ("extsi", "i32", "i64", "arith.extsi %a : i32 to i64", lambda a: a.astype(np.int64),
     np.int32),
    ("extui", "i32", "i64", "arith.extui %a : i32 to i64",
     lambda a: a.view(np.uint32).astype(np.int64), np.int32),
    ("extui_i1", "i1", "i32", "arith.extui %a : i1 to i32", lambda a: a.astype(np.int32),
     np.bool_),
    ("trunci", "i64", "i16", "arith.trunci %a : i64 to i16", lambda a: a.astype(np.int16),
     np.int64),
    ("sitofp", "i32", "f64", "arith.sitofp %a : i32 to f64", lambda a: a.astype(np.float64),
     np.int32),
    ("uitofp", "i32", "f32", "arith.uitofp %a : i32 to f32",
     lambda a: a.view(np.uint32).astype(np.float32), np.int32),
    ("fptosi", "f64", "i32", "arith.fptosi %a : f64 to i32", lambda a: a.astype(np.int32),
     np.float64),
    ("fptoui", "f64", "i32", "arith.fptoui %a : f64 to i32",
     lambda a: np.abs(a).astype(np.uint32).view(np.int32), "abs"),
    ("extf", "f16", "f32", "arith.extf %a : f16 to f32", lambda a: a.astype(np.float32),
     np.float16),
    ("truncf", "f64", "f32", "arith.truncf %a : f64 to f32", lambda a: a.astype(np.float32),
     np.float64),
    ("truncf16", "f32", "f16", "arith.truncf %a : f32 to f16", lambda a: a.astype(np.float16),
     np.float32),
    ("bitcast", "f32", "i32", "arith.bitcast %a : f32 to i32", lambda a: a.view(np.int32),
     np.float32),
    ("index_cast", "i32", "index", "arith.index_cast %a : i32 to index",
     lambda a: a.astype(np.int64), np.int32),
    ("index_cast_back", "index", "i8", "arith.index_cast %a : index to i8",
     lambda a: a.astype(np.int8), np.int64),
    ("index_castui", "i32", "index", '"arith.index_castui"(%a) : (i32) -> index',
     lambda a: a.view(np.uint32).astype(np.int64), np.int32),
]


def _float_module(kernel_text):
    funcs = []
    for t in ("f32", "f64"):
        for name in FLOAT_BINARY:
            funcs.append(kernel_text(f"{name}_{t}", t, t,
                                     f"%r = arith.{name} %a, %b : {t}", arity=2))
        funcs.append(kernel_text(f"negf_{t}", t, t, f"%r = arith.negf %a : {t}"))
        funcs.append(kernel_text(f"remf_{t}", t, t,
                                 f'%r = "arith.remf"(%a, %b) : ({t}, {t}) -> {t}', arity=2))
    for pred in CMPF:
        funcs.append(kernel_text(f"cmpf_{pred}", "f64", "i1",
                                 f"%r = arith.cmpf {pred}, %a, %b : f64", arity=2))
    for name, src, dst, body, _, _ in CASTS:
        funcs.append(kernel_text(f"cast_{name}", src, dst, f"%r = {body}"))
    return "\n".join(funcs)


@pytest.fixture(scope="module")
def floats(parse, kernel_text):
    from tracejit.codegen import compile_module

    return compile_module(parse(_float_module(kernel_text), allow_unregistered=True))


def _float_operands(dtype, n=300):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(n) * 10).astype(dtype), (rng.standard_normal(n) * 3).astype(dtype)
    a[:6] = [np.nan, 1.0, np.nan, np.inf, -np.inf, 2.0]
    b[:6] = [1.0, np.nan, np.nan, np.inf, 5.0, 2.0]
    return a, b


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("name", [*FLOAT_BINARY, "negf", "remf"])
def test_float_ops(floats, t, name):
    dtype = {"f32": np.float32, "f64": np.float64}[t]
    a, b = _float_operands(dtype)
    out = np.zeros_like(a)
    reference = {**FLOAT_BINARY, "negf": lambda a, b: -a, "remf": np.fmod}[name]
    if name in ("negf",):
        floats.kernel(f"{name}_{t}")(a, out)
    else:
        floats.kernel(f"{name}_{t}")(a, b, out)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out, reference(a, b))


@pytest.mark.parametrize("pred", CMPF)
def test_cmpf(floats, pred):
    a, b = _float_operands(np.float64)
    out = np.zeros(a.shape, np.bool_)
    floats.kernel(f"cmpf_{pred}")(a, b, out)
    np.testing.assert_array_equal(out, CMPF[pred](a, b))


@pytest.mark.parametrize("case", CASTS, ids=[c[0] for c in CASTS])
def test_cast(floats, case):
    name, _, _, _, reference, dtype = case
    rng = np.random.default_rng(4)
    if dtype == "abs":
        a = np.abs(rng.standard_normal(200) * 1e9)
    elif np.dtype(dtype).kind == "f":
        a = (rng.standard_normal(200) * 1e3).astype(dtype)
    elif dtype is np.bool_:
        a = rng.integers(0, 2, 200).astype(np.bool_)
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, 200, dtype=dtype)
    signature = floats.kernel(f"cast_{name}").signature
    out = np.zeros(200, signature.args[1].dtype)
    floats.kernel(f"cast_{name}")(a, out)
    np.testing.assert_array_equal(out, reference(a))


CONSTANTS = """
func.func @constants(%f: memref<5xf32>, %i: memref<4xi8>, %d: memref<2xf64>,
                     %h: memref<f16>, %b: memref<2xi1>, %x: memref<index>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %nan = arith.constant 0x7FC00000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nzero = arith.constant -0.0 : f32
  %tiny = arith.constant 1.0e-45 : f32
  memref.store %nan, %f[%c0] : memref<5xf32>
  memref.store %inf, %f[%c1] : memref<5xf32>
  memref.store %ninf, %f[%c2] : memref<5xf32>
  memref.store %nzero, %f[%c3] : memref<5xf32>
  memref.store %tiny, %f[%c4] : memref<5xf32>
  %i0 = arith.constant 127 : i8
  %i1 = arith.constant -128 : i8
  %i2 = arith.constant -1 : i8
  %i3 = arith.constant 0 : i8
  memref.store %i0, %i[%c0] : memref<4xi8>
  memref.store %i1, %i[%c1] : memref<4xi8>
  memref.store %i2, %i[%c2] : memref<4xi8>
  memref.store %i3, %i[%c3] : memref<4xi8>
  %d0 = arith.constant 1.0e300 : f64
  %d1 = arith.constant 0.1 : f64
  memref.store %d0, %d[%c0] : memref<2xf64>
  memref.store %d1, %d[%c1] : memref<2xf64>
  %h0 = arith.constant 65504.0 : f16
  memref.store %h0, %h[] : memref<f16>
  %true = arith.constant true
  %false = arith.constant false
  memref.store %true, %b[%c0] : memref<2xi1>
  memref.store %false, %b[%c1] : memref<2xi1>
  %neg = arith.constant -5 : index
  memref.store %neg, %x[] : memref<index>
  func.return
}
"""


def test_constants(build):
    f, i, d = np.zeros(5, np.float32), np.zeros(4, np.int8), np.zeros(2)
    h, b, x = np.zeros((), np.float16), np.array([False, True]), np.zeros((), np.int64)
    build(CONSTANTS).kernel("constants")(f, i, d, h, b, x)
    np.testing.assert_array_equal(f, np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45], np.float32))
    assert np.signbit(f[3])
    np.testing.assert_array_equal(i, [127, -128, -1, 0])
    np.testing.assert_array_equal(d, [1e300, 0.1])
    assert h == np.float16(65504.0)
    np.testing.assert_array_equal(b, [True, False])
    assert x == -5
