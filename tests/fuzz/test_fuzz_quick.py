"""The quick fuzzing profile `make test` runs: random NumPy programs, compiled vs eager.

Each example is one traced function of 4-14 random statements returning every value
(one compile checks many expressions), run eagerly, compiled with the default pipeline
and compiled with a random list of the optional tensor passes before the lowering passes
(IR verified after every pass). Derandomized, so CI sees the same programs every run;
`make fuzz N=...` (run_fuzz.py) explores with fresh seeds. A failure is shrunk by
hypothesis and written to `regressions/` as a test to commit.
"""

from __future__ import annotations

from fuzz_oracle import OPTIONAL_PASSES, Mismatch, check
from fuzz_programs import programs
from fuzz_regressions import Recorder
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

QUICK_EXAMPLES = 40
RECORDER = Recorder()


@settings(
    max_examples=QUICK_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(
    program=programs(),
    optional=st.lists(st.sampled_from(OPTIONAL_PASSES), max_size=4),
)
def _fuzz(program, optional):
    findings = check(program, [optional])
    if findings:
        message = "\n".join(map(str, findings))
        RECORDER.failed(program, [optional], message)
        raise Mismatch(message + "\n\n" + program.source())


def test_fuzz_quick():
    try:
        _fuzz()
    except Mismatch as error:
        path = RECORDER.save()
        raise AssertionError(f"shrunk failing program saved as {path}") from error
