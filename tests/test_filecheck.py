"""Runs the lit + FileCheck IR tests under tests/filecheck/ as part of pytest.

The suite is cut into lit shards, one pytest test each, so that pytest-xdist spreads them
over the cores with the rest of the tests instead of leaving one worker the whole suite.
"""

import os
import subprocess
import sys

import pytest

FILECHECK_DIR = os.path.join(os.path.dirname(__file__), "filecheck")
SHARDS = 4


@pytest.mark.parametrize("shard", range(1, SHARDS + 1))
def test_lit_filecheck_suite(shard, tmp_path):
    lit = os.path.join(os.path.dirname(sys.executable), "lit")
    command = [lit, "-v", "--order=lexical", f"--num-shards={SHARDS}", f"--run-shard={shard}"]
    environment = {**os.environ, "TRACEJIT_LIT_EXEC_ROOT": str(tmp_path)}
    result = subprocess.run(
        [*command, FILECHECK_DIR], capture_output=True, text=True, env=environment
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    assert "Passed" in result.stdout
