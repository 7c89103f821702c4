"""Hostile inputs (`hostile_cases.py`), each isolated in a child interpreter: a clear Python
exception or NumPy's answer, never a crash. A crash is reported as this test failing."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile_cases import CASES
from isolation import run_isolated

CASES_FILE = str(Path(__file__).with_name("hostile_cases.py"))


@pytest.fixture(scope="module")
def outcomes() -> dict[str, str]:
    return run_isolated(CASES_FILE, list(CASES))


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_input(outcomes, name):
    assert outcomes[name] == "PASS", outcomes[name]
