"""The gradient oracle: differentiate a generated program and compare with finite differences.

The scalar differentiated is `L = sum_k sum(W_k * out_k)` over the program's finite float64
outputs (fixed pseudo-random weights `W_k`), with respect to its float64 inputs, through
`tj.grad` (compiled). The reference is central differences of the eager program at up to
`ELEMENTS` elements per input, in float64. An element is compared only where `L` is smooth
there: the central differences at two step sizes agree, and so do the one-sided ones (a
kink, a jump or a tie of `maximum` inside the step is skipped, not a finding). Where the
gradient is compared, it must agree within `RTOL`/`ATOL` (relative to the size of `L`).

Programs that read `tj.Variable`s are also differentiated the way Keras code is: the
compiled `tj.function` of `L` called under a `tj.GradientTape` opened outside it, and
`tape.gradient(L, variables)` for the Variables it captures (`captured_variables_check`),
against central differences of `L` in each float64 Variable's initial value; an integer or
bool Variable must get None, and the tape around the same call with
`tj.config.run_functions_eagerly(True)` must give the same gradients.

A program tracejit refuses to differentiate (`NotDifferentiableError`: an op without a
gradient on the way, a shape only the kernel knows in a loop) is counted, not a finding;
any other error of the gradient function on a program that compiles is one.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from typing import Any

import numpy as np

import tracejit as tj
from tracejit.frontend.autodiff import NotDifferentiableError

ELEMENTS = 4  # per input, chosen at random
STEPS = (1e-6, 1e-4)
RTOL, ATOL = 1e-4, 1e-6


def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(contextlib.redirect_stdout(io.StringIO()))
    stack.enter_context(np.errstate(all="ignore"))
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    return stack


def _reset(program, namespace: dict) -> None:
    for name, initial in program.variables.items():
        namespace[name]._buffer[...] = initial


def gradient_check(program) -> tuple[str, str | None]:
    """("skipped" | "refused" | "compared", a finding or None): the gradient with respect
    to the inputs (`tj.value_and_grad`), then to the captured Variables (an outer tape)."""
    kind, finding = _input_gradient_check(program)
    if finding is not None:
        return kind, finding
    captured_kind, captured = captured_variables_check(program)
    if captured is not None:
        return captured_kind, captured
    return kind if captured_kind == "skipped" else captured_kind, None


def _input_gradient_check(program) -> tuple[str, str | None]:
    positions = [i for i, a in enumerate(program.inputs) if a.dtype == np.float64 and a.size]
    if not positions:
        return "skipped", None
    namespace = program.build()
    python = namespace["program"]
    rng = np.random.default_rng(len(program.source()))
    weights: dict[str, np.ndarray] = {}

    def outputs(*args: Any) -> dict:
        _reset(program, namespace)
        with _quiet():
            return python(*[np.array(a) for a in args])

    try:
        eager = outputs(*program.inputs)
    except Exception:
        return "skipped", None  # the reference raises (the oracle's business)
    for name, value in eager.items():
        array = np.asarray(value)
        if array.dtype == np.float64 and np.isfinite(array).all() and array.size:
            weights[name] = rng.uniform(-1, 1, array.shape)
    if not weights:
        return "skipped", None

    def loss(*args: Any) -> Any:
        out = python(*args)
        return sum(np.sum(out[name] * w) for name, w in weights.items())

    def eager_loss(args: list[np.ndarray]) -> float:
        """L eagerly; NaN where the program fails there (a moved input can change a trip
        count so that a loop variable stays unassigned): the element is skipped."""
        _reset(program, namespace)
        with _quiet():
            try:
                return float(loss(*[np.array(a) for a in args]))
            except Exception:  # noqa: BLE001
                return float("nan")

    try:
        _reset(program, namespace)
        with _quiet():
            value, grads = tj.value_and_grad(loss, argnums=tuple(positions))(
                *[a.copy() for a in program.inputs]
            )
    except NotDifferentiableError:
        return "refused", None
    except Exception as error:  # noqa: BLE001  (every other failure is a finding...)
        if _plain_compile_fails(program, namespace, loss):
            return "skipped", None  # ...unless tracejit refuses the loss itself
        return "compared", f"the gradient function raised {type(error).__name__}: {error}"
    base = eager_loss(list(program.inputs))
    if not np.isfinite(base) or not abs(float(value) - base) <= 1e-6 * max(1.0, abs(base)):
        return "skipped", None  # a forward difference is the main oracle's to report
    # A backward pass multiplies cotangents (0 where a value does not matter) by forward
    # values: with an inf among those, 0 * inf is NaN, in JAX and TensorFlow too.
    infinite = any(
        not np.isfinite(np.asarray(v, np.float64)).all()
        for v in [*program.inputs, *eager.values()]
        if np.asarray(v).dtype.kind in "fc"
    ) or _makes_non_finite(program, namespace, list(program.inputs))
    for position, grad in zip(positions, grads, strict=True):
        finding = _compare_input(program.inputs, position, np.asarray(grad), eager_loss, base,
                                 rng, infinite)
        if finding:
            return "compared", finding
    return "compared", None


def _makes_non_finite(program, namespace: dict, inputs: list[np.ndarray]) -> bool:
    """Whether the eager program makes an inf or NaN anywhere, by NumPy's floating-point
    error flags: one its outputs need not show (`a0[:1] /= -0.0`, then `a0.fill(0)`), which
    the backward pass still multiplies by a zero cotangent (0 * inf is NaN, in JAX too)."""
    flagged: list[str] = []
    _reset(program, namespace)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(call=lambda kind, _flag: flagged.append(kind), all="call",
                         under="ignore"), contextlib.suppress(Exception):  # the oracle's
            namespace["program"](*[np.array(a) for a in inputs])  # business
    _reset(program, namespace)
    return bool(flagged)


def _plain_compile_fails(program, namespace: dict, loss) -> bool:
    """Whether tracejit refuses the loss itself (not its gradient): a contract refusal,
    or weights of static shape meeting a run-time-sized output."""
    _reset(program, namespace)
    try:
        with _quiet():
            tj.function(loss)(*[a.copy() for a in program.inputs])
    except Exception:  # noqa: BLE001
        return True
    return False


def _compare_input(inputs, position, grad, eager_loss, base, rng, infinite,
                   label=None) -> str | None:
    x = inputs[position]
    name = label or f"a{position}"
    if grad.shape != x.shape or grad.dtype != np.float64:
        return f"gradient of {name} has shape {grad.shape} {grad.dtype}, not {x.shape}"
    flat = rng.permutation(x.size)[:ELEMENTS]
    for index in (np.unravel_index(k, x.shape) for k in flat):
        if not np.isfinite(x[index]):
            continue
        estimate = _smooth_derivative(inputs, position, index, eager_loss)
        if estimate is None or (infinite and not np.isfinite(grad[index])):
            continue
        tolerance = ATOL * max(1.0, abs(base)) + RTOL * abs(estimate)
        if not abs(grad[index] - estimate) <= tolerance:
            return (
                f"d L / d {name}{list(index)}: compiled {grad[index]!r}, finite "
                f"differences {estimate!r}"
            )
    return None


def _smooth_derivative(inputs, position, index, eager_loss) -> float | None:
    """Central differences at `index`, or None where L is not smooth there."""
    estimates = []
    for step in STEPS:
        h = step * max(1.0, abs(float(inputs[position][index])))
        values = []
        for delta in (h, -h):
            moved = [a.copy() for a in inputs]
            moved[position][index] += delta
            values.append(eager_loss(moved))
        center = eager_loss([a.copy() for a in inputs])
        forward, backward = (values[0] - center) / h, (center - values[1]) / h
        central = (values[0] - values[1]) / (2 * h)
        if not np.isfinite([forward, backward, central]).all():
            return None
        scale = 1e-3 * max(1.0, abs(central))
        if abs(forward - backward) > scale + 1e3 * h:  # a kink or a jump within the step
            return None
        estimates.append(central)
    if abs(estimates[0] - estimates[1]) > 1e-3 * max(1.0, abs(estimates[0])):
        return None
    return estimates[0]


# --- captured Variables under an outer tape ----------------------------------------------------
def captured_variables_check(program) -> tuple[str, str | None]:
    """`L`'s compiled tj.function, called under a GradientTape opened outside it: the
    gradients of the Variables it captures against central differences of `L` in their
    initial values (a Variable the call writes is differentiated at the value it began with,
    through the writes, as a tape inside the function does). Besides the program's own
    Variables, its float64 inputs of rank >= 1 are lifted into Variables the function reads
    (`A0 = tj.Variable(a0)`, the program called with `A0.read_value()`): generated programs
    seldom create float Variables, and a lifted input must get the gradient it gets as an
    argument."""
    namespace = program.build()
    python = namespace["program"]
    inputs = [a.copy() for a in program.inputs]
    lifted = {f"A{i}": i for i, a in enumerate(inputs) if a.dtype == np.float64 and a.ndim
              and a.size}
    initial = {name: value.copy() for name, value in program.variables.items()}
    initial.update({name: inputs[i].copy() for name, i in lifted.items()})
    variables = {name: namespace[name] for name in program.variables}
    variables.update({name: tj.Variable(initial[name]) for name in lifted})
    floats = [n for n, v in initial.items() if v.dtype == np.float64 and v.size]
    if not floats:
        return "skipped", None
    rng = np.random.default_rng(len(program.source()) + 1)

    def reset(values: dict) -> None:
        for name, value in {**initial, **values}.items():
            variables[name]._buffer[...] = value

    def run(*args: Any) -> dict:
        given = iter(args)
        return python(*[
            variables[f"A{i}"].read_value() if f"A{i}" in lifted else next(given)
            for i in range(len(inputs))
        ])

    arguments = [a for i, a in enumerate(inputs) if f"A{i}" not in lifted]

    def outputs(values: dict) -> dict:
        reset(values)
        with _quiet():
            return run(*[np.array(a) for a in arguments])

    try:
        eager = outputs({})
    except Exception:  # noqa: BLE001
        return "skipped", None
    weights = {
        name: rng.uniform(-1, 1, np.shape(value))
        for name, value in eager.items()
        if np.asarray(value).dtype == np.float64 and np.asarray(value).size
        and np.isfinite(value).all()
    }
    if not weights:
        return "skipped", None

    def loss(*args: Any) -> Any:
        out = run(*args)
        return sum(np.sum(out[name] * w) for name, w in weights.items())

    compiled = tj.function(loss)
    names = list(initial)  # every dtype: an integer Variable must get None

    def taped(eagerly: bool) -> tuple[Any, list[Any]]:
        reset({})
        tj.config.run_functions_eagerly(eagerly)
        try:
            with _quiet(), tj.GradientTape() as tape:
                value = compiled(*[a.copy() for a in arguments])
            with _quiet():
                return value, tape.gradient(value, [variables[n] for n in names])
        finally:
            tj.config.run_functions_eagerly(False)

    try:
        value, grads = taped(False)
    except NotDifferentiableError:
        return "refused", None
    except Exception as error:  # noqa: BLE001
        reset({})
        try:
            with _quiet():
                tj.function(loss)(*[a.copy() for a in arguments])
        except Exception:  # noqa: BLE001  (tracejit refuses the loss itself)
            return "skipped", None
        return "compared", (
            f"tape.gradient of captured Variables raised {type(error).__name__}: {error}"
        )
    for name, grad in zip(names, grads, strict=True):
        if initial[name].dtype.kind != "f" and grad is not None:
            return "compared", f"the {initial[name].dtype} Variable {name} got a gradient"
    try:
        eager_value, eager_grads = taped(True)
    except Exception:  # noqa: BLE001  (the eager program may fail where the compiled one does not)
        eager_value, eager_grads = None, None
    if eager_grads is not None and np.isfinite(value) and np.isclose(eager_value, value):
        for name, g, e in zip(names, grads, eager_grads, strict=True):
            same = (g is None and e is None) or (
                g is not None and e is not None
                and np.allclose(g, e, rtol=1e-9, atol=1e-12, equal_nan=True)
            )
            if not same:
                return "compared", (
                    f"d L / d {name} under an outer tape: compiled call {g!r}, the call run "
                    f"with run_functions_eagerly(True) {e!r}"
                )

    def eager_loss(values: list[np.ndarray]) -> float:
        reset(dict(zip(floats, values, strict=True)))
        with _quiet():
            try:
                return float(loss(*[np.array(a) for a in arguments]))
            except Exception:  # noqa: BLE001
                return float("nan")

    starts = [initial[n].copy() for n in floats]
    base = eager_loss(starts)
    reset({})
    if not np.isfinite(base) or not abs(float(value) - base) <= 1e-6 * max(1.0, abs(base)):
        return "skipped", None
    infinite = any(
        not np.isfinite(np.asarray(v, np.float64)).all()
        for v in [*inputs, *starts, *eager.values()]
        if np.asarray(v).dtype.kind in "fc"
    ) or _makes_non_finite(program, namespace, inputs)
    by_name = dict(zip(names, grads, strict=True))
    for position, name in enumerate(floats):
        grad = by_name[name]
        grad = np.zeros_like(starts[position]) if grad is None else np.asarray(grad)
        label = f"{name} (a Variable captured, outer tape)"
        if name in lifted:
            label = f"{name} (input a{lifted[name]} lifted into a captured Variable, outer tape)"
        finding = _compare_input(starts, position, grad, eager_loss, base, rng, infinite,
                                 label=label)
        if finding:
            reset({})
            return "compared", finding
    reset({})
    return "compared", None
