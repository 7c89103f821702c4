"""Runs the lit + FileCheck IR tests under tests/filecheck/ as part of pytest."""

import os
import subprocess
import sys

FILECHECK_DIR = os.path.join(os.path.dirname(__file__), "filecheck")


def test_lit_filecheck_suite():
    lit = os.path.join(os.path.dirname(sys.executable), "lit")
    result = subprocess.run(
        [lit, "-v", "--order=lexical", FILECHECK_DIR], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr[-5000:]
    assert "Passed" in result.stdout
