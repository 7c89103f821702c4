"""Random well-typed NumPy programs for differential fuzzing (Csmith/YARPGen style).

A `Program` is Python source: module-level constants (`C0`, ...) and `tj.Variable`s
(`V0`, ...), then `def program(a0, a1, ...)` whose body is a list of statements, each
binding one new value `vK`, and which returns every value in a dict. The same function
runs eagerly (the reference) and compiled with `tj.function`.

Generation is *checked as it goes*: each candidate statement is executed with NumPy on
the program's actual inputs, so the generator knows every value's dtype, shape and
numbers. A statement NumPy rejects (a dtype a ufunc has no loop for, a bad reshape) is
simply not emitted, so every program is well typed by construction.

Floats carry a *lineage* (`Value.err`):

* `err is None` — **exact**: built only from IEEE-exact operations (+ - * / sqrt,
  comparisons, casts, selects, max/min, shape ops) on exact values, so compiled code must
  reproduce NumPy bit for bit (NaN positions included). Integers and bools are always exact.
* `err >= 0` — **approximate**: a transcendental (expand-math polynomials, <= 4 ulp) or a
  reassociated sum/mean/prod/matmul (vectorised, FMA-contracted) is in its history. `err`
  is an absolute error bound carried forward with first-order rules (see `Bound` below);
  the oracle accepts `|compiled - eager| <= err + 4 eps |eager| + 16 tiny`.

Operations that are discontinuous or ill-conditioned (comparisons, rounding, casts to int,
division, sqrt, transcendentals, argmax, floor_divide, ...) are only applied to exact
values, so an ulp of reassociation can never turn into a different integer or a NaN.
Statements that overflow to inf from finite data, or come within 1/64 of the dtype's
largest finite value, are not emitted either (the overflow boundary is not a fixed point
of an approximation).

Programs also change arrays in place (the builders of fuzz_mutation.py): item and slice
assignment, `op=`, `out=`, writes through views, writes into the arguments, in straight-line
code and in staged loops (index loops too) and branches. The generator runs every statement
with NumPy on the program's own arrays (a rejected statement's writes are undone), and knows
which values share memory (`Builder.track`): only what tracejit tracks the way NumPy does is
ever written (NumPy is the judge: two values alias when their arrays have one owner).

AutoGraph's contract for Python state in staged control flow is fuzzed too (see the
section "AutoGraph conformance"): local dicts/lists of tensors written inside staged
if/while/for, loop variables initialised with Python literals, variables first assigned in
a staged loop; and, as the last statement of 1 program in 8 (`ENDINGS`), what the contract
refuses at trace time or a read after a loop that ran zero times, whose failures the
oracle checks instead of results.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import linecache
import math
import os
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tracejit as tj

FLOATS = [np.dtype(t) for t in (np.float16, np.float32, np.float64)]
INTS = [np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)]
UINTS = [np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64)]
DTYPES = [np.dtype(np.bool_), *INTS, *UINTS, *FLOATS]

# Exact on exact operands (IEEE correctly rounded, or no rounding at all).
EXACT_UNARY = [
    "negative", "positive", "absolute", "fabs", "sign", "square", "reciprocal", "sqrt",
    "floor", "ceil", "trunc", "rint", "invert", "logical_not", "isnan", "isinf", "isfinite",
    "deg2rad", "rad2deg", "signbit", "spacing", "bitwise_count",
]  # fmt: skip
EXACT_BINARY = [
    "add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "fmod",
    "maximum", "minimum", "fmax", "fmin", "copysign", "bitwise_and", "bitwise_or",
    "bitwise_xor", "left_shift", "right_shift", "logical_and", "logical_or", "logical_xor",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "nextafter",
    "ldexp",
]  # fmt: skip
# Approximated on floats (polynomials in expand-math, or libm): a few ulp.
TRANSCENDENTAL_UNARY = [
    "exp", "expm1", "exp2", "log", "log1p", "log2", "log10", "cbrt", "sin", "cos", "tan",
    "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh",
]  # fmt: skip
TRANSCENDENTAL_BINARY = ["arctan2", "hypot", "power", "logaddexp", "logaddexp2"]
# May take approximate operands: continuous with bounded error propagation.
SMOOTH_UNARY = {"negative", "positive", "absolute", "fabs"}
SMOOTH_BINARY = {"add", "subtract", "multiply", "maximum", "minimum", "fmax", "fmin"}
OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/",
             "floor_divide": "//", "remainder": "%", "bitwise_and": "&", "bitwise_or": "|",
             "bitwise_xor": "^", "left_shift": "<<", "right_shift": ">>", "equal": "==",
             "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
             "greater_equal": ">="}  # fmt: skip


@dataclass
class Value:
    """A value of the program being generated: its NumPy result and its lineage."""

    name: str
    array: np.ndarray
    err: float | None = None  # None: exact; else an absolute error bound (floats only)
    # Aliasing (see `Builder.track`): the value whose memory this one views, as tracejit
    # tracks views (None: it owns its memory), and whether a program may write into it.
    root: str | None = None
    writable: bool = False

    @property
    def family(self) -> str:
        """The name of the value owning this one's memory (a write changes all of it)."""
        return self.root or self.name

    @property
    def exact(self) -> bool:
        return self.err is None

    @property
    def dtype(self) -> np.dtype:
        return self.array.dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def ndim(self) -> int:
        return self.array.ndim


@dataclass
class Program:
    """A generated program: inputs, captured constants and Variables, statements."""

    inputs: list[np.ndarray]
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    variables: dict[str, np.ndarray] = field(default_factory=dict)
    body: list[str] = field(default_factory=list)
    # name -> error bound of each returned value (None: exact)
    outputs: dict[str, float | None] = field(default_factory=dict)
    prints: bool = False
    # the builder of each statement (statistics only: run_fuzz.py counts programs per kind)
    kinds: list[str] = field(default_factory=list)
    # How each input is passed (`ARGUMENT_KINDS`; empty: every input as its ndarray). A NumPy
    # scalar is immutable where a 0-d ndarray is written in place (`x = a; x -= 1`), and a
    # Python number is a static value of the trace: each kind has its own semantics.
    arg_kinds: list[str] = field(default_factory=list)

    def arguments(self) -> list[Any]:
        """Fresh copies of the inputs, each passed as its kind (a call may write into them)."""
        kinds = self.arg_kinds or ["array"] * len(self.inputs)
        return [as_kind(a, k) for a, k in zip(self.inputs, kinds, strict=True)]

    def source(self) -> str:
        """The program as a self-contained Python module (what a regression test embeds)."""
        lines = ["import numpy as np", "import tracejit as tj", ""]
        for name, array in self.constants.items():
            lines.append(f"{name} = {array_literal(array)}")
        for name, array in self.variables.items():
            lines.append(f"{name} = tj.Variable({array_literal(array)})")
        params = ", ".join(f"a{i}" for i in range(len(self.inputs)))
        lines += ["", ""]
        if any(k != "array" for k in self.arg_kinds):
            pairs = zip(self.inputs, self.arg_kinds, strict=True)
            lines.append(f"# called as program({', '.join(_shown(a, k) for a, k in pairs)})")
        lines.append(f"def program({params}):")
        lines += ["    " + line for stmt in self.body for line in stmt.splitlines()]
        items = ", ".join(f"{name!r}: {name}" for name in self.outputs)
        lines.append(f"    return {{{items}}}")
        return "\n".join(lines) + "\n"

    def filename(self) -> str:
        """The file name the source is compiled under (unique to its text). Not "<...>":
        AutoGraph only converts functions whose file looks like user code."""
        return f"/fuzz/program_{hashlib.sha1(self.source().encode()).hexdigest()[:12]}.py"

    def build(self) -> dict[str, Any]:
        """Execute the source; returns its namespace (`program`, `C*`, `V*`). The source is
        registered with linecache (under a name unique to this text) so AutoGraph and
        tracebacks can read it."""
        text, filename = self.source(), self.filename()
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        namespace: dict[str, Any] = {"__name__": "fuzz_program"}
        exec(compile(text, filename, "exec"), namespace)  # noqa: S102
        return namespace


# How an input is passed: "array" (its ndarray, 0-d ones included), "numpy" (a NumPy scalar
# of its dtype: np.int32(1), ...), "python" (a Python bool/int/float: a static value).
ARGUMENT_KINDS = ("array", "numpy", "python")


def as_kind(array: np.ndarray, kind: str) -> Any:
    """A fresh copy of the (0-d, unless "array") input `array` passed as `kind`."""
    if kind == "array":
        return array.copy(order="K")  # a Fortran-ordered input stays one
    if kind == "numpy":
        return array.dtype.type(array[()])
    if kind == "python":
        return array[()].item()
    raise ValueError(f"unknown argument kind {kind!r}")


def _shown(array: np.ndarray, kind: str) -> str:
    if kind == "array":
        return f"np.array({array.tolist()!r}, np.{array.dtype.name})"
    if kind == "numpy":
        return f"np.{array.dtype.name}({array[()].item()!r})"
    return repr(array[()].item())


def array_literal(array: np.ndarray) -> str:
    """Exact, dtype-preserving source text for an array (bytes, so NaN payloads survive)."""
    data = np.ascontiguousarray(array).tobytes().hex()
    literal = (
        f"np.frombuffer(bytes.fromhex({data!r}), np.dtype({array.dtype.str!r}))"
        f".reshape({tuple(array.shape)!r}).copy()"
    )
    return literal if array.flags.c_contiguous else f"np.asfortranarray({literal})"


# --- inputs --------------------------------------------------------------------------------
DIMS = st.sampled_from([0, 1, 1, 2, 2, 3, 3, 4, 5])
SHAPES = st.integers(0, 3).flatmap(lambda rank: st.tuples(*[DIMS] * rank))


def elements(dtype: np.dtype) -> st.SearchStrategy:
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        small = st.integers(max(info.min, -9), min(info.max, 9))
        return st.one_of(small, small, st.sampled_from([info.min, info.max, 0, 1]))
    width = dtype.itemsize * 8
    ordinary = st.floats(-4, 4, width=width)
    special = st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.5, 1.0, -1.0])
    integral = st.integers(-8, 8).map(float)
    return st.one_of(ordinary, ordinary, integral, special)


@st.composite
def arrays(draw, dtype: np.dtype | None = None, shape: tuple | None = None) -> np.ndarray:
    dtype = dtype or draw(st.sampled_from(DTYPES))
    shape = draw(SHAPES) if shape is None else shape
    return draw(hnp.arrays(dtype, shape, elements=elements(dtype)))


@st.composite
def argument(draw) -> np.ndarray:
    """An argument: C-ordered, or (one in four) Fortran-ordered, as a transpose, LAPACK or
    pandas hands it over: NumPy's reshapes and ravels of it copy where a C-ordered array's
    are views (a program writing through one, or reading one after a write, tells them
    apart)."""
    array = draw(arrays())
    return np.asfortranarray(array) if draw(st.integers(0, 3)) == 0 else array


# --- the generator ---------------------------------------------------------------------------
class Builder:
    """Grows one program statement by statement, executing each with NumPy."""

    def __init__(self, draw, inputs: list[np.ndarray], allow_effects: bool = True):
        self.draw = draw
        self.program = Program(inputs)
        # Copies: statements may write into the arguments, the program's inputs stay as drawn
        self.values = [
            Value(f"a{i}", a.copy(order="K"), writable=True) for i, a in enumerate(inputs)
        ]
        self.namespace: dict[str, Any] = {"np": np, "tj": tj}
        self.namespace.update({v.name: v.array for v in self.values})
        self.allow_effects = allow_effects
        self.live_variables: dict[str, tj.Variable] = {}
        # Returned but never used as an operand: values with a dim only the kernel knows
        # (a dynamic TensorArray's stack()), which most ops do not support yet (they raise
        # NotImplementedError, as docs/guide.md says).
        self.hidden: list[Value] = []
        # Families (`Value.family`) no statement may write any more: NumPy aliases them in a
        # way tracejit does not track (see `track`).
        self.tainted: set[str] = set()

    # helpers -----------------------------------------------------------------------------
    def pick(self, candidates: list[Value] | None = None) -> Value:
        pool = self.values if candidates is None else candidates
        return pool[self.draw(st.integers(0, len(pool) - 1))]

    def choose(self, options: list) -> Any:
        return self.draw(st.sampled_from(options))

    def fresh(self) -> str:
        return f"v{len(self.values) + len(self.hidden)}"

    def run(
        self, statement: str, name: str, scalars: bool = False, keep: bool = False
    ) -> tuple[np.ndarray, dict] | None:
        """Execute `statement` (binding `name`) with NumPy in a scratch namespace; None if
        NumPy rejects it (not well typed for these operands). `scalars`: a Python number
        is a result too (a loop variable initialised with a literal, never converted).
        What it writes into the values' arrays is undone unless `keep`."""
        undo = self.snapshot()
        scratch = dict(self.namespace)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(statement, scratch)  # noqa: S102
        except Exception:
            undo()
            return None
        if not keep:
            undo()
        result = scratch.get(name)
        if not isinstance(result, np.ndarray | np.generic) and not (
            scalars and type(result) in (bool, int, float)
        ):
            undo()
            return None
        return np.asarray(result), scratch

    def snapshot(self) -> Any:
        """A function putting back the contents of every value's memory and Variable."""
        owners = {}
        for v in self.values + self.hidden:
            array = self.namespace.get(v.name)
            if isinstance(array, np.ndarray):
                owner = owner_of(array)
                if owner.flags.writeable:
                    owners[id(owner)] = (owner, owner.copy())
        variables = {n: v._buffer.copy() for n, v in self.live_variables.items()}

        def undo() -> None:
            for owner, saved in owners.values():
                owner[...] = saved
            for n, buffer in variables.items():
                self.live_variables[n]._buffer[...] = buffer

        return undo

    def writable(self, candidates: list[Value] | None = None) -> list[Value]:
        """The values a statement may write into (in place, or through a view): NumPy
        arrays, exact, whose family no untracked alias shares."""
        return [
            v
            for v in (self.values if candidates is None else candidates)
            if v.writable and v.exact and v.family not in self.tainted
        ]

    def track(
        self, new: list[Value], view_of: Value | None, view: str | None, staged: bool = False
    ) -> None:
        """Aliasing of the values a statement just bound, from NumPy's own memory: the
        first is, when `view_of` is given, a view of it of the kind `view` ("slice": basic
        indexing or a flip; "perm": a transpose; "reshape"; "readonly": np.broadcast_to).
        tracejit tracks those (a reshape only of an array that is no view), so a write
        into the family is seen through them; a value sharing memory any other way (a
        staged loop that ran zero times gives back its initial array, NumPy copies where
        tracejit takes a view, ...) taints both families: no more writes into them. A 0-d
        value out of `staged` control flow is not written: NumPy's is an array or a scalar
        depending on the branch taken (or the trip count), tracejit's a scalar."""
        for k, v in enumerate(new):
            array = self.namespace.get(v.name)
            if not isinstance(array, np.ndarray):
                continue  # a NumPy scalar or a Python number: no memory
            v.writable = array.flags.writeable and not (staged and array.ndim == 0)
            if k == 0 and view_of is not None:
                parent = self.namespace[view_of.name]
                tracked = view != "reshape" or view_of.root is None
                if tracked and owner_of(array) is owner_of(parent):
                    v.root = view_of.family
                    v.writable = view_of.writable and view != "readonly"
                elif tracked:  # tracejit takes a view where NumPy copies
                    self.tainted.update((v.name, view_of.family))
                else:  # a reshape of a view: tracejit refuses writes into it, and reads
                    # of it after a write into its family (NumPy's view-or-copy answer
                    # depends on the layout)
                    v.writable = False
                    self.tainted.add(view_of.family)
            for other in self.values + self.hidden:
                shared = self.namespace.get(other.name)
                if (
                    other is not v
                    and isinstance(shared, np.ndarray)
                    and owner_of(shared) is owner_of(array)
                    and other.family != v.family
                ):
                    self.tainted.update((other.family, v.family))

    def emit(
        self,
        statement: str,
        err: Any,
        operands: list[Value],
        overflow_ok: bool = False,
        hidden: bool = False,
        extra: tuple[str, ...] = (),
        scalars: bool = False,
        view_of: Value | None = None,
        view: str | None = None,
    ) -> bool:
        """Run and, if acceptable, append `statement` (which binds `self.fresh()`, and the
        names in `extra`: more values, with the same lineage). A rejected statement's
        writes (into Variables and the values' arrays) are undone. `scalars`: the result
        may be a Python number (see `run`). `view_of`, `view`: the result is a view of that
        value (see `track`)."""
        name = self.fresh()
        undo = self.snapshot()
        ran = self.run(statement, name, scalars, keep=True)
        if ran is not None and not all(
            isinstance(ran[1].get(n), np.ndarray | np.generic)
            and self.acceptable(np.asarray(ran[1][n]), operands, None, overflow_ok)
            for n in extra
        ):
            ran = None
        if ran is not None and MIN_MAX.search(statement) and _negative_zeros(operands):
            ran = None  # which zero max(-0.0, 0.0) gives is up to NumPy's inner loop
        if ran is not None and NAN_SIGN.search(statement) and _nans(operands):
            ran = None  # a made NaN's sign is the machine's, or LLVM's when it folds
        if ran is not None and callable(err):
            err = err(ran[0])
        if ran is None or not self.acceptable(ran[0], operands, err, overflow_ok):
            undo()
            return False
        result, scratch = ran
        if result.dtype.kind != "f":
            err = None
        elif err is not None:
            err = float(err) + 4 * _eps(result.dtype) * _magnitude(result)
            if not math.isfinite(err):
                undo()
                return False
        self.namespace[name] = scratch[name]
        self.program.body.append(statement)
        new = [Value(name, result, err)]
        (self.hidden if hidden else self.values).append(new[0])
        assert err is None or not extra, "several values from one statement: exact only"
        for n in extra:
            self.namespace[n] = scratch[n]
            new.append(Value(n, np.asarray(scratch[n])))
            self.values.append(new[-1])
        self.track(new, view_of, view, staged=bool(STAGED.search(statement)))
        return True

    def acceptable(
        self, result: np.ndarray, operands: list[Value], err: float | None, overflow_ok: bool
    ) -> bool:
        if result.size > 4096 or result.ndim > 4:
            return False
        if result.dtype.kind != "f":
            return True
        finite_in = all(np.isfinite(v.array).all() for v in operands if v.dtype.kind == "f")
        big = np.finfo(result.dtype).max / 64
        with np.errstate(all="ignore"):
            near_overflow = (np.abs(result[np.isfinite(result)]) > big).any()
        if near_overflow:
            return False
        # Overflow in an approximate value: the boundary is not a fixed point.
        return err is None or not finite_in or overflow_ok or not np.isinf(result).any()


# max/min of -0.0 and +0.0: NumPy's own loops disagree (float16 vs float32, array vs
# scalar operand, SIMD width), so neither answer is a reference. Statements calling these
# on operands holding a negative zero are not emitted.
MIN_MAX = re.compile(r"\b(maximum|minimum|fmax|fmin|max|min|amax|amin)\(")


# The sign bit of a NaN made by an invalid operation (0/0, inf/inf, inf - inf) is not
# specified (IEEE 754 6.3): x86 makes it negative, and so does NumPy there, but LLVM folds
# such an operation on constants to a positive NaN (the guide: "The sign of a NaN"). An
# operand holding a NaN may be one of those, so statements reading a sign bit are not
# emitted on it (test_fuzz_8baf9f5c5e was `np.copysign(-1, inf / inf)`).
NAN_SIGN = re.compile(r"\b(copysign|signbit)\(")


# A statement with staged control flow (a staged `if` or loop, or tj.cond / tj.while_loop).
STAGED = re.compile(r"^\s*(if|for|while) |tj\.(cond|while_loop)\(", re.MULTILINE)


def owner_of(array: np.ndarray) -> np.ndarray:
    """The array owning `array`'s memory (itself unless it is a view)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _negative_zeros(operands: list[Value]) -> bool:
    return any(
        v.dtype.kind == "f" and bool((np.signbit(v.array) & (v.array == 0)).any()) for v in operands
    )


def _nans(operands: list[Value]) -> bool:
    return any(v.dtype.kind in "fc" and bool(np.isnan(v.array).any()) for v in operands)


def _eps(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).eps) if dtype.kind == "f" else 0.0


def _magnitude(array: np.ndarray) -> float:
    """max |x| over the finite elements (0 for none)."""
    if array.dtype.kind != "f":
        return float(np.max(np.abs(array.astype(np.float64)), initial=0.0))
    finite = array[np.isfinite(array)].astype(np.float64)
    return float(np.max(np.abs(finite), initial=0.0))


def _err(value: Value) -> float:
    return value.err or 0.0


def _tiny(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).tiny) if dtype.kind == "f" else 0.0


def _broadcastable(a: Value, b: Value) -> bool:
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        return False
    return True


SCALARS = ["1", "2", "3", "-1", "0", "7", "0.5", "-2.5", "True", "300", "-129", "2**40"]
LOG_LIKE = {"log", "log2", "log10", "log1p", "arctanh"}  # inf at an exact input is no overflow


def approx(factor: float = 8) -> Any:
    """The error bound of a few-ulp approximation of the result."""
    return lambda r: factor * _eps(r.dtype) * _magnitude(r)


# --- statement builders: each tries to emit one statement and says whether it did ----------
def unary(b: Builder) -> bool:
    v = b.pick()
    name = b.choose(EXACT_UNARY + TRANSCENDENTAL_UNARY)
    if not v.exact and name not in SMOOTH_UNARY:
        return False
    err: Any = v.err
    if name in TRANSCENDENTAL_UNARY:
        err = approx()
        if name not in LOG_LIKE and v.dtype.kind == "f" and not np.isfinite(v.array).all():
            pass  # inf/NaN inputs give inf/NaN deterministically
    expr = f"np.{name}({v.name})"
    if name in ("negative", "invert") and b.draw(st.booleans()):
        expr = ("-" if name == "negative" else "~") + v.name
    return b.emit(f"{b.fresh()} = {expr}", err, [v], overflow_ok=name in LOG_LIKE)


def binary(b: Builder) -> bool:
    x = b.pick()
    name = b.choose(EXACT_BINARY + TRANSCENDENTAL_BINARY)
    if b.draw(st.integers(0, 3)) == 0:
        y_text, y = b.choose(SCALARS), None
    elif name.startswith("logaddexp") and x.exact and b.draw(st.booleans()):
        # near-equal operands: the formula cancels, and an ulp off in exp or log1p shows
        statement = f"{b.fresh()} = np.{name}({x.name}, np.nextafter({x.name}, 0))"
        return b.emit(statement, _log_add_exp_err([x]), [x])
    else:
        y = b.pick([v for v in b.values if _broadcastable(x, v)])
        y_text = y.name
    operands = [x] if y is None else [x, y]
    if any(not v.exact for v in operands) and name not in SMOOTH_BINARY:
        return False
    if b.draw(st.booleans()) and y is not None:
        operands.reverse()
    texts = [v.name for v in operands] + ([] if y is not None else [y_text])
    if y is None and b.draw(st.booleans()):
        texts.reverse()
    err = _binary_err(name, operands)
    if name in OPERATORS and b.draw(st.booleans()):
        expr = f"{texts[0]} {OPERATORS[name]} {texts[1]}"
    elif name == "power" and b.draw(st.booleans()):
        expr = f"{texts[0]} ** {texts[1]}"
    else:
        expr = f"np.{name}({texts[0]}, {texts[1]})"
    return b.emit(f"{b.fresh()} = {expr}", err, operands)


def power(b: Builder) -> bool:
    """x ** e and np.power(x, e) for the exponents NumPy computes otherwise than with pow():
    the `**` operator on a float or complex array takes a Python 0.5, 2 and -1 as np.sqrt,
    np.square and np.reciprocal; the float32 and float64 loops do the same for an exponent
    of one element. An array of one value repeated is an array: pow() (-inf ** 0.5 is inf
    there, NaN as a square root)."""
    x = b.pick()
    scalar = b.choose(["0.5", "2", "-1", "0.5", "3", "-0.5", "1", "0", "2.0", "-1.0"])
    form = b.draw(st.integers(0, 3))
    if form == 0:
        exponent = scalar
    elif form == 1:
        exponent = f"np.full({x.shape}, {scalar}, {x.name}.dtype)"
    elif form == 2:  # one element, traced: the loop's scalar path at run time
        first = f"{x.name}.reshape(-1)[:1]"
        exponent = f"np.asarray({scalar}, {x.name}.dtype) * ({first} == {first}).all()"
    else:
        y = b.pick([v for v in b.values if _broadcastable(x, v)])
        exponent, operands = y.name, [x, y]
    operands = operands if form == 3 else [x]
    if any(not v.exact for v in operands):
        return False
    expr = b.choose([f"{x.name} ** {exponent}", f"np.power({x.name}, {exponent})"])
    return b.emit(f"{b.fresh()} = {expr}", approx(), operands)


def _binary_err(name: str, operands: list[Value]) -> Any:
    if name.startswith("logaddexp"):
        return _log_add_exp_err(operands)
    if name in TRANSCENDENTAL_BINARY:
        return approx()
    if all(v.exact for v in operands):
        return None
    if name in ("add", "subtract"):
        return sum(_err(v) for v in operands)
    if name == "multiply":
        x, y = (operands + operands)[:2]
        return _err(x) * _magnitude(y.array) + _err(y) * _magnitude(x.array) + _err(x) * _err(y)
    return max(_err(v) for v in operands)


def _log_add_exp_err(operands: list[Value]) -> Any:
    """A few ulps of the larger operand: max(x, y) + log1p(exp(-|x - y|)) cancels where the
    result is near 0 (x near -ln 2 for equal x and y), keeping only that absolute accuracy."""
    largest = max(_magnitude(v.array) for v in operands)
    return lambda r: 8 * _eps(r.dtype) * (largest + _magnitude(r) + 1)


def where(b: Builder) -> bool:
    conditions = [v for v in b.values if v.dtype == np.bool_]
    if not conditions:
        return False
    c = b.pick(conditions)
    x = b.pick([v for v in b.values if _broadcastable(c, v)])
    other = b.choose(
        ["0", "1.5", "-1", "True"] + [v.name for v in b.values if _broadcastable(c, v)]
    )
    y = next((v for v in b.values if v.name == other), None)
    operands = [x] + ([y] if y is not None else [])
    err = None if all(v.exact for v in operands) else max(_err(v) for v in operands)
    return b.emit(f"{b.fresh()} = np.where({c.name}, {x.name}, {other})", err, operands)


def bool_op(b: Builder) -> bool:
    """`x or y` / `x and y` of two traced scalars of one dtype: one of them, as Python's
    (a probe found these staged as a bool)."""
    scalars = [v for v in b.values if v.exact and v.ndim == 0]
    if not scalars:
        return False
    x = b.pick(scalars)
    y = b.pick([v for v in scalars if v.dtype == x.dtype])
    operator = b.choose(["and", "or"])
    return b.emit(f"{b.fresh()} = {x.name} {operator} {y.name}", None, [x, y])


def try_index(b: Builder) -> bool:
    """A row read inside `try`, at an index in range or not, with an `except IndexError`
    giving another value: NumPy raises where the index is out of range and the handler
    runs (a probe found tracejit deferring that error to the end of the trace and dropping
    it with the unused row: the try's value came back). Sometimes in a staged branch of
    the try, which raises only if it runs (a first fix raised it while tracing the branch:
    the handler's value came back when the branch did not run; deferred, the unused row's
    error was dropped when it did: both wrong; such an error is now refused). Sometimes
    `except Exception`, which would catch that refusal too (review found it doing so)."""
    rows = [v for v in b.values if v.exact and v.ndim >= 1 and v.shape[0] > 0]
    if not rows:
        return False
    x = b.pick(rows)
    count = x.shape[0]
    index = b.draw(st.integers(-count - 2, count + 1))
    name = b.fresh()
    read = b.choose([f"{name}_t * 1", f"{x.name}[0] * 1"])  # the row used, or not
    body = [f"{name}_t = {x.name}[{index}]", f"{name} = {read}"]
    if b.draw(st.booleans()):  # in a staged branch, which may not run: NumPy may not raise
        test = f"np.sum({x.name} != 0) > {b.draw(st.integers(0, 2))}"
        other = f"{name} = {x.name}[0] * 1"
        body = [f"if {test}:", *(f"    {line}" for line in body), "else:", f"    {other}"]
    handled = b.choose(["IndexError", "Exception"])  # a broad one would catch a refusal too
    lines = ["try:", *(f"    {line}" for line in body),
             f"except {handled}:", f"    {name} = {x.name}[-1] * 1"]  # fmt: skip
    return b.emit("\n".join(lines), None, [x])


REDUCTIONS = ["sum", "prod", "max", "min", "mean", "any", "all", "argmax", "argmin"]


def reduction(b: Builder) -> bool:
    v = b.pick()
    name = b.choose(REDUCTIONS)
    if not v.exact and name not in ("sum", "mean", "max", "min"):
        return False
    axes = _draw_axes(b, v.ndim, name)
    keepdims = name not in ("argmax", "argmin") and b.draw(st.booleans())
    args = ([f"axis={axes}"] if axes != "None" or b.draw(st.booleans()) else []) + (
        ["keepdims=True"] if keepdims else []
    )
    if b.draw(st.booleans()) and name in ("sum", "prod", "max", "min", "mean", "any", "all"):
        expr = f"{v.name}.{name}({', '.join(args)})"
    else:
        expr = f"np.{name}({', '.join([v.name, *args])})"
    return b.emit(f"{b.fresh()} = {expr}", _reduction_err(name, v, axes), [v])


def _draw_axes(b: Builder, ndim: int, name: str) -> str:
    if ndim == 0 or b.draw(st.integers(0, 3)) == 0:
        return "None"
    if name in ("argmax", "argmin") or b.draw(st.booleans()):
        return str(b.draw(st.integers(-ndim, ndim - 1)))
    chosen = b.draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
    return str(tuple(chosen))


def _reduction_err(name: str, v: Value, axes_text: str) -> Any:
    if name in ("max", "min"):
        return v.err
    if name in ("any", "all", "argmax", "argmin"):
        return None
    if v.dtype.kind != "f" and name != "mean":
        return None
    axes = eval(axes_text)  # noqa: S307  (a literal we generated)
    array = v.array.astype(np.float64)
    with np.errstate(all="ignore"):
        absolute = np.where(np.isfinite(array), np.abs(array), 0.0)
        k = array.size if axes is None else _count(array.shape, axes)
        sums = np.sum(absolute, axis=axes)

    def bound(result: np.ndarray) -> float:
        eps = _eps(result.dtype)
        total = float(np.max(sums, initial=0.0))
        if name == "prod":
            return 4 * k * eps * _magnitude(result) + 16 * _tiny(result.dtype)
        err = k * _err(v) + 2 * k * eps * total
        return err / max(k, 1) + 2 * eps * _magnitude(result) if name == "mean" else err

    return bound


def _count(shape: tuple, axes: Any) -> int:
    axes = (axes,) if isinstance(axes, int) else axes
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


def matmul(b: Builder) -> bool:
    a = b.pick([v for v in b.values if v.array.ndim >= 1] or b.values)
    if a.array.ndim == 0:
        return False
    k = a.shape[-1]
    if a.array.ndim >= 2 and b.draw(st.booleans()):
        other, c = f"np.swapaxes({a.name}, -1, -2)", Value("", np.swapaxes(a.array, -1, -2), a.err)
    else:
        shape = b.choose([(k,), (k, 1), (k, 2), (k, 3), (k + 1, 2), (2 * k, 3)])
        c = Value(f"C{len(b.program.constants)}", b.draw(arrays(b.choose(DTYPES), shape)))
        b.program.constants[c.name] = c.array
        b.namespace[c.name] = c.array
        other = c.name
        if shape[0] != k:  # rows of a larger matrix: a window BLAS reads in place
            other = f"{c.name}[1:]" if shape[0] == k + 1 else f"{c.name}[::2]"
            c = Value("", c.array[1:] if shape[0] == k + 1 else c.array[::2])
    form, scale = b.choose(MATMUL_LHS + (MATMUL_WINDOWS if a.array.ndim == 2 else []))
    lhs = form.format(a=a.name)
    ran = b.run(f"__r = {lhs}", "__r")
    if ran is None:
        return False
    err = None if a.err is None else a.err * scale
    operands = [Value(a.name, np.asarray(ran[0]), err), c]
    expr = b.choose([f"{lhs} @ {other}", f"np.matmul({lhs}, {other})"])
    return b.emit(f"{b.fresh()} = {expr}", _matmul_err(*operands), [a, c])


# The matrix as it is, or computed element-wise right in the product (a kernel the product
# computes in its own loop: passes/bufferize/absorbed_operands.py), with the factor of its
# error bound
MATMUL_LHS = [("{a}", 1), ("{a}", 1), ("({a} * 2)", 2), ("(-{a})", 1), ("np.abs({a})", 1)]
# Rows of a matrix, which BLAS reads in place (passes/bufferize/blas_windows.py) when the
# product is marked for it (dims unknown at trace time count as large)
MATMUL_WINDOWS = [("{a}[1:]", 1), ("{a}[::2]", 1), ("{a}[:-1]", 1)]


def _matmul_err(a: Value, c: Value) -> Any:
    k = max(a.shape[-1], 1)

    def bound(result: np.ndarray) -> float:
        if result.dtype.kind != "f":
            return 0.0
        with np.errstate(all="ignore"):
            x = np.nan_to_num(np.abs(a.array.astype(np.float64)), posinf=0.0)
            y = np.nan_to_num(np.abs(c.array.astype(np.float64)), posinf=0.0)
            scale = _magnitude(np.asarray(x @ y))
        cross = _err(a) * _magnitude(c.array) + _err(c) * _magnitude(a.array)
        # NumPy sums float16 products in float32 and rounds once: hold compiled code to that
        acc = np.dtype(np.float32) if result.dtype == np.float16 else result.dtype
        return k * cross + (2 * k * _eps(acc) + _eps(result.dtype)) * scale

    return bound


COMPLEX_FUNCTIONS = ["log", "exp", "sqrt", "absolute"]
# Scales taking x + y*1j to subnormal parts, or to a modulus beyond the float64 range with
# finite parts (1.3e308 * (1 + 1j)), where hypot overflows and log|z| does not
COMPLEX_SCALES = ["1", "1e-313", "1e-300", "1e300", "1.3e308"]


def complex_function(b: Builder) -> bool:
    """np.log, np.exp, np.sqrt or np.absolute of `(x + y * 1j) * scale` for float values x
    and y, compared through the real or the imaginary part (the oracle compares real
    values), within a few ulps of the complex result's modulus."""
    floats = [v for v in b.values if v.dtype in FLOATS[1:] and v.exact and v.array.size]
    if not floats:
        return False
    x = b.pick(floats)
    y = b.pick([v for v in floats if _broadcastable(x, v)])
    name, scale = b.choose(COMPLEX_FUNCTIONS), b.choose(COMPLEX_SCALES)
    z = f"({x.name} + {y.name} * 1j) * {scale}"
    part = "" if name == "absolute" else b.choose([".real", ".imag"])
    with np.errstate(all="ignore"):
        full = getattr(np, name)((x.array + y.array * 1j) * float(scale))
    modulus = _magnitude(np.abs(np.asarray(full)))
    bound = lambda r: 16 * _eps(r.dtype) * (modulus + 1)  # noqa: E731
    return b.emit(f"{b.fresh()} = np.{name}({z}){part}", bound, [x, y])


def einsum(b: Builder) -> bool:
    """np.einsum of one to three values (or a captured constant), a label shared between
    dims of one size (or of size 1: broadcast), an output of some labels in any order or
    the implicit one. Where a product meets inf * 0, NumPy's answer depends on which label
    its loop sums first, and so on the operands' layout (docs/guide.md, "Einstein summation
    where a product is inf * 0"): the operands of two or more dims are passed C-ordered,
    the layout tracejit answers for."""
    pool = [v for v in b.values if v.array.ndim <= 3 and v.array.size <= 256]
    if not pool:
        return False
    operands = [b.pick(pool) for _ in range(b.choose([1, 2, 2, 2, 3]))]
    if len(operands) == 1 or b.draw(st.booleans()):
        dims = [n for v in operands for n in v.shape] + [2, 3]
        shape = tuple(b.choose(dims) for _ in range(b.draw(st.integers(1, 2))))
        c = Value(f"C{len(b.program.constants)}", b.draw(arrays(b.choose(DTYPES), shape)))
        b.program.constants[c.name] = c.array
        b.namespace[c.name] = c.array
        operands.append(c)
    terms = _einsum_terms(b, [v.shape for v in operands])
    present = list(dict.fromkeys("".join(terms)))
    output = [c for c in present if b.draw(st.integers(0, 4)) < 2]
    order = b.draw(st.permutations(output)) if output else []
    arrow = "" if b.draw(st.integers(0, 4)) == 0 else "->" + "".join(order)
    names = [f"np.ascontiguousarray({v.name})" if v.array.ndim >= 2 else v.name for v in operands]
    subscripts = ",".join(terms) + arrow
    statement = f'{b.fresh()} = np.einsum("{subscripts}", {", ".join(names)})'
    return b.emit(statement, _einsum_err(operands, subscripts), operands)


def _einsum_terms(b: Builder, shapes: list[tuple[int, ...]]) -> list[str]:
    """Labels for each operand's dims: an earlier label of the same size, or of size 1 on
    either side (broadcast), or a new one; now and then a label repeated in one operand
    (a diagonal)."""
    sizes: dict[str, int] = {}
    terms = []
    for shape in shapes:
        term = ""
        for size in shape:
            fits = [c for c, n in sizes.items() if n == size or 1 in (n, size)]
            fits = [c for c in fits if c not in term or b.draw(st.integers(0, 5)) == 0]
            if fits and b.draw(st.booleans()):
                label = b.choose(fits)
            else:
                label = "abcdefghijklmnopqrstuvwxyz"[len(sizes)]
            sizes[label] = max(sizes.get(label, 1), size)
            term += label
        terms.append(term)
    return terms


def _einsum_err(operands: list[Value], subscripts: str) -> Any:
    terms = subscripts.partition("->")[0].split(",")
    sizes: dict[str, int] = {}
    for v, term in zip(operands, terms, strict=True):
        for c, n in zip(term, v.shape, strict=True):
            sizes[c] = max(sizes.get(c, 1), n)

    def bound(result: np.ndarray) -> float:
        if result.dtype.kind != "f":
            return 0.0
        # the products summed into one element of the result
        k = max(int(np.prod(list(sizes.values()), dtype=np.int64)) // max(result.size, 1), 1)
        magnitudes = [_magnitude(v.array) for v in operands]
        cross = sum(
            _err(v) * np.prod(magnitudes[:i] + magnitudes[i + 1 :])
            for i, v in enumerate(operands)
        )
        with np.errstate(all="ignore"):
            absolute = [
                np.nan_to_num(np.abs(v.array.astype(np.float64)), posinf=0.0) for v in operands
            ]
            scale = _magnitude(np.asarray(np.einsum(subscripts, *absolute)))
        return k * cross + (2 * k + 1) * _eps(result.dtype) * scale

    return bound


def _reshape_target(b: Builder, size: int) -> tuple[int, ...]:
    rank = b.draw(st.integers(0 if size == 1 else 1, 3))
    if size == 0:
        dims = [b.draw(st.integers(0, 3)) for _ in range(rank)]
        return tuple(dims[:-1] + [0]) if rank else (0,)
    dims, rest = [], size
    for _ in range(max(rank - 1, 0)):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        dims.append(b.choose(divisors))
        rest //= dims[-1]
    return tuple(dims + [rest]) if rank else ()


def _slice_key(b: Builder, shape: tuple[int, ...]) -> str:
    parts = []
    for n in shape:
        kind = b.draw(st.integers(0, 4))
        if kind == 0 or (kind == 1 and n == 0):
            parts.append(":")
        elif kind == 1:
            parts.append(str(b.draw(st.integers(-n, n - 1))))
        elif kind == 2:
            parts.append("None, :")
        else:
            start = b.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            stop = b.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
            step = b.draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            parts.append(":".join("" if x is None else str(x) for x in (start, stop, step)))
    if b.draw(st.booleans()) and parts:
        parts = parts[: b.draw(st.integers(1, len(parts)))] + (["..."] if len(parts) > 1 else [])
    return ", ".join(parts) if parts else "..."


def shape_op(b: Builder) -> bool:
    """A shape function; the views NumPy and tracejit both track are declared (a write
    into the family later is seen through them: `Builder.track`)."""
    v = b.pick()
    n, shape = v.name, v.shape
    axis = b.draw(st.integers(-max(v.ndim, 1), max(v.ndim, 1) - 1))
    templates = [
        (f"np.reshape({n}, {_reshape_target(b, v.array.size)})", "reshape"),
        (f"{n}.reshape({_reshape_target(b, v.array.size)})", "reshape"),
        (f"{n}.T", "perm"),
        (f"np.transpose({n}, {tuple(b.draw(st.permutations(range(v.ndim))))})", "perm"),
        (f"np.expand_dims({n}, {b.draw(st.integers(-v.ndim - 1, v.ndim))})", "reshape"),
        (f"np.squeeze({n})", "reshape"),
        (f"np.swapaxes({n}, 0, -1)", "perm"),
        (f"np.flip({n}, {axis})", "slice"),
        (f"{n}[{_slice_key(b, shape)}]", "slice"),
        (f"np.broadcast_to({n}, {(b.choose([1, 2, 3]),) + shape})", "readonly"),
        (f"np.concatenate([{n}, {n}], axis={axis})", None),
        (f"np.stack([{n}, {n}], axis={b.draw(st.integers(0, v.ndim))})", None),
        (f"np.ravel({n})", "reshape"),
        (f"np.tile({n}, {b.choose([1, 2, (2, 1)])})", None),
        (f"np.repeat({n}, {b.choose([1, 2])}, axis={axis})", None),
        (f"np.atleast_2d({n})", "slice"),
        (f"np.moveaxis({n}, 0, -1)", "perm"),
    ]
    expression, view = b.choose(templates)
    return b.emit(f"{b.fresh()} = {expression}", v.err, [v], view_of=v if view else None, view=view)


def astype(b: Builder) -> bool:
    v = b.pick()
    target = b.choose(DTYPES)
    # float -> int of NaN / out-of-range values is undefined in C
    if v.dtype.kind == "f" and target.kind != "f" and not (v.exact and _fits(v.array, target)):
        return False
    err = v.err
    if err is not None and target.kind == "f" and target.itemsize < v.dtype.itemsize:
        err = err + _eps(target) * _magnitude(v.array)
    form = b.choose(
        [f"{v.name}.astype(np.{target.name})", f"np.astype({v.name}, np.{target.name})"]
    )
    return b.emit(f"{b.fresh()} = {form}", err, [v])


def _fits(array: np.ndarray, target: np.dtype) -> bool:
    if not np.isfinite(array).all():
        return False
    if target.kind == "b":
        return True
    info = np.iinfo(target)
    wide = array.astype(np.float64)
    return bool(((wide > info.min - 1) & (wide < info.max + 1)).all())


def take(b: Builder) -> bool:
    """A run-time gather: the index is data (an int value reduced into range)."""
    v = b.pick([x for x in b.values if x.ndim >= 1] or b.values)
    indices = [x for x in b.values if x.dtype.kind in "iu"]
    if v.ndim == 0 or not indices:
        return False
    axis = b.draw(st.integers(0, v.ndim - 1))
    n = v.shape[axis]
    if n == 0:
        return False
    i = b.pick(indices)
    view = b.draw(st.booleans()) and axis == 0
    if view:  # a view when the index is 0-d (basic indexing), else a copy (NumPy's rules)
        expr = f"{v.name}[{i.name} % {n}]"
    else:
        expr = f"np.take({v.name}, {i.name} % {n}, axis={axis})"
    return b.emit(
        f"{b.fresh()} = {expr}",
        v.err,
        [v, i],
        view_of=v if view and i.ndim == 0 else None,
        view="slice",
    )


BRANCH_FORMS = ["{v} + 1", "{v} * 2", "-{v}", "np.abs({v})", "{v} - 3", "np.maximum({v}, 0)",
                "{v}", "~{v}", "{v} * {v}", "{v} & 1"]  # fmt: skip


def _predicate(b: Builder, among: list[Value] | None = None) -> str | None:
    """A 0-d bool computed from an exact value (of `among`, if given)."""
    exact = [v for v in b.values if v.exact] if among is None else among
    if not exact:
        return None
    p = b.pick(exact)
    return b.choose([f"np.any({p.name})", f"np.sum({p.name} > 0) > 1", f"np.all({p.name} != 1)"])


def cond(b: Builder) -> bool:
    v = b.pick()
    pred = _predicate(b)
    if pred is None:
        return False
    first, second = (b.choose(BRANCH_FORMS).format(v=v.name) for _ in range(2))
    literal = v.ndim == 0 and b.draw(st.integers(0, 3)) == 0
    if literal:  # a Python number in one branch: the tensor's dtype when it holds it as it is,
        second = b.choose(["0", "1", "5", "0.5", "2.75", "-1", "True"])  # else refused
    name = b.fresh()
    if b.draw(st.booleans()):
        statement = f"{name} = tj.cond({pred}, lambda: {first}, lambda: {second})"
    else:  # AutoGraph stages a Python `if` on a tensor
        statement = f"if {pred}:\n    {name} = {first}\nelse:\n    {name} = {second}"
    if not literal and not _same_type(b, first, second):
        return False
    err = None if v.exact else 2 * _err(v) * max(1.0, _magnitude(v.array))
    return b.emit(statement, err, [v])


def _same_type(b: Builder, *expressions: str) -> bool:
    results = [b.run(f"__r = {e}", "__r") for e in expressions]
    if any(r is None for r in results):
        return False
    kinds = {(r[0].dtype, r[0].shape) for r in results}  # type: ignore[index]
    return len(kinds) == 1


LOOP_BODIES = ["{acc} + {x}", "{acc} * {x}", "np.maximum({acc}, {x})", "{acc} - {x}",
               "{acc} ^ {x}", "{acc} // 2 + {x}"]  # fmt: skip


def while_loop(b: Builder) -> bool:
    exact = [v for v in b.values if v.exact]
    if not exact:
        return False
    init = b.pick(exact)
    x = b.pick([v for v in exact if _broadcastable(init, v)])
    limit = b.choose(["0", "1", "3"] + [f"np.sum({v.name} != 0) % 4" for v in exact[:3]])
    name = b.fresh()
    body = b.choose(LOOP_BODIES)
    check = body.format(acc=init.name, x=x.name)
    ran = b.run(f"__r = {check}", "__r")
    if ran is None or ran[0].dtype != init.dtype or ran[0].shape != init.shape:
        return False
    if b.draw(st.booleans()):
        step = body.format(acc="acc", x=x.name)
        statement = (
            f"{name}, _ = tj.while_loop(lambda acc, i: i < {limit}, "
            f"lambda acc, i: ({step}, i + 1), ({init.name}, 0))"
        )
    else:  # AutoGraph stages a Python `while` on a tensor condition
        step = body.format(acc=name, x=x.name)
        statement = (
            f"{name} = {init.name}\n{name}_i = 0\nwhile {name}_i < {limit}:\n"
            f"    {name} = {step}\n    {name}_i += 1"
        )
    return b.emit(statement, None, [init, x])


def _limit(b: Builder, exact: list[Value]) -> str:
    """A trip count: a Python int, or a 0-d integer tensor computed from the data."""
    sources = [v.name for v in exact[:4]]
    return b.choose(
        ["0", "1", "3"]
        + [f"np.sum({n} != 0) % 4" for n in sources]
        + [f"(np.sum({n} > 0) % 3).astype(np.int32)" for n in sources]
    )


def _range_header(b: Builder, index: str, limit: str) -> str:
    """A `for` header AutoGraph stages when the bound is a tensor (`range(tensor)`) or
    always (`tj.range`); counting down exercises a negative step."""
    return b.choose(
        [
            f"for {index} in tj.range({limit}):",
            f"for {index} in range({limit}):",
            f"for {index} in tj.range(1, {limit} + 1):",
            f"for {index} in tj.range({limit} - 1, -1, -1):",
        ]
    )


def _keeps_type(b: Builder, expression: str, like: np.ndarray) -> bool:
    """Whether `expression` (a loop update) has `like`'s dtype and shape, so the loop
    carries one type (types do not depend on values: one NumPy run decides)."""
    ran = b.run(f"__r = {expression}", "__r")
    return ran is not None and ran[0].dtype == like.dtype and ran[0].shape == like.shape


def for_loop(b: Builder) -> bool:
    """A staged `for` over a range (tensor or int bound) or over the rows of a tensor,
    carrying an accumulator; in range loops the index may pick between two updates."""
    exact = [v for v in b.values if v.exact]
    if not exact:
        return False
    init = b.pick(exact)
    name = b.fresh()
    index, body = f"{name}_i", b.choose(LOOP_BODIES)
    rows = [v for v in exact if v.ndim >= 1]
    over_rows = bool(rows) and b.draw(st.integers(0, 3)) == 0
    if over_rows:
        y = b.pick(rows)  # `for row in tensor` (zero rows: the loop never runs)
        row = f"np.zeros({y.name}.shape[1:], {y.name}.dtype)"
        header, check, step = (
            f"for {index} in {y.name}:",
            body.format(acc=init.name, x=row),
            body.format(acc=name, x=index),
        )
        operands = [init, y]
    else:
        x = b.pick([v for v in exact if _broadcastable(init, v)])
        check, step = body.format(acc=init.name, x=x.name), body.format(acc=name, x=x.name)
        if b.draw(st.booleans()):
            step = f"np.where({index} % 2 == 0, {step}, {name})"
        header = _range_header(b, index, _limit(b, exact))
        operands = [init, x]
    if not _keeps_type(b, check, init.array):
        return False
    effects = ""
    if b.allow_effects and not over_rows and b.draw(st.integers(0, 3)) == 0:
        effects = f"\n    tj.print('{name}', {index})"
        b.program.prints = True
    statement = f"{name} = {init.name}\n{header}\n    {name} = {step}{effects}"
    return b.emit(statement, None, operands)


# Which elements a shrinking loop keeps each trip (`v = v[keep]`)
SHRINK_KEEPS = ["{v} > 0", "np.arange({v}.size) % 2 == 0", "np.abs({v}) > 1", "{v} != {v}.max()"]


# How a shrinking loop writes its variable in place before it rebinds it (NumPy writes the
# array from before the loop in the first trip only), and what else may see that array
SHRINK_WRITES = ["{v} += 1", "np.multiply({v}, 2, out={v})", "{v}[:1] = 0", "{v}[::2] *= 3"]
SHRINK_STARTS = ["{x}.ravel()", "{x}.ravel().copy()", "{x}.ravel() * 1"]
SHRINK_HOLDERS = [("{v}", "{h}"), ("{v}[:2]", "{h}"), ("{{'k': [0, ({v},)]}}", "{h}['k'][1][0]")]


def shrinking_loop(b: Builder) -> bool:
    """An index loop of 9-11 trips (more than the unroll limit: staged) whose variable gets
    shorter each trip (`v = v[keep]`): staged with its length unknown at trace time
    (operators._staged_with_relaxed_shapes). Its count and final length are the result.
    The body may write the variable in place first: carried by value when nothing else
    sees its array from before the loop (control_flow's `_rebind_seen_by`), unrolled when
    a second name, a view or a container does, whose values then join the result."""
    exact = [v for v in b.values if v.exact and v.ndim >= 1 and v.dtype.kind in "fiu"]
    if not exact:
        return False
    x = b.pick(exact)
    name = b.fresh()
    v, keep, index, held = f"{name}_v", f"{name}_keep", f"{name}_i", f"{name}_h"
    trips = b.draw(st.integers(9, 11))
    write = b.choose(["", *SHRINK_WRITES]).format(v=v)
    holder, read = b.choose([("", ""), *SHRINK_HOLDERS]) if write else ("", "")
    holder, read = holder.format(v=v), read.format(h=held)
    lines = [
        f"{v} = {b.choose(SHRINK_STARTS).format(x=x.name)}",
        *([f"{held} = {holder}"] if holder else []),
        f"{name}_n = 0",
        f"for {index} in range({trips}):",
        *([f"    {write}"] if write else []),
        f"    {keep} = {b.choose(SHRINK_KEEPS).format(v=v)}",
        f"    {name}_n = {name}_n + np.count_nonzero({keep}) * ({index} + 1)",
        f"    {v} = {v}[{keep}]",
        f"{name} = np.int64({name}_n) * 100 + {v}.size",
    ]
    if holder:
        lines.append(f"{name} = {name} + np.count_nonzero({read} > 1) + np.int64({read}.size)")
    return b.emit("\n".join(lines), None, [x], scalars=True)


TA_ELEMENTS = ["{x}", "-{x}", "{x} + {x}", "np.maximum({x}, 0)", "{x} * 3", "~{x}", "np.abs({x})",
               "np.where({i} % 2 == 0, {x}, {x} * 2)"]  # fmt: skip


def tensor_array(b: Builder) -> bool:
    """A tj.TensorArray written in a loop (staged `for`, `tj.while_loop` or unrolled),
    then stacked, sized or read: fixed size (writes bounds-checked) or dynamic (grown at
    run time when the trip count is a tensor)."""
    exact = [v for v in b.values if v.exact and v.array.size <= 64]
    if not exact:
        return False
    x = b.pick(exact)
    name = b.fresh()
    ta, index = f"{name}_ta", f"{name}_i"
    element = b.choose(TA_ELEMENTS).format(x=x.name, i=index)
    if not _keeps_type(b, element.replace(index, "1"), x.array):
        return False
    dynamic = b.draw(st.booleans())
    size = "0, dynamic_size=True" if dynamic else "4"
    lines = [f"{ta} = tj.TensorArray({x.name}.dtype, size={size}, element_shape={x.name}.shape)"]
    form = b.draw(st.integers(0, 3))
    limit = _limit(b, exact)
    if form == 0:
        lines += [
            f"for {index} in tj.range({limit}):",
            f"    {ta} = {ta}.write({index}, {element})",
        ]
    elif form == 1:
        lines += [f"for {index} in range({limit}):", f"    {ta} = {ta}.write({index}, {element})"]
    elif form == 2:
        step = element.replace(index, "i")
        lines.append(
            f"_, {ta} = tj.while_loop(lambda i, ta: i < {limit}, "
            f"lambda i, ta: (i + 1, ta.write(i, {step})), (0, {ta}))"
        )
    else:  # unrolled: a Python loop, indices known at trace time
        lines += [
            f"for {index} in range({b.choose([1, 2, 3])}):",
            f"    {ta} = {ta}.write({index}, {element})",
        ]
    # A dynamic array filled by a staged loop stacks to a dim only the kernel knows:
    # return it (hidden), or reduce it over that dim.
    runtime_rows = dynamic and form != 3
    readers = [f"{ta}.stack()", f"{ta}.size()"]
    if not dynamic:
        readers.append(f"{ta}.read({b.draw(st.integers(0, 3))})")
    elif x.dtype.kind in "biu":
        readers.append(f"{ta}.stack().sum(axis=0)")
    reader = b.choose(readers)
    lines.append(f"{name} = {reader}")
    hidden = runtime_rows and reader == f"{ta}.stack()"
    return b.emit("\n".join(lines), None, [x], hidden=hidden)


def variable(b: Builder) -> bool:
    """Create or update a captured tj.Variable and read it back, or read one in a staged
    loop's body."""
    if not b.allow_effects:
        return False
    name = b.fresh()
    kind = b.draw(st.integers(0, 7))
    if kind < 2:
        return _variable_read_in_a_loop(b, name)
    if kind == 2:
        return _variable_written_in_a_branch(b, name)
    if not b.live_variables or b.draw(st.integers(0, 2)) == 0:
        _new_variable(b, b.draw(arrays()))
    handle = b.choose(sorted(b.live_variables))
    target = b.live_variables[handle]
    values = [v for v in b.values if v.exact and v.shape == target.shape]
    form = b.draw(st.integers(0, 2))
    if not values or form == 2:
        return b.emit(f"{name} = {handle}.read_value() * 2", None, [])
    x = b.pick(values)
    method = "assign_add" if form == 0 else "assign"
    return b.emit(f"{handle}.{method}({x.name})\n{name} = {handle}.read_value()", None, [x])


def _new_variable(b: Builder, initial: np.ndarray) -> str:
    handle = f"V{len(b.program.variables)}"
    b.program.variables[handle] = initial.copy()
    b.live_variables[handle] = tj.Variable(initial)
    b.namespace[handle] = b.live_variables[handle]
    return handle


def _variable_written_in_a_branch(b: Builder, name: str) -> bool:
    """A float64 Variable assigned in a staged if (from itself or not), then read after it:
    its gradient is the write's (0 for a value not made from it) or refused, never the one
    of a read of its first value (d/dv of `v * 3` came back 3 after `if c: v.assign(x)`)."""
    exact = [v for v in b.values if v.exact and v.array.size]
    if not exact:
        return False
    handle = _new_variable(b, b.draw(arrays(dtype=np.dtype(np.float64))))
    test = b.pick(exact).name
    read = f"{handle}.read_value()"
    new = b.choose([f"np.ones({handle}.shape) * 2.0", f"{read} * 0.5 + 1.0"])
    return b.emit(
        f"if np.any({test} != 0):\n    {handle}.assign({new})\n{name} = {read} * 3.0", None, []
    )


def _variable_read_in_a_loop(b: Builder, name: str) -> bool:
    """A float64 Variable read in a staged loop's body, its sum the result: the loop's
    gradient must reach the read (an outer tape gave zeros, a tape inside the function
    None, until the reads moved out of the loop: frontend/autodiff/variable_reads.py)."""
    floats = [h for h, v in b.live_variables.items() if v.dtype == np.float64]
    if floats and b.draw(st.booleans()):
        handle = b.choose(sorted(floats))
    else:
        handle = _new_variable(b, b.draw(arrays(dtype=np.dtype(np.float64))))
    exact = [v for v in b.values if v.exact]
    header = _range_header(b, f"{name}_i", _limit(b, exact) if exact else "3")
    read = f"{handle}.read_value()"
    step = b.choose([f"{name} + {read}", f"{name} * 0.5 + np.sin({read})"])
    return b.emit(f"{name} = np.zeros_like({read})\n{header}\n    {name} = {step}", None, [])


def print_(b: Builder) -> bool:
    """tj.print of exact values (printed text must match eager's character for character)."""
    if not b.allow_effects:
        return False
    exact = [v for v in b.values if v.exact and v.array.size <= 24]
    if not exact:
        return False
    v = b.pick(exact)
    b.program.prints = True
    sep = b.choose(["' '", "', '"])
    shown = b.choose([v.name, f"[{v.name}, 1]", f"{{'k': {v.name}}}", f"({v.name},)"])  # a
    # container of tensors prints their values, as tf.print (it printed `<tj.Tensor ...>`)
    return b.emit(f"tj.print('{v.name}:', {shown}, sep={sep})\n{b.fresh()} = {v.name}", None, [v])


# --- AutoGraph conformance: Python state in staged control flow ------------------------------
# The contract (frontend/autograph): a local dict or list whose items are written inside a
# staged if or loop is branch/loop state, each item keeping its dtype and shape; a loop
# variable initialised with a Python literal (`s = 0`) is a weak scalar (NEP 50) until it meets
# a tensor; a variable first assigned in a staged loop (for-loop targets too) is usable after
# it, and a read of it after a loop that ran zero times raises InvalidArgumentError (where
# Python raises UnboundLocalError). What the contract refuses at trace time, a list appended
# to in a staged loop and a dict (or list) given an item in one branch only, is generated too,
# as the last statement of a program (`ENDINGS`), its container named `vK_grows` / `vK_uneven`
# so that the oracle knows which refusal to expect.

# Writes of a container item `{v}` (any other operand `{x}`); a write is emitted only if it
# keeps the item's dtype and shape. No bare `{v}`: two items must never be one array, since
# eager `+=` changes an array in place.
STATE_FORMS = ["{v} + 1", "{v} * 2", "-{v}", "np.abs({v})", "{v} - 3", "np.maximum({v}, {x})",
               "~{v}", "{v} * {v}", "{v} & 1", "{v} + {x}", "{v} - {x}", "{v} // 2 + {x}",
               "np.where({x} > 0, {v}, {v} + 1)"]  # fmt: skip
AUGMENTED = ["+= 1", "*= 2", "-= {x}", "+= {x}", "|= 1", "//= 2", "*= {x}"]


def _keeps(b: Builder, setup: str, expression: str, like: np.ndarray) -> bool:
    """Whether `expression`, run after `setup`, has `like`'s dtype and shape."""
    ran = b.run(f"{setup}\n__r = {expression}", "__r")
    return ran is not None and ran[0].dtype == like.dtype and ran[0].shape == like.shape


def _tensor_limit(b: Builder, exact: list[Value], zero: bool = False) -> str:
    """A trip count that is a 0-d integer tensor when traced (so a `while` is staged);
    `zero`: mostly one that is 0 at run time."""
    sources = [v.name for v in exact[:4]]
    if zero and b.draw(st.integers(0, 3)) > 0:
        return f"np.sum({b.choose(sources)} != 0) * 0"
    return b.choose(
        [f"np.sum({n} != 0) % 4" for n in sources]
        + [f"(np.sum({n} > 0) % 3).astype(np.int32)" for n in sources]
    )


def _staged_range_header(b: Builder, index: str, exact: list[Value], zero: bool = False) -> str:
    """A `for` over a range that AutoGraph always stages (never unrolled); `zero`: mostly
    one of zero trips."""
    limit = _limit(b, exact)
    if zero and b.draw(st.integers(0, 3)) > 0:
        limit = b.choose(["0", _tensor_limit(b, exact, zero=True)])
    forms = [
        f"for {index} in tj.range({limit}):",
        f"for {index} in tj.range(1, {limit} + 1):",
        f"for {index} in tj.range({limit} - 1, -1, -1):",
    ]
    if not limit.isdigit():  # range(tensor) is staged too
        forms.append(f"for {index} in range({limit}):")
    return b.choose(forms)


def _indent(lines: list[str], depth: int = 1) -> list[str]:
    return ["    " * depth + line for line in lines]


def _state_form(b: Builder, v: str, x: str, like: np.ndarray) -> str:
    """A STATE_FORMS expression of `v` (and `x`); no max/min on floats (a write before
    may have made a -0.0: see MIN_MAX)."""
    forms = [f for f in STATE_FORMS if like.dtype.kind != "f" or not MIN_MAX.search(f)]
    return b.choose(forms).format(v=v, x=x)


def _item_write(
    b: Builder,
    target: str,
    like: np.ndarray,
    operands: list[str],
    setup: str,
    in_place: bool,
    only: bool = False,
) -> str | None:
    """One statement giving the container item `target` a new value of its type:
    `target = form` or (when the items are the container's own copies) `target op= x`;
    `only`: `op=` always if `in_place`, never if not."""
    for _ in range(4):
        x = b.choose(operands)
        if in_place and (only or b.draw(st.integers(0, 2)) == 0):
            op = b.choose(AUGMENTED).format(x=x)
            symbol, rhs = op.split("= ", 1)
            check, line = f"{target} {symbol} {rhs}", f"{target} {op}"
        else:
            check = _state_form(b, target, x, like)
            line = f"{target} = {check}"
        if _keeps(b, setup, check, like):
            return line
    return None


def container_state(b: Builder) -> bool:
    """A local dict, list or dict holding a list, of tensors, whose items are written inside
    a staged if (one or two branches; `pop` and re-insertion; a key added in both), a
    staged while, a staged for over a range or over a tensor's rows (maybe with a staged if
    on the index inside), or a staged if inside an unrolled Python loop (`l[i % 2]`, i a
    Python int); every item is read after it, sometimes through an alias made before."""
    exact = [v for v in b.values if v.exact and v.array.size <= 256]
    if not exact:
        return False
    name = b.fresh()
    layout = b.choose(["dict", "list", "nested"])
    c = f"{name}_l" if layout == "list" else f"{name}_d"
    chosen = [b.pick(exact) for _ in range(3 if layout == "nested" else 2)]
    in_place = b.draw(st.booleans())  # items are copies, so `+=` may change them in place
    items = [f"{v.name}.copy()" if in_place else v.name for v in chosen]
    if layout == "dict":
        refs = [f'{c}["a"]', f'{c}["b"]']
        init = f'{c} = {{"a": {items[0]}, "b": {items[1]}}}'
    elif layout == "list":
        refs = [f"{c}[0]", f"{c}[1]"]
        init = f"{c} = [{items[0]}, {items[1]}]"
    else:
        refs = [f'{c}["a"]', f'{c}["l"][0]', f'{c}["l"][1]']
        init = f'{c} = {{"a": {items[0]}, "l": [{items[1]}, {items[2]}]}}'
    likes = {ref: v.array for ref, v in zip(refs, chosen, strict=True)}
    index, row, counter = f"{name}_i", f"{name}_r", f"{name}_k"
    flows = ["if", "if", "while", "for", "rows"] + (["unrolled"] * 2 if layout != "dict" else [])
    flow = b.choose(flows)
    setup = f"{init}\n{index} = 1\n{counter} = 1"
    operands = refs + [b.pick(exact).name for _ in range(2)]
    rows = [v for v in exact if v.ndim >= 1]
    if flow == "rows":
        if not rows:
            return False
        y = b.pick(rows)
        setup += f"\n{row} = np.zeros({y.name}.shape[1:], {y.name}.dtype)"
        operands.append(row)

    # In a staged loop an item is changed in place or given new arrays, not both: tracejit
    # refuses the mix (NumPy would change the array from before the loop only once).
    augments = {ref: in_place and b.draw(st.booleans()) for ref in refs}

    def writes(count: int) -> list[str] | None:
        lines = []
        for _ in range(count):
            target = b.choose(refs)
            mode = augments[target] if flow != "if" else in_place
            line = _item_write(b, target, likes[target], operands, setup, mode, flow != "if")
            if line is None:
                return None
            lines.append(line)
        return lines

    def block() -> list[str] | None:
        return writes(b.draw(st.integers(1, 2)))

    body: list[str] | None
    if flow == "unrolled":  # Python int index: each unrolled step writes a known item
        base = refs[-1].rsplit("[", 1)[0]
        both = [r for r in refs if r.startswith(base + "[")]
        step, pred = b.draw(st.integers(2, 3)), _predicate(b)
        target = f"{base}[{index} % 2]"
        floats = [likes[r] for r in both if likes[r].dtype.kind == "f"]
        like = (floats or [likes[both[0]]])[0]
        forms = [_state_form(b, target, b.choose(operands), like) for _ in range(2)]
        if pred is None or any(
            not _keeps(b, f"{setup}\n{index} = {k}", form, likes[both[k]])
            for form in forms
            for k in (0, 1)
        ):
            return False
        body = [f"for {index} in range({step}):", f"    if {pred}:"]
        body.append(f"        {target} = {forms[0]}")
        if b.draw(st.booleans()):
            body += ["    else:", f"        {target} = {forms[1]}"]
    elif flow == "if":
        pred = _predicate(b)
        then, orelse = block(), block()
        if pred is None or then is None or orelse is None:
            return False
        variant = b.choose([0, 1, 2, 2, 3])
        if variant == 0:  # written in one branch only
            orelse = []
        elif variant == 2:  # popped and put back, in both branches
            temp, popped = f"{name}_t", refs[0]
            pool = [o for o in operands if o != popped and (layout != "list" or o not in refs)]
            for branch in (then, orelse):
                form = _state_form(b, temp, b.choose(pool), likes[popped])
                if not _keeps(b, f"{setup}\n{temp} = {popped}", form, likes[popped]):
                    return False
                if layout == "list":
                    branch += [f"{temp} = {c}.pop(0)", f"{c}.insert(0, {form})"]
                else:
                    branch += [f'{temp} = {c}.pop("a")', f"{popped} = {form}"]
        elif variant == 3 and layout == "dict":  # a key added in both branches
            added = f'{c}["n"]'
            for branch in (then, orelse):
                form = _state_form(b, refs[0], b.choose(operands), likes[refs[0]])
                if not _keeps(b, setup, form, likes[refs[0]]):
                    return False
                branch.append(f"{added} = {form}")
            refs.append(added)
        body = [f"if {pred}:", *_indent(then)]
        if orelse:
            body += ["else:", *_indent(orelse)]
    else:
        inner = block()
        if inner is None:
            return False
        if flow != "rows" and b.draw(st.integers(0, 3)) == 0:  # a staged if on the index
            other = block()
            i = counter if flow == "while" else index
            if other is None:
                return False
            inner = [f"if {i} % 2 == 0:", *_indent(inner)]
            if b.draw(st.booleans()):
                inner += ["else:", *_indent(other)]
        if flow == "while":
            body = [
                f"{counter} = 0",
                f"while {counter} < {_tensor_limit(b, exact)}:",
                *_indent(inner),
                f"    {counter} += 1",
            ]
        elif flow == "for":
            body = [_staged_range_header(b, index, exact), *_indent(inner)]
        else:
            body = [f"for {row} in {y.name}:", *_indent(inner)]
    lines = [init]
    reader = c
    if b.draw(st.integers(0, 2)) == 0:  # an alias made before sees the changes
        reader = f"{name}_alias"
        lines.append(f"{reader} = {c}")
    lines += body
    names = [name] + [f"{name}_{k}" for k in range(1, len(refs))]
    lines += [f"{n} = {reader}{ref[len(c) :]}" for n, ref in zip(names, refs, strict=True)]
    return b.emit("\n".join(lines), None, chosen, extra=tuple(names[1:]))


# `s = 0` / `s = 0.0` / `c = 1` before a staged loop, then updated with tensors: per literal,
# updates (`{s}` the variable, `{i}` the index, `{x}` an element of a 1-d int32/int64/float32/
# float64 tensor). No `{s} * 3 + {x}` on floats: it must not depend on FMA contraction.
LITERAL_DTYPES = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]
LITERAL_UPDATES = {
    "0": ["{s} * 3 + {i}", "{s} + {x}", "{s} * 3 + {x}", "{s} - {x}"],
    "1": ["{s} * {x}", "{s} * 2 + {i}"],
    "0.0": ["{s} + {x}", "{s} + 0.5", "{s} + {x} + 0.5", "{s} * 2 - {x}", "{s} + {i}"],
}


def literal_loop(b: Builder) -> bool:
    """A loop variable initialised with a Python literal, updated in a staged for (over a
    range or a 1-d tensor) or while with tensors, and returned. Eagerly it may stay a Python
    number (the loop ran zero times, or met no tensor): returned, never an operand (its type
    differs from the compiled value's by design; the oracle compares the value)."""
    exact = [v for v in b.values if v.exact]
    if not exact:
        return False
    name = b.fresh()
    literal = b.choose(sorted(LITERAL_UPDATES))
    update = b.choose(LITERAL_UPDATES[literal])
    loop = b.choose(["for", "while"] + (["rows"] if "{i}" not in update else []))
    index = f"{name}_k" if loop == "while" else f"{name}_i"
    lines = [f"{name} = {literal}"]
    if "{x}" in update or loop == "rows":
        # A 1-d tensor of the program's data (a NumPy constant indexed with a traced index,
        # or iterated, would be NumPy's own __getitem__/__iter__: not traced).
        sources = [v for v in exact if v.array.size <= 64]
        if not sources:
            return False
        source, dtype = b.pick(sources), b.choose(LITERAL_DTYPES)
        if source.dtype.kind == "f" and dtype.kind != "f" and not _fits(source.array, dtype):
            dtype = np.dtype(np.float64)
        xs, array = f"{name}_x", source.array.ravel().astype(dtype)
        cast = "" if dtype == source.dtype else f".astype(np.{dtype.name})"
        lines.insert(0, f"{xs} = {source.name}.ravel(){cast}")
        if "* 3 + {x}" in update and array.dtype.kind == "f":
            return False
        if loop != "rows" and array.size == 0:
            return False
        x = f"{name}_r" if loop == "rows" else f"{xs}[{index} % {array.size}]"
    else:
        x = ""
    step = f"{name} = " + update.format(s=name, i=index, x=x)
    if loop == "rows":
        lines += [f"for {name}_r in {xs}:", f"    {step}"]
    elif loop == "while":
        limit = _tensor_limit(b, exact)
        lines += [f"{index} = 0", f"while {index} < {limit}:", f"    {step}", f"    {index} += 1"]
    else:
        lines += [_staged_range_header(b, index, exact), f"    {step}"]
    return b.emit("\n".join(lines), None, [], hidden=True, scalars=True)


def attribute_loop(b: Builder) -> bool:
    """A Python `for` over a range longer than the unroll limit, updating a traced value and
    an attribute of a Python object (`c.n += 1`), both read after: staged, the attribute
    changed once, while tracing (a probe found it); the loop must unroll, as TF's does."""
    exact = [v for v in b.values if v.exact and v.dtype.kind in "iuf" and v.array.size <= 64]
    if not exact:
        return False
    v = b.pick(exact)
    name = b.fresh()
    trips = b.draw(st.integers(9, 14))
    lines = [
        f'{name}_c = type("Counter", (), {{"n": 0}})()',
        f"{name}_x = {v.name} * 1",
        f"for {name}_i in range({trips}):",
        f"    {name}_x = {name}_x + 1",
        f"    {name}_c.n += {b.choose(['1', '2', name + '_i'])}",
        f"{name} = {name}_x * {name}_c.n",
    ]
    return b.emit("\n".join(lines), None, [v])


LOCAL_FORMS = ["{x} * 2", "{x} + 1", "-{x}", "np.abs({x})", "{x} + {x}", "~{x}",
               "np.where({i} % 2 == 0, {x}, {x} * 2)", "{x} + {r}", "{x} * {r}"]  # fmt: skip


def _loop_local(b: Builder, zero_trip: bool) -> bool:
    """`t` first assigned in a staged for (over a range or a tensor's rows) or while and
    read after it, or the for-loop's target read after it. With `zero_trip` the loop runs
    zero times: eager raises UnboundLocalError at the read, compiled InvalidArgumentError;
    that statement ends the program. Otherwise only loops that run are emitted."""
    exact = [v for v in b.values if v.exact]
    if not exact:
        return False
    name = b.fresh()
    x, local, index, row = b.pick(exact), f"{name}_t", f"{name}_i", f"{name}_r"
    rows = [v for v in exact if v.ndim >= 1]
    loop = b.choose(["for", "for", "while"] + (["rows"] if rows else []))
    form = b.choose(
        [f for f in LOCAL_FORMS if ("{r}" not in f or loop == "rows")]
        if loop != "rows"
        else [f for f in LOCAL_FORMS if "{i}" not in f]
    )
    setup = f"{index} = 1"
    if loop == "rows":
        y = b.pick(rows)
        setup = f"{row} = np.zeros({y.name}.shape[1:], {y.name}.dtype)"
        header = [f"for {row} in {y.name}:"]
    elif loop == "while":
        index = f"{name}_k"
        setup = f"{index} = 1"
        header = [f"{index} = 0", f"while {index} < {_tensor_limit(b, exact, zero_trip)}:"]
    else:
        header = [_staged_range_header(b, index, exact, zero_trip)]
    expression = form.format(x=x.name, i=index, r=row)
    ran = b.run(f"{setup}\n__r = {expression}", "__r")
    if ran is None:
        return False  # not well typed: the body is traced even if it never runs
    body = [f"    {local} = {expression}"] + ([f"    {index} += 1"] if loop == "while" else [])
    target = {"for": index, "rows": row}.get(loop)
    read = target if target is not None and b.draw(st.integers(0, 2)) == 0 else local
    reads = b.choose([f"{name} = {read}", f"{name} = {read} + {read}"])
    if read == index:
        reads = f"{name} = {read}"  # a Python int eagerly: returned, compared by value
    statement = "\n".join([*header, *body, reads])
    probe = "\n".join([*header, *body, f"__r = np.asarray({read!r} in globals())"])
    assigned = b.run(probe, "__r")
    if assigned is None or bool(assigned[0]) == zero_trip:
        return False
    if not zero_trip:
        return b.emit(statement, None, [x], hidden=read == index, scalars=read == index)
    # Eager raises at the read: nothing after it runs, and the read value is returned so
    # that the compiled function reads it too (an unread value raises nothing).
    b.program.body.append(statement)
    b.hidden.append(Value(name, np.zeros(())))
    return True


def loop_local(b: Builder) -> bool:
    return _loop_local(b, zero_trip=False)


def zero_trip_read(b: Builder) -> bool:
    return _loop_local(b, zero_trip=True)


INPUT_NAME = re.compile(r"a\d+")  # the program's parameters: traced, never constants
REFUSED_ITEMS = ["{x}", "{x} + 1", "{x} * 2", "-{x}"]


def refused_state(b: Builder) -> bool:
    """What the contract refuses at trace time with a ValueError at the user's line: a list
    appended to in a staged loop (`vK_grows`), a dict given a key or a list appended to in
    one branch of a staged if only (`vK_uneven`). Eager NumPy runs it; the program ends.
    Its conditions and trip counts read the inputs: a value made from constants alone is
    known while tracing, so its `if` runs in Python and is not refused (test_fuzz_8eb22e5fff:
    `if np.any(v6)` of an `np.identity(3)` filled in place)."""
    exact = [v for v in b.values if v.exact and INPUT_NAME.fullmatch(v.name)]
    if not exact:
        return False
    name = b.fresh()
    x = b.pick(exact)
    item = b.choose(REFUSED_ITEMS).format(x=x.name)
    same = b.choose(STATE_FORMS[:7]).format(v=x.name, x=x.name)
    if b.run(f"__r = {item}", "__r") is None or not _keeps(b, "", same, x.array):
        return False
    if b.choose(["grows", "uneven"]) == "grows":
        c = f"{name}_grows"
        rows = [v for v in exact if v.ndim >= 1]
        loop = b.choose(["for", "while"] + (["rows"] if rows else []))
        if loop == "while":
            k = f"{name}_k"
            lines = [f"{k} = 0", f"while {k} < {_tensor_limit(b, exact)}:",
                     f"    {c}.append({item})", f"    {k} += 1"]  # fmt: skip
        elif loop == "rows":
            lines = [f"for {name}_r in {b.pick(rows).name}:", f"    {c}.append({item})"]
        else:
            lines = [_staged_range_header(b, f"{name}_i", exact), f"    {c}.append({item})"]
        lines = [f"{c} = [{x.name}]", *lines, f"{name} = {c}[0]"]
    else:
        c, pred = f"{name}_uneven", _predicate(b, exact)
        if pred is None:
            return False
        if b.choose(["dict", "list"]) == "dict":
            lines = [f'{c} = {{"a": {x.name}}}', f"if {pred}:", f'    {c}["b"] = {item}']
            other, read = f'    {c}["a"] = {same}', f'{c}["a"]'
        else:
            lines = [f"{c} = [{x.name}]", f"if {pred}:", f"    {c}.append({item})"]
            other, read = f"    {c}[0] = {same}", f"{c}[0]"
        if b.draw(st.booleans()):
            lines += ["else:", other]
        lines.append(f"{name} = {read}")
    return b.emit("\n".join(lines), None, [x])


# A program may end with one statement after which nothing is compared but how it fails:
# a refusal at trace time, or a read Python refuses at run time.
ENDINGS = [refused_state, zero_trip_read]


BUILDERS = {
    unary: 4, binary: 6, power: 1, complex_function: 1, where: 1, reduction: 3, matmul: 1,
    einsum: 1, shape_op: 3, astype: 2, take: 1, cond: 1, while_loop: 1, for_loop: 1,
    tensor_array: 1, variable: 1, print_: 1, container_state: 2, literal_loop: 1, shrinking_loop: 1,
    loop_local: 1, bool_op: 1, attribute_loop: 1, try_index: 1,
}  # fmt: skip


def _kinds() -> list:
    """Every builder, as often as its weight: these, fuzz_mutation's (mutation, index
    loops, the data-dependent functions) and fuzz_library's (np.linalg, statistics,
    counting, np.fft), which build on this module. `run_fuzz.py --focus einsum,binary`
    (the FUZZ_FOCUS variable) draws the builders named there for half the statements."""
    from fuzz_library import LIBRARY_BUILDERS
    from fuzz_mutation import MUTATION_BUILDERS

    weights = {**BUILDERS, **MUTATION_BUILDERS, **LIBRARY_BUILDERS}
    focus = [f for f in weights if f.__name__ in os.environ.get(FOCUS, "").split(",")]
    others = sum(weights.values())
    for builder in focus:
        weights[builder] = others // len(focus)
    return [builder for builder, weight in weights.items() for _ in range(weight)]


FOCUS = "FUZZ_FOCUS"  # builders to draw more often (see `_kinds`)


@st.composite
def programs(
    draw, max_statements: int = 14, effects: bool = True, first_input: np.dtype | None = None
) -> Program:
    """A random program: 1-3 inputs (the first of dtype `first_input` if given) and up to
    `max_statements` statements."""
    inputs = [draw(argument()) for _ in range(draw(st.integers(1, 3)))]
    if first_input is not None:
        inputs[0] = draw(arrays(np.dtype(first_input)))
    b = Builder(draw, inputs, allow_effects=effects)
    kinds = _kinds()
    target = draw(st.integers(min(4, max_statements), max_statements))
    # 1 program in 16 each ends with an ENDINGS statement (sampled_from: hypothesis's
    # integers are far from uniform)
    ending = draw(st.sampled_from(range(16))) - 14
    for _ in range(4 * target):
        if len(b.program.body) >= target:
            break
        builder = b.draw(st.sampled_from(kinds))
        if builder(b):
            b.program.kinds.append(builder.__name__)
    if ending >= 0:
        for _ in range(8):
            if ENDINGS[ending](b):
                b.program.kinds.append(ENDINGS[ending].__name__)
                break
    returned = b.values[len(inputs) :] + b.hidden
    b.program.outputs = {v.name: v.err for v in returned}
    return b.program


def draw_programs(count: int, seed: int) -> list:
    """`count` programs of the generator, the same ones for the same `seed` (for the IREE
    oracle and the upstream-MLIR check, which need a list, not a hypothesis test)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    drawn: list = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(program=programs())
    def collect(program):
        drawn.append(program)

    collect()
    return drawn
