"""How a ConcreteFunction shows in a notebook: its traced graph as a picture, IR highlighted.

`graph_html(module)` is the HTML Jupyter displays for a ConcreteFunction: the module's
dataflow graph (dot_graph.py) as SVG when Graphviz's `dot` program is installed, else the
IR as text (highlighted when Pygments is there, as it is wherever IPython is; escaped
otherwise). `HighlightedIR` is a stage's IR text that displays highlighted: MLIR by the
lexer below, LLVM IR and assembly by Pygments' own.

Nothing here runs unless a notebook (or a user) asks for the HTML: `dot` and Pygments are
looked up then, never on import.
"""

from __future__ import annotations

import html
import shutil
import subprocess
from typing import TYPE_CHECKING, Any

from tracejit.compiler.dot_graph import module_to_dot

if TYPE_CHECKING:
    from xdsl.ir import Operation

# A graph this big takes `dot` long to lay out and the browser long to show: text instead.
MAX_GRAPH_OPS = 400
# IR shown as text is cut after this many characters (a constant can be megabytes).
MAX_TEXT = 200_000
DOT_TIMEOUT_SECONDS = 20


def graph_svg(module: Operation) -> str | None:
    """The module's dataflow graph as an SVG element, or None when `dot` is not installed,
    fails, or the graph is too big to draw."""
    dot = shutil.which("dot")
    if dot is None or sum(1 for _ in module.walk()) > MAX_GRAPH_OPS:
        return None
    try:
        result = subprocess.run(
            [dot, "-Tsvg"],
            input=module_to_dot(module),
            capture_output=True,
            text=True,
            timeout=DOT_TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if result.returncode != 0 or "<svg" not in result.stdout:
        return None
    return result.stdout[result.stdout.index("<svg") :]  # without the XML prolog and DOCTYPE


def graph_html(module: Operation, title: str) -> str:
    """`title` (the trace's signature) above the graph, drawn or as highlighted IR."""
    svg = graph_svg(module)
    body = svg if svg is not None else HighlightedIR(str(module))._repr_html_()
    return (
        '<div class="tracejit-concrete-function">'
        f"<pre>{html.escape(title)}</pre>{body}</div>"
    )


class HighlightedIR:
    """IR text that Jupyter displays highlighted; `str()` is the text itself.

    `language`: "mlir" (tracejit's and upstream dialects), "llvm" (LLVM IR) or "asm".
    """

    def __init__(self, text: str, language: str = "mlir"):
        self.text = text
        self.language = language

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        text = self.text
        if len(text) > MAX_TEXT:
            text = text[:MAX_TEXT] + f"\n... ({len(self.text) - MAX_TEXT} more characters)"
        highlighted = _pygments_html(text, self.language)
        if highlighted is not None:
            return highlighted
        return f'<pre class="tracejit-ir">{html.escape(text)}</pre>'


def _pygments_html(text: str, language: str) -> str | None:
    """`text` highlighted as HTML with inline styles, or None without Pygments."""
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import GasLexer, LlvmLexer
    except ImportError:
        return None
    lexer: Any = {"llvm": LlvmLexer, "asm": GasLexer}.get(language) or _mlir_lexer()
    return highlight(text, lexer(), HtmlFormatter(noclasses=True, cssclass="tracejit-ir"))


def _mlir_lexer() -> Any:
    """A Pygments lexer for MLIR's text form (Pygments has none): what tells ops, values,
    blocks, symbols, types and constants apart."""
    from pygments.lexer import RegexLexer
    from pygments.token import Comment, Keyword, Name, Number, Operator, String, Text

    class MlirLexer(RegexLexer):
        name = "MLIR"
        tokens = {
            "root": [
                (r"//.*?$", Comment.Single),
                (r'"(\\\\.|[^"\\\\])*"', String),
                (r"%[\w.$#-]+", Name.Variable),  # SSA values: %0, %arg1, %c0
                (r"\^[\w.$-]+", Name.Label),  # blocks: ^bb1
                (r"@[\w.$-]+", Name.Function),  # symbols: @f
                (r"![\w.$-]+", Keyword.Type),  # dialect types: !tj.var
                (r"#[\w.$-]+", Name.Constant),  # attribute aliases
                (r"\b(tensor|memref|vector)<[^<>]*(<[^<>]*>[^<>]*)*>", Keyword.Type),
                (r"\b(index|i\d+|f\d+|bf16|complex|none)\b", Keyword.Type),
                (r"\b(dense|true|false|unit|attributes|to|dims)\b", Keyword),
                (r"\b[a-z_]\w*\.[\w.]+\b", Name.Builtin),  # ops: tj.add, func.func
                (r"-?\d+\.\d*([eE][+-]?\d+)?|0x[0-9a-fA-F]+|-?\d+", Number),
                (r"[=:,()\[\]{}<>*+-]|->", Operator),
                (r"\s+|\w+|.", Text),
            ]
        }

    return MlirLexer

