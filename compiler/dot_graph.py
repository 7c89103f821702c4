"""`--emit dot`: the dataflow of a module as a Graphviz graph.

Every op is a box labelled with its name, its properties and attributes (`kind=sum,
axes=[1]`: a short rendering of each, without those at their default value) and its result
types, every SSA use an edge from the value's producer to its user, and block arguments (a
function's inputs) are ellipses. An op with regions (a `func.func`, later a fused `tj.fused`
kernel) is drawn as a `subgraph cluster_N` holding its blocks' arguments and ops; when it has
operands or results itself, an anchor box for it inside the cluster takes the edges.

    tracejit-opt model.py:f --signature "f32[8,4], f32[4]" --emit dot | dot -Tpng -o f.png
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.irdl import IRDLOperation

_STYLE = (
    "  rankdir=TB;\n"
    '  node [shape=box, fontname="monospace", fontsize=10];\n'
    '  edge [fontname="monospace", fontsize=8];\n'
)


def quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


# Bookkeeping properties that say nothing about what an op computes.
_HIDDEN = frozenset({"operandSegmentSizes", "resultSegmentSizes"})
# A property's rendering is cut to this many characters (a constant can be megabytes).
_MAX_VALUE = 40


def attribute_text(attr: Attribute) -> str:
    """A short rendering: `sum` for a string, `[0, 1]` for an i64 array, `dense<1.0>` for
    a constant (its type is the result type, shown anyway), else the attribute's text."""
    if isinstance(attr, StringAttr):
        text = attr.data
    elif isinstance(attr, (IntegerAttr, FloatAttr)):
        text = str(attr.value.data)
    elif isinstance(attr, DenseArrayBase):
        text = str(list(attr.get_values()))
    elif isinstance(attr, DenseIntOrFPElementsAttr):
        text = str(attr).partition(" : ")[0]
    else:
        text = str(attr)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def properties_text(op: Operation) -> str:
    """`name=value, ...` of the op's properties and attributes, except those at their
    IRDL default value: what tells a `tj.reduce` "sum" from a "max", or axes [0] from [1]."""
    definition = op.get_irdl_definition() if isinstance(op, IRDLOperation) else None
    parts = []
    for name, attr in (*op.properties.items(), *op.attributes.items()):
        default = definition.properties.get(name) if definition is not None else None
        if name in _HIDDEN or (default is not None and attr == default.default_value):
            continue
        parts.append(f"{name}={attribute_text(attr)}")
    return ", ".join(parts)


def op_label(op: Operation) -> str:
    """The op's name, then its properties on a second line if it has any."""
    properties = properties_text(op)
    return op.name + (f"\n{properties}" if properties else "")


def cluster_label(op: Operation) -> str:
    if isinstance(op, func.FuncOp):
        return f"func.func @{op.sym_name.data}"
    return op_label(op)


class DotGraph:
    """Builds the `digraph` text of one module; `node_of` maps values to their node ids."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.edges: list[str] = []
        self.node_of: dict[SSAValue | Operation, str] = {}
        self.clusters = 0
        self.nodes = 0

    def render(self, module: Operation) -> str:
        for op in module.regions[0].ops if module.regions else ():
            self.add_op(op, "  ")
        body = "".join(self.lines) + "".join(self.edges)
        return "digraph tj {\n" + _STYLE + body + "}\n"

    def new_node(self, kind: str) -> str:
        self.nodes += 1
        return f"{kind}{self.nodes - 1}"

    def add_op(self, op: Operation, indent: str) -> None:
        if op.regions:
            self.add_cluster(op, indent)
        else:
            self.add_node(op, indent)

    def add_node(self, op: Operation, indent: str) -> None:
        node = self.new_node("n")
        self.node_of[op] = node
        types = ", ".join(str(result.type) for result in op.results)
        label = op_label(op) + (f"\n{types}" if types else "")
        self.lines.append(f"{indent}{node} [label={quote(label)}];\n")
        for result in op.results:
            self.node_of[result] = node
        for operand in op.operands:
            self.add_edge(operand, node)

    def add_cluster(self, op: Operation, indent: str) -> None:
        number = self.clusters
        self.clusters += 1
        self.lines.append(f"{indent}subgraph cluster_{number} {{\n")
        self.lines.append(f"{indent}  label={quote(cluster_label(op))};\n")
        if op.operands or op.results:
            self.add_node(op, indent + "  ")
        for region in op.regions:
            for block in region.blocks:
                self.add_block(block, indent + "  ")
        self.lines.append(f"{indent}}}\n")

    def add_block(self, block: Block, indent: str) -> None:
        for argument in block.args:
            node = self.new_node("a")
            self.node_of[argument] = node
            label = f"%{argument.name_hint or f'arg{argument.index}'}\n{argument.type}"
            self.lines.append(f"{indent}{node} [label={quote(label)}, shape=ellipse];\n")
        for op in block.ops:
            self.add_op(op, indent)

    def add_edge(self, value: SSAValue, target: str) -> None:
        source = self.node_of.get(value)
        if source is None:  # defined later (a graph region) or outside what we drew
            return
        label = ""
        if isinstance(value, OpResult) and len(value.op.results) > 1:
            label = f" [label={quote(str(value.index))}]"
        self.edges.append(f"  {source} -> {target}{label};\n")


def module_to_dot(module: Operation) -> str:
    return DotGraph().render(module)
