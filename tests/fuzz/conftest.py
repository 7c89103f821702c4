"""Makes the fuzzer's helper modules (`fuzz_programs`, `fuzz_oracle`) importable from the
tests in this directory and in `regressions/` (tests/ has no packages)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
