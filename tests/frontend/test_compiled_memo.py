"""A module compiled once per process (compiler/compiled_memo.py): a Function made again from
the same code loads the machine code compiled for the first one, rebinds its own callbacks,
and answers as NumPy does; the memo stays bounded and steps aside for the persistent cache.

Each test's functions hold a constant of their own, so that no other test in the same worker
has compiled their modules first."""

from __future__ import annotations

import logging
import tempfile

import numpy as np
import pytest

import tracejit as tj
from tests.conftest import answers_with_user_defaults, assert_same, run_eagerly
from tracejit.compiler.compiled_memo import CompiledMemo, entry_for

MEMO_HIT = "earlier compile of the same module"


def _first_call_log(function, *args, caplog):
    """The function's answer and the tracejit log lines of its first call."""
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="tracejit"):
        answer = function(*args)
    return answer, [r.getMessage() for r in caplog.records if r.name == "tracejit"]


def _scaled_sum():
    def scaled_sum(x):
        return np.sum(x * 2.0625, axis=0) - np.float64(0.71875)

    return tj.function(scaled_sum)


def test_a_function_made_again_loads_the_first_ones_machine_code(caplog):
    x = np.arange(12.0).reshape(3, 4)
    first, log = _first_call_log(_scaled_sum(), x, caplog=caplog)
    assert any("cache miss" in line for line in log), log
    again = _scaled_sum()
    second, log = _first_call_log(again, x, caplog=caplog)
    assert any(MEMO_HIT in line for line in log), log
    assert_same(second, run_eagerly(again, x))
    assert_same(second, first)
    # a loaded module keeps its optimised LLVM IR and its assembly
    concrete = again.get_concrete_function(x)
    assert "define" in concrete.llvm_ir and ".globl" in concrete.asm


def test_other_shapes_dtypes_and_bounds_checks_compile_their_own_module(caplog):
    x = np.arange(12.0).reshape(3, 4)
    _scaled_sum()(x)
    for args in ([x[:2]], [x.astype(np.float32)]):
        function = _scaled_sum()
        answer, log = _first_call_log(function, *args, caplog=caplog)
        assert not any(MEMO_HIT in line for line in log), log
        assert_same(answer, run_eagerly(function, *args))
    previous = tj.config.check_bounds()
    tj.config.set_check_bounds(not previous)
    try:
        _, log = _first_call_log(_scaled_sum(), x, caplog=caplog)
    finally:
        tj.config.set_check_bounds(previous)
    assert not any(MEMO_HIT in line for line in log), log


def _logging_function(sink):
    def record(value):
        sink.append(float(value))
        return value

    def logged(x):
        total = np.sum(x) + np.float64(0.40625)
        tj.print("logged total", total)
        return tj.py_function(record, [total], np.float64) * 2

    return tj.function(logged)


def test_a_loaded_module_calls_the_new_functions_callbacks(capsys, caplog):
    first_sink, second_sink = [], []
    x = np.array([1.0, 2.0, 4.0])
    _logging_function(first_sink)(x)
    answer, log = _first_call_log(_logging_function(second_sink), x, caplog=caplog)
    assert any(MEMO_HIT in line for line in log), log
    assert answer == (7.40625 * 2)
    assert first_sink == [7.40625] and second_sink == [7.40625]
    assert capsys.readouterr().out.count("logged total 7.40625") == 2


def test_a_loaded_module_answers_the_first_call_under_tiered_execution(caplog):
    def tiered_body(x):
        return np.cumsum(x * np.float64(1.34375))

    x = np.linspace(-1.0, 1.0, 7)
    tj.function(tiered_body)(x)
    # with the defaults users get, the first call of a Function made again does not wait for
    # a background compile: it loads the module and answers from compiled code at once
    tj.config.set_tiered_compilation(True)
    try:
        again = tj.function(tiered_body)
        answer = again(x)
        assert again.get_concrete_function(x).is_compiled
    finally:
        tj.config.set_tiered_compilation(False)
    assert_same(answer, run_eagerly(tj.function(tiered_body), x))
    answers = answers_with_user_defaults(tiered_body, x)
    for each in answers:
        assert_same(each, answer)


def test_with_a_cache_directory_the_directory_serves_instead(caplog):
    def cached_body(x):
        return x * np.float64(3.28125) + 1

    x = np.arange(5.0)
    previous = tj.config.cache_dir(), tj.config.cache_max_bytes()
    with tempfile.TemporaryDirectory() as directory:
        tj.config.set_cache_dir(directory)
        try:
            tj.function(cached_body)(x)
            answer, log = _first_call_log(tj.function(cached_body), x, caplog=caplog)
        finally:
            tj.config.set_cache_dir(*previous)
    assert any("from the compiled-code cache" in line for line in log), log
    assert_same(answer, x * 3.28125 + 1)


def _entry(size: int):
    return entry_for(b"\0" * size, {}, [], [], "")


def test_the_memo_is_bounded_and_evicts_the_least_recently_used():
    memo = CompiledMemo(max_bytes=1000)
    for key in "abc":
        memo.put(key, _entry(300))
    assert len(memo) == 3 and memo.bytes <= 1000
    assert memo.get("a") is not None  # "a" is now the most recently used
    memo.put("d", _entry(300))
    assert "b" not in memo and all(key in memo for key in "acd")
    assert memo.bytes <= 1000
    memo.put("huge", _entry(5000))  # larger than the whole memo: not kept, nothing evicted
    assert "huge" not in memo and len(memo) == 3
    memo.put("a", _entry(100))  # replaced, not counted twice
    assert memo.bytes == sum(memo.get(k).size for k in "acd")
    memo.clear()
    assert len(memo) == 0 and memo.bytes == 0


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_functions_made_in_a_loop_compile_once(dtype, caplog):
    x = np.arange(-4, 5).astype(dtype)
    hits = 0
    for _ in range(3):

        def clipped(v):
            return np.clip(v // 2, -1, 1) * 5

        function = tj.function(clipped)
        answer, log = _first_call_log(function, x, caplog=caplog)
        hits += any(MEMO_HIT in line for line in log)
        assert_same(answer, run_eagerly(function, x))
    assert hits == 2


def _registered_pass(name: str, apply):
    """A pass class named `name` whose `apply` is `apply(module)`."""
    from dataclasses import dataclass

    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class Registered(ModulePass):
        def apply(self, ctx, op) -> None:
            apply(op)

    Registered.name = name
    return Registered


def test_what_a_registered_pass_compiles_is_never_kept(monkeypatch):
    """A pass registered after import (a course exercise's, a user's) may behave differently
    from one compile to the next: its results are neither memoised nor reused, and a class
    registered again under the same name is the one that runs."""
    from tracejit.passes.pipeline import DEFAULT_PIPELINE, PASSES

    seen = []
    monkeypatch.setitem(PASSES, "test-count", lambda: _registered_pass("test-count", seen.append))
    pipeline = ("test-count", *DEFAULT_PIPELINE)

    def counted(x):
        return x * np.float64(1.15625)

    x = np.arange(3.0)
    for expected_runs in (1, 2):
        assert_same(tj.function(counted, experimental_pipeline=pipeline)(x), x * 1.15625)
        assert len(seen) == expected_runs  # the pass ran again: nothing was kept

    def refuse(module):
        raise RuntimeError("the second class of test-count ran")

    monkeypatch.setitem(PASSES, "test-count", lambda: _registered_pass("test-count", refuse))
    with pytest.raises(Exception, match="the second class of test-count ran"):
        tj.function(counted, experimental_pipeline=pipeline)(x)
    assert len(seen) == 2


def test_a_loaded_module_reads_and_writes_its_own_functions_variables_and_captures():
    def make(variable, table):
        @tj.function
        def stepped(x):
            variable.assign_add(x * np.float64(0.53125))
            return x * variable.read_value() + table

        return stepped

    x, table = np.array([1.0, -2.0]), np.array([3.0, 4.0])
    first_variable, second_variable = tj.Variable(np.array([1.0, 2.0])), tj.Variable(np.zeros(2))
    first, second = make(first_variable, table), make(second_variable, table)
    assert_same(first(x), x * (np.array([1.0, 2.0]) + x * 0.53125) + table)
    # the same module (a Variable is an argument of the kernel): loaded, on its own Variable
    assert_same(second(x), x * (x * 0.53125) + table)
    assert second.get_concrete_function(x).compilation.from_memo
    assert_same(first_variable.numpy(), np.array([1.0, 2.0]) + x * 0.53125)
    assert_same(second_variable.numpy(), x * 0.53125)
    # another captured array is another constant of the module: compiled for it
    third = make(tj.Variable(np.ones(2)), np.array([-5.0, 6.0]))
    assert_same(third(x), x * (1 + x * 0.53125) + np.array([-5.0, 6.0]))
    assert not third.get_concrete_function(x).compilation.from_memo
