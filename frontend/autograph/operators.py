"""The runtime of converted code (`ag__`): dispatchers that run Python or stage IR.

Each dispatcher looks at its condition or iterable at trace time. A Python value runs
the construct as plain Python (one branch; an unrolled loop). A symbolic `tj.Tensor`
stages it through `frontend/staging/control_flow.py` (`tj.if` / `tj.while`), passing exactly
the statement's state variables (names found statically by the converter) as branch
outputs or loop-carried values. Variables without a value on some path are handled
here (see `undefined.py`): they stay out of the staged op and are only an error if used.
"""

from __future__ import annotations

import contextlib
import itertools
import operator
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from functools import partial
from types import FrameType
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from tracejit.frontend.autograph import builtins, index_loops
from tracejit.frontend.autograph.conversion import converted_call
from tracejit.frontend.autograph.index_loops import Enumerated
from tracejit.frontend.autograph.undefined import (
    LoopLocal,
    PartiallyDefined,
    Undefined,
    is_return_value,
    is_undefined,
)
from tracejit.frontend.numpy_api import construction
from tracejit.frontend.numpy_api.promotion import weak_type
from tracejit.frontend.staging import numpy_locals, primitives, runtime_sizes, views
from tracejit.frontend.staging.control_flow import (
    REBOUND_AFTER_WRITE,
    SHAPE_CHANGE,
    LoopStaged,
    Range,
    cond,
    relaxing_changed_shapes,
    stopping_at_a_staged_loop,
    traced_and_thrown_away,
    while_loop,
)
from tracejit.frontend.staging.source_location import at_user_line, user_location
from tracejit.frontend.staging.tensor import Tensor, dispatched
from tracejit.frontend.staging.trace_warnings import is_numpy_random, warn_frozen_random
from tracejit.frontend.staging.tracing import current_trace, is_tracing
from tracejit.ir.control_flow import IfOp, WhileOp, YieldOp
from tracejit.ir.dtypes import tensor_type
from tracejit.runtime.structure import flatten, unflatten

__all__ = [
    "Undefined",
    "and_",
    "and_test",
    "or_test",
    "assert_stmt",
    "compare_chain",
    "converted_call",
    "for_stmt",
    "if_exp",
    "if_stmt",
    "not_",
    "or_",
    "ret",
    "while_stmt",
]

GetState = Callable[[], tuple]
SetState = Callable[[tuple], None]


# --- truth values ---------------------------------------------------------------------------
def truth(value: Tensor) -> Tensor:
    """`bool(value)` as a 0-d bool tensor; like NumPy, only for single-element tensors."""
    if value.size != 1:
        raise ValueError(
            at_user_line(
                f"the truth value of a tensor with shape {value.shape} is ambiguous (NumPy "
                "raises here too); reduce it with np.any / np.all first"
            )
        )
    # NumPy's stubs do not model __array_function__: on a Tensor these return a Tensor
    if value.ndim:
        value = dispatched(np.reshape(value, ()))
    return value if value.dtype == np.bool_ else dispatched(np.not_equal(value, 0))


def _as_bool(value: object) -> object:
    return truth(value) if isinstance(value, Tensor) else bool(value)


def not_(value: object) -> object:
    if isinstance(value, Tensor):
        return np.logical_not(truth(value))
    return not value


def _lazy_bool(
    combine: Callable[..., object], rest: Sequence[Callable[[], Any]]
) -> Callable[[], object]:
    """`bool(combine(*rest))`, evaluated when called (a branch of a staged `and`/`or`)."""
    return lambda: _as_bool(combine(*rest))


def _now(value: object) -> Callable[[], object]:
    return lambda: value


def _later(combine: Callable[..., object], rest: Sequence[Callable[[], Any]]):
    """`combine(*rest)`, evaluated when called (a branch of a staged `and`/`or`)."""
    return lambda: combine(*rest)


def _short_circuit(
    operands: Sequence[Callable[[], object]],
    stops: Callable[[object], bool],
    staged: Callable[[Tensor, Sequence[Callable[[], object]]], object],
) -> object:
    """Python's `and`/`or` over lazy `operands`: the first value `stops` holds for, else the
    last; from the first tensor on, `staged(tensor, the operands after it)`."""
    value = operands[0]()
    for index, operand in enumerate(operands[1:], start=1):
        if isinstance(value, Tensor):
            return staged(value, operands[index:])
        if stops(value):
            return value
        value = operand()
    return value


def and_(*operands: Callable[[], object]) -> object:
    """`a and b and ...`, lazy like Python; staged as a conditional once an operand is a tensor
    (so a later operand is only evaluated at run time when it matters), whose result is the
    operand Python's would be (`x or y` of two floats is one of them), as AutoGraph's: the
    operands must then be of one type, as a staged if's branches."""
    return _short_circuit(
        operands, operator.not_, lambda v, rest: cond(truth(v), _later(and_, rest), _now(v))
    )


def or_(*operands: Callable[[], object]) -> object:
    """`a or b or ...`, lazy like Python (see `and_`)."""
    return _short_circuit(
        operands, bool, lambda v, rest: cond(truth(v), _now(v), _later(or_, rest))
    )


def and_test(*operands: Callable[[], object]) -> object:
    """`a and b and ...` where only its truth counts (transformer.as_test): staged, a bool."""
    return _short_circuit(
        operands,
        operator.not_,
        lambda v, rest: cond(truth(v), _lazy_bool(and_test, rest), _now(False)),
    )


def or_test(*operands: Callable[[], object]) -> object:
    """`a or b or ...` where only its truth counts (see `and_test`)."""
    return _short_circuit(
        operands, bool, lambda v, rest: cond(truth(v), _now(True), _lazy_bool(or_test, rest))
    )


def if_exp(test: object, body: Callable[[], object], orelse: Callable[[], object]) -> object:
    """`body() if test else orelse()`."""
    if isinstance(test, Tensor):
        return cond(truth(test), body, orelse)
    return body() if test else orelse()


_COMPARE = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "is": operator.is_,
    "is not": operator.is_not,
    "in": lambda a, b: builtins.contains(b, a),
    "not in": lambda a, b: not_(builtins.contains(b, a)),
}


def compare_chain(ops: Sequence[str], *operands: Callable[[], object]) -> object:
    """`a < b < c` == `(a < b) and (b < c)` with `b` evaluated once."""
    left = operands[0]()
    right = operands[1]()
    value = _COMPARE[ops[0]](left, right)
    if len(ops) == 1:
        return value
    return and_(lambda: value, lambda: compare_chain(ops[1:], lambda: right, *operands[2:]))


# --- assert and return ------------------------------------------------------------------------
def assert_stmt(test: object, message: Callable[[], object] | None) -> None:
    """`assert test, message`: a run-time check when `test` is a tensor."""
    if not isinstance(test, Tensor):
        if not test:
            raise AssertionError(message()) if message is not None else AssertionError()
        return
    text = "" if message is None else str(message())
    location = user_location()
    where = f" ({location})" if location else ""
    primitives.assert_true(truth(test), f"AssertionError: {text}{where}")


def ret(value: object) -> object:
    """A function's return value, checked for variables without a value on some path."""
    check_defined(value)
    return value


def check_defined(*values: object) -> None:
    for value in values:
        if isinstance(value, Undefined):
            value.fail()
        if isinstance(value, list | tuple | dict):
            for leaf in flatten(value)[0]:
                if isinstance(leaf, Undefined):
                    leaf.fail()


def _range(*args: Any) -> Any:
    """`range(...)` in converted code: a staged `tj.range` when a bound is a tensor."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    for bound in tensors:
        if bound.dtype.kind not in "biu":
            raise TypeError(
                at_user_line(
                    f"range() of a {bound.dtype} tensor: its bounds must be integers, as in "
                    "Python; cast with .astype(np.int64) if you mean it"
                )
            )
    if tensors:
        return Range(*args)
    try:
        return range(*args)
    except TypeError as error:  # range(1, None): Python's error, at the user's line
        raise TypeError(at_user_line(str(error))) from None


BUILTIN_OVERRIDES: dict[Any, Callable[..., Any]] = {
    range: _range,
    enumerate: index_loops.enumerate_,
    zip: index_loops.zip_,
    **builtins.OVERRIDES,
    **construction.OVERRIDES,
}
getitem = builtins.getitem
setitem = builtins.setitem
setitem_local = builtins.setitem_local
augassign_local = builtins.augassign_local
augassign_item_local = builtins.augassign_item_local
slice_ = slice


def warn_if_random(function: object) -> None:
    """Warn (once per user function) that an np.random call runs only while tracing."""
    if is_tracing() and is_numpy_random(function):
        warn_frozen_random(function, sys._getframe(2).f_code)


# --- if ---------------------------------------------------------------------------------------
def if_stmt(
    test: object,
    body: Callable[[], None],
    orelse: Callable[[], None],
    get_state: GetState,
    set_state: SetState,
    names: tuple[str, ...],
    branch_names: tuple[tuple[str, ...], tuple[str, ...]],
) -> None:
    if not isinstance(test, Tensor):
        body() if test else orelse()
        return
    with numpy_locals.watching(sys._getframe(1), "if"):
        _staged_if(truth(test), body, orelse, get_state, set_state, names, branch_names)


@contextlib.contextmanager
def errors_caught(types: Callable[[], object]) -> Iterator[None]:
    """The body of a `try` whose handlers catch `types()` (a thunk: Python looks the names
    up only when an exception comes): while it is traced, a data error of those types
    (an index out of range, ...) is raised where it is found, so the handler runs as with
    NumPy, instead of being deferred to the end of the trace (non-strict execution)."""
    if not is_tracing():
        yield
        return
    trace = current_trace()
    caught = trace.caught
    caught.append((types, trace.open_blocks[-1]))
    try:
        yield
    finally:
        caught.pop()


def user_raise(exception: object) -> object:
    """`raise E` in converted code: marks `E` as raised by the user's code at this line, so
    a staged if can turn it into a run-time error of the branch that raises it."""
    if isinstance(exception, type) and issubclass(exception, BaseException):
        exception = exception()
    if isinstance(exception, BaseException):
        exception.__tj_raised_at__ = str(user_location())  # type: ignore[attr-defined]  # a marker on the exception
    return exception


class _ReturnLaterInTrace(Exception):
    """The branch traced first leaves the return value unset where static analysis says a
    branch may set it (`if c: return a` then a Python `if` that does not return): staged
    again with the branches in the other order, to learn its type from the other branch."""


class _ReturnInNeither(Exception):
    """Neither branch of a staged if sets the return value in this trace (its `return`s
    are in Python loops that ran no trip, or under Python conditions that were false): the
    if is staged again without it, which stays undefined after the if."""

    def __init__(self, index: int):
        self.index = index


class _ReturnsInOneBranch(Exception):
    """A branch of a staged if returns (sets the return value) and the other does not: the
    if is staged again with the return value defined before it (zeros of its type), since
    the lowering reads it only where the return flag says it was set."""

    def __init__(self, index: int, value: object):
        self.index, self.value = index, value


class _BranchRaises(Exception):
    """A branch of a staged if raised a user exception while being traced."""

    def __init__(self, branch: int, message: str):
        self.branch, self.message = branch, message


def _staged_if(pred, body, orelse, get_state, set_state, names, branch_names) -> None:
    """Stage an if. A branch whose Python code raises (`raise E(...)`) becomes a run-time
    error when it is taken, as in Python: it fails an assertion and then, so that it has
    outputs of the right types, traces the other branch (never run: the kernel stops)."""
    learned = _Learned()
    while True:
        try:
            return _stage_if_once(
                pred, body, orelse, get_state, set_state, names, branch_names, learned
            )
        except _ReturnInNeither as neither:
            learned.unset.add(neither.index)
        except _ReturnLaterInTrace:
            learned.swapped = True
            pred, body, orelse = np.logical_not(truth(pred)), orelse, body
            branch_names = (branch_names[1], branch_names[0])
            raising = learned.raising
            learned.raising = {1 - branch: message for branch, message in raising.items()}
        except _ReturnsInOneBranch as returns:
            state = list(get_state())
            state[returns.index] = _zeros_like(returns.value)
            set_state(tuple(state))
        except _BranchRaises as raised:
            raising = learned.raising
            raising[raised.branch] = raised.message
            if len(raising) == 2:  # the if fails whichever branch runs
                fail = [partial(primitives.assert_true, _false(), raising[i]) for i in (0, 1)]
                cond(pred, *fail)
                return None


@dataclass
class _Learned:
    """What earlier attempts at staging one if learned: the branches whose Python code
    raises (by index, with the message), whether the branches were swapped, and the return
    values neither branch sets."""

    raising: dict[int, str] = field(default_factory=dict)
    swapped: bool = False
    unset: set[int] = field(default_factory=set)


def _false() -> Tensor:
    return primitives.constant(np.asarray(False))


def _raising_branch(index: int, fns: list[Callable[[], None]], raising: dict[int, str]):
    """Branch `index` of a staged if as traced: fails at run time if it raises, else runs."""

    def traced(branch: int) -> None:
        try:
            fns[branch]()
        except Exception as error:
            where = getattr(error, "__tj_raised_at__", None)
            if where is None:
                raise
            message = f"{type(error).__name__}: {error} ({where})"
            raise _BranchRaises(branch, message) from None

    def run() -> None:
        if index in raising:
            primitives.assert_true(_false(), raising[index])
            traced(1 - index)  # for outputs of the right types
            return
        traced(index)

    return run


def _stage_if_once(
    pred, body, orelse, get_state, set_state, names, branch_names, learned: _Learned
) -> None:
    init = get_state()
    unset, swapped = learned.unset, learned.swapped
    fns = [body, orelse]
    body = _raising_branch(0, fns, learned.raising)
    orelse = _raising_branch(1, fns, learned.raising)
    both = set(branch_names[0]) & set(branch_names[1])
    outputs = [
        i
        for i, n in enumerate(names)
        if i not in unset and (n in both or not is_undefined(init[i]))
    ]
    one_sided = [i for i in range(len(names)) if i not in outputs and i not in unset]
    where = str(user_location())
    assigned: dict[int, object] = {}  # one-sided variable -> its value where assigned
    then_outputs: list[tuple] = []
    returned: dict[int, object] = {}  # a return-value output -> its value where set

    def branch(fn: Callable[[], None]) -> Callable[[], tuple]:
        def run() -> tuple:
            state, shared = _traced_if_shared(fresh_containers(init), init, names)
            set_state(state)
            fn()
            values = get_state()
            for i in (i for i in shared if state[i]._version > 0):
                numpy_locals.refuse_shared(init[i], _display(names[i]), "if")
            assigned.update((i, values[i]) for i in one_sided if not is_undefined(values[i]))
            for i in one_sided:
                if i in assigned and is_return_value(names[i]) and _has_spec(assigned[i]):
                    raise _ReturnsInOneBranch(i, assigned[i])
            for i in (i for i in outputs if is_return_value(names[i])):
                if not is_undefined(values[i]):
                    returned[i] = values[i]
                elif i in returned and _has_spec(returned[i]):
                    raise _ReturnsInOneBranch(i, returned[i])
                elif not then_outputs and not swapped:
                    raise _ReturnLaterInTrace
                elif not then_outputs:  # the other branch, traced first before, left it unset
                    raise _ReturnInNeither(i)
            out = tuple(values[i] for i in outputs)
            _check_branch_outputs(out, then_outputs, [names[i] for i in outputs], where)
            then_outputs.append(out)
            return out

        return run

    try:
        results = cond(
            pred, branch(body), branch(orelse), names=[_display(names[i]) for i in outputs]
        )
    except (_ReturnsInOneBranch, _BranchRaises, _ReturnLaterInTrace, _ReturnInNeither):
        set_state(init)  # staged again: from the state before the if
        raise
    if len(then_outputs) == 2:
        _carry_guards_through_if(pred, then_outputs, results)
    final = list(init)
    for i, value in zip(outputs, results, strict=True):
        final[i] = value
        numpy_locals.refuse_later_writes(init[i], value, _display(names[i]), "if")
    for i in one_sided:
        final[i] = PartiallyDefined(names[i], where, _spec_of(assigned.get(i)))
    set_state(write_back(init, final))


def _carry_guards_through_if(pred: Any, branches: list[tuple], results: Any) -> None:
    """A variable that a staged loop may have left unassigned (guarded, see `_Loop.stage`)
    and that one branch assigns: after the if it is assigned if the branch taken did, and
    yielding it unchanged from the other branch is no read. Leaf by leaf: a container's
    leaf the if leaves as it was keeps its guard (or none), since a guard put on it would
    check every read, also the ones before the if (test_fuzz_b5a2d0b233)."""
    trace = current_trace()
    for then, other, result in zip(*branches, results, strict=True):
        # the branches' structures are the result's (`_check_branch_outputs`, `cond`)
        for leaves in zip(*(_raw_leaves(v) for v in (then, other, result)), strict=True):
            if_op = leaves[2].owner if leaves[2] is not None else None
            if not isinstance(if_op, IfOp):
                continue
            guards = [_guard_outside(leaf, if_op) if leaf else None for leaf in leaves[:2]]
            if all(guard is None for guard in guards) or any(g is False for g in guards):
                continue
            yes = primitives.constant(np.asarray(True))
            flags = [guard[0] if guard else yes for guard in guards]  # type: ignore[index]  # a guard here is a tuple
            message = next(guard[1] for guard in guards if guard)  # type: ignore[index]  # a guard here is a tuple
            trace.guard_reads(leaves[2], primitives.select(truth(pred), *flags).value, message)
            trace.pass_throughs.update(
                (leaf, use.operation)
                for leaf in leaves[:2]
                if leaf is not None
                for use in leaf.uses
                if isinstance(use.operation, YieldOp) and if_op.is_ancestor(use.operation)
            )


def _raw_leaves(value: object) -> list[SSAValue | None]:
    """The SSA values of `value`'s leaves, None for a leaf that is no tensor (`._value`:
    `.value` of a view would take it again from its parent, here)."""
    return [leaf._value if isinstance(leaf, Tensor) else None for leaf in flatten(value)[0]]


def _guard_outside(value: SSAValue, if_op: IfOp) -> tuple[Tensor, str] | None | bool:
    """The guard of a branch's value as (flag, message) when its flag is defined outside
    the if; None when the value is not guarded; False when its flag is inside the if."""
    guard = current_trace().guard_of(value)
    if guard is None:
        return None
    flag = guard[0]
    owner = flag.owner if isinstance(flag.owner, Operation) else flag.owner.parent_op()
    if owner is not None and if_op.is_ancestor(owner):
        return False
    return Tensor(flag), guard[1]


def _check_branch_outputs(out: tuple, earlier: list[tuple], names: list[str], where: str) -> None:
    for index, (name, value) in enumerate(zip(names, out, strict=True)):
        if is_undefined(value):
            raise ValueError(  # TensorFlow's type for a variable undefined on one path
                f"'{name}' is not defined on every path through the staged if at {where}; "
                "assign it in both branches (or before the if)"
            )
        if earlier and _is_container(value) and flatten(value)[1] != flatten(earlier[0][index])[1]:
            raise ValueError(
                f"'{name}' has a different structure in the two branches of the staged if at "
                f"{where} (a list appended to, or a dict given a key, in one branch only): "
                "give it the same items on every path"
            )
        if earlier and is_return_value(name):
            other = earlier[0][index]
            if (value is None) != (other is None):
                raise ValueError(  # TensorFlow's type, as for a variable undefined on one path
                    f"the staged if at {where} returns a value in one branch and nothing (None) "
                    "in the other; return a value of the same dtype and shape on every path"
                )


# --- containers changed in place (`d["k"] = t`, `xs.append(t)`) are branch/loop state ---------
def _is_container(value: object) -> bool:
    return isinstance(value, list | dict)


def _traced_if_shared(state: tuple, init: tuple, names: Sequence[str]) -> tuple[tuple, list[int]]:
    """`state` with each NumPy array that another local name shares (a view of it, or the
    same array) made a traced array, whose in-place writes a branch then shows
    (numpy_locals.refuse_shared); the positions of those."""
    values, shared = list(state), []
    for i, before in enumerate(init):
        if type(before) is np.ndarray and numpy_locals.sharing(before, names[i]):
            values[i] = builtins.traced_copy(before)
            shared.append(i)
    return tuple(values), shared


def fresh_containers(state: tuple) -> tuple:
    """`state` with its lists and dicts copied (nested ones too), and its NumPy arrays (the
    function's constants, which `c += 1` would change while the branch is traced, whichever
    branch runs), so that each staged branch changes its own copy and the traced values of
    one never leak into the other."""

    def fresh(value: object) -> object:
        if _is_container(value):
            leaves, treedef = flatten(value)
            return unflatten(treedef, [fresh(leaf) for leaf in leaves])
        return value.copy() if type(value) is np.ndarray else value

    return tuple(fresh(v) for v in state)


def write_back(init: Sequence[Any], final: Sequence[Any]) -> tuple:
    """The state after a staged if/loop, with the original list and dict objects updated in
    place from the staged results (other names may alias them, as in Python)."""
    state = list(final)
    for i, (before, after) in enumerate(zip(init, final, strict=True)):
        if type(before) is type(after) and _is_container(before) and before is not after:
            if isinstance(before, list):
                before[:] = after
            else:
                before.clear()
                before.update(after)
            state[i] = before
    return tuple(state)


def _display(name: str) -> str:
    return "the return value" if is_return_value(name) else name


def _spec_of(value: object) -> tuple | None:
    """(shape, dtype) of a tensor or number (to build a placeholder), else None."""
    if isinstance(value, PartiallyDefined):
        return value.spec
    if isinstance(value, Tensor):
        return value.shape, value.dtype
    if isinstance(value, bool | int | float | np.generic | np.ndarray):
        array = np.asarray(value)
        return array.shape, array.dtype
    return None


# --- while ------------------------------------------------------------------------------------
def while_stmt(
    test: Callable[[], object],
    body: Callable[[], None],
    get_state: GetState,
    set_state: SetState,
    names: tuple[str, ...],
    live_out: tuple[str, ...],
) -> None:
    """`while test(): body()`; from the first tensor-valued test on, the loop is staged.

    A test that is a Python value at first and a tensor after one trip (`err = 1.0` before
    `while err > tol:`, `err = np.max(...)` in the body) stages the loop from its start when
    that trip leaves every variable a kind the staged loop carries from its value before it
    (`_first_trip_stages`): the same loop, without a copy of the body before it, which
    would double the code to compile. Otherwise the trips with a Python test run as Python
    while tracing (unrolled), and the loop is staged from the first tensor test on."""
    value = test()
    if isinstance(value, Tensor) or not value:
        pass
    elif _first_trip_stages(test, body, get_state, set_state):
        value = None  # staged from the start
    while value is not None and not isinstance(value, Tensor):
        if not value:
            return
        body()
        value = test()
    loop = _Loop(get_state, set_state, names, live_out, (), sys._getframe(1))
    loop.stage(lambda: _as_bool(test()), lambda: body())


def _first_trip_stages(
    test: Callable[[], object], body: Callable[[], None], get_state: GetState, set_state: SetState
) -> bool:
    """Whether, after one trip of the body (traced, then thrown away), the test is a tensor
    and every variable of the loop is of a kind the loop staged from its start carries
    from its value before the loop (`_carried_alike`). The trip sees copies of the
    variables' lists and dicts, so that what it changes in them is not kept."""
    before = get_state()

    def one_trip() -> bool:
        set_state(tuple(_with_new_containers(value) for value in before))
        body()
        return isinstance(test(), Tensor) and all(
            _carried_alike(a, b) for a, b in zip(before, get_state(), strict=True)
        )

    try:
        return bool(traced_and_thrown_away(one_trip))
    except LoopStaged:  # an enclosing trial's answer (stopping_at_a_staged_loop)
        raise
    except Exception:  # noqa: BLE001  (the trip runs again as Python, and raises there)
        return False
    finally:
        set_state(before)


def _with_new_containers(value: object) -> object:
    """`value` with new lists and dicts, and copies of NumPy arrays (which a trip would
    write in place: `E = np.eye(2)`, then `E[0, 0] += 1.0`, is a write while tracing)."""
    leaves, treedef = flatten(value)
    return unflatten(treedef, [np.copy(a) if type(a) is np.ndarray else a for a in leaves])


def _carried_alike(before: object, after: object) -> bool:
    """A loop variable's value after one trip is one a staged loop carries from `before`:
    the same structure, each leaf the same object, a tensor of the same shape, dtype and
    kind (array or NumPy scalar), or, from a Python number, a Python number or a 0-d NumPy
    scalar of a dtype the number adopts (NEP 50: `err = 1`, then `err = np.max(d)`)."""
    if is_undefined(before) or before is after:
        return True
    leaves, treedef = flatten(before)
    new_leaves, new_treedef = flatten(after)
    return treedef == new_treedef and all(
        _leaf_carried_alike(a, b) for a, b in zip(leaves, new_leaves, strict=True)
    )


def _leaf_carried_alike(before: object, after: object) -> bool:
    if before is after:
        return True
    if isinstance(before, Tensor):
        return (
            isinstance(after, Tensor)
            and tuple(after.dims) == tuple(before.dims)
            and views.updates_in_place(after) == views.updates_in_place(before)
            and _adopts_dtype(weak_type(before), before.dtype, after)
        )
    if type(before) not in (int, float, bool):
        return False  # None, strings, NumPy values: the loop staged later carries them
    if type(after) in (int, float, bool):
        return type(after) is type(before) or (type(before), type(after)) == (int, float)
    if not isinstance(after, Tensor | np.generic) or np.ndim(after) != 0:
        return False
    if isinstance(after, Tensor) and views.updates_in_place(after):
        return False  # a 0-d array after the trip, a number before: `_kind_changes`
    if type(before) is bool:
        return after.dtype == np.bool_
    return _adopts_dtype(type(before), None, after)


def _adopts_dtype(kind: type | None, dtype: np.dtype | None, after: Any) -> bool:
    """`after`'s dtype is `dtype`, or one a weak value of Python type `kind` adopts."""
    if after.dtype == dtype:
        return True
    return kind is not None and np.result_type(kind(0), after.dtype) == after.dtype


# --- for --------------------------------------------------------------------------------------
def for_stmt(
    iterable: object,
    extra_test: Callable[[], object] | None,
    body: Callable[[object], None],
    get_state: GetState,
    set_state: SetState,
    names: tuple[str, ...],
    live_out: tuple[str, ...],
    targets: tuple[str, ...],
    reads: tuple[str, ...] = (),
    python_state: tuple[str, ...] = (),
) -> None:
    """`for x in iterable: body(x)` while `extra_test()` (break/return flags) holds.
    `python_state`: attributes and globals the body assigns (an index loop then unrolls:
    staged, `c.n += 1` would run once, while tracing)."""
    loop = _Loop(get_state, set_state, names, live_out, targets, sys._getframe(1))
    if isinstance(iterable, Range):
        _staged_range(loop, iterable, extra_test, body)
    elif isinstance(iterable, Tensor):
        _staged_rows(loop, iterable, extra_test, body)
    elif isinstance(iterable, Enumerated) and isinstance(iterable.values, Tensor):
        _staged_rows(loop, iterable.values, extra_test, body, iterable.start)
    elif isinstance(iterable, index_loops.Zipped) and index_loops.trip_count(iterable) is None:
        _staged_zip(loop, iterable, extra_test, body)
    elif python_state and index_loops.should_stage(iterable, loop, reads, sys._getframe(1)):
        index_loops.warn_unrolled(
            f"this loop is unrolled, not compiled as a loop: its body assigns "
            f"{', '.join(python_state)}, Python state a compiled loop would change only once, "
            "while tracing. Keep such values in local variables (a loop's variables are "
            "compiled), or use tj.range for a loop whose Python side effects may run once"
        )
        _python_for(loop, iterable, extra_test, body)
    elif index_loops.should_stage(iterable, loop, reads, sys._getframe(1)):
        index_loops.stage_or_unroll(
            iterable,
            lambda: _staged_index_loop(loop, iterable, extra_test, body),
            lambda: _python_for(loop, iterable, extra_test, body),
            loop,
            reads,
            lambda reason: _staged_with_relaxed_shapes(loop, iterable, extra_test, body, reason)
            or _staged_in_groups(loop, iterable, extra_test, body, reason),
        )
    elif (
        extra_test is None  # no break or return in it (their flags are state the trial sets)
        and index_loops.may_wrap_a_loop(iterable, body, reads)
        and _first_trip_stages_a_loop(loop, iterable, extra_test, body)
    ):
        _staged_around_a_loop(loop, iterable, extra_test, body)
    else:
        _python_for(loop, iterable, extra_test, body)


def _first_trip_stages_a_loop(loop: _Loop, iterable: Any, extra_test, body) -> bool:
    """Whether the first trip of a short index loop, traced and thrown away, stages a loop:
    unrolled, each copy of the body would hold that loop (`for _ in range(steps):` around
    a sweep of a grid: `steps` copies of the sweep to compile); staged, it is compiled once."""
    state = loop.get_state()
    block = Block()

    def first_trip() -> bool:
        with index_loops.unrolling(iterable), stopping_at_a_staged_loop():
            _python_for_items(loop, itertools.islice(iterable, 1), extra_test, body)
        return any(isinstance(op, WhileOp) for op in block.walk())

    try:
        with index_loops.holding_warnings():  # the loop is traced again, and warns then
            return traced_and_thrown_away(first_trip, block)
    except LoopStaged:  # it reached a loop it stages: no need to trace further
        return True
    except Exception:  # noqa: BLE001  (unrolled, the first trip raises it again, as it would)
        return False
    finally:
        loop.set_state(state)


def _staged_around_a_loop(loop: _Loop, iterable: Any, extra_test, body) -> None:
    """Stage a short loop around a staged one; when its body cannot be staged (it indexes
    a Python list with the counter, say), unroll it quietly, as short loops are, and forget
    what the attempt warned about (inner loops it unrolled)."""
    with index_loops.holding_warnings() as held:
        reason = index_loops.staged(
            lambda: _staged_index_loop(loop, iterable, extra_test, body), loop
        )
    if reason is not None:
        _python_for(loop, iterable, extra_test, body)
        return
    for message in held:
        index_loops.warn_unrolled(message)


def _staged_index_loop(loop: _Loop, iterable: object, extra_test, body) -> None:
    """A Python `range`, 1-d NumPy array or `enumerate` of one iterated by a staged loop
    (index_loops.py)."""
    if isinstance(iterable, range):
        _staged_range(loop, Range(iterable.start, iterable.stop, iterable.step), extra_test, body)
    elif isinstance(iterable, Enumerated):
        rows = primitives.constant(iterable.values)
        _staged_rows(loop, rows, extra_test, body, iterable.start)
    elif isinstance(iterable, index_loops.Zipped):
        _staged_zip(loop, iterable, extra_test, body)
    else:
        _staged_rows(loop, primitives.constant(iterable), extra_test, body)


def _staged_with_relaxed_shapes(loop: _Loop, iterable: Any, extra_test, body, reason) -> bool:
    """Whether an index loop that could not be staged because a variable changes shape in
    its body (`z = z[np.abs(z) < 2]`: shorter each trip) is staged with that variable's
    changed dims unknown at trace time, as `set_loop_options(shape_invariants=...)` would
    have them: one compiled loop instead of a copy of the body per trip (NPBench's
    mandelbrot: 50 copies, 75 s to compile)."""
    if SHAPE_CHANGE not in reason:
        return False
    staging = partial(_staged_index_loop, loop, iterable, extra_test, body)
    with relaxing_changed_shapes():
        return index_loops.staged(staging, loop) is None


def _staged_in_groups(loop: _Loop, iterable: Any, extra_test, body, reason: str) -> bool:
    """Whether a static range loop that could not be staged (`reason`) is staged two (or
    three) trips per staged trip. A trip that writes an array and swaps it with another
    (`new[i] = ...; old, new = new, old`: a Jacobi sweep) leaves each name on the other
    array, which one staged trip cannot carry; two trips leave both where they were (three
    for a rotation of three arrays). The trips left over are traced after the loop, as
    unrolled ones."""
    if REBOUND_AFTER_WRITE not in reason or extra_test is not None:
        return False
    if not isinstance(iterable, range):
        return False
    for period in (2, 3):
        groups = len(iterable) // period
        if groups < 2:
            return False

        def trips(k: Tensor, period: int = period) -> None:
            first = iterable.start + iterable.step * (period * k)
            for t in range(period):
                body(first + iterable.step * t)

        staging = partial(_staged_index_loop, loop, range(groups), None, trips)
        if index_loops.staged(staging, loop) is None:
            _python_for(loop, iterable[period * groups :], None, body)
            return True
    return False


def _python_for(loop: _Loop, iterable: Any, extra_test, body) -> None:
    """An unrolled loop. Once a break/return flag becomes a tensor (set in a staged `if`),
    each remaining iteration runs under a staged `if` on it."""
    with index_loops.unrolling(iterable):
        _python_for_items(loop, iterable, extra_test, body)


def _python_for_items(loop: _Loop, iterable: Any, extra_test, body) -> None:
    for item in iterable:
        go = True if extra_test is None else extra_test()
        if isinstance(go, Tensor):
            branch_names = (loop.names, ())
            with loop.watching("if"):
                _staged_if(
                    truth(go), lambda item=item: body(item), lambda: None,
                    loop.get_state, loop.set_state, loop.names, branch_names,
                )  # fmt: skip
            continue
        if not go:
            return
        body(item)


def _staged_range(loop: _Loop, rng: Range, extra_test, body) -> None:
    # Python's range reads its bounds once: a snapshot of each (an array the body writes,
    # `k = n; for i in range(k): n -= 1`, must not move the end of the loop)
    bounds = tuple(
        Tensor(b.value, b.dims, weak=b.weak) if isinstance(b, Tensor) else b
        for b in (rng.start, rng.limit, rng.delta)
    )
    dtype = np.result_type(*(b.dtype if isinstance(b, Tensor) else b for b in bounds))
    start, limit, delta = (_tensor(b, dtype) if isinstance(b, Tensor) else b for b in bounds)
    if isinstance(delta, Tensor):
        primitives.assert_true(
            truth(delta != 0), at_user_line("ValueError: range() arg 3 must not be zero")
        )
    elif delta == 0:
        raise ValueError(at_user_line("range() arg 3 must not be zero"))

    def in_range(index: Tensor) -> Tensor:
        if not isinstance(delta, Tensor):
            return index < limit if delta > 0 else index > limit
        return ((delta > 0) & (index < limit)) | ((delta < 0) & (index > limit))

    # a counter from Python int bounds (or weak tensors standing for Python ints: a loop
    # variable initialised from a literal) stands for a Python int: weakly typed (NEP 50)
    python = all(b.weak if isinstance(b, Tensor) else True for b in bounds)
    first = (
        Tensor(start.value, start.dims, weak=python)
        if isinstance(start, Tensor)
        else Tensor(primitives.constant(np.asarray(start, dtype)).value, weak=python)
    )
    loop.stage(
        lambda index: _with_extra(in_range(index), extra_test),
        lambda index: body(index),
        index=(first, lambda index: index + delta),
    )


def _staged_rows(loop: _Loop, tensor: Tensor, extra_test, body, enumerate_from=None) -> None:
    """`for row in tensor`: a staged loop over the first dimension (with `enumerate_from`,
    `for i, row in enumerate(tensor, start)`)."""
    if tensor.ndim == 0:
        raise TypeError(at_user_line("iteration over a 0-d tensor"))
    rows = runtime_sizes.dim_size(tensor, 0)  # a run-time int64 tensor for an unknown dim
    _stage_over_rows(
        loop,
        rows,
        extra_test,
        lambda index: body(
            tensor[index] if enumerate_from is None else (index + enumerate_from, tensor[index])
        ),
    )


def _stage_over_rows(loop: _Loop, rows: int | Tensor, extra_test, row_body) -> None:
    """Stage `for index in range(rows): row_body(index)` with a weak int64 counter."""
    first = Tensor(primitives.constant(np.asarray(0, np.int64)).value, weak=True)
    loop.stage(
        lambda index: _with_extra(index < rows, extra_test),
        row_body,
        index=(first, lambda index: index + 1),
    )


def _staged_zip(loop: _Loop, zipped: index_loops.Zipped, extra_test, body) -> None:
    """`for a, b in zip(x, y)`: a staged loop over the rows of all, as many as the shortest
    has (with `strict=True`, a run-time check that all have as many, Python's ValueError)."""
    tensors = [v if isinstance(v, Tensor) else primitives.constant(v) for v in zipped.values]
    if any(t.ndim == 0 for t in tensors):
        raise TypeError(at_user_line("iteration over a 0-d tensor"))
    sizes = [runtime_sizes.dim_size(t, 0) for t in tensors]
    rows = sizes[0]
    for size in sizes[1:]:
        if zipped.strict:
            _check_same_length(size, rows)
        both_known = isinstance(size, int) and isinstance(rows, int)
        rows = min(size, rows) if both_known else dispatched(np.minimum(rows, size))
    _stage_over_rows(loop, rows, extra_test, lambda index: body(tuple(t[index] for t in tensors)))


def _check_same_length(size: int | Tensor, rows: int | Tensor) -> None:
    message = "zip() arguments have different lengths"
    if isinstance(size, int) and isinstance(rows, int):
        if size != rows:
            raise ValueError(at_user_line(message))
        return
    same = dispatched(np.equal(size, rows))
    primitives.assert_true(truth(same), at_user_line(f"ValueError: {message}"))


def _with_extra(test: Tensor, extra_test) -> Tensor:
    """The loop condition and the break/return flags (flags are cheap: no laziness needed)."""
    if extra_test is None:
        return test
    extra = extra_test()
    if isinstance(extra, Tensor):
        return dispatched(np.logical_and(test, truth(extra)))
    return test if extra else primitives.constant(np.asarray(False))


def _tensor(value: Tensor, dtype: np.dtype) -> Tensor:
    return value if value.dtype == dtype else value.astype(dtype)


# --- staging a loop ---------------------------------------------------------------------------
class _Loop:
    """Stages a loop whose state is read/written through get_state/set_state.

    Carried: state variables that have a value before the loop. A variable without one
    (assigned first in the body) stays inside the body, unless it is read after the loop:
    then one trial trace of the body (thrown away) finds its dtype and shape and it is
    carried from a zeros placeholder, as TF does (the early-return value is the usual case).
    """

    def __init__(self, get_state, set_state, names, live_out, targets, frame=None):
        self.get_state, self.set_state = get_state, set_state
        self.names, self.live_out, self.targets = tuple(names), set(live_out), set(targets)
        self.frame: FrameType | None = frame  # the converted function's (numpy_locals.py)

    def stage(self, test, body, index: tuple[Tensor, Callable] | None = None) -> None:
        """Stage the loop (`_stage`), refusing what it would do to the NumPy arrays of the
        function's local names that a loop cannot (frontend/staging/numpy_locals.py)."""
        with self.watching("loop"):
            self._stage(test, body, index)

    def watching(self, construct: str) -> AbstractContextManager[None]:
        """numpy_locals.watching of the function running the loop (none when not known)."""
        if self.frame is None:
            return nullcontext()
        return numpy_locals.watching(self.frame, construct)

    def _stage(self, test, body, index: tuple[Tensor, Callable] | None = None) -> None:
        """Stage `while test(*i): body(*i)`; `index` = (first, next) adds a counter `i`.

        A variable first assigned in the body and read after the loop is carried from a
        placeholder, with a flag that says whether the body ever ran: a read of it after a
        loop that ran zero times raises at run time, as Python raises UnboundLocalError."""
        init = list(self.get_state())
        where = str(user_location())
        counter = () if index is None else (index[0],)
        carried = [i for i, value in enumerate(init) if not is_undefined(value)]
        inherited = _inherited_guards(init, carried)
        placeholders = self._placeholders(init, carried, body, counter)
        carried = sorted(carried + placeholders)
        guards = {**inherited, **self._new_guards(placeholders, where)}
        extra = len(counter) + len(guards)
        guarded_args: set[SSAValue] = set()

        def enter(values: tuple) -> tuple:
            state = list(init)
            for i, value in zip(carried, values[extra:], strict=True):
                state[i] = value
            for i, flag in zip(guards, values[len(counter) : extra], strict=True):
                guarded_args.update(_guard(state[i], flag, guards[i][1]))  # block arguments
            self.set_state(tuple(state))
            return values[: len(counter)]

        def cond_fn(*values: object) -> object:
            return test(*enter(values))

        def body_fn(*values: object) -> tuple:
            count = enter(values)
            body(*count)
            state = self.get_state()
            self._check_structure_kept(init, state, carried, where)
            step = (index[1](*count),) if index is not None else ()
            assigned = [_assigned(state[i], guarded_args) for i in guards]
            return (*step, *assigned, *(state[i] for i in carried))

        loop_vars = (*counter, *(flag for flag, _ in guards.values()), *(init[i] for i in carried))
        labels = ["the loop counter"][: len(counter)]
        labels += [f"whether '{_display(self.names[i])}' was assigned" for i in guards]
        labels += [_display(self.names[i]) for i in carried]
        results = while_loop(cond_fn, body_fn, loop_vars, names=labels)
        _pass_through([init[i] for i in guards], guarded_args)
        final: list[object] = [LoopLocal(n, where) for n in self.names]
        for i, value in zip(carried, results[extra:], strict=True):
            final[i] = value
        for i, flag in zip(guards, results[len(counter) : extra], strict=True):
            _guard(final[i], flag, guards[i][1])
        self.set_state(write_back(init, final))

    def _check_structure_kept(self, init: list, state: tuple, carried: list[int], where: str):
        for i in carried:
            if _is_container(init[i]) and flatten(state[i])[1] != flatten(init[i])[1]:
                raise TypeError(  # TensorFlow's type for a loop variable's structure change
                    f"'{self.names[i]}' changes its structure inside the staged loop at {where} "
                    "(a list appended to or a dict given new keys in each iteration): a staged "
                    "loop's variables keep their structure. Accumulate into a tj.TensorArray "
                    "(`ta = ta.write(i, v)`, then `ta.stack()`) or fill a preallocated array"
                )

    def _new_guards(self, placeholders: list[int], where: str) -> dict[int, tuple[Tensor, str]]:
        """Flags saying whether the body assigned each placeholder variable (False before the
        loop): a read of one after a loop that never assigned it raises at run time, as
        Python raises UnboundLocalError. The return value needs none: the return lowering
        reads it only after a `return` assigned it."""
        guarded = [i for i in placeholders if not is_return_value(self.names[i])]
        if not guarded:
            return {}
        unassigned = primitives.constant(np.asarray(False))
        return {i: (unassigned, _unbound(self.names[i], where)) for i in guarded}

    def _placeholders(self, init: list, carried: list[int], body, counter: tuple) -> list[int]:
        """Give undefined-before variables read after the loop a zeros initial value."""
        wanted = [
            i for i, name in enumerate(self.names) if i not in carried and name in self.live_out
        ]
        if not wanted:
            return []
        state = self._trial_body(init, carried, body, counter)
        found = []
        for i in wanted:
            placeholder = _zeros_like(state[i])
            if placeholder is not None:
                init[i] = placeholder
                found.append(i)
        return found

    def _trial_body(self, init: list, carried: list[int], body, counter: tuple) -> tuple:
        """Trace the body once into a throwaway block and return the state it leaves, whose
        tensors only give their specs (`traced_and_thrown_away`)."""
        leaves, treedef = flatten((*counter, *(init[i] for i in carried)))
        block = Block(arg_types=[_type_of(leaf) for leaf in leaves])

        def one_trip() -> tuple:
            # as tj.while_loop: weak literals, and the dims the loop starts from (a type's
            # `?` alone would make every unknown dim one tracejit cannot follow)
            args = [
                Tensor(a, dims=_dims_or_none(leaf), weak=bool(weak_type(leaf)))
                for a, leaf in zip(block.args, leaves, strict=True)
            ]
            values = unflatten(treedef, args)
            state = list(init)
            for i, value in zip(carried, values[len(counter) :], strict=True):
                state[i] = value
            self.set_state(tuple(state))
            body(*values[: len(counter)])
            return self.get_state()

        try:
            return traced_and_thrown_away(one_trip, block)
        finally:
            self.set_state(tuple(init))


def _inherited_guards(init: list, carried: list[int]) -> dict[int, tuple[Tensor, str]]:
    """The carried variables that an earlier staged loop may have left unassigned (their
    value is guarded, see `_Loop.stage`): this loop carries their flags along."""
    guards = {}
    for i in carried:
        leaves = [leaf for leaf in flatten(init[i])[0] if isinstance(leaf, Tensor)]
        guard = current_trace().guard_of(leaves[0]._value) if leaves else None
        if guard is not None:
            guards[i] = (Tensor(guard[0]), guard[1])
    return guards


def _guard(value: object, flag: Tensor, message: str) -> list[SSAValue]:
    """Make every read of `value`'s tensors check `flag` at run time; return them."""
    values = [leaf._value for leaf in flatten(value)[0] if isinstance(leaf, Tensor)]
    for guarded in values:
        current_trace().guard_reads(guarded, flag.value, message)
    return values


def _assigned(value: object, carried: set[SSAValue]) -> Tensor:
    """Whether a variable was assigned by the end of a loop body: its flag if it still
    holds a guarded value (unchanged, or from an inner staged loop), else True. The loop
    carries that flag, so the body yielding the value is no read (added to `carried`)."""
    leaves = [leaf for leaf in flatten(value)[0] if isinstance(leaf, Tensor)]
    guard = current_trace().guard_of(leaves[0]._value) if leaves else None
    if guard is None:
        return primitives.constant(np.asarray(True))
    carried.update(leaf._value for leaf in leaves)
    return Tensor(guard[0])


def _pass_through(inits: list[object], guarded_args: set[SSAValue]) -> None:
    """Handing a guarded value to a staged loop, or yielding a guarded value the loop
    carries (a block argument unchanged, also from a branch of an `if` in the body, or an
    inner loop's result), is no read: the loop carries the flags along (reads after the
    loop check the loop's own)."""
    trace = current_trace()
    for value in inits:
        for leaf in flatten(value)[0]:
            if isinstance(leaf, Tensor):
                uses = leaf._value.uses
                trace.pass_throughs.update((leaf._value, use.operation) for use in uses)
    for arg in guarded_args:
        for use in arg.uses:
            if isinstance(use.operation, YieldOp):
                trace.pass_throughs.add((arg, use.operation))


def _has_spec(value: object) -> bool:
    return all(_spec_of(leaf) is not None for leaf in flatten(value)[0])


def _zeros_like(value: object) -> object:
    """A value of `value`'s structure, dtypes and shapes, all zeros (None if it has leaves
    that are not tensors or numbers)."""
    leaves, treedef = flatten(value)
    if not _has_spec(value):
        return None
    return unflatten(treedef, [_zeros_of(leaf) for leaf in leaves])


def _zeros_of(leaf: Any) -> Any:
    kind = weak_type(leaf)  # a Python int/float or a weak tensor: the literal 0 (or 0.0),
    if kind:  # weak too, takes the dtype the loop body gives it (frontend/staging/control_flow.py)
        return kind(0)
    shape, dtype = _spec_of(leaf)  # type: ignore[misc]  # a tensor or number leaf has a spec
    if None not in shape:
        return primitives.constant(np.zeros(shape, dtype))
    try:  # dims known only at run time: broadcast a zero to them
        return primitives.broadcast_to(primitives.constant(np.zeros((), dtype)), leaf.dims)
    except Exception as error:
        raise NotImplementedError(
            at_user_line(
                f"a variable first assigned inside a staged loop or branch has a dim unknown "
                f"at trace time ({error}); assign it before the loop or if"
            )
        ) from None


def _unbound(name: str, where: str) -> str:
    what = "the function's return value" if is_return_value(name) else f"'{name}'"
    return (
        f"InvalidArgumentError: {what} is read after the staged loop at {where}, but the loop "
        "ran zero times, so it was never assigned (Python raises UnboundLocalError here); "
        "assign it before the loop"
    )


def _dims_or_none(leaf: object) -> tuple | None:
    return leaf.dims if isinstance(leaf, Tensor) else None


def _type_of(leaf: object):
    if isinstance(leaf, Tensor):
        return leaf.value.type
    array = np.asarray(leaf)
    return tensor_type(array.shape, array.dtype)
