"""Chapter 10: apply the PDL patterns of a file to tracejit IR, as xDSL's `apply-pdl` does.

    tracejit-opt f.py:fn --signature "f32[4]" -p '' | python apply_pdl.py PATTERNS.pdl -

reads IR of any stage (a file, or `-` for stdin), applies every `pdl.pattern` of
PATTERNS.pdl greedily (xDSL's PDL interpreter, `xdsl.interpreters.pdl`) and prints the
verified result. tracejit-opt has no `apply-pdl` pass: its passes take no file arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path

from xdsl.dialects import pdl
from xdsl.parser import Parser
from xdsl.transforms.apply_pdl import ApplyPDLPass

from tracejit.ir.dialect import make_context


def main(patterns: str, source: str) -> None:
    ctx = make_context()  # every dialect of tracejit's stages ...
    ctx.load_dialect(pdl.PDL)  # ... and PDL, to parse the patterns
    text = sys.stdin.read() if source == "-" else Path(source).read_text()
    module = Parser(ctx, text).parse_module()
    ApplyPDLPass(patterns).apply(ctx, module)
    module.verify()
    print(module)


if __name__ == "__main__":
    main(*sys.argv[1:])
