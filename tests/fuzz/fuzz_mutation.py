"""Random statements that change arrays in place (docs/guide.md, "Changing arrays in place"),
index loops, and the data-dependent functions; builders for `fuzz_programs.BUILDERS`.

* `item_write`: writes into a value or an argument, often through a view made first (a basic
  slice, a transpose, a reshape of an array that is no view), then a read of the base:
  `t[key] = v` and `t[key] op= v` with keys of ints, slices (negative steps too), `...`,
  run-time 0-d indices, index arrays and boolean masks (one value); `t op= v`; ufunc `out=`;
  `t.fill(v)`.
* `fresh_array`: the same writes into an array made by the statement (`np.zeros`, `np.ones`,
  `np.full`, their `_like` forms, `np.empty` filled first, `x.copy()`), or a NumPy array made
  from Python values (`np.array` of a list, `np.eye`, `np.tri`, `np.arange`, `np.linspace`,
  `np.identity`, `np.ndarray`): a traced write or `op=` makes it a traced array.
* `write_in_branch`: writes inside a staged `if` on a tensor (one branch or two).
* `write_in_loop`: writes inside a staged loop (`tj.range`, `range(tensor)`, `while`, the
  rows of a view, and `range(n)` with n > 32: an index loop), keys using the loop counter,
  sometimes under a staged `if` on the counter or through a view taken in the body.
* `index_loop`: numba-style scalar code, `for i in range(n)` with n > 32: array elements
  computed one by one from other arrays' elements, or a scalar accumulated.
* `changed_numpy_array`: a NumPy array made from Python values and a second name or view of
  it, changed through one of them in a staged `if` or loop (`.fill`, an item write).
* `swapped_in_loop`: a static range loop writing one array of a pair and swapping them
  (`p, q = q, p`), or rotating three.
* `rebound_alias`: `x = t`, a staged `if` or loop that may rebind x, then a write through
  t or x and a read of x (x still is t when the branch was not taken or the loop ran zero
  times).
* `new_function`: np.cumsum/cumprod, np.sort/argsort (stable), np.roll (a run-time shift
  too), reductions of `x[mask]`, sizes from np.nonzero.

Every statement runs with NumPy before it is emitted (`Builder.emit`), so what NumPy rejects
(a cast `same_kind` refuses, a bad broadcast, an index out of range) is never generated.
Writes go only into exact values that no untracked alias shares (`Builder.writable`,
`Builder.track`), with exact values: no float is written into an integer array (a NaN or an
out-of-range float converts differently), no float expression multiplies and then adds (FMA
contraction may fuse it), no max/min of floats (see `MIN_MAX`). Results and the arguments
stay bit-exact, and the oracle compares both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from fuzz_programs import (
    Builder,
    Value,
    _predicate,
    _reduction_err,
    _tensor_limit,
    owner_of,
)
from hypothesis import strategies as st

# Values written by `=` (NumPy decides which fit: 300 into int8 is rejected, as in tracejit).
LITERALS = ["0", "1", "-1", "3", "-7", "100", "True", "False", "np.int8(5)"]
FLOAT_LITERALS = ["0.5", "-2.5", "np.nan", "-0.0", "np.inf", "np.float32(1.5)", "1e30"]
INT_OPS = ["+", "-", "*", "//", "|", "&", "^", "%"]
FLOAT_OPS = ["+", "-", "*", "/"]
BOOL_OPS = ["|", "&", "^", "+", "*"]
OUT_UFUNCS = ["add", "subtract", "multiply", "negative", "absolute", "bitwise_xor"]


def _small(b: Builder, values: list[Value], limit: int = 1024) -> list[Value]:
    return [v for v in values if v.array.size <= limit]


def _array(b: Builder, value: Value) -> Any:
    """The value as the program holds it (a NumPy array or scalar)."""
    return b.namespace[value.name]


# --- keys ------------------------------------------------------------------------------------
def runtime_int(b: Builder) -> str | None:
    """A 0-d integer tensor computed from the data (a NumPy scalar eagerly)."""
    exact = [v for v in b.values if v.exact]
    if not exact:
        return None
    x = b.pick(exact).name
    return b.choose(
        [f"np.sum({x} != 0)", f"np.sum({x} > 0)", f"np.count_nonzero({x})", f"np.argmax({x})"]
    )


def _index(b: Builder, n: int, counter: str | None) -> str:
    """An integer index into a dim of size n > 0: a literal, the loop counter, or a 0-d
    tensor from the data (wrapped into range with %)."""
    kinds = ["int", "int", "runtime"] + (["counter", "counter", "counter"] if counter else [])
    kind = b.choose(kinds)
    if kind == "counter":
        assert counter is not None
        return b.choose([f"{counter} % {n}", f"({counter} * 3 + 1) % {n}", f"-1 - {counter} % {n}"])
    if kind == "runtime":
        r = runtime_int(b)
        if r is not None:
            return b.choose([f"{r} % {n}", f"-1 - {r} % {n}"])
    return str(b.draw(st.integers(-n, n - 1)))


def _slice(b: Builder, n: int) -> str:
    start = b.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
    stop = b.draw(st.one_of(st.none(), st.integers(-n - 1, n + 1)))
    step = b.draw(st.sampled_from([None, 1, 2, -1, -2, 3]))
    return ":".join("" if x is None else str(x) for x in (start, stop, step)) or ":"


def basic_key(b: Builder, shape: tuple[int, ...], counter: str | None = None) -> str:
    """A key of ints (literal, run-time, the counter), slices and `...`."""
    if not shape:
        return b.choose(["...", "()"])
    parts = []
    for n in shape[: b.draw(st.integers(1, len(shape)))]:
        kind = b.draw(st.integers(0, 3))
        if kind == 0 or n == 0:
            parts.append(_slice(b, n) if n else ":")
        elif kind == 1:
            parts.append(":")
        else:
            parts.append(_index(b, n, counter))
    if len(parts) < len(shape) and b.draw(st.booleans()):
        parts.insert(b.choose([0, len(parts)]), "...")
    return ", ".join(parts)


def array_key(b: Builder, shape: tuple[int, ...], scalar: bool) -> str | None:
    """Index arrays on the leading dim(s): literal lists (repeated positions only when one
    value is written: NumPy does not promise which of several values a repeat keeps) or
    an integer value of the program wrapped into range."""
    if not shape or shape[0] == 0:
        return None
    n = shape[0]
    ints = [v for v in b.values if v.exact and v.dtype.kind in "iu" and 1 <= v.ndim <= 2]
    if scalar and ints and b.draw(st.integers(0, 2)) == 0:
        i = b.pick(_small(b, ints, 16) or ints)
        return f"{i.name} % {n}"
    count = b.draw(st.integers(1, min(n, 3)))
    positions = b.draw(
        st.lists(st.integers(-n, n - 1), min_size=count, max_size=count, unique=not scalar)
    )
    if not scalar and len({p % n for p in positions}) < len(positions):
        return None
    key = str(positions)
    if len(shape) >= 2 and shape[1] > 0 and b.draw(st.booleans()):
        seconds = [b.draw(st.integers(-shape[1], shape[1] - 1)) for _ in positions]
        key += f", {seconds}"
        if not scalar:
            pairs = {(p % n, q % shape[1]) for p, q in zip(positions, seconds, strict=True)}
            if len(pairs) < len(positions):
                return None
    elif len(shape) >= 2 and b.draw(st.booleans()):
        key += ", " + _slice(b, shape[1])
    return key


def mask_key(b: Builder, target: str, array: np.ndarray) -> str | None:
    """A boolean mask of the target's leading dims: from its own data, or a bool value."""
    masks = [
        v.name
        for v in b.values
        if v.dtype == np.bool_ and v.ndim >= 1 and v.shape == array.shape[: v.ndim]
    ]
    own = [f"{target} > 0", f"{target} == 0", f"{target} != {target}"]
    if array.dtype.kind == "f":
        own.append(f"np.isnan({target})")
    elif array.dtype.kind in "iu":
        own.append(f"{target} % 2 == 1")
    if array.ndim == 0:
        own = []  # a 0-d mask selects the whole array: not the masked-write path
    options = own + masks
    return b.choose(options) if options else None


# --- values ----------------------------------------------------------------------------------
def _kind_ok(value_kind: str, target: np.dtype) -> bool:
    """No float array into an integer or bool array: NaN and out-of-range floats convert
    differently (C leaves them undefined). Float literals that fit are written by `=`."""
    return target.kind == "f" or value_kind != "f"


def write_value(
    b: Builder, target: np.dtype, augmented: bool, reads: list[str], scalar: bool = False
) -> str:
    """A right-hand side for a write into an array of dtype `target`: a literal, or an exact
    value of the program (maybe indexed, negated), or an element of `reads` (the target's
    family, the loop counter). Augmented writes get no product of floats (`t += x * 2`
    could be contracted into an FMA)."""
    exact = [v for v in b.values if v.exact and _kind_ok(v.dtype.kind, target)]
    kind = b.draw(st.integers(0, 4))
    if kind <= 1 or (not exact and not reads) or scalar:
        literals = LITERALS + (FLOAT_LITERALS if target.kind == "f" else [])
        if target.kind in "iub" and not augmented:
            literals = literals + ["0.5", "-2.5"]
        if scalar and reads and b.draw(st.booleans()):
            return b.choose(reads)
        return b.choose(literals)
    if kind == 2 and reads:
        return b.choose(reads)
    if not exact:
        return b.choose(LITERALS)
    x = b.pick(exact)
    forms = [x.name, x.name, f"{x.name}[::-1]", f"-{x.name}", f"{x.name}.T"]
    if not augmented:
        forms.append(f"{x.name} * 2" if x.dtype.kind != "b" else f"~{x.name}")
    if x.ndim >= 1 and x.shape[0] > 0:
        forms.append(f"{x.name}[{b.draw(st.integers(-x.shape[0], x.shape[0] - 1))}]")
    return b.choose(forms)


def _ops(dtype: np.dtype) -> list[str]:
    return {"b": BOOL_OPS, "f": FLOAT_OPS}.get(dtype.kind, INT_OPS)


def write_line(
    b: Builder,
    target: str,
    array: np.ndarray,
    reads: list[str],
    counter: str | None = None,
    weak: bool = True,
    out_ok: bool = True,
) -> str:
    """One statement writing into the array `target` (a name, NumPy's value `array`);
    `reads`: right-hand sides from the target itself; `counter`: the loop's, if any, a
    Python int eagerly, compiled a weak tensor if `weak` (else one of its bound's dtype: it
    is then not an operand of `op=`, whose result dtype `same_kind` checks); `out_ok`: whether
    `np.ufunc(..., out=target)` may write it (not a NumPy array made from Python values:
    the contract refuses a traced `out` into one, since the name cannot be rebound)."""
    augmenting = reads + ([counter] if counter and weak else [])
    reads = reads + ([counter] if counter else [])
    dtype, shape = array.dtype, array.shape
    singles = [counter] if counter else []  # one value: a literal or the counter
    form = b.choose(
        ["set", "set", "set", "aug", "aug", "whole", "fill", "out", "mask", "index_array"]
    )
    if form == "fill":
        return f"{target}.fill({write_value(b, dtype, False, [], scalar=True)})"
    if form == "whole":
        return f"{target} {b.choose(_ops(dtype))}= {write_value(b, dtype, True, augmenting)}"
    if form == "out" and out_ok:
        others = [v for v in b.values if v.exact and _kind_ok(v.dtype.kind, dtype)]
        if others:
            x = b.pick(others).name
            ufunc = b.choose(OUT_UFUNCS)
            operands = (
                x if ufunc in ("negative", "absolute") else f"{x}, {b.choose([x, target, '2'])}"
            )
            out = (
                target
                if b.draw(st.booleans()) or not shape
                else f"{target}[{basic_key(b, shape, counter)}]"
            )
            return f"np.{ufunc}({operands}, out={out})"
        form = "set"
    if form == "mask":
        mask = mask_key(b, target, array)
        if mask is not None:
            return f"{target}[{mask}] = {write_value(b, dtype, False, singles, scalar=True)}"
        form = "set"
    if form == "index_array":
        scalar = b.draw(st.booleans())
        key = array_key(b, shape, scalar)
        if key is not None:
            value = write_value(b, dtype, False, singles if scalar else reads, scalar=scalar)
            return f"{target}[{key}] = {value}"
        form = "set"
    key = basic_key(b, shape, counter)
    if form == "aug":
        value = write_value(b, dtype, True, augmenting)
        return f"{target}[{key}] {b.choose(_ops(dtype))}= {value}"
    return f"{target}[{key}] = {write_value(b, dtype, False, reads)}"


def writes(
    b: Builder,
    setup: list[str],
    targets: list[str],
    count: int,
    counter: str | None = None,
    probe: str = "",
    weak: bool = True,
    out_ok: bool = True,
) -> list[str] | None:
    """`count` lines writing into the arrays named `targets`, each one NumPy accepts after
    `setup` (and `probe`: what stands for the loop counter or row). Reads of the target's
    own elements are among the right-hand sides (a read after a write)."""
    lines: list[str] = []
    for _ in range(count):
        for _attempt in range(4):
            name = b.choose(targets)
            array = _probe(b, [*setup, probe, *lines], name)
            if array is None:
                return None
            reads = [f"{name}[{basic_key(b, array.shape, counter)}]"] if array.ndim else []
            line = write_line(b, name, array, reads, counter, weak, out_ok)
            if _probe(b, [*setup, probe, *lines, line], name) is not None:
                lines.append(line)
                break
        else:
            return None
    return lines


def _probe(b: Builder, lines: list[str], name: str) -> np.ndarray | None:
    """A copy of the array `name` holds after `lines` (run with NumPy, undone); None if
    NumPy rejects them or `name` is a NumPy scalar (its `fill` does nothing, as NumPy's
    scalars ignore it, where tracejit refuses it)."""
    ran = b.run(
        "\n".join(line for line in lines if line)
        + f"\n__r = np.array({name}) if isinstance({name}, np.ndarray) else None",
        "__r",
    )
    return None if ran is None else ran[0]


# --- views -----------------------------------------------------------------------------------
def view_of(b: Builder, target: Value, name: str, setup: list[str]) -> tuple[str, str] | None:
    """An expression taking a view of `target` that tracejit lets a program write through,
    and its kind (see `Builder.track`): a reshape only of an array that is no view, and only
    where NumPy gives a view too (not a copy: an array of another memory layout)."""
    shape, n = target.shape, target.name
    forms: list[tuple[str, str]] = [(f"{n}[{basic_key(b, shape)}]", "slice")]
    if target.ndim >= 1:
        forms.append((f"{n}[::-1]", "slice"))
        forms.append(
            (f"np.flip({n}, {b.draw(st.integers(-target.ndim, target.ndim - 1))})", "slice")
        )
        forms.append((f"{n}[None]", "slice"))
    if target.ndim >= 2:
        perm = tuple(b.draw(st.permutations(range(target.ndim))))
        forms += [
            (f"{n}.T", "perm"),
            (f"np.transpose({n}, {perm})", "perm"),
            (f"np.swapaxes({n}, 0, -1)", "perm"),
            (f"np.moveaxis({n}, -1, 0)", "perm"),
        ]
    if target.root is None:
        size = target.array.size
        flat = f"{n}.reshape(-1)"
        forms += [
            (flat, "reshape"),
            (f"np.ravel({n})", "reshape"),
            (f"np.expand_dims({n}, 0)", "reshape"),
            (f"np.ascontiguousarray({n})", "reshape"),  # a view of a C-ordered array, 0-d too
        ]
        if target.ndim <= 1:  # a view whatever the layout (of several dims: an argument's
            forms.append((f"np.asfortranarray({n})", "reshape"))  # layout, refused)
        if size and size % 2 == 0:
            forms.append((f"{n}.reshape(2, -1)", "reshape"))
    expression, kind = b.choose(forms)
    ran = b.run("\n".join(setup) + f"\n{name} = {expression}", name)
    if ran is None or not isinstance(ran[0], np.ndarray):
        return None  # an element
    if kind != "reshape" and owner_of(ran[0]) is not owner_of(_array(b, target)):
        return None  # NumPy copies here
    # A reshape NumPy copies (of an array of another memory order: `x.T * 2` is Fortran-
    # ordered) is kept: tracejit must give the copy's values, or refuse to rely on a view
    return expression, kind


def _targets(b: Builder) -> list[Value]:
    return _small(b, b.writable())


def _bind(
    b: Builder, target: Value, view: tuple[str, str] | None, w: str
) -> tuple[str, str | None]:
    """The statement's result: a copy of the base (a read after the writes), the view
    itself (a value that later writes to the family change), or a copy of the view."""
    choice = b.draw(st.integers(0, 3))
    if view is not None and choice == 0:
        return w, view[1]
    if view is not None and choice == 1:
        return f"{w}.copy()", None
    return f"{target.name}.copy()", None


def _emit_writes(
    b: Builder, target: Value, lines: list[str], view: tuple[str, str] | None, w: str
) -> bool:
    result, kind = _bind(b, target, view, w)
    name = b.fresh()
    statement = "\n".join([*lines, f"{name} = {result}"])
    return b.emit(statement, None, [target], view_of=target if kind else None, view=kind)


# --- builders --------------------------------------------------------------------------------
def _names(
    b: Builder,
    target: Value,
    view: tuple[str, str] | None,
    w: str,
    targets: list[Value],
    lines: list[str],
) -> list[str]:
    """What a statement writes into: the view `w` (made by a line added to `lines`) and/or
    the target itself, sometimes a value of another family too."""
    names = [target.name]
    if view is not None:
        lines.append(f"{w} = {view[0]}")
        names = [w] if b.draw(st.booleans()) else [w, target.name]
    others = [v for v in targets if v.family != target.family]
    if others and b.draw(st.integers(0, 3)) == 0:
        names.append(b.pick(others).name)
    return names


def item_write(b: Builder) -> bool:
    """Writes into a value or an argument, maybe through a view, then a read of it."""
    targets = _targets(b)
    if not targets:
        return False
    target = b.pick(targets)
    name = b.fresh()
    w, lines = f"{name}_w", []
    view = view_of(b, target, w, []) if b.draw(st.integers(0, 2)) > 0 else None
    names = _names(b, target, view, w, targets, lines)
    written = writes(b, lines, names, b.draw(st.integers(1, 3)))
    if written is None:
        return False
    return _emit_writes(b, target, lines + written, view, w)


def fresh_array(b: Builder) -> bool:
    """An array made in the function, written, then bound (a new writable value)."""
    name = b.fresh()
    z = f"{name}_z"
    exact = _small(b, [v for v in b.values if v.exact], 256)
    dtype = b.choose(["float64", "float32", "int64", "int32", "int8", "uint8", "bool", "float16"])
    shape = b.choose([(3,), (2, 3), (4,), (1, 5), (), (0, 2)])
    literal = b.choose(LITERALS + FLOAT_LITERALS[:3])
    forms = [
        f"{z} = np.zeros({shape}, np.{dtype})",
        f"{z} = np.ones({shape}, dtype=np.{dtype})",
        f"{z} = np.full({shape}, {literal}, np.{dtype})",
        f"{z} = np.empty({shape}, np.{dtype})\n{z}[...] = {literal}",
    ]
    like = b.pick(exact) if exact else None
    if like is not None:
        n = like.name
        forms += [
            f"{z} = np.zeros_like({n})",
            f"{z} = np.ones_like({n}, dtype=np.{dtype})",
            f"{z} = np.full_like({n}, {literal})",
            f"{z} = {n}.copy()",
            f"{z} = np.transpose({n}) * 1",  # Fortran-ordered in NumPy (of several dims)
            f"{z} = np.empty_like({n})\n{z}.fill({literal})",
            f"{z} = np.empty_like({n})\n{z}[...] = {n}",
        ]
    # NumPy arrays made from Python values (constants of the trace until a traced value is
    # written into them: then traced arrays, issue 37 point 5)
    constants = _constant_arrays(b, z, dtype, shape, literal)
    chosen = b.choose(forms + constants)
    constant = chosen in constants  # (np.ndarray's form is two lines)
    lines = chosen.split("\n")
    written = writes(b, lines, [z], b.draw(st.integers(1, 3)), out_ok=not constant)
    if written is None:
        return False
    operands = [like] if like is not None and like.name in lines[0] else []
    return b.emit("\n".join([*lines, *written, f"{name} = {z}"]), None, operands)


def _constant_arrays(b: Builder, z: str, dtype: str, shape: tuple, literal: str) -> list[str]:
    """Ways NumPy users make an array of `shape` from Python values (`astype`: a negative
    literal cast into an unsigned dtype wraps, as NumPy's C cast does)."""
    size = int(np.prod(shape))
    floats = FLOAT_LITERALS[:2] if dtype.startswith("float") else []  # -2.5 into uint8: UB
    values = [b.choose(LITERALS[:7] + floats) for _ in range(size)]
    forms = [
        f"{z} = np.array({np.array(values, object).reshape(shape).tolist()}).astype(np.{dtype})"
        .replace("'", ""),
        f"{z} = np.ndarray({shape}, np.{dtype})\n{z}.fill({literal})",
    ]
    if len(shape) == 2:
        forms += [
            f"{z} = np.eye(*{shape}, dtype=np.{dtype})",
            f"{z} = np.tri(*{shape}, dtype=np.{dtype})",
        ]
    if len(shape) == 1 and dtype != "bool":
        forms += [
            f"{z} = np.arange({shape[0]}, dtype=np.{dtype})",
            f"{z} = np.linspace(-1, 2, {shape[0]}).astype(np.{dtype})",
        ]
    if shape == (3, 3) or shape == (2, 3):
        forms.append(f"{z} = np.identity(3, np.{dtype})[:{shape[0]}].copy()")
    return forms


def write_in_branch(b: Builder) -> bool:
    """Writes in a staged `if` on a tensor (then, or then and else), maybe through a view
    made before it and into two families; then a read."""
    targets = _targets(b)
    pred = _predicate(b)
    if not targets or pred is None:
        return False
    target = b.pick(targets)
    name = b.fresh()
    w, lines = f"{name}_w", []
    view = view_of(b, target, w, []) if b.draw(st.booleans()) else None
    names = _names(b, target, view, w, targets, lines)
    then = writes(b, lines, names, b.draw(st.integers(1, 2)))
    orelse = writes(b, lines, names, b.draw(st.integers(0, 2)))
    if then is None or orelse is None:
        return False
    lines += [f"if {pred}:", *_indent(then)]
    if orelse:
        lines += ["else:", *_indent(orelse)]
    return _emit_writes(b, target, lines, view, w)


def _indent(lines: list[str]) -> list[str]:
    return ["    " + row for line in lines for row in line.splitlines()]


def _index_loop_header(b: Builder, counter: str) -> str:
    n = b.draw(st.integers(33, 48))
    return b.choose([f"for {counter} in range({n}):", f"for {counter} in range(1, {n + 2}):"])


def write_in_loop(b: Builder) -> bool:
    """Writes in a staged loop (keys from the counter), maybe under a staged `if` on the
    counter, or into rows of a view the loop iterates, or into a view taken in the body."""
    targets = _targets(b)
    exact = [v for v in b.values if v.exact]
    if not targets:
        return False
    target = b.pick(targets)
    name = b.fresh()
    i, k, w, lines = f"{name}_i", f"{name}_k", f"{name}_w", []
    view = view_of(b, target, w, []) if b.draw(st.booleans()) else None
    names = _names(b, target, view, w, targets, lines)
    loop = b.choose(["range", "range", "index", "index", "while", "rows", "body_view"])
    counter = k if loop == "while" else i
    probe = f"{counter} = 1"
    # a `tj.range(tensor)` counter has the bound's dtype compiled (a Python int eagerly)
    weak = loop in ("index", "while")
    base = names[0]
    array = _probe(b, lines, base)
    if array is None:
        return False
    if loop == "rows":  # `for row in view: row op= v` writes the rows of the base
        if array.ndim == 0:
            return False
        r = f"{name}_r"
        body = writes(b, lines, [r], b.draw(st.integers(1, 2)), probe=f"{r} = {base}[0]")
        if body is None or array.shape[0] == 0:
            return False
        header = f"for {r} in {base}:"
    elif loop == "body_view":  # a view taken inside the body, written through
        if array.ndim == 0 or array.shape[0] == 0:
            return False
        v = f"{name}_v"
        take = f"{v} = {base}[{counter} % {array.shape[0]}]"
        body = writes(b, lines, [v], b.draw(st.integers(1, 2)), counter, f"{probe}\n{take}", weak)
        if body is None:
            return False
        body.insert(0, take)
        header = _header(b, i, exact)
    else:
        body = writes(b, lines, names, b.draw(st.integers(1, 2)), counter, probe, weak)
        if body is None:
            return False
        if b.draw(st.integers(0, 3)) == 0:
            other = writes(b, lines, names, 1, counter, probe, weak)
            if other is None:
                return False
            body = [f"if {counter} % 2 == 0:", *_indent(body), "else:", *_indent(other)]
        header = _index_loop_header(b, i) if loop == "index" else _header(b, i, exact)
    if loop == "while":
        lines += [
            f"{k} = 0",
            f"while {k} < {_tensor_limit(b, exact)}:",
            *_indent(body),
            f"    {k} += 1",
        ]
    else:
        lines += [header, *_indent(body)]
    return _emit_writes(b, target, lines, view, w)


def _header(b: Builder, counter: str, exact: list[Value]) -> str:
    from fuzz_programs import _staged_range_header

    return _staged_range_header(b, counter, exact)


# Scalar code of index loops: `{x}`, `{y}` elements of arrays, `{z}` an element of the array
# written, `{i}` the counter (a Python int eagerly, a weak tensor compiled).
SCALAR_FORMS = ["{x}", "-{x}", "{x} + {y}", "{x} - {y}", "{x} * {y}", "{z} + {x}", "{z} - {x}",
                "{x} + {i}", "{x} * 2", "abs({x})", "{x} * {i}", "{z} + {i}"]  # fmt: skip
INT_FORMS = ["{x} // 2 + {i}", "{x} ^ {y}", "{x} % 3", "{x} & {i}", "({x} + {i}) // 3",
             "{z} * 3 + {x}"]  # fmt: skip
FLOAT_FORMS = ["{x} / 2", "{x} / {y}", "{z} * 0.5"]


def element(b: Builder, array: Any, name: str, flat: str) -> str:
    """`name[...]`: the element at flat position `flat` (an int expression, wrapped)."""
    shape = np.shape(array)
    if not shape:
        return f"{name}[()]"
    parts, stride = [], int(np.prod(shape))
    for n in shape:
        stride //= n
        parts.append(f"({flat}) % {n}" if stride == 1 else f"({flat}) // {stride} % {n}")
    return f"{name}[{', '.join(parts)}]"


def index_loop(b: Builder) -> bool:
    """`for i in range(n)`, n > 32, elementwise: a (fresh, or argument, or value) array's
    elements written one by one from scalar arithmetic on other arrays' elements; or a
    scalar accumulated. Compiled as a loop (an index loop), never unrolled."""
    sources = [v for v in b.values if v.exact and v.array.size > 0 and v.array.size <= 256]
    if not sources:
        return False
    name = b.fresh()
    i = f"{name}_i"
    x, y = b.pick(sources), b.pick(sources)
    flats = [i, f"{i} * 7 + 3", f"{i} // 2", f"{i} + 1"]
    ex, ey = (element(b, v.array, v.name, b.choose(flats)) for v in (x, y))
    header = _index_loop_header(b, i)
    if b.draw(st.integers(0, 3)) == 0:  # a scalar accumulated
        init = b.choose(["0", "1", "0.0", f"{x.name}.dtype.type(0)"])
        steps = ["{s} + {x}", "{s} - {x}", "{s} * {x}", "{s} + {x} + {i}"]
        if "f" not in (x.dtype.kind, y.dtype.kind):
            steps.append("{s} * 3 + {x} * {y}")  # no FMA on integers
        step = b.choose(steps)
        if "* 3" in step and init == "0.0":
            return False  # a float product then a sum: FMA contraction may fuse it
        step = step.format(s="{s}", x=ex, y=ey, i=i)
        if not _keeps_dtype(b, init, step, i):
            return False
        lines = [f"{name} = {init}", header, "    " + f"{name} = " + step.format(s=name)]
        return b.emit("\n".join(lines), None, [x, y])
    targets = [v for v in b.writable() if v.array.size > 0 and v.array.size <= 256]
    z = f"{name}_z"
    choice = b.draw(st.integers(0, 2))
    if choice == 0 or not targets:
        dtype = b.choose([x.dtype.name, "float64", "int64", "int32", "float32"])
        m = b.draw(st.integers(1, 8))
        made = [
            f"np.zeros({m}, np.{dtype})",
            f"np.full(({m},), 2, np.{dtype})",
            f"np.zeros_like({x.name})",
        ]
        lines = [f"{z} = {b.choose(made)}"]
        target, bound = None, z
    else:
        target = b.pick(targets)
        bound = target.name
        lines = []
        if choice == 2 and target.root is None:  # elementwise through a flat view
            ran = b.run(f"__r = {target.name}.reshape(-1)", "__r")
            if ran is not None and owner_of(ran[0]) is owner_of(_array(b, target)):
                lines.append(f"{z} = {target.name}.reshape(-1)")
    holder = z if lines else bound
    array = _probe(b, lines, holder)
    if array is None or array.size == 0:
        return False
    ez = element(b, array, holder, b.choose(flats))
    forms = SCALAR_FORMS + (FLOAT_FORMS if array.dtype.kind == "f" else INT_FORMS)
    if array.dtype.kind in "biu" and np.result_type(array.dtype, x.dtype, y.dtype).kind == "f":
        return False  # no float into an integer array (uint64 with a signed int is float64)
    if array.dtype.kind == "f" or "f" in (x.dtype.kind, y.dtype.kind):
        forms = [f for f in forms if not ("*" in f and ("+" in f or "-" in f[1:]))]
    expression = b.choose(forms).format(x=ex, y=ey, z=ez, i=i)
    write = element(b, array, holder, b.choose(flats))
    op = b.choose(["=", "=", "+="]) if array.dtype.kind != "b" else "="
    if op == "+=" and array.dtype.kind == "f" and "*" in expression:
        return False
    body = [f"{write} {op} {expression}"]
    if b.draw(st.integers(0, 3)) == 0:  # a second, nested index loop
        j = f"{name}_j"
        inner = element(b, array, holder, f"{i} + {j}")
        body = [f"for {j} in range({b.draw(st.integers(33, 36))}):", f"    {inner} = {expression}"]
    lines += [header, *_indent(body)]
    result = f"{name} = {holder}" if target is None else f"{name} = {bound}.copy()"
    operands = [x, y] + ([target] if target is not None else [])
    return b.emit("\n".join([*lines, result]), None, operands)


def _keeps_dtype(b: Builder, init: str, step: str, counter: str) -> bool:
    """Whether an accumulator `s = init; s = step` keeps one dtype across iterations (a
    staged loop's contract): `init`'s, unless it is a Python literal (weak: it takes the
    first step's). `step` is formatted but for `{s}`; `counter` is the loop's."""
    lines = [f"__s0 = np.asarray({init})", f"__s = {init}"]
    for k in (1, 2):
        lines += [
            f"{counter} = {k}",
            "__s = " + step.format(s="__s"),
            f"__d{k} = np.asarray(__s).dtype",
        ]
    weak = init in ("0", "1", "0.0")
    lines.append(f"__r = np.array(__d1 == __d2 and (__d1 == __s0.dtype or {weak}))")
    ran = b.run("\n".join(lines), "__r")
    return ran is not None and bool(ran[0])


# --- the new NumPy functions -----------------------------------------------------------------
# Reductions of a selection x[mask] (no `.size`: a count only the kernel knows is None at trace
# time, as a dim of a TensorFlow shape) and of np.nonzero's results.
MASK_REDUCERS = ["np.sum({})", "{}.sum()", "np.any({})", "np.count_nonzero({})",
                 "np.sum(np.ones_like({}, dtype=np.int64))", "np.cumsum({})"]  # fmt: skip
NONZERO_FORMS = ["np.sum(np.nonzero({n})[{k}] >= 0)", "np.flatnonzero({n}).sum()",
                 "np.argwhere({n}).sum(axis=0)", "np.sum(np.nonzero({n})[{k}])"]  # fmt: skip


def new_function(b: Builder) -> bool:
    """np.cumsum/cumprod, np.sort/argsort (stable: ties in tracejit's order), np.roll,
    reductions of x[mask], sizes from np.nonzero."""
    exact = [v for v in b.values if v.exact]
    if not exact:
        return False
    v = b.pick(exact)
    n, name = v.name, b.fresh()
    axis: Any = (
        None if v.ndim == 0 or b.draw(st.booleans()) else b.draw(st.integers(-v.ndim, v.ndim - 1))
    )
    kind = b.choose(["cumsum", "cumprod", "sort", "argsort", "roll", "mask", "nonzero"])
    err: Any = None
    hidden = False
    operands = [v]
    if kind in ("cumsum", "cumprod"):
        if v.dtype.kind == "f":
            if kind == "cumprod":
                return False
            err = _reduction_err("sum", v, "None" if axis is None else str(axis))
        expr = f"np.{kind}({n}{'' if axis is None else f', axis={axis}'})"
    elif kind in ("sort", "argsort"):
        if v.ndim == 0:
            return False
        stable = b.choose(['kind="stable"', "stable=True"])
        expr = f"np.{kind}({n}, axis={-1 if axis is None else axis}, {stable})"
    elif kind == "roll":
        shift = b.choose(["1", "-2", "7", runtime_int(b) or "3"])
        expr = f"np.roll({n}, {shift}{'' if axis is None else f', axis={axis}'})"
    elif kind == "mask":
        masks = [
            m
            for m in b.values
            if m.dtype == np.bool_ and m.ndim >= 1 and m.shape == v.shape[: m.ndim]
        ]
        mask = b.pick(masks).name if masks and b.draw(st.booleans()) else f"{n} > 0"
        if v.ndim == 0:
            return False
        reducer = b.choose(MASK_REDUCERS)
        expr = reducer.format(f"{n}[{mask}]")
        if "np.cumsum" in reducer:
            hidden = True  # a run-time size: returned only
            if v.dtype.kind == "f":
                return False
        elif "sum(" in reducer and "ones_like" not in reducer and v.dtype.kind == "f":
            err = _reduction_err("sum", v, "None")
    else:
        if v.ndim == 0:
            return False
        which = b.draw(st.integers(0, v.ndim - 1))
        expr = b.choose(NONZERO_FORMS).format(n=n, k=which)
    return b.emit(f"{name} = {expr}", err, operands, hidden=hidden)


# --- a name that may or may not still be an array after staged control flow ---------------
# ({x}[()].copy(): of a 0-d array, a NumPy scalar's copy, still a scalar, which `y += y`
# through another name leaves alone; tracejit made it a 0-d array, which it wrote)
# (the concatenation's length is computed: with dims unknown at trace time it is not x's
# own, so tracejit cannot choose between the two arrays when the kernel runs and refuses a
# later write; it had ignored the alias, regressions/test_fuzz_b640a51e08.py's cousin)
REBINDS = ["{x} = {x} + {x}", "{x} = {x}.copy()", "{x} = np.copy({x}) + {x}",
           "{x} = {x}[()].copy()", "{x} = np.concatenate([{x}[:1], {x}[1:]])"]  # fmt: skip


# x names t itself or a view of it (a write through t is seen through the view too: a view
# kept by a staged if was not followed when its size was unknown, a wrong value)
ALIASES = ["{t}", "{t}[...]", "{t}[::-1]", "{t}[1:]", "{t}[:3]"]


def rebound_alias(b: Builder) -> bool:
    """`x = t` (or a view of t), then a staged `if` or loop that may rebind x to a new
    array -- the branch not taken, or zero trips, leave x naming t -- then a write through t
    or through x and a read of x: NumPy's names see the write through both while x still
    is t (the fuzzer found a nested form of this, a wrong value in the argument, before
    tracejit followed it; `views.alias_unless`). Or a second name y = x written: where a
    0-d x became a NumPy scalar, `y += y` leaves x as it was (`views.scalar_unless`)."""
    targets = [v for v in _targets(b) if v.ndim > 0 or v.name.startswith("a")]
    exact = [v for v in b.values if v.exact]
    pred = _predicate(b)
    if not targets or pred is None:
        return False
    t = b.pick(targets)
    name = b.fresh()
    x = f"{name}_x"
    header = b.choose(
        [f"if {pred}:", f"for {name}_i in tj.range({_tensor_limit(b, exact, zero=True)}):"]
    )
    rebinds = REBINDS if t.ndim else [r for r in REBINDS if "[:1]" not in r]  # traced anyway
    if header.startswith("for"):  # a loop variable keeps its size: with unknown dims the
        rebinds = [r for r in rebinds if "[:1]" not in r]  # whole program would be refused
    rebind = b.choose(rebinds).format(x=x)
    alias = b.choose(ALIASES if t.ndim else ALIASES[:2]).format(t=t.name)
    lines = [f"{x} = {alias}", header, f"    {rebind}"]
    if header.startswith("if") and b.draw(st.booleans()):
        lines += ["else:", f"    {b.choose(rebinds).format(x=x)}"]
    if b.draw(st.booleans()):  # a second name of x, written: a write NumPy makes to x (an
        y = f"{name}_y"  # array) or not (a scalar a 0-d x became where it was rebound)
        lines += [f"{y} = {x}", f"{y} += {y}", f"{name} = {x} + 0 + {y}"]
        return b.emit("\n".join(lines), None, [t])
    written = b.choose([t.name, x])
    lines += [b.choose([f"{written} += {written}", f"{written}[...] = 1"])]
    lines += [f"{name} = {x} + 0"]
    return b.emit("\n".join(lines), None, [t])


# A trip of the loop: `{q}` written from `{p}` (and the counter `{i}`), then the names swapped
SWAP_WRITES = ["{q}[...] = {p}", "{q} += {p}", "{q}[{i} % {n}] = {p}[({i} + 1) % {n}]",
               "{q}[1:] = {p}[:-1]", "{q}[:] = {p}[::-1]", "{q} -= {p} // 2"]  # fmt: skip
SWAPS = ["{p}, {q} = {q}, {p}", "{p}, {q} = {q}, {p}", "{p}, {q}, {r} = {q}, {r}, {p}"]


def swapped_in_loop(b: Builder) -> bool:
    """`for i in range(n)` (even or odd n, over the unroll limit) writing one array of a
    pair in place and swapping the pair (`p, q = q, p`: a Jacobi sweep's double buffer;
    sometimes a rotation of three), with another name kept of the written array: staged
    two or three trips per staged trip (operators._staged_in_groups)."""
    sources = [v for v in b.values if v.exact and v.ndim == 1 and 2 <= v.array.size <= 64]
    if not sources:
        return False
    v = b.pick(sources)
    name = b.fresh()
    p, q, r, i, kept = (f"{name}_{s}" for s in ("p", "q", "r", "i", "kept"))
    n = v.array.size
    write = b.choose(SWAP_WRITES)
    if v.dtype.kind == "b" and ("-=" in write or "+=" in write):
        return False  # NumPy refuses bool subtraction; `+=` on bool is `or`: kept simple
    swap = b.choose(SWAPS)
    lines = [f"{p} = {v.name}.copy()", f"{q} = np.flip({v.name}).copy()", f"{r} = {p} + 0"]
    if b.draw(st.booleans()):
        lines.append(f"{kept} = {q}")  # another name of the array the odd trips write
    else:
        lines.append(f"{kept} = {p}")
    trips = b.draw(st.integers(9, 14))
    lines += [
        f"for {i} in range({trips}):",
        "    " + write.format(p=p, q=q, i=i, n=n),
        "    " + swap.format(p=p, q=q, r=r),
        f"{name} = {p} + 0 * {kept}",
    ]
    return b.emit("\n".join(lines), None, [v], overflow_ok=True)


# A NumPy array made from Python values, a second name of it, and a change in staged control
# flow through one of them (frontend/staging/numpy_locals.py: done as NumPy, or refused)
NUMPY_MADE = [
    "np.arange(6.0).reshape(2, 3)",
    "np.eye(2, 3)",
    "np.array([[1.0, -2.0, 3.0], [0.5, 0.0, 4.0]])",
]
SECOND_NAMES = ["{z}[0]", "{z}", "{z}.reshape(-1)", "{z}[:, 1]", "{z}.T"]
STAGED_CHANGES = ["{t}[...] = {v}", "{t}.fill({c})", "{t}[0] = {v}", "np.copyto({t}, {v})",
                  "{t} += {v}", "{t}[-1] = {c}"]  # fmt: skip


def changed_numpy_array(b: Builder) -> bool:
    """`z = np.eye(2, 3)` (a NumPy array while tracing), `w = z[0]` (or `z` itself, a flat
    view, ...), then a staged `if` or loop changing `z` or `w` in place (an item write with a
    literal or a traced value, `.fill`, `np.copyto`), both read after it."""
    exact = [v for v in b.values if v.exact and v.dtype.kind in "biuf" and v.array.size > 0]
    pred = _predicate(b)
    if not exact or pred is None:
        return False
    name = b.fresh()
    z, w, i = f"{name}_z", f"{name}_w", f"{name}_i"
    x = b.pick(exact)
    header = b.choose(
        [f"if {pred}:", f"for {i} in tj.range({_tensor_limit(b, exact, zero=True)}):"]
    )
    value = b.choose(["2.5", f"{x.name}.ravel()[0] * 1.0"])
    change = b.choose(STAGED_CHANGES).format(t=b.choose([z, w]), v=value, c=b.choose(["0", "7.5"]))
    lines = [
        f"{z} = {b.choose(NUMPY_MADE)}",
        f"{w} = {b.choose(SECOND_NAMES).format(z=z)}",
        header,
        f"    {change}",
        f"{name} = np.concatenate([{z}.ravel(), {w}.ravel()])",
    ]
    return b.emit("\n".join(lines), None, [x])


# NumPy's in-place reshapes (`a.shape = s`): -1 for the size, which unknown dims need too
IN_PLACE_SHAPES = ["-1", "(-1,)", "(1, -1)", "(-1, 1)"]


def in_place_reshape(b: Builder) -> bool:
    """`a.shape = s` of an array made in the function, seen through a second name taken
    before it (frontend/staging/views.py, `reshape_in_place`), then maybe written through
    that name: NumPy's names are one array object, which takes the new shape."""
    exact = [v for v in b.values if v.exact and v.ndim >= 1]
    if not exact:
        return False
    x = b.pick(exact)
    name = b.fresh()
    made = b.choose([f"{x.name}.copy()", f"{x.name} + 0", f"np.zeros_like({x.name})"])
    lines = [f"{name}_a = {made}", f"{name} = {name}_a"]
    lines.append(f"{name}_a.shape = {b.choose(IN_PLACE_SHAPES)}")
    if b.draw(st.booleans()):
        lines.append(f"{name}[..., :1] = 1")
    return b.emit("\n".join(lines), None, [x])


def repeated_selection(b: Builder) -> bool:
    """The same selection (`x[mask]`, or `x[[i, j]]`) read on two lines, the first maybe in
    a staged `if`: `cse` merges repeated indexing (passes/cse.py), never a read inside a
    branch into one after it."""
    arrays = [v for v in b.values if v.ndim >= 1 and v.array.size > 0 and v.dtype.kind in "biuf"]
    if not arrays:
        return False
    x = b.pick(arrays)
    if b.draw(st.booleans()):
        key = b.choose([f"{x.name} > 0", f"{x.name} == 0"])
    else:
        key = array_key(b, x.shape, scalar=False)
    if key is None:
        return False
    name = b.fresh()
    first = f"{name}[{key}] = {x.name}[{key}]"
    pred = _predicate(b)
    lines = [f"{name} = np.zeros_like({x.name})"]
    lines += [f"if {pred}:", f"    {first}"] if pred and b.draw(st.booleans()) else [first]
    lines.append(f"{name}[{key}] += {x.name}[{key}]")
    return b.emit("\n".join(lines), None, [x])


MUTATION_BUILDERS: dict[Callable[[Builder], bool], int] = {
    item_write: 4, fresh_array: 2, write_in_branch: 2, write_in_loop: 3, index_loop: 2,
    new_function: 3, rebound_alias: 2, swapped_in_loop: 2, changed_numpy_array: 2,
    in_place_reshape: 1, repeated_selection: 1,
}  # fmt: skip
