"""Logging of traces, compiles and cache stores (compiler/compile_log.py, logger "tracejit")."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import tracejit as tj
from tracejit.compiler import compile_log


@pytest.fixture(autouse=True)
def _restore():
    yield
    tj.config.set_log_compiles(False)
    tj.config.set_cache_dir(None)


def _scaled():
    @tj.function
    def scaled(x, n):
        return np.tanh(x) * n

    return scaled


def test_each_trace_and_compile_is_logged_at_debug(caplog):
    scaled = _scaled()
    with caplog.at_level(logging.DEBUG, logger="tracejit"):
        scaled(np.ones(3, np.float32), 2.0)
        scaled(np.ones(4, np.float32), 2.0)
        scaled(np.ones(4, np.float32), 2.0)  # no trace, no compile
    messages = [r.getMessage() for r in caplog.records if r.name == "tracejit"]
    traces = [m for m in messages if m.startswith("traced scaled(")]
    compiles = [m for m in messages if m.startswith("compiled scaled(x, n)")]
    assert len(traces) == 2 and len(compiles) == 2
    assert traces[0].startswith("traced scaled(float32[3], 2.0) in ")
    assert traces[0].endswith("(its first call)")
    assert "a new shape ((3,) -> (4,)) in argument 'x'" in traces[1]
    assert "synchronously" in compiles[0] and "cache miss" in compiles[0]
    for stage in ("canonicalize", "bufferize", "LLVM O3", "machine code"):
        assert f"{stage} " in compiles[0]
    assert all(r.levelno == logging.DEBUG for r in caplog.records if r.name == "tracejit")


def test_set_log_compiles_logs_at_warning(caplog):
    tj.config.set_log_compiles(True)
    assert tj.config.log_compiles()
    with caplog.at_level(logging.WARNING, logger="tracejit"):
        _scaled()(np.ones(3, np.float32), 2.0)
    levels = {r.levelno for r in caplog.records if r.name == "tracejit"}
    assert levels == {logging.WARNING}


def test_cache_stores_and_hits_are_logged(caplog, tmp_path):
    tj.config.set_cache_dir(tmp_path)
    with caplog.at_level(logging.DEBUG, logger="tracejit"):
        _scaled()(np.ones(5, np.float32), 3.0)
        _scaled()(np.ones(5, np.float32), 3.0)  # a new Function: traced, loaded from disk
    messages = [r.getMessage() for r in caplog.records if r.name == "tracejit"]
    assert any(m.startswith("stored ") and "bytes of object code" in m for m in messages)
    assert any("from the compiled-code cache" in m and "cache hit" in m for m in messages)


def test_a_slow_compile_warns_once_naming_its_longest_stage(caplog, monkeypatch):
    monkeypatch.setattr(compile_log, "SLOW_COMPILE_SECONDS", 0.0)
    scaled = _scaled()
    with caplog.at_level(logging.WARNING, logger="tracejit"):
        scaled(np.ones(6, np.float32), 2.0)
        scaled(np.ones(7, np.float32), 2.0)
    slow = [r.getMessage() for r in caplog.records if "the longest stage was" in r.getMessage()]
    assert len(slow) == 1
    assert slow[0].startswith("compiling scaled(x, n) took ")


def test_a_tiered_compile_is_logged_as_background(caplog):
    tj.config.set_tiered_compilation(True)
    try:
        scaled = _scaled()
        with caplog.at_level(logging.DEBUG, logger="tracejit"):
            scaled(np.ones(8, np.float32), 2.0)  # interpreted; compiled in the background
            tj.config.wait_for_compiles()
    finally:
        tj.config.set_tiered_compilation(False)
    messages = [r.getMessage() for r in caplog.records if r.name == "tracejit"]
    assert any("in the background (tiered execution)" in m for m in messages)
