"""Python loops over lists of layer weights or of Python floats, unrolled while tracing: the
programs `dedupe-loop-nests` (passes/dedupe_loop_nests.py) is for.

`for gamma, beta in zip(gammas, betas): ...` over Python lists of arrays, or
`for k in [1.5, -0.0, 2.0]: ...` over Python floats, is not staged: tracing runs the body
once per element, so after lowering the same loop nests repeat on other buffers, and the
pass outlines each kind of nest met twice into one function called at every place, the
float constants that differ between the copies (a Python float per step, compared bit for
bit: -0.0 is not 0.0) passed as arguments. The statement generator (fuzz_programs.py)
never writes this shape on purpose; this module writes whole programs of it
(`Program.kinds`: "layers" and a `layer:` tag per loop form, body op, separator, update,
view, shape, dtype and step count; run_fuzz.py counts programs per tag):

* a state `x` from the first argument, as it is or through a view (`a0[:, ::2]`,
  `a0[::2]`, `a0[::-1]`, `a0.T`, a Fortran-ordered argument) or a copy (which the steps
  may then update in place, `x += h`);
* a Python loop of 2-6 steps over a list of 1-d or 2-d array arguments (of `x`'s shape,
  a row or a column of it; some strided views `a1[::2]`, some Fortran-ordered; the list is
  written in the function, `[a1, a2, a3]`, as `Program` passes ndarrays: the trace is the
  one of a list argument, each element a tensor argument), a list of Python floats (-0.0,
  0.0, negative values and infinities among them; in the source, or as Python float
  arguments, static values of the trace), Python ints (integer programs: an integer
  constant that differs between the steps is not lifted, so their nests are not shared),
  `zip` of two lists, `enumerate` of one, or a list bound to a name first;
* a body of a few NumPy ops on arrays of 64 elements or more (so that its nests are worth
  outlining: `MIN_NEST_WORK`), and some small or empty ones: +, -, *, /, `np.tanh`,
  `np.exp` of bounded values, `np.maximum`/`np.minimum`, `np.where` of comparisons,
  multiplication by a comparison; integers also `//` and `%` by non-zero divisors (negative
  ones too);
* a reduction before the step's ops (`m = np.mean(x, axis=-1, keepdims=True)`, sum, max,
  min) and a separator after them (`np.sort`, `np.cumsum`, subtracting or dividing by a
  row's max, a column mean, a running total `acc = acc + np.sum(h, axis=-1)`), which keep
  one step's nests apart from the next's instead of fusing every step into one kernel (1
  program in 6 has no separator);
* a residual update `x = x + h` (or `x = x * w + h`, `x = x - h * k`, `x = h`, in place).

With 2 steps the two copies often differ, and the first layers of a longer residual stack
too: fusion recomputes the residual sum `x` in each consumer instead of storing it, so the
first steps' nests read one buffer more each than the step before, until a kernel's
recompute budget is spent (docs/tutorial/09-performance.md); only later steps share nests
(a sort or a cumsum stores `x`: the steps after it share at once). Hence up to 6 steps,
most programs of 5 or 6. About 3 programs in 5 have nests the pass shares (`{tj.outlined}`
calls after `dedupe-loop-nests`); most of the others are small, have 2 or 3 steps, no
separator, or integer constants that differ between the steps.

Results are compared as the oracle does, with an error bound per result computed as the
program is generated: a candidate is run eagerly on `Tracked` values, which compute what
NumPy computes and carry how far a compiled run may be from it (None: bit for bit; else a
bound per element, first order: sums `2 k eps sum|x|` as fuzz_programs.py bounds them,
`np.tanh`/`np.exp` 8 ulp; a result's bound is twice its largest). A comparison of
approximate values whose answer is not certain makes `np.where` of it pick either side (its
bound grows by their difference); a candidate whose approximate values could reach an
infinity or a NaN, divide by a value that may be zero, or use an uncertain comparison other
than in `np.where` is refused and redrawn, as is one NumPy rejects. Zeros of both signs
tied in `np.maximum`, `np.max` or `np.sort` (whose winner NumPy does not specify, and
tracejit picks otherwise) make a result approximate: the sign of a zero is then not
compared. Everything else is compared bit for bit, the sign of every zero included: an
exact program (1 in 3 of the float ones: no reduction that sums and no transcendental) with
`x / k` for k = -0.0 turns a constant passed with the wrong sign into the wrong wrong infinity.
"""

from __future__ import annotations

import contextlib
import io
import math
import re
import types
import warnings
from typing import Any

import numpy as np
from fuzz_programs import Program
from hypothesis import assume
from hypothesis import strategies as st

LAYER_DTYPES = [np.dtype(t) for t in (np.float64, np.float32, np.int64, np.int32)]
# The state's shape: >= 64 elements (the nests are worth outlining), or small or empty.
BIG_SHAPES = [(8, 16), (96,), (16, 8), (4, 32), (12, 12), (64,), (2, 64), (130,), (32, 3)]
SMALL_SHAPES = [(3,), (2, 3), (0,), (0, 4), (4, 0), (1, 1), (5, 1)]
FLOAT_LIST = [1.5, -0.0, 2.0, 0.0, -1.0, 0.5, -2.5, 0.25, math.inf, -math.inf, 3.0]
INT_LIST = [3, -2, 5, 0, -7, 1, 4]
# Steps of the loop: mostly 5 or 6, as the first steps' nests often differ (module docstring).
STEPS = [6, 5, 4, 6, 5, 3, 2, 6, 5]
FLOAT_LITERALS = ["0.5", "2.0", "-1.5", "0.25"]
INT_DIVISORS = ["3", "-2", "5", "7", "-4"]  # never -1: INT_MIN // -1 overflows
TAG = "layer:"


class Layers:
    """One program being drawn: its inputs (named a0, a1, ...), lines, results and tags."""

    def __init__(self, draw, dtype: np.dtype, steps: list[int]):
        self.draw = draw
        self.steps = steps
        self.dtype = dtype
        self.floats = dtype.kind == "f"
        self.rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        self.inputs: list[np.ndarray] = []
        self.arg_kinds: list[str] = []
        self.outputs = ["x"]
        self.tags: set[str] = {dtype.name}
        self.exact = not self.floats or self.chance(3)  # no summing reduction, no tanh/exp
        self.tags.add("exact" if self.exact else "approximate")

    # helpers ---------------------------------------------------------------------------------
    def choose(self, options: list):
        return self.draw(st.sampled_from(options))

    def chance(self, n: int) -> bool:
        """True once in `n` (on the largest draw: hypothesis draws the smallest, 0, far more
        often than its share, and shrinks towards it, the usual case)."""
        return self.draw(st.integers(0, n - 1)) == n - 1

    def values(self, shape: tuple[int, ...], specials: bool = False) -> np.ndarray:
        if not self.floats:
            return self.rng.integers(-9, 10, shape).astype(self.dtype)
        if self.choose(["normal", "halves"]) == "halves":
            data = self.rng.integers(-8, 9, shape) / 2
        else:
            data = self.rng.standard_normal(shape) * 2
        if specials and data.size and self.chance(6):
            flat = data.reshape(-1)
            for _ in range(self.draw(st.integers(1, 3))):
                flat[self.rng.integers(flat.size)] = self.choose([-0.0, 0.0, math.inf, math.nan])
            self.tags.add("special values")
        return data.astype(self.dtype)

    def argument(self, value: Any, kind: str = "array") -> str:
        self.inputs.append(np.asarray(value))
        self.arg_kinds.append(kind)
        return f"a{len(self.inputs) - 1}"

    # the state and what the loop runs over ---------------------------------------------------
    def state(self) -> str:
        """`x = <the first argument, a view or a copy of it>`; sets the state's shape."""
        big = not self.chance(6)
        shape = self.choose(BIG_SHAPES if big else SMALL_SHAPES)
        self.shape = shape
        size = int(np.prod(shape))
        self.tags.add(f"{len(shape)}-d" if size >= 64 else "empty" if size == 0 else "small")
        views = ["plain", "strided", "reversed", "copy"]
        if len(shape) == 2:
            views += ["transposed", "fortran", "strided rows"]
        view = self.choose(views)
        self.view = view
        self.tags.add(f"view {view}")
        if view == "strided":
            a = self.argument(self.values((*shape[:-1], 2 * shape[-1]), specials=True))
            return f"x = {a}[{':, ' if len(shape) == 2 else ''}{self.choose(['::2', '1::2'])}]"
        if view == "strided rows":
            a = self.argument(self.values((2 * shape[0], shape[1]), specials=True))
            return f"x = {a}[::2]"
        if view == "transposed":
            a = self.argument(self.values(shape[::-1], specials=True))
            return f"x = {a}.T"
        if view == "fortran":
            a = self.argument(np.asfortranarray(self.values(shape, specials=True)))
            return f"x = {a}"
        a = self.argument(self.values(shape, specials=True))
        if view == "reversed":
            return f"x = {a}[::-1]"
        return f"x = {a}.copy()" if view == "copy" else f"x = {a}"

    def weights(self, steps: int) -> str:
        """A list of `steps` array arguments, each broadcasting against the state."""
        shape = self.shape
        forms = {"full": shape, "row": shape[-1:]}
        if len(shape) == 2:
            forms["column"] = (shape[0], 1)
        form = self.choose(list(forms))
        wshape = forms[form]
        strided = self.chance(6)
        fortran = len(wshape) == 2 and self.chance(4)
        self.tags.add(f"weights {form}")
        if strided:
            self.tags.add("weights strided")
        if fortran:
            self.tags.add("weights fortran")
        names = []
        for _ in range(steps):
            array = self.values((*wshape[:-1], 2 * wshape[-1]) if strided else wshape)
            name = self.argument(np.asfortranarray(array) if fortran else array)
            names.append(f"{name}[{':, ' if len(wshape) == 2 else ''}::2]" if strided else name)
        return f"[{', '.join(names)}]"

    def scalars(self, steps: int) -> str:
        """A list of `steps` Python numbers: literals, or (floats) Python float arguments."""
        pool = FLOAT_LIST if self.floats else INT_LIST
        values = [self.choose(pool) for _ in range(steps)]
        if any(v == 0 and math.copysign(1, v) < 0 for v in values):
            self.tags.add("-0.0 in the list")
        if any(math.isinf(v) for v in values):
            self.tags.add("inf in the list")
        if len(set(map(repr, values))) == 1:
            self.tags.add("one value in the list")
        if self.floats and self.chance(3):
            self.tags.add("python float arguments")
            return f"[{', '.join(self.argument(np.float64(v), 'python') for v in values)}]"
        return f"[{', '.join(_literal(v) for v in values)}]"

    def header(self, steps: int) -> list[str]:
        """The loop's header (and a line before it); sets the loop's variables."""
        forms = ["arrays", "zip arrays", "zip arrays scalars", "named", "scalars", "enumerate"]
        if self.floats:
            forms += ["scalars", "zip arrays scalars", "enumerate"]
        else:  # an integer constant differing between the steps is not lifted: fewer
            forms += ["arrays", "named", "zip arrays"]
        over = self.choose(forms)
        self.tags.add(f"over {over}")
        self.w = self.b = self.k = self.i = None
        if over == "arrays":
            self.w = "w"
            return [f"for w in {self.weights(steps)}:"]
        if over == "scalars":
            self.k = "k"
            return [f"for k in {self.scalars(steps)}:"]
        if over == "zip arrays":
            self.w, self.b = "w", "b"
            return [f"for w, b in zip({self.weights(steps)}, {self.weights(steps)}):"]
        if over == "zip arrays scalars":
            self.w, self.k = "w", "k"
            return [f"for w, k in zip({self.weights(steps)}, {self.scalars(steps)}):"]
        if over == "enumerate":
            self.w, self.i = "w", "i"
            return [f"for i, w in enumerate({self.weights(steps)}):"]
        self.w = "w"
        return [f"ws = {self.weights(steps)}", "for w in ws:"]

    # the body --------------------------------------------------------------------------------
    def array_operand(self) -> str:
        return self.choose([v for v in (self.w, self.b) if v] or ["x"])

    def scalar_operand(self) -> str:
        options = [self.k] * 2 if self.k else []
        if self.i:
            options += ["(i + 1)", "i"]
        if not options or self.chance(4):
            options = FLOAT_LITERALS if self.floats else ["3", "-2", "5"]
        return self.choose(options)

    def divisor(self) -> str:
        """An integer divisor that is never zero (nor -1)."""
        options = list(INT_DIVISORS)
        if self.w or self.b:
            options.append(f"(np.abs({self.array_operand()}) % 5 + 1)")
        if self.k:
            options.append(f"(abs({self.k}) + 1)")
        return self.choose(options)

    def before(self) -> list[str]:
        """A reduction of the state the step's ops start from (or the state itself)."""
        if self.chance(3):
            return ["h = x"]
        reductions = ["max", "min"] if self.exact else ["mean", "sum", "max", "mean"]
        if not self.floats:
            reductions = ["max", "min", "sum"]
        name = self.choose(reductions)
        axis = self.choose(["axis=-1, keepdims=True", "axis=0", "axis=0, keepdims=True"])
        self.tags.add(f"reduction {name}")
        start = ["h = x - m", f"h = (x - m) * {self.array_operand()}"]
        if self.floats:
            start.append("h = x / (1.0 + np.abs(m))")
        return [f"m = np.{name}(x, {axis})", self.choose(start)]

    def ops(self) -> list[str]:
        W, S = self.array_operand, self.scalar_operand  # noqa: N806 (drawn when used)
        if self.floats:
            options = {
                "multiply": lambda: f"h = h * {self.choose([W(), S()])}",
                "add": lambda: f"h = h {self.choose(['+', '-'])} {self.choose([W(), S()])}",
                "divide": lambda: self.choose([f"h = h / {S()}", "h = h / (1.0 + np.abs(h))"]),
                "maximum": lambda: (
                    f"h = np.{self.choose(['maximum', 'minimum'])}(h, "
                    f"{self.choose([W(), S(), '0.0'])})"
                ),
                "where": lambda: self.choose(
                    [f"h = np.where(h > {S()}, h, 0.25 * h)", f"h = np.where(h < {W()}, {W()}, h)"]
                ),
                "comparison": lambda: f"h = h * (h {self.choose(['>', '<='])} {S()})",
            }
            if not self.exact:
                options["tanh"] = lambda: "h = np.tanh(h)"
                options["exp"] = lambda: self.choose(
                    ["h = np.exp(np.tanh(h))", "h = np.exp(-np.abs(h))"]
                )
        else:
            options = {
                "multiply": lambda: f"h = h * {self.choose([W(), S()])}",
                "add": lambda: f"h = h {self.choose(['+', '-'])} {self.choose([W(), S()])}",
                "floor_divide": lambda: f"h = h // {self.divisor()}",
                "remainder": lambda: f"h = h % {self.divisor()}",
                "maximum": lambda: f"h = np.{self.choose(['maximum', 'minimum'])}(h, {W()})",
                "where": lambda: f"h = np.where(h > {W()}, h, -h)",
                "abs": lambda: "h = np.abs(h)",
                "comparison": lambda: f"h = h * (h > {self.choose([W(), S()])})",
            }
        names = list(options)
        if not self.exact:  # most layers have a nonlinearity
            names += ["tanh", "tanh", "exp"]
        lines = []
        for _ in range(self.draw(st.integers(1, 3))):
            name = self.choose(names)
            self.tags.add(f"op {name}")
            lines.append(options[name]())
        return lines

    def update(self) -> str:
        S, W = self.scalar_operand, self.array_operand  # noqa: N806
        updates = {
            "residual": lambda: "x = x + h",
            "residual scaled": lambda: f"x = x - h * {S()}",
            "replace": lambda: "x = h",
            "gated": lambda: f"x = x * {W()} + h",
        }
        if not self.floats:
            updates["residual modulo"] = lambda: "x = (x + h) % 101 - 50"
            updates["residual floor_divide"] = lambda: "x = x - h // 3"
        if self.view == "copy":  # x is the function's own array: written in place
            updates["in place"] = lambda: self.choose(["x += h", "x -= h"])
        name = self.choose(["residual", "residual", *updates])
        self.tags.add(f"update {name}")
        return updates[name]()

    def after(self) -> list[str]:
        """What keeps this step's nests apart from the next step's."""
        separators = {
            "x = np.sort(x, axis=-1)": "sort rows",
            "x = np.sort(x, axis=0)": "sort columns",
            "x = x - np.max(x, axis=-1, keepdims=True)": "minus row max",
            "x = np.cumsum(x, axis=-1)": "cumsum",
        }
        if self.floats:
            separators["x = x / (1.0 + np.max(np.abs(x), axis=-1, keepdims=True))"] = "row scale"
        else:
            separators["x = x - np.min(x, axis=-1, keepdims=True)"] = "minus row min"
        if not self.exact:
            separators["x = x - np.mean(x, axis=0)"] = "minus column mean"
            separators["x = x / (1.0 + np.mean(x * x))"] = "mean square scale"
        if not self.exact or not self.floats:
            separators["acc = acc + np.sum(h, axis=-1)"] = "running total"
        line = self.choose(list(separators))
        self.tags.add(f"separator {separators[line]}")
        return [line]

    def program(self) -> list[str]:
        first = self.state()
        steps = self.choose(self.steps)
        self.tags.add(f"steps {steps}")
        header = self.header(steps)
        before, ops = self.before(), self.ops()
        for name in (self.w, self.b, self.k, self.i):  # every loop variable used
            if name and not any(re.search(rf"\b{name}\b", line) for line in before + ops):
                use = f"h = h {self.choose(['*', '+', '-'])} {name}"
                ops.insert(self.draw(st.integers(0, len(ops))), use)
        body = [*before, *ops, self.update()]
        separated = not self.chance(6)
        if separated:
            body += self.after()
        elif body[0] == "h = x":
            self.tags.add("no separator")
        if body[0] != "h = x" or separated:
            self.tags.add("steps kept apart")
        lines = [first]
        if any(line.startswith("acc") for line in body):
            lines.append(f"acc = {'0.0' if self.floats else '0'}")
            self.outputs.append("acc")
        if self.chance(3):
            self.outputs.append("h")
        return [*lines, *header[:-1], header[-1], *("    " + line for line in body)]


def _literal(value: float) -> str:
    if math.isinf(value):
        return "np.inf" if value > 0 else "-np.inf"
    return repr(value)


# --- the probe: NumPy's values and how far a compiled run may be from them ---------------------
class _Refused(Exception):
    """The candidate's result is not certain enough to compare (redrawn)."""


def _parts(value: Any) -> tuple[Any, np.ndarray | None]:
    if isinstance(value, Tracked):
        return value.a, value.e
    return value, None  # a Python number: exact


def _float(value: Any) -> np.ndarray:
    return np.abs(np.asarray(value, dtype=np.float64))


def _errors(e: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape) if e is None else np.broadcast_to(e, shape).astype(np.float64)


def _eps(result: Any) -> float:
    dtype = np.asarray(result).dtype
    return float(np.finfo(dtype).eps) if dtype.kind == "f" else 0.0


def _finish(result: Any, err: np.ndarray, ulps: float = 1) -> Tracked:
    """An approximate result: its bound plus `ulps` of rounding; refused where it may be
    an infinity or a NaN on one side only, or near the overflow boundary."""
    r = np.asarray(result)
    if r.dtype.kind != "f":
        raise _Refused  # an integer or bool from approximate values
    magnitude = _float(r)
    finite = np.isfinite(r)
    with np.errstate(all="ignore"):
        err = np.broadcast_to(err, r.shape) + np.where(finite, ulps * _eps(r) * magnitude, 0.0)
        if (~finite & ~(err == 0)).any() or (finite & ~np.isfinite(err)).any():
            raise _Refused
        if (finite & (magnitude > float(np.finfo(r.dtype).max) / 64)).any():
            raise _Refused
    return Tracked(result, err)


def _signed_zero_ties(a: Any, b: Any = None, axis: int | None = None) -> np.ndarray | bool:
    """Where zeros of both signs meet, whose winner NumPy does not specify: elementwise for
    two operands (`np.maximum`), along `axis` for one (`np.max`, `np.sort`: a mask of the
    reduced shape, keepdims)."""
    a = np.asarray(a)
    if a.dtype.kind != "f":
        return False
    if b is not None:
        b = np.asarray(b)
        if b.dtype.kind != "f":
            return False
        return (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))
    negative = np.any((a == 0) & np.signbit(a), axis=axis, keepdims=True)
    positive = np.any((a == 0) & ~np.signbit(a), axis=axis, keepdims=True)
    return negative & positive


def _exact(result: Any, ties: np.ndarray | bool = False) -> Tracked:
    """A result equal bit for bit, unless zeros of both signs tie (`ties`, see
    `_signed_zero_ties`) where it is a zero: then the sign of a zero result is not compared
    (the result is approximate, with a bound of 0)."""
    if np.any(ties & (np.asarray(result) == 0)):
        return Tracked(result, np.zeros(np.shape(result)))
    return Tracked(result)


def _binary(name: str, x: Any, y: Any) -> Tracked:
    (a, ea), (b, eb) = _parts(x), _parts(y)
    with np.errstate(all="ignore"):
        result = getattr(np, name)(a, b)
    if ea is None and eb is None:
        if name in ("maximum", "minimum"):
            return _exact(result, _signed_zero_ties(a, b))
        return _exact(result)
    if any(e is not None and e.dtype.kind == "b" for e in (ea, eb)):
        raise _Refused  # an uncertain comparison used as a number
    shape = np.shape(result)
    Ea, Eb = _errors(ea, shape), _errors(eb, shape)  # noqa: N806
    with np.errstate(all="ignore"):
        if name in ("add", "subtract"):
            return _finish(result, Ea + Eb)
        if name == "multiply":
            return _finish(result, Ea * _float(b) + Eb * _float(a) + Ea * Eb)
        if name == "true_divide":
            room = _float(b) - Eb
            if ((Eb > 0) & ~(room > Eb)).any():
                raise _Refused  # a divisor that may be zero
            return _finish(result, (Ea + _float(result) * Eb) / np.where(Eb > 0, room, _float(b)))
        if name in ("maximum", "minimum"):
            return _finish(result, np.maximum(Ea, Eb), ulps=0)
        if name in ("greater", "less", "greater_equal", "less_equal"):
            uncertain = ~(_float(np.asarray(a, np.float64) - np.asarray(b, np.float64)) > Ea + Eb)
            uncertain &= ~np.isnan(np.asarray(a, np.float64) - np.asarray(b, np.float64))
            return Tracked(result, uncertain if uncertain.any() else None)
    raise _Refused  # floor_divide, remainder of approximate values


def _unary(function, x: Any, ulps: float) -> Tracked:
    """A transcendental (`ulps` of the result) of a value whose error it does not grow
    beyond its own (tanh) or grows by the factor exp(err) (exp)."""
    a, ea = _parts(x)
    with np.errstate(all="ignore"):
        result = function(a)
        magnitude = _float(result)
        err = np.where(np.isfinite(np.asarray(a, np.float64)), ulps * _eps(result) * magnitude, 0.0)
        if ea is not None:
            if function is np.exp:
                if (np.asarray(ea) > 1).any():
                    raise _Refused
                err = err + np.where(np.isfinite(result), magnitude * np.expm1(ea), 0.0)
            else:
                err = err + ea
    return _finish(result, err, ulps=0)


def _reduce(name: str, x: Any, axis: int | None = None, keepdims: bool = False) -> Tracked:
    a, ea = _parts(x)
    a = np.asarray(a)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(np, name)(a, axis=axis, keepdims=keepdims)
    if name in ("max", "min"):
        if ea is None:
            ties = _signed_zero_ties(a, axis=axis)
            return _exact(result, ties if keepdims or axis is None else np.squeeze(ties, axis))
        return _finish(result, np.max(ea, axis=axis, keepdims=keepdims), ulps=0)
    if a.dtype.kind != "f" and name == "sum":
        return Tracked(result)
    k = a.size if axis is None else a.shape[axis]
    finite = np.isfinite(a.astype(np.float64))
    with np.errstate(all="ignore"):
        total = np.sum(np.where(finite, _float(a), 0.0), axis=axis, keepdims=keepdims)
        carried = np.sum(_errors(ea, a.shape), axis=axis, keepdims=keepdims)
        err = carried + 2 * k * _eps(result) * total
        if name == "mean":
            err = err / max(k, 1) + 2 * _eps(result) * _float(result)
        # a row with an infinity or a NaN sums to it in any order; an empty mean is NaN
        err = np.where(np.all(finite, axis=axis, keepdims=keepdims) & (k > 0), err, 0.0)
    return _finish(result, err)


def _cumsum(x: Any, axis: int = -1) -> Tracked:
    """NumPy's order (element k added to the sum before it), which tracejit keeps: exact on
    exact values, else the errors carried plus a rounding per addition."""
    a, ea = _parts(x)
    result = np.cumsum(a, axis=axis)
    if ea is None:
        return Tracked(result)
    k = np.shape(a)[axis]
    with np.errstate(all="ignore"):
        carried = np.cumsum(ea, axis=axis)
        return _finish(result, carried + k * _eps(result) * np.cumsum(_float(a), axis=axis))


def _where(condition: Any, x: Any, y: Any) -> Tracked:
    (c, uncertain), (a, ea), (b, eb) = _parts(condition), _parts(x), _parts(y)
    result = np.where(c, a, b)
    if uncertain is None and ea is None and eb is None:
        return Tracked(result)
    shape = np.shape(result)
    Ea, Eb = _errors(ea, shape), _errors(eb, shape)  # noqa: N806
    err = np.where(c, Ea, Eb)
    if uncertain is not None:  # either side may be taken there
        with np.errstate(all="ignore"):
            apart = _float(np.asarray(a, np.float64) - np.asarray(b, np.float64))
            err = err + np.where(np.broadcast_to(uncertain, shape), apart + np.maximum(Ea, Eb), 0)
    return _finish(result, err, ulps=0)


def _sort(x: Any, axis: int = -1) -> Tracked:
    a, ea = _parts(x)
    result = np.sort(a, axis=axis)
    if ea is None:
        return _exact(result, _signed_zero_ties(a, axis=axis))
    return _finish(result, np.broadcast_to(np.max(ea, axis=axis, keepdims=True), result.shape), 0)


class Tracked:
    """A value of the probe: the array eager NumPy computes (`a`), and how far a compiled
    run may be from it (`e`): None, bit for bit; else a bound per element (floats), or the
    elements whose answer is not certain (a comparison's bools)."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, a: Any, e: np.ndarray | None = None):
        self.a, self.e = a, e

    def __add__(self, other):
        return _binary("add", self, other)

    def __radd__(self, other):
        return _binary("add", other, self)

    def __sub__(self, other):
        return _binary("subtract", self, other)

    def __rsub__(self, other):
        return _binary("subtract", other, self)

    def __mul__(self, other):
        return _binary("multiply", self, other)

    def __rmul__(self, other):
        return _binary("multiply", other, self)

    def __truediv__(self, other):
        return _binary("true_divide", self, other)

    def __rtruediv__(self, other):
        return _binary("true_divide", other, self)

    def __floordiv__(self, other):
        return _binary("floor_divide", self, other)

    def __mod__(self, other):
        return _binary("remainder", self, other)

    def __gt__(self, other):
        return _binary("greater", self, other)

    def __lt__(self, other):
        return _binary("less", self, other)

    def __ge__(self, other):
        return _binary("greater_equal", self, other)

    def __le__(self, other):
        return _binary("less_equal", self, other)

    def __neg__(self):
        return Tracked(-self.a, self.e)

    def __abs__(self):
        return Tracked(np.abs(self.a), self.e)

    def _in_place(self, name: str, other: Any) -> Tracked:
        out = _binary(name, self, other)
        getattr(np, name)(self.a, _parts(other)[0], out=self.a, casting="same_kind")
        self.e = None if out.e is None else _finish(self.a, out.e).e
        return self

    def __iadd__(self, other):
        return self._in_place("add", other)

    def __isub__(self, other):
        return self._in_place("subtract", other)

    def __getitem__(self, index):
        return Tracked(self.a[index], None if self.e is None else self.e[index])

    @property
    def T(self):  # noqa: N802
        return Tracked(self.a.T, None if self.e is None else self.e.T)

    def copy(self):
        return Tracked(self.a.copy(), self.e)


_PROBE_NUMPY = types.SimpleNamespace(
    inf=np.inf,
    abs=abs,
    tanh=lambda x: _unary(np.tanh, x, ulps=8),
    exp=lambda x: _unary(np.exp, x, ulps=8),
    maximum=lambda x, y: _binary("maximum", x, y),
    minimum=lambda x, y: _binary("minimum", x, y),
    where=_where,
    sort=_sort,
    cumsum=_cumsum,
    sum=lambda x, axis=None, keepdims=False: _reduce("sum", x, axis, keepdims),
    mean=lambda x, axis=None, keepdims=False: _reduce("mean", x, axis, keepdims),
    max=lambda x, axis=None, keepdims=False: _reduce("max", x, axis, keepdims),
    min=lambda x, axis=None, keepdims=False: _reduce("min", x, axis, keepdims),
)


def _run(program: Program, numpy: Any, wrap) -> dict | None:
    params = ", ".join(f"a{k}" for k in range(len(program.inputs)))
    items = ", ".join(f"{n!r}: {n}" for n in program.outputs)
    body = ["    " + line for stmt in program.body for line in stmt.splitlines()]
    text = "\n".join([f"def program({params}):", *body, f"    return {{{items}}}"])
    namespace = {"np": numpy}
    arguments = [wrap(a) if isinstance(a, np.ndarray) else a for a in program.arguments()]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(text, "<probe>", "exec"), namespace)  # noqa: S102
            return namespace["program"](*arguments)


def _bounds(program: Program) -> dict[str, float | None] | None:
    """Each result's error bound (None: exact), or None if the candidate is refused: NumPy
    rejects it, or a result is not certain enough (see the module's docstring)."""
    try:
        tracked = _run(program, _PROBE_NUMPY, Tracked)
        eager = _run(program, np, lambda a: a)
    except Exception:
        return None
    bounds = {}
    for name, value in tracked.items():
        a, e = _parts(value)
        reference = np.asarray(eager[name])
        if np.asarray(a).dtype != reference.dtype or np.asarray(a).shape != reference.shape:
            raise AssertionError(f"the probe computed {name} unlike NumPy")
        if np.asarray(a).tobytes() != reference.tobytes():
            raise AssertionError(f"the probe computed {name} unlike NumPy")
        if e is not None and np.asarray(e).dtype.kind == "b":
            return None  # an uncertain comparison returned
        bounds[name] = None if e is None else 2 * float(np.max(e, initial=0.0))
    return bounds


@st.composite
def layer_programs(draw, steps: list[int] = STEPS) -> Program:
    """A program of one Python loop over a list of layers (see the module), of a number of
    steps drawn from `steps`."""
    for _ in range(10):
        draft = Layers(draw, draw(st.sampled_from(LAYER_DTYPES)), steps)
        lines = draft.program()
        program = Program(draft.inputs, outputs={name: None for name in draft.outputs})
        if "python" in draft.arg_kinds:
            program.arg_kinds = draft.arg_kinds
        program.body = ["\n".join(lines)]
        bounds = _bounds(program)
        if bounds is None:
            continue
        program.outputs = bounds
        program.kinds = ["layers", *sorted(TAG + t for t in draft.tags)]
        return program
    assume(False)
    raise AssertionError("unreachable")
