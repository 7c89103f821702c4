"""Loops whose bodies slice with the loop counter: programs as NumPy users write Cholesky,
LU, Levinson's recursion, CSR products and running statistics, which staging keeps as loops
with a slice length known only at run time (frontend/staging/dims.py's `SliceLength`).

The statement generator (fuzz_programs.py) slices with constants only; this module writes
whole programs of these families (`Program.kinds`: "counter_slices" and a `slice:` tag per
family, loop header, slice form, size and dtype; run_fuzz.py counts programs per tag):

* `reduce`: `out[i] = RED(S)` for a slice S of the counter (`x[:i]`, `x[:i + 1]`, `x[i:]`,
  `x[i + 1:]`, `x[-i:]`, `x[:-i]`, windows `x[i:i + k]` and `x[max(i - k, 0):i + 1]`,
  `x[i::-1]`, `x[i:n - i]`, steps `x[i::2]`, `x[:i:2]`), RED a sum, a dot with a slice of
  the same length (`np.dot`, `@`, `np.sum(S * T)`; against `np.flip(...)`, `y[i::-1]`, and
  slices of other bounds and the same length, `x[:i] @ y[1:i + 1]`, which the kernel checks
  equal), a max/min, a mean (NaN for an empty slice), a count, a sum of `np.abs`/`np.where`;
  or a 0-d total accumulated, or a slice of the output written (`out[:i] += x[i]`,
  `out[:i + 1] += np.cumsum(x[:i + 1])`);
* `triangular`: `for i: for j in range(i): A[i, j] -= np.dot(A[i, :j], A[j, :j])` and its
  relatives (`A[i, :j] @ A[:j, j]`, upper triangles `range(i, n)`, a diagonal update), on a
  copy or (integers) in the argument itself;
* `prefix_update`: Levinson-style in-place updates of a prefix or suffix from itself
  (`y[:k] += c * np.flip(y[:k])`, `y[:k] += np.flip(y[:k])`, which NumPy computes as if the
  flipped operand were copied, `y[k:] -= y[k - 1]`);
* `csr`: `data[p[i]:p[i + 1]]`, `x[idx[p[i]:p[i + 1]]]` over valid CSR arrays (monotone
  `p` from 0 to nnz, empty rows, sorted column indices per row), the transposed product
  `y[idx[lo:hi]] += data[lo:hi] * x[i]` too;
* `rows`: `for k, row in enumerate(A)` and `for row in A` with a counter of the user's own,
  slicing the row with it;
* `rebind`: Floyd-Warshall, `D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])`;
* `block`: slices of a 2-d array written from other slices (`B[i, :i] = A[:i, i]`).

Loop headers: `range(x.shape[0])`, `range(len(x))`, `tj.range(...)`, `enumerate(x)`, a
`while i < x.shape[0]` with `i += 1` (a Python loop on a static size, staged on an unknown
dim); sizes 0 to 12, 0, 1 and 9 (one above the unroll limit of 8, so the loop is staged with
the shapes known) drawn most. The oracle also traces every program with every dim unknown
(`input_signature` of `None` dims), so each loop runs over a dim unknown at trace time too.

Results are exact, checked as they are generated: values are small integers (halves for
floats), and a candidate is run eagerly with a check at the top of every loop body that
refuses (the candidate is redrawn) a float array read by a reduction holding a value that is
not a multiple of 1/4 or exceeds `LIMIT`, so every sum and dot of the program is exact in
any order (FMA contraction too). Float results are still compared as approximate with no
carried error (4 ulp: a mean's division), integers exactly, and the arguments after the
call exactly.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
from fuzz_programs import Program
from hypothesis import assume
from hypothesis import strategies as st

import tracejit as tj

SLICE_DTYPES = [np.dtype(t) for t in (np.int64, np.float64, np.int32, np.float32)]
SIZES = [9, 0, 1, 12, 2, 3, 5, 8]  # hypothesis favours the first
INT_VALUES = [1, 2, 0, -1, 3, -2]
FLOAT_VALUES = [1.0, 0.5, 2.0, 0.0, -1.0, -0.5, 3.0]
LIMIT = 128.0  # |value| of a float array a reduction reads: 12 products stay below 2**24/16
TAG = "slice:"


class Draft:
    """One program being drawn: its inputs (named a0, a1, ...), lines, results and tags."""

    def __init__(self, draw, dtype: np.dtype):
        self.draw = draw
        self.dtype = dtype
        self.inputs: list[np.ndarray] = []
        self.outputs: list[str] = []
        self.tags: set[str] = set()

    # helpers ---------------------------------------------------------------------------------
    def choose(self, options: list):
        return self.draw(st.sampled_from(options))

    def chance(self, n: int) -> bool:
        """True once in `n`."""
        return self.draw(st.integers(0, n - 1)) == 0

    def size(self) -> int:
        n = self.choose(SIZES)
        self.tags.add(f"n={n}" if n in (0, 1, 8, 9) else "n>9" if n > 9 else "n=2..5")
        return n

    def values(self, shape: tuple[int, ...]) -> np.ndarray:
        pool = FLOAT_VALUES if self.dtype.kind == "f" else INT_VALUES
        data = [self.choose(pool) for _ in range(int(np.prod(shape)))]
        return np.array(data, self.dtype).reshape(shape)

    def argument(self, array: np.ndarray) -> str:
        self.inputs.append(array)
        return f"a{len(self.inputs) - 1}"

    def vector(self, n: int | None = None) -> str:
        return self.argument(self.values((self.size() if n is None else n,)))

    def matrix(self, square: bool = True) -> str:
        n = self.size()
        return self.argument(self.values((n, n if square else self.size())))

    @property
    def dt(self) -> str:
        return f"np.{self.dtype.name}"

    def loop(self, counter: str, array: str, body: list[str], start: int = 0) -> list[str]:
        """`body` in a loop from `start` over the first dim of `array` with `counter`, in one
        of the ways users write it (the element of `enumerate` is named `counter`_e; a
        `while` on a static size runs in Python, on an unknown dim it is staged)."""
        n = f"{array}.shape[0]"
        first = f"{start}, " if start else ""
        forms = {
            "range(shape)": [f"for {counter} in range({first}{n}):"],
            "range(len)": [f"for {counter} in range({first}len({array})):"],
            "tj.range": [f"for {counter} in tj.range({first}{n}):"],
            "while": [f"{counter} = {start}", f"while {counter} < {n}:"],
        }
        if not start:
            forms["enumerate"] = [f"for {counter}, {counter}_e in enumerate({array}):"]
        kind = self.choose(list(forms))
        self.tags.add(f"header {kind}")
        step = [f"    {counter} += 1"] if kind == "while" else []
        return [*forms[kind], *("    " + line for line in body), *step]

    def check(self, *names: str) -> str:
        """The probe's marker: these arrays must stay exact at the top of each iteration
        (a line of its own in the loop's body, dropped from the program)."""
        return f"#CHECK {','.join(names)}"

    def slice_(self, x: str, i: str, n: str) -> tuple[str, str]:
        """(a slice of the 1-d `x` bounded by the counter `i`, its form's tag)."""
        k = self.choose(["2", "3", "1"])
        forms = {
            "prefix": [f"{x}[:{i}]", f"{x}[:{i} + 1]"],
            "suffix": [f"{x}[{i}:]", f"{x}[{i} + 1:]"],
            "window": [f"{x}[{i}:{i} + {k}]", f"{x}[max({i} - {k}, 0):{i} + 1]"],
            "negative bound": [f"{x}[-{i}:]", f"{x}[:-{i}]", f"{x}[:{i} - {n}]"],
            "reversed": [f"{x}[{i}::-1]", f"np.flip({x}[:{i}])"],
            "middle": [f"{x}[{i}:{n} - {i}]"],
            "step": [f"{x}[{i}::2]", f"{x}[:{i}:2]", f"{x}[{i}::-2]", f"{x}[::-1][:{i}]"],
        }
        form = self.choose(list(forms))
        return self.choose(forms[form]), form

    # reductions of a slice ---------------------------------------------------------------------
    def reduction(self, s: str, t: str | None) -> tuple[str, str]:
        """(a reduction of the slice `s` (with `t`, a slice of the same length, when
        given), its tag)."""
        forms = {
            "sum": [f"np.sum({s})", f"{s}.sum()"],
            "max/min": [f"np.max({s})", f"np.min({s})"],  # (empty: eager raises, redrawn)
            "mean": [f"np.mean({s})"],
            "count": [f"np.count_nonzero({s} > 0)"],
            "of elementwise": [f"np.sum(np.abs({s}))", f"np.sum(np.where({s} > 0, {s}, 1))"],
        }
        if t is not None:
            forms["dot"] = [f"np.dot({s}, {t})", f"{s} @ {t}", f"np.sum({s} * {t})"]
            forms["dot"] *= 3
        form = self.choose([f for f, options in forms.items() for _ in options])
        return self.choose(forms[form]), form

    def result_array(self, n: str, form: str) -> str:
        """A fresh array of n elements for results of the reduction `form`."""
        if form == "mean":
            return f"np.zeros({n})"
        if form == "count":
            return f"np.zeros({n}, np.int64)"
        return self.choose([f"np.zeros({n}, {self.dt})", f"np.ones({n}, {self.dt})"])

    # the families ------------------------------------------------------------------------------
    def reduce(self) -> list[str]:
        x = self.vector()
        n = self.size() if self.chance(4) else len(self.inputs[-1])
        y = self.vector(n) if self.chance(2) else x  # a second operand, often of x's length
        s, form = self.slice_(x, "i", f"{x}.shape[0]")
        t = s.replace(x, y)
        if form == "reversed" and self.chance(2):  # a causal convolution: x[:i+1] . y[i::-1]
            s, t = f"{x}[:i + 1]", f"{y}[i::-1]"
        if self.chance(4):  # the same length from other bounds: checked when the kernel runs
            s, t, form = self.choose(
                [
                    (f"{x}[:i]", f"{y}[1:i + 1]"),
                    (f"{x}[i:]", f"{y}[:{y}.shape[0] - i]"),
                    (f"{x}[1:i + 1]", f"np.flip({y}[:i])"),
                    (f"{x}[:i + 1]", f"{y}[{y}.shape[0] - i - 1:]"),
                ]
            ) + ("shifted pair",)
        red, kind = self.reduction(s, t)
        self.tags |= {f"form {form}", f"reduction {kind}"}
        write = self.choose(["item", "slice", "total", "item", "cumsum", "slice"])
        self.tags.add(f"write {write}")
        if write == "total":
            init = self.choose(["0", f"np.zeros((), {self.dt})"] if kind != "mean" else ["0.0"])
            self.outputs.append("total")
            body = [self.check(x, y), f"total += {red}"]
            return [f"total = {init}", *self.loop("i", x, body)]
        self.outputs.append("out")
        if write == "slice":
            target = self.choose(["out[:i]", "out[i:]", "out[:i + 1]", "out[i:i + 2]"])
            value = self.choose([f"{x}[i]", f"{s}", "1"])
            body = [self.check(x, y, "out"), f"{target} {self.choose(['+=', '-=', '='])} {value}"]
            return [f"out = {self.result_array(f'{x}.shape[0]', '')}", *self.loop("i", x, body)]
        if write == "cumsum":  # a run-time length written from a function of a slice
            target, source = self.choose([("out[:i + 1]", f"{x}[:i + 1]"), ("out[i:]", f"{x}[i:]")])
            body = [self.check(x, "out"), f"{target} += np.cumsum({source})"]
            return [f"out = {self.result_array(f'{x}.shape[0]', '')}", *self.loop("i", x, body)]
        op = self.choose(["=", "=", "+="])
        body = [self.check(x, y), f"out[i] {op} {red}"]
        return [f"out = {self.result_array(f'{x}.shape[0]', kind)}", *self.loop("i", x, body)]

    def triangular(self) -> list[str]:
        a = self.matrix()
        in_place = self.dtype.kind != "f" and self.chance(2)  # (NumPy's -0.0 vs 0.0: ints)
        A = a if in_place else "A"
        self.tags.add("argument written" if in_place else "copy written")
        lines = [] if in_place else [f"A = {a}.copy()"]
        other = self.argument(self.values(self.inputs[-1].shape)) if self.chance(3) else A
        inners = {
            "range(i)": "range(i)",
            "range(i + 1)": "range(i + 1)",
            "tj.range(i)": "tj.range(i)",
            "range(i..n)": f"range(i, {A}.shape[0])",
        }
        kind = self.choose(list(inners))
        inner = inners[kind]
        self.tags.add(f"inner {kind}")
        updates = [
            f"np.dot({A}[i, :j], {other}[j, :j])",
            f"{A}[i, :j] @ {other}[:j, j]",
            f"np.sum({other}[j, :j])",
            f"np.sum({A}[:j, i] * {other}[:j, j])",
            f"np.dot({A}[j, j:], {other}[i, j:])",
            f"np.sum({other}[i, j:i])",
            f"np.dot({A}[j:i, j], {other}[j:i, i])",
        ]
        update = self.choose(updates)
        op = self.choose(["-=", "+=", "="])
        body = [f"for j in {inner}:", f"    {self.check(A, other)}", f"    {A}[i, j] {op} {update}"]
        if self.chance(2):
            diagonal = self.choose([f"np.dot({A}[i, :i], {A}[i, :i])", f"np.sum({A}[i, :i])"])
            body.append(f"{A}[i, i] -= {diagonal}")
            self.tags.add("diagonal update")
        if not in_place:
            self.outputs.append("A")
        return [*lines, *self.loop("i", A, body)]

    def prefix_update(self) -> list[str]:
        x = self.vector()
        c = self.choose([f"{x}[k]", "2", "-1", "y[k]"])
        updates = {  # (NumPy computes an overlapping operand as if it were copied first)
            "scaled flip": f"y[:k] += {c} * np.flip(y[:k])",
            "overlapping flip": "y[:k] += np.flip(y[:k])",
            "prefix minus item": "y[:k] -= y[k]",
            "suffix minus item": "y[k:] -= y[k - 1]",
            "prefix rebuilt": f"y[:k] = y[:k] + {x}[k]",
            "overlapping shift": "y[1:k + 1] += y[:k]",
        }
        name = self.choose(list(updates))
        update = updates[name]
        first = "y = " + self.choose([f"{x}.copy()", f"np.zeros_like({x})", f"np.ones_like({x})"])
        body = [self.check("y", x), update]
        if self.chance(2):
            body.append(f"y[k] = {self.choose([f'np.dot({x}[:k], y[:k])', 'np.sum(y[:k])'])}")
        self.tags.add(f"update {name}")
        self.outputs.append("y")
        return [first, *self.loop("k", x, body, start=self.choose([0, 1]))]

    def csr(self) -> list[str]:
        rows, columns = self.size(), self.size()
        counts = [self.draw(st.integers(0, min(columns, 3))) for _ in range(rows)]
        indices = [sorted(self.draw(st.permutations(range(columns)))[:c]) for c in counts]
        index_dtype = self.choose([np.int64, np.int32])
        p = self.argument(np.concatenate([[0], np.cumsum(counts, dtype=np.int64)]))
        idx = self.argument(np.array([j for row in indices for j in row], index_dtype))
        data = self.vector(sum(counts))
        transposed = self.chance(3)
        x = self.vector(rows if transposed else columns)
        self.tags.add(f"index {np.dtype(index_dtype).name}")
        length = str(columns) if transposed else f"{p}.shape[0] - 1"
        lines = [f"y = np.zeros({length}, {self.dt})"]
        lines += [f"for i in range({p}.shape[0] - 1):", f"    {self.check(data, x)}"]
        if self.chance(2):
            lines.append(f"    lo, hi = {p}[i], {p}[i + 1]")
            lo, hi = "lo", "hi"
        else:
            lo, hi = f"{p}[i]", f"{p}[i + 1]"
        gathered, values = f"{x}[{idx}[{lo}:{hi}]]", f"{data}[{lo}:{hi}]"
        if transposed:
            lines.append(f"    y[{idx}[{lo}:{hi}]] += {values} * {x}[i]")
            self.tags.add("scatter")
        else:
            forms = [
                f"np.sum({values} * {gathered})",
                f"np.dot({values}, {gathered})",
                f"{gathered}.sum()",
                f"np.max({values}) if {hi} > {lo} else 0",
            ]
            lines.append(f"    y[i] = {self.choose(forms)}")
            self.tags.add("gather")
        self.outputs.append("y")
        return lines

    def rows(self) -> list[str]:
        a = self.matrix(square=self.chance(2))
        out = self.choose([f"np.zeros({a}.shape[0], {self.dt})", f"np.zeros_like({a}[:, 0])"])
        lines = [f"out = {out}"]
        s, form = self.slice_("row", "k", "row.shape[0]")
        red, kind = self.reduction(s, None)
        if kind == "mean":
            lines = [f"out = np.zeros({a}.shape[0])"]
        own_counter = self.chance(2)
        if own_counter:
            lines += ["k = 0", f"for row in {a}:"]
            self.tags.add("header rows own counter")
        else:
            lines += [f"for k, row in enumerate({a}):"]
            self.tags.add("header enumerate rows")
        lines += [f"    {self.check(a)}", f"    out[k] = {red}"]
        if own_counter:
            lines.append("    k += 1")
        self.tags |= {f"form {form}", f"reduction {kind}"}
        self.outputs.append("out")
        return lines

    def rebind(self) -> list[str]:
        d = self.matrix()
        relax = self.choose(
            [
                "D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])",
                "D = np.maximum(D, D[:, k:k + 1] - D[k:k + 1, :])",
                "D = np.minimum(D, D[:, k, None] + D[None, k, :])",
            ]
        )
        self.outputs.append("D")
        return [f"D = {d}", *self.loop("k", d, [self.check("D"), relax])]

    def block(self) -> list[str]:
        a = self.matrix()
        body = [self.check(a, "B")]
        writes = [
            f"B[i, :i] = {a}[:i, i]",
            f"B[:i, i] += {a}[i, :i]",
            f"B[i, i:] = {a}[i:, i] * 2",
            f"B[i, :i + 1] -= {a}[i, i::-1]",
            f"B[i, i] = np.sum({a}[:i, :i])",
            f"B[:i, :i] += {a}[i, i]",
        ]
        body += [self.choose(writes) for _ in range(self.draw(st.integers(1, 2)))]
        self.outputs.append("B")
        return [f"B = np.zeros_like({a})", *self.loop("i", a, body)]


FAMILIES = ["reduce", "reduce", "triangular", "prefix_update", "csr", "rows", "rebind", "block"]


class _Inexact(Exception):
    pass


def _check(*arrays: object) -> None:
    """The probe's check: float arrays a reduction reads hold multiples of 1/4 up to LIMIT."""
    for array in arrays:
        a = np.asarray(array)
        if a.dtype.kind != "f" or a.size == 0:
            continue
        if not np.isfinite(a).all() or np.abs(a).max() > LIMIT or (a * 4 % 1 != 0).any():
            raise _Inexact


def _probe(program: Program, lines: list[str]) -> dict | None:
    """Run the program eagerly with the checks: its results, or None if a check refuses
    or anything raises."""
    probed = [line.replace("#CHECK ", "__check(") + ")" if "#CHECK" in line else line
              for line in lines]  # fmt: skip
    params = ", ".join(f"a{k}" for k in range(len(program.inputs)))
    items = ", ".join(f"{n!r}: {n}" for n in program.outputs)
    body = ["    " + line for line in probed]
    text = "\n".join([f"def program({params}):", *body, f"    return {{{items}}}"])
    namespace = {"np": np, "tj": tj, "__check": _check}
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(text, "<probe>", "exec"), namespace)  # noqa: S102
                return namespace["program"](*program.arguments())
    except Exception:
        return None


@st.composite
def slice_programs(draw) -> Program:
    """A program of one family of loops slicing with their counter (see the module)."""
    for _ in range(10):
        draft = Draft(draw, draw(st.sampled_from(SLICE_DTYPES)))
        family = draw(st.sampled_from(FAMILIES))
        lines = getattr(draft, family)()
        program = Program(draft.inputs, outputs={name: None for name in draft.outputs})
        program.body = ["\n".join(line for line in lines if "#CHECK" not in line)]
        results = _probe(program, lines)
        if results is None:
            continue
        for name, value in results.items():  # floats: a mean's division may round apart
            program.outputs[name] = 0.0 if np.asarray(value).dtype.kind == "f" else None
        tags = {family, draft.dtype.name, *draft.tags}
        program.kinds = ["counter_slices", *sorted(TAG + t for t in tags)]
        return program
    assume(False)
    raise AssertionError("unreachable")
