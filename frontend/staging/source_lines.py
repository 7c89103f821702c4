"""A function's source lines, found without `inspect.getsourcelines`' search for its module.

`inspect.findsource` asks `inspect.getmodule` which module a file belongs to, and that call
computes the real path of every loaded module the first time (~40 ms in a process that has
imported NumPy, xDSL and tracejit: most of the first call of a function whose machine code
comes from the persistent cache). The function's own globals already name its module's
loader, which is all `linecache` needs. The rest follows inspect: the definition line is
searched upwards from `co_firstlineno`, and `inspect.getblock` cuts the block.
"""

from __future__ import annotations

import inspect
import linecache
import re
import types

# inspect's own pattern for the line a definition starts on (def, async def, lambda, decorator)
_DEFINITION = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def source_lines(code: types.CodeType, module_globals: dict[str, object]) -> tuple[list[str], int]:
    """The lines of `code`'s definition and the 1-based number of the first; OSError when its
    source is not available (typed at a prompt, or the file is gone)."""
    filename = code.co_filename
    linecache.checkcache(filename)  # the file may have been edited since it was read
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        raise OSError(f"no source lines for {filename}")
    first = code.co_firstlineno - 1
    if not 0 <= first < len(lines):
        raise OSError(f"line {code.co_firstlineno} is not in {filename}")
    while first > 0 and not _DEFINITION.match(lines[first]):
        first -= 1
    return inspect.getblock(lines[first:]), first + 1
