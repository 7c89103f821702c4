"""The long fuzzing profile: `make fuzz N=10000` (or `python tests/fuzz/run_fuzz.py 10000`).

Runs N random programs in batches, each batch in its own interpreter (so a segfault or
an abort is counted as a crash, not the end of the run), one per core at a time
(`--jobs`), and prints

    programs tried / mismatches / crashes

and the same per statement kind (a program counts for every kind it has a statement of;
a mismatch or crash for the kinds of the program that first failed, before shrinking), then
per tag of the whole-program generators: fuzz_nesting's nesting shapes (`shape:`),
fuzz_slices' loops slicing with their counter (`slice:` family, header, slice form, size) and
fuzz_layers' Python loops over lists of layers (`layer:` loop form, body op, separator, ...).
A batch stops at its first mismatch: hypothesis shrinks it and the worker writes it to
`regressions/` (a test to commit). Programs that hit a known open bug
(`fuzz_oracle.KNOWN_BUGS`, each with its regression test) are counted separately.
A crash saves the program that was running (unshrunk) as a regression test that runs
in a subprocess. Each batch gets a fresh random seed.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
CURRENT = "FUZZ_CURRENT_PROGRAM"  # env var: where a worker keeps the program it is running


# The generators a run draws from: fuzz_programs' statements (2 programs in 5 by default),
# fuzz_nesting's nested staged loops over arguments of every kind (1 in 5), fuzz_slices'
# loops slicing with their counter (1 in 5), fuzz_layers' Python loops over lists of layers
# unrolled while tracing (1 in 5), or one of them only.
GENERATORS = ("mixed", "statements", "nested", "slices", "layers")
# Seconds one program may run (eager, trace, compile, the compiled runs): a staged loop that
# never ends is a finding too, so the worker exits and the program is saved as a crash.
PROGRAM_TIMEOUT = 300


def strategy_for(generator: str, gradients: bool):
    import numpy as np
    from fuzz_layers import layer_programs
    from fuzz_nesting import nested_programs
    from fuzz_programs import programs
    from fuzz_slices import slice_programs
    from hypothesis import strategies as st

    if gradients:  # differentiated: fuzz_programs' float64 first input
        return programs(first_input=np.float64)
    if generator == "statements":
        return programs()
    if generator == "nested":
        return nested_programs()
    if generator == "slices":
        return slice_programs()
    if generator == "layers":
        return layer_programs()
    return st.one_of(programs(), programs(), nested_programs(), slice_programs(), layer_programs())


def worker(count: int, seed: int, gradients: bool = False, generator: str = "mixed") -> None:
    """Run `count` programs; print TRIED <kinds> per program, FAILED <kinds> for the first
    failing one and MISMATCH <path> once it is shrunk."""
    import faulthandler
    import pickle

    from fuzz_oracle import OPTIONAL_PASSES, Mismatch, check, known_bug
    from fuzz_regressions import Recorder
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    recorder = Recorder(gradients=gradients)
    current = Path(os.environ[CURRENT])
    failed = []  # once a program failed, the calls that follow are hypothesis shrinking it
    strategy = strategy_for(generator, gradients)

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(program=strategy, optional=st.lists(st.sampled_from(OPTIONAL_PASSES), max_size=5))
    def fuzz(program, optional):
        current.write_bytes(pickle.dumps((program, [optional])))
        faulthandler.dump_traceback_later(PROGRAM_TIMEOUT, exit=True)  # a hang: a crash
        if not failed:
            print("TRIED", ",".join(sorted(set(program.kinds))), flush=True)
        findings = check(program, [optional], gradients)
        known = {known_bug(f) for f in findings}
        if findings and None not in known:
            print(f"KNOWN {sorted(known)[0]}", flush=True)  # counted, not shrunk again
            return
        if findings:
            if not failed:
                print("FAILED", ",".join(sorted(set(program.kinds))), flush=True)
            failed.append(True)
            message = "\n".join(map(str, findings))
            recorder.failed(program, [optional], message)
            raise Mismatch(message)

    try:
        fuzz()
    except Mismatch as error:
        print(f"MISMATCH {recorder.save()}\n{str(error)[:400]}", flush=True)
    current.unlink(missing_ok=True)


def run_batch(
    count: int, seed: int, state: Path, gradients: bool = False, generator: str = "mixed"
) -> tuple[int, list[str], str | None, int, dict]:
    """(programs tried, mismatch reports, crash report or None, programs that hit a known
    open bug, per-kind counts) of one worker process."""
    env = {**os.environ, CURRENT: str(state), "PYTHONFAULTHANDLER": "1"}
    command = [sys.executable, str(Path(__file__)), "--worker", str(count), "--seed", str(seed)]
    command += ["--grad"] if gradients else []
    command += ["--generator", generator]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=7200)
    lines = done.stdout.splitlines()
    tried = sum(line.startswith("TRIED") for line in lines)
    mismatches = [line for line in lines if line.startswith("MISMATCH")]
    known = sum(line.startswith("KNOWN ") for line in lines)
    kinds: dict[str, Counter] = {"tried": Counter(), "failed": Counter()}
    for line in lines:
        word, _, names = line.partition(" ")
        if word in ("TRIED", "FAILED"):
            kinds[word.lower()].update(n for n in names.split(",") if n)
    if done.returncode == 0:
        return tried, mismatches, None, known, kinds
    crash = save_crash(state, done)
    if state.exists():
        import pickle

        kinds["crashed"] = Counter(set(pickle.loads(state.read_bytes())[0].kinds))
    return tried, mismatches, crash, known, kinds


def save_crash(state: Path, done: subprocess.CompletedProcess) -> str:
    import pickle

    from fuzz_regressions import write_regression

    report = f"exit status {done.returncode}\n{done.stderr[-3000:]}"
    if state.exists():
        program, optional = pickle.loads(state.read_bytes())
        path = write_regression(program, optional, "CRASH " + report, crash=True)
        report = f"{path}\n{report}"
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, nargs="?", default=1000)
    parser.add_argument("--batch", type=int, default=100, help="programs per worker process")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers at once")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument(
        "--grad",
        action="store_true",
        help="also differentiate every program (its first input float64) and check the "
        "gradient against finite differences (fuzz_gradients.py)",
    )
    parser.add_argument(
        "--oracle",
        choices=("numpy", "iree"),
        default="numpy",
        help="iree: also compile each program with IREE (export-linalg; the interop extra) "
        "and compare it with NumPy and tracejit, in this process (fuzz_iree.py)",
    )
    parser.add_argument(
        "--generator",
        choices=GENERATORS,
        default="mixed",
        help="statements: fuzz_programs only; nested: fuzz_nesting only (nested staged loops, "
        "arguments of every kind); slices: fuzz_slices only (loops slicing with their "
        "counter); layers: fuzz_layers only (Python loops over lists of layers, unrolled: "
        "repeated loop nests); mixed (default): all four, 1 program in 5 nested, 1 in 5 "
        "slices, 1 in 5 layers",
    )
    parser.add_argument(
        "--focus",
        default="",
        help="comma-separated statement kinds (fuzz_programs' builders, e.g. einsum,binary) "
        "drawn for half the statements: to aim a run at a feature",
    )
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.oracle == "iree":
        from fuzz_iree import fuzz_iree

        report = fuzz_iree(args.count, args.seed or 0)
        print(report.summary())
        sys.exit(1 if report.counts["disagree"] or report.counts["iree_failure"] else 0)
    if args.focus:
        os.environ["FUZZ_FOCUS"] = args.focus  # the workers inherit it
    if args.worker is not None:
        worker(args.worker, args.seed, args.grad, args.generator)
        return
    rng = random.Random(args.seed)
    totals = {"tried": 0, "mismatches": 0, "crashes": 0, "known": 0}
    per_kind: dict[str, Counter] = {"tried": Counter(), "failed": Counter(), "crashed": Counter()}
    with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
        while totals["tried"] < args.count:  # a batch stops early at a mismatch: top up
            left = args.count - totals["tried"]
            counts = [min(args.batch, left - start) for start in range(0, left, args.batch)]
            batches = [
                (count, rng.randrange(2**32), k, args.grad, args.generator)
                for k, count in enumerate(counts)
            ]
            for report in pool.map(lambda b: _run_and_report(*b), batches):
                _add(totals, report)
                for key, counts in report[4].items():
                    per_kind[key].update(counts)
    print(
        f"programs tried: {totals['tried']} / mismatches: {totals['mismatches']} / "
        f"crashes: {totals['crashes']}"
    )
    if totals["known"]:
        print(f"(+ {totals['known']} programs hit a known open bug: fuzz_oracle.KNOWN_BUGS)")
    print("per statement kind: programs tried / mismatches / crashes")
    _table(per_kind, lambda kind: not kind.startswith(tuple(TAGS)))
    for prefix, title in TAGS.items():
        if any(kind.startswith(prefix) for kind in per_kind["tried"]):
            print(f"{title}: programs tried / mismatches / crashes")
            _table(per_kind, lambda kind, p=prefix: kind.startswith(p), sort=True)
    sys.exit(1 if totals["mismatches"] or totals["crashes"] else 0)


# The whole-program generators' tags in Program.kinds (counted, not statement kinds).
TAGS = {
    "shape:": "nesting shapes (fuzz_nesting)",
    "slice:": "loops slicing with their counter (fuzz_slices)",
    "layer:": "Python loops over lists of layers (fuzz_layers)",
}


def _table(per_kind: dict[str, Counter], keep, sort: bool = False) -> None:
    """One line per kind `keep` accepts: tried / failed / crashed (tags by name, so that a
    tag missing from a run, a blind spot, is easy to see next to its neighbours)."""
    tried = [(k, n) for k, n in per_kind["tried"].most_common() if keep(k)]
    for kind, count in sorted(tried) if sort else tried:
        failed, crashed = per_kind["failed"][kind], per_kind["crashed"][kind]
        name = kind.split(":", 1)[1] if kind.startswith(tuple(TAGS)) else kind
        print(f"  {name:<16} {count:>6} / {failed} / {crashed}")


def _run_and_report(count: int, seed: int, slot: int, gradients: bool, generator: str) -> tuple:
    """One worker process's batch; prints its findings as soon as it ends."""
    state = HERE / f".fuzz_current_{os.getpid()}_{slot}.pickle"
    done, found, crash, known, kinds = run_batch(count, seed, state, gradients, generator)
    state.unlink(missing_ok=True)
    for line in found:
        print(line, flush=True)
    if crash is not None:
        print(f"CRASH (seed {seed}): {crash}", flush=True)
    return done, found, crash, known, kinds


def _add(totals: dict, report: tuple) -> None:
    done, found, crash, known, _ = report
    totals["tried"] += max(done, 1)  # a batch that crashed before its first program counts
    totals["mismatches"] += len(found)
    totals["crashes"] += crash is not None
    totals["known"] += known
    print(f"... {totals['tried']} programs tried", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
