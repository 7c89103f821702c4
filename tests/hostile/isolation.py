"""Running test cases in child interpreters, so a segfault is a reported failure.

`run_isolated(module_path, names)` runs the named case functions of a module in a child
process (`python module_path name ...`), which prints `START name` / `PASS name` /
`FAIL name: why` lines. When the child dies (a signal, an abort, a timeout), the case that
had started and not finished is reported as a crash with the child's stderr (faulthandler
on), and a new child runs the remaining cases: one interpreter start-up is shared by many
cases, but every case is isolated from every other case's crash.
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from collections.abc import Callable


def run_isolated(module_path: str, names: list[str], timeout: float = 300) -> dict[str, str]:
    """{case name: "PASS" or the reason it failed or crashed}."""
    results: dict[str, str] = {}
    pending = list(names)
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    while pending:
        command = [sys.executable, module_path, *pending]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
            stdout, stderr, code = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as expired:
            stdout = _text(expired.stdout)
            stderr, code = _text(expired.stderr) + "\n(timed out)", "timeout"
        started = _collect(stdout, results)
        if started is None or started in results:  # the child finished every case it began
            for name in pending:
                results.setdefault(name, f"never ran (exit {code}): {stderr[-3000:]}")
            break
        results[started] = f"CRASHED the interpreter (exit {code}):\n{stderr[-3000:]}"
        pending = [n for n in pending if n not in results]
    return results


def _text(data: bytes | str | None) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")


def _collect(stdout: str, results: dict[str, str]) -> str | None:
    """Record PASS/FAIL lines; return the name of the last case that started."""
    started = None
    for line in stdout.splitlines():
        if line.startswith("START "):
            started = line[6:]
        elif line.startswith("PASS "):
            results[line[5:]] = "PASS"
        elif line.startswith("FAIL "):
            name, _, why = line[5:].partition(": ")
            results[name] = why.replace("\\n", "\n")
    return started


def child_main(cases: dict[str, Callable[[], None]]) -> None:
    """The child side: run the cases named on the command line, reporting each."""
    for name in sys.argv[1:]:
        print(f"START {name}", flush=True)
        try:
            cases[name]()
        except BaseException as error:  # a failed case, reported to the parent
            why = "".join(traceback.format_exception(error))[-3000:]
            print(f"FAIL {name}: {why}".replace("\n", "\\n"), flush=True)
        else:
            print(f"PASS {name}", flush=True)
