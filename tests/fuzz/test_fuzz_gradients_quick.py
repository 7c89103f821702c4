"""The quick gradient fuzzing profile `make test` runs: random programs whose first input
is float64, differentiated by tj.value_and_grad and checked against central finite
differences of the eager program (fuzz_gradients.py), after the forward oracle agreed.
Derandomized; `make fuzz GRAD=1` (run_fuzz.py --grad) explores with fresh seeds."""

from __future__ import annotations

import numpy as np
from fuzz_oracle import Mismatch, check, known_bug
from fuzz_programs import programs
from fuzz_regressions import Recorder
from hypothesis import HealthCheck, given, settings

QUICK_EXAMPLES = 5  # ~1-3 s each; `make fuzz GRAD=1` explores further
RECORDER = Recorder(gradients=True)


@settings(
    max_examples=QUICK_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(program=programs(max_statements=8, first_input=np.float64))
def _fuzz_gradients(program):
    findings = check(program, [], gradients=True)
    if findings and all(known_bug(f) for f in findings):
        return
    if findings:
        message = "\n".join(map(str, findings))
        RECORDER.failed(program, [], message)
        raise Mismatch(message + "\n\n" + program.source())


def test_fuzz_gradients_quick():
    try:
        _fuzz_gradients()
    finally:
        RECORDER.save()


def test_the_gradient_oracle_finds_a_wrong_gradient(monkeypatch):
    """A deliberately wrong adjoint (sin's derivative made sin) must be reported."""
    import fuzz_gradients
    from fuzz_programs import Program

    from tracejit.frontend.autodiff import adjoints
    from tracejit.frontend.autodiff.adjoints import _unary
    from tracejit.frontend.staging.primitives import unary
    from tracejit.ir.elementwise_unary import SinOp

    program = Program(inputs=[np.array([0.3, 1.2])], body=["v1 = np.sin(a0)"],
                      outputs={"v1": None})
    assert fuzz_gradients.gradient_check(program) == ("compared", None)
    monkeypatch.setitem(adjoints.ADJOINTS, SinOp, _unary(lambda x, r: unary(SinOp, x)))
    kind, finding = fuzz_gradients.gradient_check(program)
    assert kind == "compared" and "finite differences" in finding


def test_the_captured_variables_check_finds_a_wrong_gradient(monkeypatch):
    """The same wrong adjoint, reached through a Variable the tj.function captures and an
    outer GradientTape (Keras's pattern); an integer Variable must get None."""
    import fuzz_gradients
    from fuzz_programs import Program

    from tracejit.frontend.autodiff import adjoints, eager
    from tracejit.frontend.autodiff.adjoints import _unary
    from tracejit.frontend.staging.primitives import unary
    from tracejit.ir.elementwise_unary import SinOp

    program = Program(
        inputs=[np.array([0.3, 1.2])],
        variables={"V0": np.array([0.5, -0.2]), "V1": np.array([2, 3])},
        body=["v1 = np.sin(a0 * V0) * V1", "V0.assign(v1)", "v2 = V0 * V0"],
        outputs={"v1": None, "v2": None},
    )
    assert fuzz_gradients.captured_variables_check(program) == ("compared", None)
    monkeypatch.setitem(adjoints.ADJOINTS, SinOp, _unary(lambda x, r: unary(SinOp, x)))
    monkeypatch.setattr(eager, "_vjps", type(eager._vjps)())  # products traced anew
    kind, finding = fuzz_gradients.captured_variables_check(program)
    assert kind == "compared" and "captured" in finding and "outer tape" in finding
