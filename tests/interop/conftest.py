"""Makes `interop_cases` (and the fuzzer's helpers) importable from the tests here
(tests/ has no packages)."""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "fuzz"))
