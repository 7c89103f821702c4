"""In Jupyter a ConcreteFunction displays as its traced graph (compiler/ir_display.py): an
SVG picture when Graphviz's `dot` is installed, the IR as escaped (highlighted) text when it
is not; `highlighted_ir(after=...)` shows a stage's IR highlighted.

The display is checked in a real kernel (nbclient runs a notebook in ipykernel), since what
IPython asks of an object (`_repr_html_` among the others, and what it does with the
answer) is what matters, not the method alone.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import tracejit as tj
from tracejit.compiler import ir_display


@tj.function
def _scaled_tanh(x):
    return np.tanh(x) * 2.0


def _concrete():
    return _scaled_tanh.get_concrete_function(tj.TensorSpec([3], tj.float64))


# --- the HTML itself ---------------------------------------------------------------------
def test_without_dot_the_graph_is_the_ir_as_escaped_text(monkeypatch):
    monkeypatch.setattr(ir_display.shutil, "which", lambda name: None)
    html = _concrete()._repr_html_()
    assert "<svg" not in html
    assert "ConcreteFunction _scaled_tanh(x)" in html  # the signature above the graph
    assert "tensor&lt;3xf64&gt;" in html and "tensor<3xf64>" not in html  # escaped
    assert "tj.tanh" in html


def test_without_pygments_the_ir_is_plain_escaped_text(monkeypatch):
    monkeypatch.setattr(ir_display, "_pygments_html", lambda text, language: None)
    html = ir_display.HighlightedIR("%1 = tj.add %0, %0 : tensor<3xf64>")._repr_html_()
    assert html == '<pre class="tracejit-ir">%1 = tj.add %0, %0 : tensor&lt;3xf64&gt;</pre>'


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_with_dot_the_graph_is_an_svg_picture_of_the_ops():
    html = _concrete()._repr_html_()
    assert "<svg" in html and "<?xml" not in html and "<!DOCTYPE" not in html
    assert "tj.tanh" in html and "tj.mul" in html


def test_a_graph_too_big_to_draw_is_shown_as_text(monkeypatch):
    monkeypatch.setattr(ir_display, "MAX_GRAPH_OPS", 2)
    assert ir_display.graph_svg(_concrete().graph.module) is None


def test_highlighted_ir_takes_passes_llvm_and_asm():
    concrete = _concrete()
    assert str(concrete.highlighted_ir("canonicalize")) == concrete.ir("canonicalize")
    assert str(concrete.highlighted_ir("llvm")) == concrete.llvm_ir
    assert concrete.highlighted_ir("asm").language == "asm"
    with pytest.raises(ValueError, match="is not in the pipeline"):
        concrete.highlighted_ir("no-such-pass")


def test_long_ir_is_cut_in_the_display(monkeypatch):
    monkeypatch.setattr(ir_display, "MAX_TEXT", 10)
    monkeypatch.setattr(ir_display, "_pygments_html", lambda text, language: None)
    html = ir_display.HighlightedIR("x" * 25)._repr_html_()
    assert html == '<pre class="tracejit-ir">xxxxxxxxxx\n... (15 more characters)</pre>'


# --- in a real kernel ----------------------------------------------------------------------
NOTEBOOK_CELLS = [
    """\
import numpy as np
import tracejit as tj

@tj.function
def scaled_tanh(x):
    return np.tanh(x) * 2.0

concrete = scaled_tanh.get_concrete_function(tj.TensorSpec([3], tj.float64))""",
    "concrete",  # the display of a ConcreteFunction
    """\
import os
os.environ["PATH"] = ""  # no `dot` from here on
concrete""",
    'concrete.highlighted_ir(after="bufferize")',
    "concrete.graph",
]


@pytest.fixture(scope="module")
def executed_notebook(tmp_path_factory):
    """The cells above, run by nbclient in an IPython kernel (this Python's ipykernel)."""
    missing = [m for m in ("nbclient", "nbformat", "ipykernel") if not _importable(m)]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (pyproject.toml's test extra)")
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in NOTEBOOK_CELLS]
    directory = tmp_path_factory.mktemp("notebook")
    client = NotebookClient(
        notebook,
        timeout=180,
        # a kernel's first start in a fresh clone (no bytecode cache: PYTHONDONTWRITEBYTECODE)
        # next to the suite's other worker has taken over nbclient's default 60 s
        startup_timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(directory)}},
    )
    client.execute()  # raises CellExecutionError, with the traceback, if a cell fails
    return notebook


def _importable(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _display(notebook, cell: int) -> dict:
    (output,) = [o for o in notebook.cells[cell].outputs if o.output_type == "execute_result"]
    return output.data


def test_a_concrete_function_displays_as_its_graph_in_a_kernel(executed_notebook):
    data = _display(executed_notebook, 1)
    assert data["text/plain"].startswith("ConcreteFunction scaled_tanh(x)")
    html = data["text/html"]
    assert html.startswith('<div class="tracejit-concrete-function">')
    if shutil.which("dot") is not None:  # the kernel sees the same PATH as this process
        assert "<svg" in html and "tj.tanh" in html
    else:
        assert "<svg" not in html and "tensor&lt;3xf64&gt;" in html


def test_without_dot_the_kernel_shows_the_ir_as_text(executed_notebook):
    html = _display(executed_notebook, 2)["text/html"]
    assert "<svg" not in html
    assert "tj.tanh" in html and "tensor&lt;3xf64&gt;" in html


def test_a_stage_ir_displays_highlighted_in_a_kernel(executed_notebook):
    data = _display(executed_notebook, 3)
    assert "memref" in data["text/plain"]  # bufferize's output: the text itself
    html = data["text/html"]
    assert 'class="tracejit-ir"' in html and "<span" in html  # Pygments' highlighting


def test_a_graph_displays_in_a_kernel(executed_notebook):
    assert "graph of scaled_tanh" in _display(executed_notebook, 4)["text/html"]
