"""Ctrl-C stops a long staged loop (codegen/interrupts.py): tested with real SIGINTs sent to
a child process, as a terminal sends them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tracejit as tj

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the SIGINT handler is Linux's sigaction"
)

CHILD_PRELUDE = """
import os, signal, sys, time
import numpy as np
import tracejit as tj
tj.config.set_tiered_compilation(False)

@tj.function
def spin(n):
    s = np.int64(0)
    i = np.int64(0)
    while i < n:
        s += i % 7
        i += 1
    return s

assert spin(np.int64(100)) == sum(i % 7 for i in range(100))
"""


def run_child(directory, body: str, sigint_after: float | None = None, timeout: float = 60) -> str:
    """Run the prelude and `body` in a new interpreter (from a file: AutoGraph reads the
    source); with `sigint_after`, send it a SIGINT that many seconds after it prints
    "ready". Returns its stdout."""
    script = directory / "child.py"
    script.write_text(CHILD_PRELUDE + textwrap.dedent(body))
    child = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TRACEJIT_TIERED": "0"},
        preexec_fn=_as_from_a_terminal,
    )
    lines = []
    if sigint_after is not None:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line == "ready\n", (line, child.stderr.read() if child.stderr else "")
        time.sleep(sigint_after)
        child.send_signal(signal.SIGINT)
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        signals = _signal_state(child.pid)
        child.kill()
        pytest.fail(f"the child did not stop: Ctrl-C was ignored by the compiled loop ({signals})")
    lines.append(out)
    assert child.returncode == 0, err
    return "".join(lines)


def _as_from_a_terminal() -> None:
    """In the child before exec: SIGINT delivered and at its default disposition, as a shell
    starts a program (a pytest worker's mask or ignored signals are inherited otherwise)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _signal_state(pid: int) -> str:
    """The child's blocked and ignored signal masks (/proc), for a failure message."""
    try:
        with open(f"/proc/{pid}/status") as status:
            return "; ".join(
                line.strip() for line in status if line.startswith(("SigBlk", "SigIgn"))
            )
    except OSError:
        return "no /proc status"


def test_ctrl_c_stops_a_loop_of_ten_trillion_trips_and_the_process_goes_on(tmp_path):
    out = run_child(
        tmp_path,
        """
        print("ready", flush=True)
        start = time.perf_counter()
        try:
            spin(np.int64(10**13))
            print("finished")
        except KeyboardInterrupt:
            print(f"interrupted after {time.perf_counter() - start:.3f}")
        print("then", spin(np.int64(1000)))
        time.sleep(0.3)  # no second KeyboardInterrupt is pending
        print("calm")
        """,
        sigint_after=0.5,
    )
    lines = out.splitlines()
    assert lines[0].startswith("interrupted after "), out
    assert float(lines[0].split()[-1]) < 0.5 + 2.0  # stops within a trip (loaded machines)
    assert lines[1] == f"then {sum(i % 7 for i in range(1000))}"
    assert lines[2] == "calm"


def test_a_ctrl_c_handled_in_python_does_not_stop_the_next_loop(tmp_path):
    out = run_child(
        tmp_path,
        """
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            print("python got it")
        print(spin(np.int64(10**6)) == sum(i % 7 for i in range(10**6)))
        """,
    )
    assert out.splitlines() == ["python got it", "True"]


def test_a_variable_keeps_the_value_of_its_last_whole_trip(tmp_path):
    out = run_child(
        tmp_path,
        """
        v = tj.Variable(np.zeros(4))

        @tj.function
        def accumulate(n):
            i = np.int64(0)
            while i < n:
                v.assign_add(np.ones(4))
                i += 1
            return i

        accumulate(np.int64(3))
        print("ready", flush=True)
        try:
            accumulate(np.int64(10**13))
        except KeyboardInterrupt:
            values = v.numpy()
            print(values[0] > 3, len(set(values.tolist())) == 1)
        """,
        sigint_after=0.5,
    )
    assert out.splitlines() == ["True True"]


def test_an_ignored_sigint_stays_ignored(tmp_path):
    out = run_child(
        tmp_path,
        """
        signal.signal(signal.SIGINT, signal.SIG_IGN)

        @tj.function
        def count(n):
            i = np.int64(0)
            while i < n:
                i += 1
            return i

        print("ready", flush=True)
        print(count(np.int64(3 * 10**9)))
        """,
        sigint_after=0.2,
    )
    assert out.splitlines() == [str(3 * 10**9)]


def test_staged_loops_read_the_flag_on_every_trip():
    @tj.function
    def countdown(n):
        while n > 0:
            n -= 1
        return n

    llvm = countdown.get_concrete_function(np.int64(5)).llvm_ir
    assert "@tracejit_interrupt_flag_ptr" in llvm
    assert "load atomic i32, ptr" in llvm and "monotonic" in llvm
    assert countdown(np.int64(5)) == 0
