"""AutoGraph: Python control flow on tensors, staged as `tj.if` / `tj.while`.

`convert(f)` rewrites a function's source so that `if`/`while`/`for`/`break`/`continue`/
`return`/`and`/`or`/`not`/`assert` dispatch at trace time (`operators.py`): Python values
run as Python, symbolic tensors are staged. `to_code(f)` shows the converted source.
Pipeline: `lowering.py` (jumps -> flags), `transformer.py` (statements -> dispatcher
calls), `conversion.py` (source in, function object out; `converted_call`).
"""

from tracejit.frontend.autograph import experimental
from tracejit.frontend.autograph.conversion import convert, converted_call, to_code

__all__ = ["convert", "converted_call", "experimental", "to_code"]
