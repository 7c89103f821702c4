"""Nested staged loops and argument kinds (issue 35 point 7): programs the statement-by-
statement generator (fuzz_programs.py) never writes.

That generator emits one staged loop per statement, its body straight-line code, and passes
every input as an ndarray. A user found a wrong answer it could not: a NumPy scalar argument
aliased in an outer loop body (`tmp = b`) and decremented in an inner loop (`tmp -= 1`),
which NumPy rebinds (its scalars are immutable) and tracejit wrote in place. This module
generates whole programs of that family:

* staged loops nested 1-3 deep: `while` on a tensor condition, `for i in tj.range(n)`,
  `for i in range(n)` (a tensor `n` stages it, a Python one unrolls it), `for x in a` over
  a 1-d argument; loops inside staged `if`s inside loops;
* variables first assigned at every level, used by the loops nested in it; inner bodies
  reading and writing outer variables and arguments, by rebinding (`x = x - 1`) and by
  augmented assignment (`x -= 1`, in place on a 0-d ndarray, a rebinding on a scalar), on
  values aliased from arguments (`tmp = b`, `tmp = a[...]`, `tmp = a[0]`);
* `while` loops whose test is a Python value before the first trip and a tensor after it
  (`c = 2; while c > 0: c -= 1 + 0 * a0`), which tracejit stages from their start;
* `break`, `continue` and early `return` under a staged `if` at each level;
* arguments of one dtype (int32, int64, float32 or float64; values small, floats multiples
  of 1/2 so every sum is exact), each passed as a NumPy scalar, a Python number, a 0-d
  ndarray or a 1-d ndarray (`Program.arg_kinds`): the oracle passes both runs fresh copies
  of the same kinds and compares the arguments after the call (NumPy writes a 0-d ndarray
  argument in place too).

Termination is guarded, not hoped for: every while loop's condition is `c > 0` on a counter
decremented once per iteration (before any `continue`), no other statement of its body
assigns the counter, and a candidate is first run eagerly with a tick in every loop body
that refuses more than `MAX_TRIPS` iterations per loop entry (a candidate refused, or raising
anything, is redrawn), also with its Python floats negated as the oracle calls it once.
Every loop of a kept program therefore runs at most `MAX_TRIPS` times eagerly.

`Program.kinds` gets "nested_loops" and `shape:` tags (depth, chains of loop kinds, the level
each variable is first assigned at, exits per level, argument kinds, ...): run_fuzz.py
counts programs per tag, so a blind spot of the generator shows in its summary.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
from fuzz_programs import Program
from hypothesis import assume
from hypothesis import strategies as st

import tracejit as tj

NEST_DTYPES = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]
MAX_DEPTH = 3
MAX_TRIPS = 6  # iterations per entry of one loop, eagerly
INT_VALUES = [2, 1, 3, 2, 1, 0, 4, -1]  # hypothesis favours the first: loops that run
FLOAT_VALUES = [2.0, 1.5, 3.0, 1.0, 2.5, 0.5, 0.0, -1.0, -0.0]  # -0.0: a cache key's case
# An argument, or a view or an element of one (what `t = ...` may alias).
ARG_ALIAS = re.compile(r"a\d+(\[.*\])?")
# an argument: (kind, ndim); 0-d ones as each kind, 1-d ones as arrays
ARG_FORMS = [("numpy", 0), ("numpy", 0), ("python", 0), ("array", 0), ("array", 0), ("array", 1)]


@dataclass
class Scope:
    """What a statement at one place may read and write."""

    level: int  # loops around it (0: the function's body)
    reads: list[str]  # scalar expressions (names, `a1[0]`, ...)
    targets: dict[str, int]  # assignable name -> the level it was first assigned at
    frozen: frozenset = frozenset()  # while counters of the loops around it: never assigned
    indices: list[str] = field(default_factory=list)  # loop indices (int) around it
    in_loop: bool = False
    can_continue: bool = True  # the innermost loop's counter is decremented before the body
    chain: tuple[str, ...] = ()  # the kinds of the loops around it, outermost first

    def inner(self, **changes) -> Scope:
        fields = {**self.__dict__, "reads": list(self.reads), "targets": dict(self.targets)}
        fields["indices"] = list(self.indices)
        fields.update(changes)
        return Scope(**fields)


class Nest:
    """Draws one program: its lines carry `#ENTER k` / `#TICK k` markers, dropped from the
    program and made calls of the termination guard in the eager probe."""

    def __init__(self, draw, dtype: np.dtype, forms: list[tuple[str, int]]):
        self.draw = draw
        self.dtype = dtype
        self.forms = forms
        self.count = 0
        self.loops = 0
        self.tags: set[str] = set()
        self.arg_aliases: set[str] = set()  # names bound to an argument (or a view of one)
        self.outputs: list[str] = []
        # How each name is stepped, drawn once: "+=" (in place on a 0-d ndarray) or "= +"
        # (a rebinding). Both in one staged loop on a 0-d ndarray is a documented refusal
        # (NotImplementedError: NumPy would write the array from before the loop once only).
        self.styles: dict[str, str] = {}

    def step(self, target: str, op: str, value: str, scope: Scope) -> str:
        """`target op= value` in the target's style (augmented, or rebinding)."""
        style = self.styles.setdefault(target, self.choose(["augmented", "rebinding"]))
        if style == "rebinding":
            return f"{target} = {target} {op} {value}"
        self.tags.add(f"augmented assignment at L{scope.level}")
        if target.split("[")[0] in self.arg_aliases or re.fullmatch(r"a\d+", target):
            self.tags.add(f"augmented assignment of an argument (alias) at L{scope.level}")
        return f"{target} {op}= {value}"

    # helpers ---------------------------------------------------------------------------------
    def choose(self, options: list):
        return self.draw(st.sampled_from(options))

    def chance(self, n: int) -> bool:
        """True once in `n`."""
        return self.draw(st.integers(0, n - 1)) == 0

    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def literal(self) -> str:
        return self.choose(["1", "2", "1", "3"] if self.dtype.kind != "f" else ["1", "0.5", "2"])

    def atom(self, scope: Scope) -> str:
        if scope.reads and not self.chance(4):
            return self.choose(scope.reads)
        return self.literal()

    def int_bound(self, scope: Scope) -> str:
        """A trip count: a literal, or (int programs) a value of the program."""
        if self.dtype.kind != "f" and scope.reads and not self.chance(3):
            return self.choose(scope.reads)
        return self.choose(["2", "3", "1", "4", "0"])

    def condition(self, scope: Scope) -> str:
        x = self.choose(scope.reads) if scope.reads else "1"
        forms = [f"{x} > {self.atom(scope)}", f"{x} < {self.atom(scope)}", f"{x} % 2 == 0"]
        if scope.indices:
            i = self.choose(scope.indices)
            forms += [f"{i} % 2 == 1", f"{i} > {self.choose(['0', '1', '2'])}"]
        return self.choose(forms)

    # statements ------------------------------------------------------------------------------
    def alias_source(self, scope: Scope) -> str:
        """The right side of `t = ...`: mostly a bare name or argument (an alias)."""
        args = [f"a{k}" for k, (kind, ndim) in enumerate(self.forms) if ndim == 0]
        zero_d = [f"a{k}" for k, form in enumerate(self.forms) if form == ("array", 0)]
        forms = [self.atom(scope)] * 3 + ([self.choose(args)] * 2 if args else [])
        if zero_d:
            forms += [f"{self.choose(zero_d)}[...]", f"{self.choose(zero_d)}[()]"]
        if scope.reads:
            x = self.choose(scope.reads)
            # a new 0-d ndarray of the program's dtype (np.copy(3) would be int64: a loop
            # variable changing dtype, which the contract refuses)
            forms += [f"{x} + {self.literal()}", f"{x} - {self.atom(scope)}"]
            forms.append(f"np.array({x}, np.{self.dtype.name})")
            python = [f"a{k}" for k, (kind, _) in enumerate(self.forms) if kind == "python"]
            if python and self.dtype.kind == "f":  # the sign of a Python float (-0.0) seen
                # cast back: copysign of two Python floats is a float64, in a float32
                # program a dtype that depends on the path taken (found at ~4,200 programs:
                # an early return then gives float32 in NumPy, the other path float64)
                sign = f"np.copysign({x}, {self.choose(python)})"
                forms.append(f"{sign}.astype(np.{self.dtype.name})")
        return self.choose(forms)

    def assign(self, scope: Scope) -> list[str]:
        name = self.fresh("t")
        source = self.alias_source(scope)
        if ARG_ALIAS.fullmatch(source) or source in self.arg_aliases:
            self.arg_aliases.add(name)
        scope.reads.append(name)
        scope.targets[name] = scope.level
        self.tags.add(f"first assigned at L{scope.level}")
        return [f"{name} = {source}"]

    def update(self, scope: Scope) -> list[str]:
        targets = [t for t in scope.targets if t not in scope.frozen]
        if not targets:
            return self.assign(scope)
        outputs = [t for t in targets if t in self.outputs]
        target = self.choose(outputs if outputs and self.chance(2) else targets)
        value = self.atom(scope)
        if scope.indices and self.dtype.kind != "f" and self.chance(3):
            value = self.choose(scope.indices)
        line = self.step(target, self.choose(["+", "-", "+"]), value, scope)
        if scope.targets[target] < scope.level:
            self.tags.add(f"L{scope.targets[target]} variable written at L{scope.level}")
        return [line]

    def exit(self, scope: Scope) -> list[str]:
        kinds = ["return"] + (["break", "continue"] if scope.in_loop else [])
        if not scope.can_continue and "continue" in kinds:
            kinds.remove("continue")
        kind = self.choose(kinds)
        self.tags.add(f"{kind} at L{scope.level}")
        if kind == "return":
            items = ", ".join(f"{n!r}: {n}" for n in self.outputs)
            return [f"if {self.condition(scope)}:", f"    return {{{items}}}"]
        return [f"if {self.condition(scope)}:", f"    {kind}"]

    def branch(self, scope: Scope, depth_left: int) -> list[str]:
        loops = self.loops
        then = self.block(scope.inner(), depth_left)
        lines = [f"if {self.condition(scope)}:", *_indent(then)]
        if self.chance(2):
            lines += ["else:", *_indent(self.block(scope.inner(), depth_left))]
        self.tags.add(f"staged if at L{scope.level}")
        if self.loops > loops:
            self.tags.add(f"loop in an if at L{scope.level}")
        return lines

    def loop(self, scope: Scope, depth_left: int) -> list[str]:
        self.loops += 1
        k = self.loops
        rows = [f"a{i}" for i, (kind, ndim) in enumerate(self.forms) if ndim == 1]
        kind = self.choose(["while", "while", "tj.range", "range"] + (["rows"] if rows else []))
        inner = scope.inner(level=scope.level + 1, in_loop=True, can_continue=True)
        inner.chain = (*scope.chain, kind)
        before, header, first, last = [], "", [], []
        if kind == "while":
            counters = [t for t in scope.targets if t not in scope.frozen and "[" not in t]
            args = [f"a{k}" for k, (_, ndim) in enumerate(self.forms) if ndim == 0]
            how = self.draw(st.integers(0, 3))
            tensors = [a for a in args if self.forms[int(a[1:])][0] != "python"]
            decrement = "1"
            if tensors and how == 3:  # a Python test first, a tensor after one trip
                counter = self.fresh("c")
                before = [f"{counter} = {self.choose(['1', '2', '3'])}"]
                decrement = f"(1 + 0 * {self.choose(tensors)})"
                scope.reads.append(counter)
                scope.targets[counter] = scope.level
                self.tags.add(f"first assigned at L{scope.level}")
                self.tags.add(f"while test a Python value before its first trip at L{scope.level}")
            elif counters and how == 0:
                counter = self.choose(counters)  # an argument or an outer variable
            elif args and how == 1:  # a fresh alias of an argument (`tmp = b`, issue 35)
                counter = self.fresh("c")
                before = [f"{counter} = {self.choose(args)}"]
                self.arg_aliases.add(counter)
                scope.reads.append(counter)
                scope.targets[counter] = scope.level
                self.tags.add(f"first assigned at L{scope.level}")
                self.tags.add(f"while counter aliasing an argument at L{scope.level}")
            else:
                counter = self.fresh("c")
                before = self.assign_named(counter, scope)
            step = self.step(counter, "-", decrement, inner)
            self.tags.add(f"L{scope.targets[counter]} variable written at L{inner.level}")
            header = f"while {self.choose([f'{counter} > 0', f'0 < {counter}'])}:"
            if self.chance(2):
                first = [step]
            else:
                last, inner.can_continue = [step], False
            inner.frozen = scope.frozen | {counter}
        elif kind == "rows":
            element = self.fresh("e")
            header = f"for {element} in {self.choose(rows)}:"
            inner.reads.append(element)
        else:
            index = self.fresh("i")
            header = f"for {index} in {kind}({self.int_bound(scope)}):"
            inner.indices.append(index)
        body = self.block(inner, depth_left - 1)
        self.tags.add(f"{kind} loop at L{scope.level}")
        self.tags.add("loops " + " > ".join(inner.chain))
        return [
            *before,
            f"#ENTER {k}",
            header,
            f"    #TICK {k}",
            *_indent(first),
            *_indent(body),
            *_indent(last),
        ]

    def assign_named(self, name: str, scope: Scope) -> list[str]:
        source = self.alias_source(scope)
        if ARG_ALIAS.fullmatch(source) or source in self.arg_aliases:
            self.arg_aliases.add(name)
        scope.reads.append(name)
        scope.targets[name] = scope.level
        self.tags.add(f"first assigned at L{scope.level}")
        return [f"{name} = {source}"]

    def block(self, scope: Scope, depth_left: int) -> list[str]:
        """1-3 statements (at least one loop when `depth_left` asks the body to nest)."""
        lines: list[str] = []
        count = self.draw(st.integers(1, 3))
        for _ in range(count):
            kinds = ["assign", "update", "update"]
            if depth_left > 0:
                kinds += ["loop", "loop", "loop", "if"]
            if scope.level > 0 or scope.in_loop:
                kinds += ["exit"]
            kind = self.choose(kinds)
            if kind == "assign":
                lines += self.assign(scope)
            elif kind == "update":
                lines += self.update(scope)
            elif kind == "loop":
                lines += self.loop(scope, depth_left)
            elif kind == "if":
                lines += self.branch(scope, depth_left)
            else:
                lines += self.exit(scope)
                return lines  # nothing after an exit at this level would be read
        own = [t for t, level in scope.targets.items() if level == scope.level]
        own = [t for t in own if t not in self.outputs and t not in scope.frozen]
        if own and self.outputs and not self.chance(3):  # a result sees this level's values
            result, value = self.choose(self.outputs), self.choose(own)
            lines.append(self.step(result, "+", value, scope))
        return lines

    def program(self) -> list[str]:
        reads = [f"a{k}" for k, (_, ndim) in enumerate(self.forms) if ndim == 0]
        for k, (_, ndim) in enumerate(self.forms):
            if ndim == 1:
                reads.append(f"a{k}[{self.choose(['0', '-1'])}]")
        targets = {r: 0 for r in reads}
        self.arg_aliases.update(r for r in reads if "[" not in r)
        top = Scope(level=0, reads=reads, targets=targets)
        lines = []
        for _ in range(self.draw(st.integers(1, 2))):  # the results, all bound before any loop
            name = self.fresh("r")
            source = self.choose(["0", "0", self.literal(), self.alias_source(top)])
            lines.append(f"{name} = {source}")
            if ARG_ALIAS.fullmatch(source):
                self.arg_aliases.add(name)
            self.outputs.append(name)
            top.reads.append(name)
            top.targets[name] = 0
        depth = self.draw(st.integers(2, MAX_DEPTH)) if not self.chance(5) else 1
        self.depth = depth
        lines += self.block(top, depth)
        if not self.loops:  # at least one loop, as deep as drawn
            lines += self.loop(top, depth)
        return lines


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines]


def _depth(lines: list[str]) -> int:
    """The deepest nesting of loops (from the markers' indentation)."""
    depth, stack = 0, []
    for line in lines:
        if line.lstrip().startswith("#TICK"):
            indent = len(line) - len(line.lstrip())
            while stack and stack[-1] >= indent:
                stack.pop()
            stack.append(indent)
            depth = max(depth, len(stack))
    return depth


MARKER = re.compile(r"#(ENTER|TICK) (\d+)")


class _TooManyTrips(Exception):
    pass


def _probe(program: Program, lines: list[str]) -> bool:
    """Run the program eagerly with a tick in every loop: False if a loop runs more than
    MAX_TRIPS times in one entry, or anything raises."""
    trips: dict[int, int] = {}

    def enter(k: int) -> None:
        trips[k] = 0

    def tick(k: int) -> None:
        trips[k] += 1
        if trips[k] > MAX_TRIPS:
            raise _TooManyTrips

    probed = [MARKER.sub(lambda m: f"__{m[1].lower()}({m[2]})", x) for x in lines]
    items = ", ".join(f"{n!r}: {n}" for n in program.outputs)
    params = ", ".join(f"a{k}" for k in range(len(program.inputs)))
    text = "\n".join([f"def program({params}):", *_indent(probed), f"    return {{{items}}}"])
    namespace = {"np": np, "tj": tj, "__enter": enter, "__tick": tick}
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(text, "<probe>", "exec"), namespace)  # noqa: S102
                namespace["program"](*program.arguments())
                # the oracle also calls it with its Python floats negated (fuzz_oracle.py's
                # `flipped`), whose result is not compared but whose loops must end too
                flipped = [-a if isinstance(a, float) else a for a in program.arguments()]
                try:
                    namespace["program"](*flipped)
                except _TooManyTrips:
                    return False
                except Exception:  # noqa: S110 - an error is an answer the oracle ignores
                    pass
    except Exception:
        return False
    return True


@st.composite
def nested_programs(draw) -> Program:
    """A program of nested staged loops over 1-3 arguments of one dtype and drawn kinds."""
    for _ in range(10):
        dtype = draw(st.sampled_from(NEST_DTYPES))
        forms = [draw(st.sampled_from(ARG_FORMS)) for _ in range(draw(st.integers(1, 3)))]
        values = FLOAT_VALUES if dtype.kind == "f" else INT_VALUES
        inputs = []
        for _, ndim in forms:
            shape = (draw(st.integers(1, 3)),) if ndim else ()
            data = [draw(st.sampled_from(values)) for _ in range(int(np.prod(shape)))]
            inputs.append(np.array(data, dtype).reshape(shape))
        nest = Nest(draw, dtype, forms)
        lines = nest.program()
        program = Program(inputs, outputs={n: None for n in nest.outputs})
        program.arg_kinds = [kind for kind, _ in forms]
        program.body = ["\n".join(x for x in lines if not x.lstrip().startswith("#"))]
        if not _probe(program, lines):
            continue
        tags = {f"depth {_depth(lines)}", *nest.tags}
        tags |= {f"argument {kind} {'1-d' if ndim else '0-d'} {dtype.name}" for kind, ndim in forms}
        program.kinds = ["nested_loops", *sorted("shape:" + t for t in tags)]
        return program
    assume(False)
    raise AssertionError("unreachable")
